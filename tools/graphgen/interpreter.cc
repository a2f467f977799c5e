#include "interpreter.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli.h"

extern char** environ;

namespace graphgen::cli {

namespace {

namespace fs = std::filesystem;

// "3.11" of "3.11.2" (or of "3.11.2.final.0", virtualenv's version_info).
std::string major_minor(std::string_view v) {
  const std::size_t first = v.find('.');
  if (first == std::string_view::npos) return std::string(v);
  return std::string(v.substr(0, v.find('.', first + 1)));
}

// A venv's Python version from the pyvenv.cfg of the venv `python` is in
// (bin/../pyvenv.cfg); empty when there is none.
std::string venv_version(const fs::path& python) {
  std::ifstream cfg(python.parent_path().parent_path() / "pyvenv.cfg");
  std::string line, found;
  while (std::getline(cfg, line)) {
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    auto trim = [](std::string& s) {
      s.erase(0, s.find_first_not_of(" \t"));
      s.erase(s.find_last_not_of(" \t\r") + 1);
    };
    trim(key);
    trim(value);
    if (key == "version" || (key == "version_info" && found.empty())) found = value;
  }
  return major_minor(found);
}

// Asks `python` for its "major.minor" and real executable (two lines),
// waiting at most five seconds; false when it cannot say.
bool ask(const std::string& python, std::string& version, std::string& executable) {
  int out[2];
  if (::pipe(out) != 0) return false;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  const char* code = "import sys; print('%d.%d' % sys.version_info[:2]); print(sys.executable)";
  char* argv[] = {const_cast<char*>(python.c_str()), const_cast<char*>("-I"), const_cast<char*>("-c"),
                  const_cast<char*>(code), nullptr};
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, python.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (spawned == 0 && text.size() < 4096) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{out[0], POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buffer[512];
    const ssize_t n = ::read(out[0], buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  if (spawned != 0) return false;
  int status = 0;
  if (::waitpid(pid, &status, WNOHANG) == 0) {  // (still running: it said all it will)
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  const std::size_t nl = text.find('\n');
  if (nl == std::string::npos) return false;
  version = text.substr(0, nl);
  executable = text.substr(nl + 1);
  while (!executable.empty() && (executable.back() == '\n' || executable.back() == '\r')) executable.pop_back();
  return !version.empty() && !executable.empty();
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

}  // namespace

Interpreter choose_interpreter(std::string_view embedded_view, std::string_view version) {
  const std::string embedded(embedded_view);
  std::string candidate, from;
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv && *venv) {
    candidate = (fs::path(venv) / "bin" / "python3").string();
    from = fmt::format("the active virtualenv's Python ({})", candidate);
    if (::access(candidate.c_str(), X_OK) != 0)
      return {embedded, fmt::format("graphgen run: VIRTUAL_ENV names {}, which has no bin/python3: the program runs on "
                                    "graphgen's own Python {} ({})",
                                    venv, version, embedded)};
  } else {
    candidate = find_on_path("python3");
    from = fmt::format("the python3 on PATH ({})", candidate);
  }
  if (candidate.empty()) return {embedded, {}};
  // (A venv's python3 is a link to its base Python, maybe the embedded one:
  // started by the venv's name, CPython finds the venv.)
  std::string theirs = venv_version(candidate), executable = candidate;
  if (theirs.empty() && same_file(candidate, embedded)) return {embedded, {}};
  if (theirs.empty() && !ask(candidate, theirs, executable)) return {embedded, {}};  // (not a Python that answers)
  if (theirs == version) return {executable, {}};
  return {embedded, fmt::format("graphgen run: {} is Python {}, and graphgen runs programs on the Python {} it "
                                "embeds ({}), which lacks that one's packages; to profile on yours: {} -m graphgen run "
                                "script.py (graphgen's Python package, one build for CPython 3.8 and later)",
                                from, theirs, version, embedded, candidate)};
}

}  // namespace graphgen::cli
