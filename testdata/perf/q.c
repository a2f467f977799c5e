// A small program to sample with perf for graphgen's perf tests: a thread
// whose name holds a space ("my worker"), mutual recursion (even/odd) and a
// plain loop, in a binary whose name is one character (q).
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>

static volatile double sink;

static double elapsed(const struct timespec* t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int is_odd(unsigned n);
__attribute__((noinline)) static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
__attribute__((noinline)) static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

__attribute__((noinline)) static void spin(double seconds) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (elapsed(&t0) < seconds)
    for (int i = 0; i < 1000; ++i) sink += sin(i * 0.001);
}

static void* worker(void* arg) {
  (void)arg;
  prctl(PR_SET_NAME, "my worker");
  spin(0.15);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int parity = 0;
  while (elapsed(&t0) < 0.15) parity += is_even(20000);
  pthread_join(t, NULL);
  printf("%d\n", parity > 0);
  return 0;
}
