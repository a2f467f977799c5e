/* graphgen testdata: a small program for GNU gprof (see testdata/README.md).
 * fact() recurses on itself, is_even()/is_odd() recurse on each other
 * (gprof prints them as <cycle 1>), and by_pointer() is only ever called
 * through a function pointer.  argv[1] (default 2000) sets how much work
 * by_pointer() does, so two runs give two slightly different profiles. */
#include <stdlib.h>

static volatile double sink;

void leaf(int n)
{
    double x = 0.0;
    for (int i = 0; i < n; i++)
        x += i * 0.5;
    sink += x;
}

int is_odd(int n);

int is_even(int n)
{
    double x = 0.0;
    for (int i = 0; i < 100; i++)
        x += i;
    sink += x;
    leaf(300);
    return n == 0 ? 1 : is_odd(n - 1);
}

int is_odd(int n)
{
    leaf(300);
    return n == 0 ? 0 : is_even(n - 1);
}

long fact(int n)
{
    leaf(400);
    return n <= 1 ? 1 : n * fact(n - 1);
}

void by_pointer(int n)
{
    double x = 0.0;
    for (int i = 0; i < n; i++)
        x += i * 0.25;
    sink += x;
    leaf(100);
}

static void (*volatile hook)(int) = by_pointer;

int main(int argc, char **argv)
{
    int work = argc > 1 ? atoi(argv[1]) : 2000;
    for (int round = 0; round < 10000; round++) {
        is_even(10);
        fact(8);
        hook(work);
    }
    return 0;
}
