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

// These calls repeat printf.cu's line for line, on purpose: the same
// formats and values, printed by the host C library.
static void header(void) {
  float f = F;
  const char *s = S;
  double d = (double)f * 1.0e10;
  printf("hello\n");
  printf("ints %d %i %u %x %X %o %c|%%\n", -42, 42, 3000000000u, 0xbeef, 0xbeef, 8, 'Z');
  printf("longs %ld %lld %llu %lx\n", -1234567890123L, 9000000000LL, 18446744073709551615ull, 0xdeadbeefcafeL);
  printf("shorts %hd %hu %hhd %hhx\n", (short)-5, (unsigned short)65535, (signed char)-3, (unsigned char)200);
  printf("floats %f %e %g %E %G %.3f|%10.2e|%-10.1f|%+.0f %g %g %F\n", f, d, d, d, 1e-5, f, d, f, 2.5, 100000.0, 1e6, -f);
  printf("more %g %g %.10g %#g %#.0f %#.0e %08.3f %-+8.2f| % e\n", 0.0001, 123456789.0, 1.0 / 3.0, 1.0, 3.0, 3.0, -f, f, f);
  printf("flags [%5d] [%-5d] [%05d] [%+d] [% d] [%#x] [%#o] [%.3d] [%8.3x] [%-#8x] [%.0d]\n", 42, 42, 42, 42, 42, 255, 8, 7, 255, 255, 0);
  printf("strings [%s] [%10s] [%-6s] [%.2s] [%s]\n", s, "ab", "ab", "abcdef", "const");
  printf("ptr %p %p [%20p]\n", (void *)0, (void *)0x1000, (void *)0xabcdef);
  printf("hex %a %A %a %.2a %a\n", 1.0, -0.1, 0.0, 1.0 / 3.0, 1e-310);
  printf("star [%*d] [%-*d] [%.*f] [%*.*e]\n", 6, 42, 6, 42, 2, 3.14159, 12, 3, 2.0e-7);
  uint64_t qb = 0x7ff8000000000000ull, nqb = 0xfff8000000000001ull;
  double qn, nqn;
  memcpy(&qn, &qb, 8);
  memcpy(&nqn, &nqb, 8);
  printf("specials %f %e %g %5.1f %-6f| %+f %f %F %05.1f\n", 1.0 / 0.0 * f, -1.0 / 0.0 * f, qn, 1.0 / 0.0 * f, -1.0 / 0.0 * f, 1.0 / 0.0 * f, nqn, qn, -1.0 / 0.0 * f);
  printf("round %.0f %.0f %.0f %.1f %.2f %.3e\n", 0.5, 1.5, 2.5, 0.25, 1.005, 1.0005e10);
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
