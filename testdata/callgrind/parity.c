#include <stdio.h>
static int is_odd(unsigned n);
__attribute__((noinline)) static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
__attribute__((noinline)) static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
int main(void) { int s = 0; for (int i = 0; i < 200; ++i) s += is_even(i); printf("%d\n", s); return 0; }
