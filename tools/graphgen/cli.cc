#include "cli.h"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <utility>

#include "graphgen/io.h"

namespace graphgen::cli {

namespace {
std::string& usage_errors_tool() {
  static std::string tool = "graphgen";
  return tool;
}
}  // namespace

void name_usage_errors(std::string_view tool) { usage_errors_tool() = tool; }

// Every message is one line, whatever a file name or an input held.
int fail(const Error& e) {
  std::fflush(stdout);
  std::string message = one_line(e.message);
  if (e.kind == Error::Kind::kBadUsage)
    std::fprintf(stderr, "%s: error: %s\n", usage_errors_tool().c_str(), message.c_str());
  else
    std::fprintf(stderr, "%s\n", message.c_str());
  return e.kind == Error::Kind::kBadUsage ? kExitBadUsage : kExitBadInput;
}

void use_logger(const char* name) {
  if (spdlog::get(name)) return;  // (this binary's or module's default already)
  auto logger = spdlog::stderr_logger_st(name);
  logger->set_pattern(fmt::format("{}: %l: %v", name));
  spdlog::set_default_logger(logger);
}

void report_one(const std::string& warning) { spdlog::warn("{}", one_line(warning)); }

void report(const Diagnostics& diag, bool quiet) {
  if (quiet) return;
  for (const std::string& w : diag.warnings()) report_one(w);
}

Expected<std::string> kcachegrind_path(const pipeline::Options& o) {
  if (o.output != "-") return o.output;
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/graphgen-XXXXXX.callgrind";
  int fd = ::mkstemps(path.data(), 10);
  if (fd < 0)
    return io_error(fmt::format("-k: cannot make a temporary file for the profile: {}", std::strerror(errno)));
  ::close(fd);
  return path;
}

Expected<std::string> mpi_output_path(const std::string& path) {
  auto first_set = [](std::initializer_list<const char*> names) -> const char* {
    for (const char* name : names)
      if (const char* v = std::getenv(name); v && *v) return v;
    return nullptr;
  };
  const char* rank = first_set({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"});
  const char* size = first_set({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"});
  std::string out = path;
  for (auto [key, value] : {std::pair{std::string_view("{rank}"), rank}, std::pair{std::string_view("{size}"), size}}) {
    for (std::size_t at = out.find(key); at != std::string::npos; at = out.find(key, at)) {
      if (!value)
        return bad_usage(fmt::format(
            "-o {}: {} is taken from the MPI launcher (mpirun, srun: OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, "
            "SLURM_PROCID; OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS), and none is set; run under mpirun or "
            "name the output without it",
            quote_input(path), key));
      out.replace(at, key.size(), value);
      at += std::strlen(value);
    }
  }
  return out;
}

std::string find_on_path(std::string_view program) {
  const char* env = std::getenv("PATH");
  const std::string dirs = env ? env : "/usr/bin:/bin";
  for (std::size_t at = 0; at <= dirs.size();) {
    const std::size_t colon = std::min(dirs.find(':', at), dirs.size());
    const std::string dir = dirs.substr(at, colon - at);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + std::string(program);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    at = colon + 1;
  }
  return {};
}

int open_in_kcachegrind(const std::string& path, bool temporary) {
  for (const char* viewer : {"kcachegrind", "qcachegrind"}) {
    const std::string found = find_on_path(viewer);
    if (found.empty()) continue;
    pid_t pid = ::fork();
    if (pid == 0) {
      ::execl(found.c_str(), viewer, path.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) < 0)
      return fail(io_error(fmt::format("-k: cannot start {}; the profile is in {}", found, path)));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      if (temporary) ::unlink(path.c_str());  // (the viewer is done with it)
      return kExitOk;
    }
    // The file stays, for another viewer or a later try.
    return fail(io_error(fmt::format(
        "-k: {} {} (is there a display? DISPLAY is {}); the profile is in {}", found,
        WIFEXITED(status) ? (WEXITSTATUS(status) == 127 ? std::string("could not be started")
                                                        : fmt::format("exited with status {}", WEXITSTATUS(status)))
                          : fmt::format("was stopped by signal {}", WTERMSIG(status)),
        std::getenv("DISPLAY") ? "set" : "not set", path)));
  }
  return fail(
      bad_input(fmt::format("-k: neither kcachegrind nor qcachegrind is on PATH (apt-get install "
                            "kcachegrind); the profile is in {}",
                            path)));
}

// Help and version text, checked like every other output (`> /dev/full`).
int print_or_fail(const std::string& text) {
  auto written = write_output("-", text);
  return written ? kExitOk : fail(written.error());
}

bool quiet(const pipeline::Settings& settings) {
  for (const auto& [key, value] : settings)
    if (key == "quiet") return true;
  return false;
}

}  // namespace graphgen::cli
