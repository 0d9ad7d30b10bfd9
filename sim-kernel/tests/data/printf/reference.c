/* The expected output of printf.cu's `pf` (printf.json): the same formats
 * and values through the host C library's printf (glibc), which is what
 * CUDA formats device printf output with. Each thread's calls are in
 * program order, lanes of a warp in lane order, warp 0's lines before
 * warp 1's (the simulator interleaves the warps as it runs them: the test
 * compares each warp's lines).
 *   gcc -O0 -o reference reference.c && ./reference > printf.expected.txt
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static volatile float F = 3.14159f; /* the launch's f32 parameter */
static const char *S = "device-str"; /* the launch's `s` buffer */

static int A(int i) { return i * 3 - 7; } /* the launch's `a` buffer (a.bin) */

static void report(int i, const char *tag) { printf("dev %s %d\n", tag, i); }
static void helper(int i, long long v) { printf("helper %d %lld\n", i, v); }

/* printf.cu's calls (calls.h): the same formats and values, printed by the host
 * C library. */
static void header(void) {
  float f = F;
  const char *s = S;
  double d = (double)f * 1.0e10;
  uint64_t qb = 0x7ff8000000000000ull, nqb = 0xfff8000000000001ull;
  double qn, nqn;
  memcpy(&qn, &qb, 8);
  memcpy(&nqn, &nqb, 8);
#include "calls.h"
}

int main(void) {
  for (int w = 0; w < 2; w++) {
    if (w == 0)
      header();
    for (int i = 32 * w; i < 32 * w + 32; i++)
      if ((i & 1) && (i & 31) < 8)
        printf("odd %d a=%d\n", i, A(i));
    int i = 32 * w;
    report(i, "warp");
    helper(i, (long long)A(i) * 1000000007LL);
  }
  return 0;
}
