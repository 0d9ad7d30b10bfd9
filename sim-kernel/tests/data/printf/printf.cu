// Device printf (issue 23/24): compiled with nvcc 13.0.88
//   nvcc -arch=sm_90 -ptx printf.cu -o printf.ptx
// The expected output (printf.expected.txt) is what the host C library's
// printf prints for the same formats and values: reference.c, compiled
// with gcc and run (see reference.c). Thread 0's calls are calls.h, which
// both files include.
#include <cstdio>

// Inlined by nvcc into the kernel: its printf is the kernel's.
__device__ void report(int i, const char *tag) { printf("dev %s %d\n", tag, i); }

// Kept as a call by nvcc: its printf runs inside a device function simcli inlines.
__device__ __noinline__ void helper(int i, long long v) { printf("helper %d %lld\n", i, v); }

__global__ void pf(const int *a, float f, const char *s) {
  int i = threadIdx.x;
  double d = (double)f * 1.0e10;
  if (i == 0) {
    // NaNs from their bits (no arithmetic: the formatter is under test).
    double qn = __longlong_as_double(0x7ff8000000000000LL);
    double nqn = __longlong_as_double((long long)0xfff8000000000001ULL);
#include "calls.h"
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
