// BesideThread: a helper started on another processor than its creator's,
// then free to run on all of the creator's.
#include "graphgen/thread.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <system_error>

#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::thread_test {
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

// Under an address-space limit (`ulimit -v`, a batch system's h_vmem) of
// `headroom` bytes above what the process maps now, `check` returns what
// went wrong, or "": it exits 0, or 1 saying why on stderr. Run in a fresh
// process (gtest's threadsafe death tests run the binary again), so no
// thread stack the suite cached before counts.
[[noreturn]] void exit_under_address_limit(std::size_t headroom, const std::function<std::string()>& check) {
  std::size_t pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%zu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  const rlim_t limit = pages * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + headroom;
  struct rlimit r = {limit, limit};
  std::string why = setrlimit(RLIMIT_AS, &r) != 0 ? "setrlimit failed" : "";
  if (why.empty()) {
    try {
      why = check();
    } catch (const std::exception& e) {
      why = std::string("threw: ") + e.what();
    }
  }
  std::fprintf(stderr, "%s\n", why.c_str());
  std::fflush(stderr);
  _exit(why.empty() ? 0 : 1);
}

// No room for a thread's stack: try_start gives a thread that is not
// joinable and leaves the work to the caller; the constructor throws
// (helpers used to throw out of the readers and end the program).
TEST(BesideThread, WithNoRoomForAThreadTryStartLeavesTheWorkToTheCaller) {
#ifdef GRAPHGEN_SANITIZE
  GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory: no address-space limit can be set";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(exit_under_address_limit(std::size_t{1} << 20,
                                       [] {
                                         bool ran = false;
                                         BesideThread t = BesideThread::try_start([&] { ran = true; });
                                         if (t.joinable()) return std::string("a thread started");
                                         if (ran) return std::string("the work ran");
                                         BesideThread here = BesideThread::start_or_run([&] { ran = true; });
                                         if (here.joinable() || !ran)
                                           return std::string("start_or_run did not run the work here");
                                         try {
                                           BesideThread thrown([] {});
                                           return std::string("the constructor did not throw");
                                         } catch (const std::system_error&) {
                                         }
                                         return std::string();
                                       }),
              ::testing::ExitedWithCode(0), "");
  // With room, it starts as the constructor does.
  bool ran = false;
  BesideThread t = BesideThread::try_start([&] { ran = true; });
  ASSERT_TRUE(t.joinable());
  t.join();
  EXPECT_TRUE(ran);
}

// Room reserved ahead counts against the limit however little of it is
// touched: a writer's reservation for its budget (256 MiB for a 22 MB
// profile's dot) ended the run "out of memory" under `ulimit -v 250000`.
TEST(Reservable, StaysWithinWhatAnAddressSpaceLimitLeaves) {
#ifdef GRAPHGEN_SANITIZE
  GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory: no address-space limit can be set";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EQ(reservable(std::size_t{1} << 30), std::size_t{1} << 30);  // (no limit here)
  EXPECT_EXIT(exit_under_address_limit(std::size_t{64} << 20,
                                       [] {
                                         const std::size_t room = reservable(std::size_t{1} << 30);
                                         if (room == 0 || room > (std::size_t{8} << 20))
                                           return "reservable gave " + std::to_string(room);
                                         std::string out;
                                         out.reserve(output_reservation(std::size_t{1} << 30, 4096));
                                         if (out.capacity() < 4096) return std::string("less than the estimate");
                                         return std::string();
                                       }),
              ::testing::ExitedWithCode(0), "");
}

// Readers reserve their tables at what their input's bytes can add (the
// tables then never move: each doubling touched new pages, each a page
// fault); at most 64 MiB of address space a table, and nothing under an
// address-space limit, where the room would stay taken.
TEST(ReserveBound, RoomUpToTheBoundWithoutALimitNoneUnderOne) {
#ifdef GRAPHGEN_SANITIZE
  GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory: no address-space limit can be set";
#endif
  auto reserved = [](std::size_t functions, std::size_t calls) {
    Profile p;
    p.events.push_back({p.strings.intern("time"), kNoString, 1.0, false, kNoString});
    p.reserve_bound(functions, calls);
    return fmt::format("{} {} {} {}", p.functions.capacity(), p.self_cost.capacity(), p.calls.capacity(),
                       p.call_cost.capacity());
  };
  EXPECT_EQ(reserved(1000, 3000), "1000 1000 3000 3000");
  // Bounds past 64 MiB a table: held to it.
  Profile big;
  big.events.push_back({big.strings.intern("time"), kNoString, 1.0, false, kNoString});
  big.reserve_bound(std::size_t{1} << 40, std::size_t{1} << 40);
  EXPECT_GT(big.functions.capacity(), std::size_t{500000});
  EXPECT_LE(big.functions.capacity() * sizeof(Function), std::size_t{64} << 20);
  EXPECT_LE(big.calls.capacity() * sizeof(Call), std::size_t{64} << 20);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(exit_under_address_limit(std::size_t{512} << 20,
                                       [&] {
                                         const std::string got = reserved(1000, 3000);
                                         return got == "0 0 0 0" ? std::string() : "reserved " + got;
                                       }),
              ::testing::ExitedWithCode(0), "");
}

// Room reserved and never written is free without sanitizers. Under
// AddressSanitizer it is not: the shadow of all of it is written when it is
// allocated and again when it is freed, and the writers' 256 MiB output
// reservations took the sanitized fuzz replay of the front door past
// ctest's 600 s (31 s without sanitizers).
TEST(BoundedRows, RoomAheadWithoutSanitizersOnlyTheEstimateUnderThem) {
  const std::size_t budget = std::size_t{1} << 30;
#ifdef GRAPHGEN_SANITIZE
  EXPECT_EQ(output_reservation(budget, 4096), 4096u);
  EXPECT_EQ(bounded_rows(1000, 16), 0u);
#else
  if (address_space_left()) GTEST_SKIP() << "an address-space limit is set: no room is reserved ahead under one";
  EXPECT_EQ(output_reservation(budget, 4096), std::size_t{256} << 20);
  EXPECT_EQ(bounded_rows(1000, 16), 1000u);
  EXPECT_EQ(bounded_rows(std::size_t{1} << 40, 64), (std::size_t{64} << 20) / 64);
#endif
  EXPECT_EQ(output_reservation(0, 4096), 4096u);       // (no budget: the estimate)
  EXPECT_EQ(output_reservation(100, 1 << 20), 4196u);  // (never past the budget)
}

// The VmFlags of the mapping holding `at`, from /proc/self/smaps.
std::string vm_flags_at(const void* at) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  const auto a = reinterpret_cast<std::uintptr_t>(at);
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " ", &begin, &end) == 2)  // a mapping's first line
      inside = a >= begin && a < end;
    else if (inside && line.starts_with("VmFlags:"))
      return line;
  }
  return "";
}

// A table of known size asks for huge pages on the 2 MiB pages wholly
// inside it (one page fault a 2 MiB instead of 512), not on the room
// around them, which other data may share.
TEST(PreferHugePages, AdvisesTheWholeHugePagesInsideTheRows) {
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled"))
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  std::vector<char> v;
  v.reserve(std::size_t{9} << 20);
  prefer_huge_pages(v, std::size_t{7} << 20);
  const auto base = reinterpret_cast<std::uintptr_t>(v.data());
  const std::uintptr_t first = (base + (std::uintptr_t{2} << 20) - 1) & ~((std::uintptr_t{2} << 20) - 1);
  const std::uintptr_t last = (base + (std::uintptr_t{7} << 20)) & ~((std::uintptr_t{2} << 20) - 1);
  ASSERT_LT(first, last);
  EXPECT_NE(vm_flags_at(reinterpret_cast<const void*>(first)).find(" hg"), std::string::npos)
      << vm_flags_at(reinterpret_cast<const void*>(first));
  EXPECT_NE(vm_flags_at(reinterpret_cast<const void*>(last - 1)).find(" hg"), std::string::npos);
  EXPECT_EQ(vm_flags_at(reinterpret_cast<const void*>(last)).find(" hg"), std::string::npos)
      << "past the rows: " << vm_flags_at(reinterpret_cast<const void*>(last));
  if (first > base) {
    EXPECT_EQ(vm_flags_at(reinterpret_cast<const void*>(first - 1)).find(" hg"), std::string::npos);
  }
}

}  // namespace
}  // namespace graphgen::thread_test
