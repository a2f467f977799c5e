// A program for callgrind thread tests: main and two threads do different
// work (a sum, a string scan, a small sort), so each thread has its own calls.
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static volatile long sink;

__attribute__((noinline)) static long sum_to(long n) {
  long s = 0;
  for (long i = 0; i < n; ++i) s += i;
  return s;
}

__attribute__((noinline)) static int count_char(const char* s, char c) {
  int k = 0;
  for (; *s; ++s) k += (*s == c);
  return k;
}

__attribute__((noinline)) static void bubble(int* a, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j + 1 < n - i; ++j)
      if (a[j] > a[j + 1]) { int t = a[j]; a[j] = a[j + 1]; a[j + 1] = t; }
}

static void* adder(void* arg) {
  (void)arg;
  sink = sum_to(2000);
  return NULL;
}

static void* scanner(void* arg) {
  const char* text = arg;
  for (int r = 0; r < 20; ++r) sink += count_char(text, 'a');
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, adder, NULL);
  pthread_create(&t2, NULL, scanner, "a banana and an apple");
  int a[40];
  for (int i = 0; i < 40; ++i) a[i] = (i * 17) % 40;
  bubble(a, 40);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("%d %ld\n", a[0], (long)sink > 0);
  return 0;
}
