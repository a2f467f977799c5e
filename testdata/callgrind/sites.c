// A program for callgrind round-trip tests: main calls work() from three
// source lines and work() calls helper() from two, with a loop and a branch.
#include <stdio.h>

__attribute__((noinline)) static int helper(int x) { return x * 3 + 1; }

__attribute__((noinline)) static int work(int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) {
    if (i % 3 == 0)
      s += helper(i);
    else
      s -= helper(i + 1);
  }
  return s;
}

int main(void) {
  int a = work(10);
  int b = work(20);
  int c = work(5);
  printf("%d\n", a + b + c);
  return 0;
}
