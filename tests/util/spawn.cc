// Starts a program from a process of its own small size and reports the
// program's peak resident memory: test::run() starts every child through
// it. A child forked straight from the test process counted the test
// process's resident pages in its peak (Linux carries them across fork
// and exec): the whole suite run in one process holds about 78 MB by the
// Hostile tests, and their children said they had used that much.
//
//   graphgen_test_spawn PEAK_FILE PROGRAM [ARGUMENT...]
//
// Writes PROGRAM's peak in KiB to PEAK_FILE, then ends as PROGRAM did: its
// exit status, or the signal that ended it, raised again (without a core).
// Built without the sanitizers, whose own pages would count in the peak.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s PEAK_FILE PROGRAM [ARGUMENT...]\n", argv[0]);
    return 2;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("graphgen_test_spawn: fork");
    return 127;
  }
  if (pid == 0) {
    ::execvp(argv[2], argv + 2);
    ::_exit(127);  // (as a shell says a program it could not start)
  }
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR) return 127;
  if (std::FILE* f = std::fopen(argv[1], "w")) {
    std::fprintf(f, "%ld\n", usage.ru_maxrss);
    std::fclose(f);
  }
  if (WIFSIGNALED(status)) {
    const struct rlimit none {};
    ::setrlimit(RLIMIT_CORE, &none);
    std::signal(WTERMSIG(status), SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, WTERMSIG(status));
    ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
    ::raise(WTERMSIG(status));
    return 128 + WTERMSIG(status);  // (a signal that does not end a process)
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}
