// Probes for int_math.t and float_math.t (docs/validation.md, "Integer
// division ... and f32/f64 division and square root"): the two kernels of
// extra.cu with their clock window split into loads, arithmetic and stores,
// and a one-block kernel that only stores, at a stride given as a parameter.
// Compiled with nvcc 13.0.88 -ptx -arch=sm_90 -O3 (tools/gpu/make_probes.py).
//
// Each kernel stores, per warp (its lane 0), the usual (start, end) pair in
// `clk` (launch_check.py's window) and four clocks in `ph`: start, after the
// loads, before the stores, after the stores (make_probes.phases reads them).
//
// extra.cu is included whole, so the module also holds the unsplit kernels
// (float_math on inputs without special values: float_math.plain).
#include "extra.cu"

// A clock read the compiler keeps in place: ptxas does not move machine code
// across a clock read, and the "memory" clobber keeps NVVM's loads and stores
// on their side of it.
__device__ __forceinline__ long long stamp() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory");
  return t;
}

// A clock read that issues only once u and v are in registers: it is guarded
// by a predicate computed from them (ISETP waits on their scoreboards; a warp
// issues in order). Both arms read the clock, so the value is always the
// cycle. A plain read after a load issues as soon as the load has.
__device__ __forceinline__ long long stamp_after(unsigned u, unsigned v) {
  long long t;
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, %2;\n\t"
               "@p mov.u64 %0, %%clock64;\n\t@!p mov.u64 %0, %%clock64;\n\t}"
               : "=l"(t) : "r"(u), "r"(v) : "memory");
  return t;
}

__device__ __forceinline__ void record(long long* clk, long long* ph, long long t0, long long t1,
                                       long long t2) {
  long long t3 = stamp();
  unsigned w = threadIdx.x / 32 + blockIdx.x * ((blockDim.x + 31) / 32);
  if ((threadIdx.x & 31) == 0) {
    clk[2 * w] = t0;
    clk[2 * w + 1] = t3;
    ph[4 * w] = t0;
    ph[4 * w + 1] = t1;
    ph[4 * w + 2] = t2;
    ph[4 * w + 3] = t3;
  }
}

// float_math of extra.cu, its values computed before any store (there the
// stores interleave with the arithmetic in the PTX, and q[i] is read after
// f[] is written): same outputs, the window in three parts.
extern "C" __global__ void float_math_split(const float* a, const float* b, float* f, int* q, int n,
                                            long long* ph, long long* clk) {
  long long t0 = stamp(), t1 = t0, t2 = t0;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = a[i], y = b[i];
    int qi = q[i];
    t1 = stamp_after(__float_as_uint(x) ^ __float_as_uint(y), qi);
    float r = fmaf(x, y, 1.5f) + sqrtf(fabsf(x)) - x / (fabsf(y) + 0.25f);
    r = fminf(fmaxf(r, -1000.0f), 1000.0f) * 0.5f;
    double d = (double)x * (double)y + 1e-3;
    float second = __saturatef(y * 0.125f) + (float)(d / 3.0);
    float third = (float)(i * 7 - 300) * 0.3f + __int2float_rn(qi);
    int qo = __float2int_rn(x * 3.7f) ^ (int)(unsigned)(fabsf(y) * 100.0f) ^ __float2int_rz(r);
    t2 = stamp_after(__float_as_uint(r) ^ __float_as_uint(second), __float_as_uint(third) ^ qo);
    f[3 * i] = r;
    f[3 * i + 1] = second;
    f[3 * i + 2] = third;
    q[i] = qo;
  }
  record(clk, ph, t0, t1, t2);
}

// int_math of extra.cu, likewise.
extern "C" __global__ void int_math_split(const int* a, const unsigned* b, long long* o64, int* o32, int n,
                                          long long* ph, long long* clk) {
  long long t0 = stamp(), t1 = t0, t2 = t0;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = a[i];
    unsigned y = b[i] | 1u;
    t1 = stamp_after(x, y);
    int d = (int)(y & 0xff) - 128;
    if (d == 0) d = 3;
    int v[6];
    v[0] = x / d + x % d;
    v[1] = (int)((unsigned)x / y + (unsigned)x % (y >> 3 | 1));
    v[2] = __mulhi(x, (int)y) + __umulhi((unsigned)x, y);
    v[3] = __popc(y) + __clz(x) * 3 + __ffs(x);
    v[4] = (int)__brev(y) ^ ((x >> 5) & 0x3ff) ^ (int)((y << 7) | (y >> 25));
    v[5] = max(min(x, (int)y), -100000) + abs(x % 1000);
    long long w = (long long)x * (long long)(int)y;
    long long lo = w / 7 + (long long)y * 0x12345ll;
    long long hi = (long long)((unsigned long long)w >> 3) % 1000003ll;
    t2 = stamp_after(v[0] ^ v[1] ^ v[2] ^ (unsigned)lo, v[3] ^ v[4] ^ v[5] ^ (unsigned)hi);
    for (int k = 0; k < 6; k++) o32[6 * i + k] = v[k];
    o64[2 * i] = lo;
    o64[2 * i + 1] = hi;
  }
  record(clk, ph, t0, t1, t2);
}

// Eight stores a thread (as int_math's 8 a warp), store k into region k of
// `out`, lane l of a warp at l * stride bytes: each warp store covers
// 32 * stride bytes (4: one 128-byte line, 24: six, as int_math's STG.E;
// 32: eight). The values are ready before the second clock read, so the
// window from there to the end is the stores alone (the end read waits for
// the last store's registers to be read, as int_math's does).
extern "C" __global__ void store_stride(int* out, int stride_words, long long* ph, long long* clk) {
  long long t0 = stamp();
  int i = threadIdx.x;
  int* p = out + i * stride_words;
  int region = blockDim.x * stride_words;
  int v = i * 8 + 1;
  long long t1 = stamp_after(v, region);
  for (int k = 0; k < 8; k++) p[k * region] = v + k;
  record(clk, ph, t0, t1, t1);
}
