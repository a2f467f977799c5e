// A second program for perf's multi-process test (multi.perf): it runs
// beside q and does different work (a recursive fib and a byte checksum).
#include <stdio.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long fib(unsigned n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static unsigned long checksum(const unsigned char* p, unsigned n) {
  unsigned long s = 0;
  for (unsigned i = 0; i < n; ++i) s = s * 31 + p[i];
  return s;
}

int main(void) {
  static unsigned char buf[1 << 16];
  for (unsigned i = 0; i < sizeof buf; ++i) buf[i] = (unsigned char)(i * 7);
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    sink += fib(22);
    sink += checksum(buf, sizeof buf);
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < 0.15);
  printf("%lu\n", sink & 1);
  return 0;
}
