// Device printf (issue 23/24): compiled with nvcc 13.0.88
//   nvcc -arch=sm_90 -ptx printf.cu -o printf.ptx
// The expected output (printf.expected.txt) is what the host C library's
// printf prints for the same formats and values: reference.c, compiled
// with gcc and run (see reference.c).
#include <cstdio>

// Inlined by nvcc into the kernel: its printf is the kernel's.
__device__ void report(int i, const char *tag) { printf("dev %s %d\n", tag, i); }

// Kept as a call by nvcc: its printf runs inside a device function simcli inlines.
__device__ __noinline__ void helper(int i, long long v) { printf("helper %d %lld\n", i, v); }

__global__ void pf(const int *a, float f, const char *s) {
  int i = threadIdx.x;
  double d = (double)f * 1.0e10;
  if (i == 0) {
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
    // NaNs from their bits (no arithmetic: the formatter is under test).
    double qn = __longlong_as_double(0x7ff8000000000000LL);
    double nqn = __longlong_as_double((long long)0xfff8000000000001ULL);
    printf("specials %f %e %g %5.1f %-6f| %+f %f %F %05.1f\n", 1.0 / 0.0 * f, -1.0 / 0.0 * f, qn, 1.0 / 0.0 * f, -1.0 / 0.0 * f, 1.0 / 0.0 * f, nqn, qn, -1.0 / 0.0 * f);
    printf("round %.0f %.0f %.0f %.1f %.2f %.3e\n", 0.5, 1.5, 2.5, 0.25, 1.005, 1.0005e10);
  }
  // Divergent: only odd lanes below 8 of each warp print, in lane order.
  if ((i & 1) && (i & 31) < 8)
    printf("odd %d a=%d\n", i, a[i]);
  if ((i & 31) == 0) {
    report(i, "warp");
    helper(i, (long long)a[i] * 1000000007LL);
  }
}

// A format at an address the kernel is handed: a bad one faults.
__global__ void badfmt(const char *fmt) { printf(fmt); }
