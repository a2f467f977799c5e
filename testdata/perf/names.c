#define _GNU_SOURCE
#include <pthread.h>
#include <sys/prctl.h>
static volatile double sink;
__attribute__((noinline)) double spin(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; return s; }
void* w(void* a) { prctl(PR_SET_NAME, (char*)a); sink += spin(200000000L); return 0; }
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, w, "x 42 9: y");
  sink += spin(100000000L);
  pthread_join(t, 0);
  return 0;
}
