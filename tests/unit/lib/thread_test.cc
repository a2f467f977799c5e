// BesideThread: a helper started on another processor than its creator's,
// then free to run on all of the creator's.
#include "graphgen/thread.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>

namespace graphgen {
namespace {

cpu_set_t affinity() {
  cpu_set_t s;
  CPU_ZERO(&s);
  EXPECT_EQ(sched_getaffinity(0, sizeof s, &s), 0);
  return s;
}

TEST(BesideThread, StartsOnAnotherProcessorThenRunsAnywhereItsCreatorMay) {
  const cpu_set_t mine = affinity();
  if (CPU_COUNT(&mine) < 2) GTEST_SKIP() << "one processor: nowhere beside";
  // The creator stays busy on its processor, as a reader's first half does:
  // a std::thread would wait there for the scheduler (up to 4 ms).
  std::atomic<bool> started{false};
  int here = -1, there = -1;
  cpu_set_t after;
  CPU_ZERO(&after);
  int moved_to = -1;
  {
    here = sched_getcpu();
    BesideThread t([&] {
      there = sched_getcpu();
      after = affinity();
      started = true;
    });
    moved_to = sched_getcpu();
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!started && std::chrono::steady_clock::now() < until) {
    }
    t.join();
  }
  ASSERT_TRUE(started);
  if (moved_to == here) {  // (else this thread moved while creating it: nothing to compare)
    EXPECT_NE(there, here);
  }
  EXPECT_TRUE(CPU_EQUAL(&after, &mine)) << "the helper keeps a narrower affinity than its creator's";
}

TEST(BesideThread, OnOneAllowedProcessorItRunsThere) {
  const cpu_set_t mine = affinity();
  cpu_set_t one;
  CPU_ZERO(&one);
  const int here = sched_getcpu();
  ASSERT_GE(here, 0);
  CPU_SET(here, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);  // (this thread: as under taskset -c)
  int there = -1;
  cpu_set_t after;
  CPU_ZERO(&after);
  BesideThread t([&] {
    there = sched_getcpu();
    after = affinity();
  });
  t.join();
  EXPECT_FALSE(t.joinable());
  ASSERT_EQ(sched_setaffinity(0, sizeof mine, &mine), 0);
  EXPECT_EQ(there, here);
  EXPECT_TRUE(CPU_EQUAL(&after, &one));
}

TEST(BesideThread, JoinsWhenDestroyedAndWhenMovedOnto) {
  std::atomic<int> ran{0};
  {
    BesideThread a([&] { ++ran; });
    BesideThread b([&] { ++ran; });
    a = std::move(b);  // (a's thread is joined first)
    EXPECT_FALSE(b.joinable());
    EXPECT_TRUE(a.joinable());
  }
  EXPECT_EQ(ran, 2);
}

}  // namespace
}  // namespace graphgen
