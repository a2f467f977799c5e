#include "util/test_util.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "pipeline.h"

namespace graphgen::test {

fs::path source_dir() { return GRAPHGEN_SOURCE_DIR; }
fs::path testdata_dir() { return source_dir() / "testdata"; }

fs::path corpus_dir() {
  if (const char* env = std::getenv("GRAPHGEN_CORPUS"); env && *env)
    return fs::is_directory(env) ? fs::path(env) : fs::path();
  fs::path p = source_dir().parent_path() / "shared" / "corpus";
  return fs::is_directory(p) ? p : fs::path();
}

fs::path conformance_dir() {
  fs::path p = source_dir().parent_path() / "shared" / "conformance";
  return fs::is_directory(p) ? p : fs::path();
}

const char* no_corpus_message() { return "../shared/corpus not found beside the project: corpus cases skipped"; }

std::vector<std::string> tsv_fields(const std::string& line) {
  std::vector<std::string> f;
  std::istringstream cells(line);
  for (std::string cell; std::getline(cells, cell, '\t');) f.push_back(cell);
  return f;
}

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::string xml_unescape(std::string s) {
  for (auto [from, to] : {std::pair<std::string, std::string>{"&quot;", "\""},
                          {"&lt;", "<"},
                          {"&gt;", ">"},
                          {"&#39;", "'"},
                          {"&amp;", "&"}}) {
    for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
      s.replace(at, from.size(), to);
  }
  return s;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

// One folder per test process, holding every temp_dir() of it, removed
// when the process exits (never by a forked child), so runs of the suite
// leave nothing in the temporary folder.
struct ProcessTempRoot {
  pid_t owner = ::getpid();
  fs::path path = fs::temp_directory_path() / ("graphgen-test-" + std::to_string(owner));
  ProcessTempRoot() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ProcessTempRoot() {
    std::error_code ignored;
    if (::getpid() == owner) fs::remove_all(path, ignored);
  }
};

}  // namespace

fs::path temp_dir() {
  static ProcessTempRoot root;
  static int counter = 0;
  fs::path base = root.path / std::to_string(counter++);
  fs::remove_all(base);
  fs::create_directories(base);
  return base;
}

RunResult run(const std::vector<std::string>& argv, const fs::path& cwd, const std::vector<std::string>& env,
              int timeout_seconds, const Stdin& in) {
  fs::path dir = temp_dir();
  fs::path out = dir / "stdout", err = dir / "stderr", peak = dir / "peak";
  RunResult r;
  int terminal = -1;
  std::string terminal_name;
  if (in.terminal) {
    terminal = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (terminal < 0 || ::grantpt(terminal) != 0 || ::unlockpt(terminal) != 0) {
      r.err = "cannot open a pseudo-terminal";
      return r;
    }
    terminal_name = ::ptsname(terminal);
  }
  pid_t pid = ::fork();
  if (pid == 0) {
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int n = ::open(in.terminal       ? terminal_name.c_str()
                   : in.file.empty() ? "/dev/null"
                                     : in.file.c_str(),
                   in.terminal ? O_RDWR | O_NOCTTY : O_RDONLY);
    ::dup2(n, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(127);
    for (const std::string& kv : env) ::putenv(const_cast<char*>(kv.c_str()));
    // Through the spawner (util/spawn.cc), so the peak is the program's own
    // and not this process's, in a process group a timeout ends whole.
    ::setpgid(0, 0);
    std::vector<char*> args{const_cast<char*>(GRAPHGEN_TEST_SPAWN), const_cast<char*>(peak.c_str())};
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // (also here: a timeout may come before the child's own call)
  int status = 0;
  struct rusage usage {};
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    pid_t done = ::wait4(pid, &status, timeout_seconds > 0 ? WNOHANG : 0, &usage);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeout_seconds > 0 && elapsed > timeout_seconds && !r.timed_out) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
    }
    if (timeout_seconds > 0) ::usleep(2000);
  }
  if (terminal >= 0) ::close(terminal);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // (The spawner's own peak when it could not write the program's.)
  r.peak_kb = usage.ru_maxrss;
  if (std::string kb = read_file(peak); !kb.empty()) r.peak_kb = std::stol(kb);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out);
  r.err = read_file(err);
  fs::remove_all(dir);
  return r;
}

std::string unxz(const fs::path& p) {
  RunResult r = run({"xz", "-dc", p.string()});
  EXPECT_EQ(r.exit_code, 0) << p << ": " << r.err;
  return r.out;
}

std::string asan_options_with(std::string_view flags) {
  const char* options = std::getenv("ASAN_OPTIONS");
  return "ASAN_OPTIONS=" + (options && *options ? std::string(options) + ":" : std::string()) + std::string(flags);
}

RunResult graphgen(const std::vector<std::string>& args, const fs::path& cwd, const std::vector<std::string>& env,
                   const Stdin& in) {
  std::vector<std::string> argv{GRAPHGEN_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  // graphgen run starts programs on the user's python3 (VIRTUAL_ENV, PATH)
  // where it is the embedded version: tests run it on the embedded one,
  // whatever this machine's PATH holds, unless `env` says otherwise.
  std::vector<std::string> with = {"VIRTUAL_ENV=", "PATH=/usr/bin:/bin"};
#if GRAPHGEN_SANITIZE
  // No leak check at graphgen's exit in the sanitized build: 0.09 s of
  // the 0.14 s a sanitized `graphgen --version` takes (half its page
  // faults in LSan's scan for pointers), at each of thousands of children.
  // The readers and writers are checked for leaks in-process, at the end
  // of each test of this binary and of each fuzz replay (every input
  // through every reader and writer); the command line's own code only
  // where a test's `env` asks for it again (Cli.LeakCheckedAtExit).
  with.push_back(asan_options_with("detect_leaks=0"));
#endif
  with.insert(with.end(), env.begin(), env.end());
  return run(argv, cwd, with, 0, in);
}

fs::path write_temp(const std::string& name, const std::string& text) {
  fs::path p = temp_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

void as_if_on_disk(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0) << p;
  ASSERT_EQ(::fdatasync(fd), 0) << p;  // (dirty pages stay in the cache)
  ASSERT_EQ(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0) << p;
  ::close(fd);
}

Expected<Profile> read_profiles(const std::vector<fs::path>& paths, const std::string& format,
                                const formats::ReadOptions& options, Diagnostics* diag) {
  pipeline::Request r;
  for (const fs::path& p : paths) r.inputs.push_back(p.string());
  r.input_format = format;
  r.read = options;
  Diagnostics local;
  const formats::InputFormat* f = nullptr;
  return pipeline::read_and_merge(r, f, diag ? *diag : local);
}

Profile read_ok(const std::vector<fs::path>& paths, const std::string& format, const formats::ReadOptions& options) {
  auto p = read_profiles(paths, format, options);
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().message);
  return p ? std::move(p).value() : Profile();
}

namespace {

struct DotStatement {
  std::string from, to;  // to empty: a node
  std::map<std::string, std::string> attrs;
};

// An id or a quoted string at s[i..], unquoted.
std::string dot_id(const std::string& s, std::size_t& i) {
  std::string out;
  if (i < s.size() && s[i] == '"') {
    for (++i; i < s.size() && s[i] != '"'; ++i) {
      if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '"') ++i;
      out += s[i];
    }
    ++i;
    return out;
  }
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '.' || s[i] == '-' ||
                          static_cast<unsigned char>(s[i]) >= 0x80))
    out += s[i++];
  return out;
}

std::vector<DotStatement> dot_statements(const std::string& dot) {
  std::vector<DotStatement> out;
  std::istringstream in(dot);
  for (std::string line; std::getline(in, line);) {
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos) continue;
    DotStatement st;
    st.from = dot_id(line, i);
    if (st.from == "graph" || st.from == "node" || st.from == "edge" || st.from.empty()) continue;
    while (i < line.size() && line[i] == ' ') ++i;
    if (line.compare(i, 2, "->") == 0) {
      i += 2;
      while (i < line.size() && line[i] == ' ') ++i;
      st.to = dot_id(line, i);
    }
    while (i < line.size() && line[i] == ' ') ++i;
    if (i >= line.size() || line[i] != '[') continue;
    ++i;
    while (i < line.size() && line[i] != ']') {
      while (i < line.size() && (line[i] == ' ' || line[i] == ',')) ++i;
      std::string key = dot_id(line, i);
      if (key.empty() || i >= line.size() || line[i] != '=') break;
      ++i;
      st.attrs[key] = dot_id(line, i);
    }
    out.push_back(std::move(st));
  }
  return out;
}

}  // namespace

std::string dot_difference(const std::string& expected, const std::string& actual) {
  auto canon = [](const std::string& dot) {
    std::vector<DotStatement> st = dot_statements(dot);
    std::map<std::string, std::string> label;
    for (const DotStatement& s : st)
      if (s.to.empty()) label[s.from] = s.attrs.count("label") ? s.attrs.at("label") : s.from;
    auto name = [&](const std::string& id) { return label.count(id) ? label[id] : id; };
    std::multiset<std::string> out;
    for (const DotStatement& s : st) {
      auto get = [&](const char* k) { return s.attrs.count(k) ? s.attrs.at(k) : std::string(); };
      if (s.to.empty())
        out.insert("node " + name(s.from) + " | " + get("color") + " " + get("fontcolor") + " " + get("fontsize") +
                   " " + get("shape"));
      else
        out.insert("edge " + name(s.from) + " -> " + name(s.to) + " | " + get("label") + " | " + get("color") + " " +
                   get("fontcolor") + " " + get("fontsize") + " " + get("penwidth") + " " + get("arrowsize"));
    }
    return out;
  };
  std::multiset<std::string> want = canon(expected), got = canon(actual);
  std::vector<std::string> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  std::string out;
  for (std::size_t k = 0; k < missing.size() && k < 5; ++k) out += "- " + missing[k] + "\n";
  for (std::size_t k = 0; k < extra.size() && k < 5; ++k) out += "+ " + extra[k] + "\n";
  if (missing.size() + extra.size() > 10)
    out += std::to_string(missing.size()) + " missing, " + std::to_string(extra.size()) + " extra in all\n";
  return out;
}

std::string identifier(std::string name) {
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

std::size_t resident_kib(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long begin = 0, end = 0;
    // A mapping's first line: `begin-end perms offset ...`.
    if (line.find('-') < line.find(' ') && std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2)
      inside = begin <= at && at < end;
    else if (inside && line.starts_with("Rss:"))
      return std::stoul(line.substr(4));
  }
  return SIZE_MAX;
}

MappedRead read_mapped(const std::string& name, const std::string& text, const StreamingRead& streaming) {
  MappedRead r;
  auto in = InputFile::open(write_temp(name, text).string());
  EXPECT_TRUE(in.has_value()) << (in ? "" : in.error().message);
  if (!in) return r;
  r.in.emplace(std::move(*in));
  volatile char sum = 0;
  for (char c : r.in->bytes()) sum = sum + c;
  r.file_kib = r.in->bytes().size() / 1024;
  EXPECT_GE(resident_kib(r.in->bytes().data()), r.file_kib) << "the file's pages were not all read in";
  formats::ReadOptions o;
  r.read = streaming(*r.in, o, r.diag);
  r.resident_kib = resident_kib(r.in->bytes().data());
  return r;
}

}  // namespace graphgen::test
