#include "each.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <thread>
#include <unordered_map>

#include "graphgen/analysis/ranks.h"
#include "graphgen/io.h"

namespace graphgen::pipeline {

using namespace formats;

namespace {

namespace fs = std::filesystem;

std::string_view file_name(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// cpu_12.prof.gz -> cpu_12: the last extension, and a compression suffix before it.
std::string stem_of(std::string_view path) {
  std::string_view name = file_name(path);
  for (std::string_view z : {".gz", ".bz2", ".xz", ".zst"})
    if (name.size() > z.size() && name.ends_with(z)) {
      name.remove_suffix(z.size());
      break;
    }
  std::size_t dot = name.rfind('.');
  if (dot != std::string_view::npos && dot > 0) name = name.substr(0, dot);
  return std::string(name);
}

bool is_device(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
}

// --- what a worker sends back: length-prefixed fields ------------------------

void put_u32(std::string& out, std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
void put_str(std::string& out, std::string_view s) {
  put_u32(out, static_cast<std::uint32_t>(s.size()));
  out.append(s);
}

bool get_u32(std::string_view& in, std::uint32_t& v) {
  if (in.size() < 4) return false;
  std::memcpy(&v, in.data(), 4);
  in.remove_prefix(4);
  return true;
}
bool get_str(std::string_view& in, std::string& s) {
  std::uint32_t n;
  if (!get_u32(in, n) || in.size() < n) return false;
  s.assign(in.substr(0, n));
  in.remove_prefix(n);
  return true;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool read_all(int fd, char* to, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::read(fd, to, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    to += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// One input, start to finish, as a worker does it.
EachResult convert_one(const Request& base, const std::string& input, const std::string& output) {
  EachResult res;
  res.input = input;
  res.output = output;
  Request r = base;
  r.inputs = {input};
  r.write.title = input;  // the picture is of this input alone
  r.write.cmd = input;
  Diagnostics diag;
  auto out = convert(r, diag);
  res.warnings = diag.warnings();
  if (out) {
    fs::path parent = fs::path(output).parent_path();
    std::error_code ec;
    if (!parent.empty() && !fs::exists(parent, ec)) fs::create_directories(parent, ec);
    if (ec) {
      res.error = fmt::format("{}: cannot make the folder for it: {}", output, ec.message());
      return res;
    }
    auto written = write_output(output, out->bytes);
    if (written) {
      res.ok = true;
      return res;
    }
    res.kind = written.error().kind;
    res.error = written.error().message;
    return res;
  }
  res.kind = out.error().kind;
  res.error = out.error().message;
  return res;
}

std::string encode(std::uint32_t index, const EachResult& r) {
  std::string body;
  put_u32(body, index);
  put_u32(body, r.ok ? 1 : 0);
  put_u32(body, static_cast<std::uint32_t>(r.kind));
  put_str(body, r.error);
  put_u32(body, static_cast<std::uint32_t>(r.warnings.size()));
  for (const std::string& w : r.warnings) put_str(body, w);
  std::string msg;
  put_u32(msg, static_cast<std::uint32_t>(body.size()));
  return msg + body;
}

bool decode(std::string_view in, std::uint32_t& index, EachResult& r) {
  std::uint32_t ok, kind, warnings;
  if (!get_u32(in, index) || !get_u32(in, ok) || !get_u32(in, kind) || !get_str(in, r.error) || !get_u32(in, warnings))
    return false;
  r.ok = ok != 0;
  r.kind = static_cast<Error::Kind>(kind);
  r.warnings.resize(warnings);
  for (std::string& w : r.warnings)
    if (!get_str(in, w)) return false;
  return true;
}

[[noreturn]] void worker(const Request& base, const std::vector<std::string>& outputs, int tasks, int results) {
  for (;;) {
    std::uint32_t index;
    if (!read_all(tasks, reinterpret_cast<char*>(&index), 4) || index >= base.inputs.size()) ::_exit(0);
    EachResult r = convert_one(base, base.inputs[index], outputs[index]);
    if (!write_all(results, encode(index, r))) ::_exit(1);
  }
}

struct Worker {
  pid_t pid = -1;
  int tasks = -1, results = -1;
  std::int64_t busy = -1;  // the input it converts
};

}  // namespace

Expected<std::string> each_output_path(std::string_view t, const std::string& input, std::size_t index) {
  std::string out;
  std::size_t own = 0;  // bytes of `out` from a leading {dir}: the folder the template names
  for (std::size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if ((c == '{' || c == '}') && i + 1 < t.size() && t[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    std::size_t close = t.find('}', i);
    std::string_view key = close == std::string_view::npos ? t.substr(i) : t.substr(i + 1, close - i - 1);
    if (key == "stem") {
      out += stem_of(input);
    } else if (key == "name") {
      out += file_name(input);
    } else if (key == "dir") {
      std::string dir = fs::path(input).parent_path().string();
      out += dir.empty() ? "." : dir;
      if (i == 0) own = out.size();
    } else if (key == "rank") {
      std::int64_t rank = rank_from_path(input);
      out += std::to_string(rank >= 0 ? rank : static_cast<std::int64_t>(index));
    } else if (key == "index") {
      out += std::to_string(index);
    } else {
      return bad_usage(fmt::format(
          "-o {}: expected a placeholder {{stem}}, {{name}}, {{dir}}, {{rank}} or {{index}} "
          "(or {{{{ for a brace), found {}",
          quote_input(t), quote_input(close == std::string_view::npos ? t.substr(i) : t.substr(i, close - i + 1))));
    }
    i = close;
  }
  // A {stem} or {name} of '.' or '..' (an input named ...pstats) made a
  // path out of the template's folder: out/{stem}/x.dot wrote ./x.dot; so
  // did a {dir} of ../p inside it (out/{dir}/x.dot). Each '.' or '..' of the
  // path must be the template's own; a leading {dir} is the template's
  // folder itself (beside each input, by design).
  {
    const std::string_view mine_text = own ? t.substr(5) : t, made_text = std::string_view(out).substr(own);
    auto components = [](std::string_view p) {
      std::vector<std::string_view> parts;
      for (std::size_t at = 0; at <= p.size();) {
        const std::size_t slash = std::min(p.find('/', at), p.size());
        parts.push_back(p.substr(at, slash - at));
        at = slash + 1;
      }
      return parts;
    };
    const auto mine = components(mine_text), made = components(made_text);
    for (std::size_t k = 0; k < made.size(); ++k)
      if ((made[k] == "." || made[k] == "..") && (k >= mine.size() || mine[k] != made[k]))
        return bad_usage(
            fmt::format("--each: -o {} makes {} of {}, a path out of the template's folder; rename the "
                        "input, or use {{index}}",
                        quote_input(t), quote_input(out), quote_input(input)));
  }
  return out;
}

namespace {

// Each input's output path from the template: one per input (devices
// aside), none of them an input.
Expected<std::vector<std::string>> each_outputs(const Request& base, std::string_view output_template) {
  const std::size_t n = base.inputs.size();
  std::vector<std::string> outputs(n);
  std::unordered_map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < n; ++i) {
    auto path = each_output_path(output_template, base.inputs[i], i);
    if (!path) return path.error();
    outputs[i] = *path;
    auto [it, fresh] = seen.try_emplace(outputs[i], i);
    if (!fresh && !is_device(outputs[i]))
      return bad_usage(
          fmt::format("--each would write {} and {} both to {}: put {{stem}} (or {{name}}, {{rank}}, "
                      "{{index}}) in -o",
                      base.inputs[it->second], base.inputs[i], quote_input(outputs[i])));
  }
  for (const std::string& o : outputs)
    if (auto ok = check_output_is_not_an_input(o, base.inputs); !ok) return ok.error();
  return outputs;
}

// Worker processes, each given the next input when it finishes one, so a
// few large inputs do not leave the other cores idle.
class Pool {
 public:
  Pool(const Request& base, const std::vector<std::string>& outputs, std::vector<EachResult>& results,
       const std::function<void(const EachResult&, std::size_t)>& on_result)
      : base_(base), outputs_(outputs), results_(results), on_result_(on_result) {}

  ~Pool() {
    for (Worker& w : workers_) {
      if (w.tasks >= 0) ::close(w.tasks);
      if (w.results >= 0) ::close(w.results);
      if (w.pid > 0) ::waitpid(w.pid, nullptr, 0);
    }
  }

  Expected<bool> start(unsigned jobs) {
    workers_.resize(jobs);
    for (Worker& w : workers_) {
      int task_pipe[2], result_pipe[2];
      if (::pipe(task_pipe) != 0 || ::pipe(result_pipe) != 0)
        return bad_input(fmt::format("--each: cannot make a pipe: {}", std::strerror(errno)));
      pid_t pid = ::fork();
      if (pid < 0) return bad_input(fmt::format("--each: cannot start a process: {}", std::strerror(errno)));
      if (pid == 0) {
        ::close(task_pipe[1]);
        ::close(result_pipe[0]);
        for (const Worker& other : workers_) {  // the other workers' pipes are not this one's
          if (other.tasks >= 0) ::close(other.tasks);
          if (other.results >= 0) ::close(other.results);
        }
        worker(base_, outputs_, task_pipe[0], result_pipe[1]);
      }
      ::close(task_pipe[0]);
      ::close(result_pipe[1]);
      w.pid = pid;
      w.tasks = task_pipe[1];
      w.results = result_pipe[0];
    }
    return true;
  }

  void run() {
    const std::size_t n = base_.inputs.size();
    for (Worker& w : workers_) give(w);
    while (done_ < n) {
      std::vector<pollfd> fds;
      std::vector<Worker*> who;
      for (Worker& w : workers_)
        if (w.busy >= 0 && w.results >= 0) {
          fds.push_back({w.results, POLLIN, 0});
          who.push_back(&w);
        }
      if (fds.empty()) break;
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      for (std::size_t k = 0; k < fds.size(); ++k)
        if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) receive(*who[k]);
    }
  }

 private:
  void give(Worker& w) {
    if (next_ >= base_.inputs.size()) {
      if (w.tasks >= 0) ::close(w.tasks);
      w.tasks = -1;
      w.busy = -1;
      return;
    }
    auto index = static_cast<std::uint32_t>(next_++);
    w.busy = index;
    if (!write_all(w.tasks, std::string_view(reinterpret_cast<const char*>(&index), 4))) w.busy = -1;
  }

  void receive(Worker& w) {
    std::uint32_t size = 0;
    std::string body;
    bool got = read_all(w.results, reinterpret_cast<char*>(&size), 4);
    if (got) {
      body.resize(size);
      got = read_all(w.results, body.data(), size);
    }
    std::uint32_t index = 0;
    EachResult r;
    if (!got || !decode(body, index, r) || index >= base_.inputs.size()) {
      lost(w);
      return;
    }
    r.input = base_.inputs[index];
    r.output = outputs_[index];
    results_[index] = std::move(r);
    on_result_(results_[index], ++done_);
    give(w);
  }

  // A worker that died takes its input with it: that input fails, the
  // others go on.
  void lost(Worker& w) {
    int status = 0;
    if (w.pid > 0) ::waitpid(w.pid, &status, 0);
    w.pid = -1;
    if (w.results >= 0) ::close(w.results);
    if (w.tasks >= 0) ::close(w.tasks);
    w.results = w.tasks = -1;
    if (w.busy < 0) return;
    EachResult& r = results_[static_cast<std::size_t>(w.busy)];
    r.input = base_.inputs[static_cast<std::size_t>(w.busy)];
    r.output = outputs_[static_cast<std::size_t>(w.busy)];
    r.error = WIFSIGNALED(status) ? fmt::format("{}: the process converting it was killed by signal {} ({})", r.input,
                                                WTERMSIG(status), strsignal(WTERMSIG(status)))
                                  : fmt::format("{}: the process converting it stopped without a result", r.input);
    w.busy = -1;
    on_result_(r, ++done_);
  }

  const Request& base_;
  const std::vector<std::string>& outputs_;
  std::vector<EachResult>& results_;
  const std::function<void(const EachResult&, std::size_t)>& on_result_;
  std::vector<Worker> workers_;
  std::size_t next_ = 0, done_ = 0;
};

}  // namespace

Expected<std::vector<EachResult>> run_each(const Request& base, std::string_view output_template, unsigned jobs,
                                           const std::function<void(const EachResult&, std::size_t)>& on_result) {
  const std::size_t n = base.inputs.size();
  if (n == 0) return bad_usage("--each: expected input files, found none");
  if (output_template.empty() || output_template == "-")
    return bad_usage("--each writes one file per input: give -o a path with a placeholder, e.g. -o 'png/{stem}.png'");
  if (base.compare) return bad_usage("--each converts inputs one by one; --compare takes them two together");
  auto outputs = each_outputs(base, output_template);
  if (!outputs) return outputs.error();

  std::vector<EachResult> results(n);
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, n));
  if (jobs <= 1) {
    for (std::size_t i = 0; i < n; ++i) {
      results[i] = convert_one(base, base.inputs[i], (*outputs)[i]);
      on_result(results[i], i + 1);
    }
    return results;
  }
  Pool pool(base, *outputs, results, on_result);
  if (auto ok = pool.start(jobs); !ok) return ok.error();
  // A worker that dies must not take the parent with it (a write to its
  // pipe); the workers, started before, keep the default.
  struct IgnorePipe {
    void (*old)(int) = std::signal(SIGPIPE, SIG_IGN);
    ~IgnorePipe() { std::signal(SIGPIPE, old); }
  } ignore_pipe;
  pool.run();
  return results;
}

}  // namespace graphgen::pipeline
