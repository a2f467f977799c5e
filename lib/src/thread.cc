#include "graphgen/thread.h"

#include <sched.h>

#include <memory>
#include <system_error>
#include <utility>

namespace graphgen {

namespace {

struct Start {
  std::function<void()> work;
  cpu_set_t allowed;        // the creator's processors
  bool restricted = false;  // started on the others: given them all back first
};

void* run(void* arg) noexcept {
  std::unique_ptr<Start> start(static_cast<Start*>(arg));
  if (start->restricted) sched_setaffinity(0, sizeof start->allowed, &start->allowed);  // (0: this thread)
  start->work();  // (noexcept: an exception ends the program, as std::thread's)
  return nullptr;
}

}  // namespace

BesideThread::BesideThread(std::function<void()> work) {
  if (int rc = start(std::move(work)); rc != 0)
    throw std::system_error(rc, std::generic_category(), "could not start a thread");
}

BesideThread BesideThread::try_start(std::function<void()> work) {
  BesideThread t;
  t.start(std::move(work));
  return t;
}

BesideThread BesideThread::start_or_run(std::function<void()> work) {
  BesideThread t;
  if (t.start(work) != 0) work();
  return t;
}

int BesideThread::start(std::function<void()> work) {
  auto start = std::make_unique<Start>();
  start->work = std::move(work);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  CPU_ZERO(&start->allowed);
  const int here = sched_getcpu();
  if (here >= 0 && here < CPU_SETSIZE && sched_getaffinity(0, sizeof start->allowed, &start->allowed) == 0) {
    cpu_set_t others = start->allowed;
    CPU_CLR(here, &others);
    start->restricted = CPU_COUNT(&others) > 0 && pthread_attr_setaffinity_np(&attr, sizeof others, &others) == 0;
  }
  int rc = pthread_create(&thread_, &attr, run, start.get());
  pthread_attr_destroy(&attr);
  if (rc != 0 && start->restricted) {  // (a processor taken away meanwhile): anywhere
    start->restricted = false;
    rc = pthread_create(&thread_, nullptr, run, start.get());
  }
  if (rc != 0) return rc;
  start.release();  // (run() owns it)
  joinable_ = true;
  return 0;
}

BesideThread::BesideThread(BesideThread&& other) noexcept
    : thread_(other.thread_), joinable_(std::exchange(other.joinable_, false)) {}

BesideThread& BesideThread::operator=(BesideThread&& other) noexcept {
  if (this != &other) {
    join();
    thread_ = other.thread_;
    joinable_ = std::exchange(other.joinable_, false);
  }
  return *this;
}

BesideThread::~BesideThread() { join(); }

void BesideThread::join() {
  if (!joinable_) return;
  pthread_join(thread_, nullptr);
  joinable_ = false;
}

}  // namespace graphgen
