#pragma once
// A helper thread started beside the one creating it.
//
// Linux puts a new thread on its creator's processor, and when the creator
// goes on working there, the new thread waits for the scheduler to move it
// to an idle processor: up to a tick (4 ms at 250 Hz) later. Measured on a
// 2-CPU VM: a helper created by a busy thread started 3.7-3.9 ms later, and
// perf's second half 1-2.8 ms after the first, where the whole read takes
// 80 ms. BesideThread starts the thread on another processor the process
// may run on, then lets it run on any of them, as std::thread would.
#include <pthread.h>

#include <functional>

namespace graphgen {

class BesideThread {
 public:
  BesideThread() = default;
  /// Runs `work` on a new thread, started on another processor than the
  /// caller's when the process may run on one (else where the kernel
  /// chooses). An exception escaping `work` ends the program, as with
  /// std::thread. Throws std::system_error when no thread can be created.
  explicit BesideThread(std::function<void()> work);
  /// The same, or, when no thread can be created (the process's threads or
  /// address space at their limit: `ulimit -v` counts each thread's stack),
  /// a BesideThread that is not joinable, `work` not run: the caller does
  /// the work itself.
  static BesideThread try_start(std::function<void()> work);
  /// `work` on a new thread as try_start() starts it, or, when none can
  /// be created, on the caller's before returning: the work is done (or
  /// under way) either way.
  static BesideThread start_or_run(std::function<void()> work);
  BesideThread(BesideThread&& other) noexcept;
  BesideThread& operator=(BesideThread&& other) noexcept;
  BesideThread(const BesideThread&) = delete;
  BesideThread& operator=(const BesideThread&) = delete;
  /// Waits for the thread (std::thread would end the program instead).
  ~BesideThread();

  bool joinable() const { return joinable_; }
  void join();

 private:
  // 0, or pthread_create's error.
  int start(std::function<void()> work);

  pthread_t thread_{};
  bool joinable_ = false;
};

}  // namespace graphgen
