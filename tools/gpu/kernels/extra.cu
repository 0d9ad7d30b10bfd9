// Kernels beyond the public five, written the way CUDA code uses the
// instructions nvcc -O3 emits for integer, float, warp-level and memory
// work: shuffles, votes, atomics (global and shared), local arrays,
// vector and byte loads, __ldg, __constant__ tables, 2-D blocks,
// integer division and bit operations, float math and conversions.
// Compiled with nvcc 13.0.88 -ptx -arch=sm_90 -O3 (tools/gpu/make_extra.py);
// each kernel stores %clock64 at its start and end per warp in `clk`.

#define CLK_START long long t0 = clock64();
#define CLK_END(clk) { long long t1 = clock64(); unsigned w = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32 + (blockIdx.x + gridDim.x * blockIdx.y) * ((blockDim.x * blockDim.y * blockDim.z + 31) / 32); if ((threadIdx.x & 31) == 0) { clk[2 * w] = t0; clk[2 * w + 1] = t1; } }

extern "C" __global__ void reduce_shfl(const int* in, int* partial, int* total, int n, long long* clk) {
  CLK_START
  __shared__ int warp_sums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    int nw = (blockDim.x + 31) >> 5;
    int s = threadIdx.x < nw ? warp_sums[threadIdx.x] : 0;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x == 0) { partial[blockIdx.x] = s; atomicAdd(total, s); }
  }
  CLK_END(clk)
}

extern "C" __global__ void histogram(const unsigned char* data, unsigned* hist, int n, long long* clk) {
  CLK_START
  __shared__ unsigned h[64];
  for (int k = threadIdx.x; k < 64; k += blockDim.x) h[k] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&h[data[i] >> 2], 1u);
  __syncthreads();
  for (int k = threadIdx.x; k < 64; k += blockDim.x) atomicAdd(&hist[k], h[k]);
  CLK_END(clk)
}

extern "C" __global__ void compact_vote(const int* in, int* out, unsigned* count, unsigned* ballots, int n, int thr, long long* clk) {
  CLK_START
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = i < n ? in[i] : 0;
  bool keep = i < n && x > thr;
  // The lanes that exist (the last warp of a block may be partial): a full
  // mask there would be undefined.
  unsigned live = __activemask();
  unsigned b = __ballot_sync(live, keep);
  unsigned lane = threadIdx.x & 31;
  // Each warp owns 32 output slots (an atomic counter would make the order
  // depend on which warp comes first); the total is counted atomically.
  unsigned gw = blockIdx.x * ((blockDim.x + 31) >> 5) + (threadIdx.x >> 5);
  unsigned base = __shfl_sync(live, gw * 32, 0);
  if (lane == 0 && b) atomicAdd(count, __popc(b));
  if (keep) out[base + __popc(b & ((1u << lane) - 1))] = x;
  if (lane == 0) ballots[gw] = b ^ (__all_sync(live, x >= 0) ? 0x80000000u : 0) ^ (__any_sync(live, x == thr) ? 1u : 0) ^ (live << 8);
  CLK_END(clk)
}

extern "C" __global__ void float_math(const float* a, const float* b, float* f, int* q, int n, long long* clk) {
  CLK_START
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = a[i], y = b[i];
    float r = fmaf(x, y, 1.5f) + sqrtf(fabsf(x)) - x / (fabsf(y) + 0.25f);
    r = fminf(fmaxf(r, -1000.0f), 1000.0f) * 0.5f;
    double d = (double)x * (double)y + 1e-3;
    f[3 * i] = r;
    f[3 * i + 1] = __saturatef(y * 0.125f) + (float)(d / 3.0);
    f[3 * i + 2] = (float)(i * 7 - 300) * 0.3f + __int2float_rn(q[i]);
    q[i] = __float2int_rn(x * 3.7f) ^ (int)(unsigned)(fabsf(y) * 100.0f) ^ __float2int_rz(r);
  }
  CLK_END(clk)
}

extern "C" __global__ void int_math(const int* a, const unsigned* b, long long* o64, int* o32, int n, long long* clk) {
  CLK_START
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = a[i];
    unsigned y = b[i] | 1u;
    int d = (int)(y & 0xff) - 128; if (d == 0) d = 3;
    o32[6 * i] = x / d + x % d;
    o32[6 * i + 1] = (int)((unsigned)x / y + (unsigned)x % (y >> 3 | 1));
    o32[6 * i + 2] = __mulhi(x, (int)y) + __umulhi((unsigned)x, y);
    o32[6 * i + 3] = __popc(y) + __clz(x) * 3 + __ffs(x);
    o32[6 * i + 4] = (int)__brev(y) ^ ((x >> 5) & 0x3ff) ^ (int)((y << 7) | (y >> 25));
    o32[6 * i + 5] = max(min(x, (int)y), -100000) + abs(x % 1000);
    long long w = (long long)x * (long long)(int)y;
    o64[2 * i] = w / 7 + (long long)y * 0x12345ll;
    o64[2 * i + 1] = (long long)((unsigned long long)w >> 3) % 1000003ll;
  }
  CLK_END(clk)
}

extern "C" __global__ void local_sort(const int* in, int* out, int n, long long* clk) {
  CLK_START
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v[8];
  for (int k = 0; k < 8; k++) v[k] = in[(i * 8 + k) % (n * 8)];
  int m = in[i % n] & 7;
  v[m] += 1000;  // dynamic index: the array lives in local memory
  for (int p = 0; p < 8; p++)
    for (int k = p & 1; k + 1 < 8; k += 2)
      if (v[k] > v[k + 1]) { int t = v[k]; v[k] = v[k + 1]; v[k + 1] = t; }
  if (i < n) for (int k = 0; k < 8; k++) out[i * 8 + k] = v[(k + m) & 7];
  CLK_END(clk)
}

extern "C" __global__ void vec_bytes(const int4* in, const unsigned char* bytes, const short* s16, uchar4* out4, int4* out, int n, long long* clk) {
  CLK_START
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int4 v = __ldg(&in[i]);
    unsigned char c = bytes[i];
    short s = s16[i];
    signed char sc = (signed char)bytes[n - 1 - i];
    out[i] = make_int4(v.x + c, v.y - s, v.z ^ sc, v.w + (int)(unsigned short)s);
    out4[i] = make_uchar4(c, (unsigned char)(v.x >> 3), (unsigned char)s, (unsigned char)(sc + 1));
  }
  CLK_END(clk)
}

__constant__ int table[32] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5};
__device__ int gbias = 17;

extern "C" __global__ void const_lookup(const unsigned* idx, int* out, int n, long long* clk) {
  CLK_START
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned k = idx[i];
    out[i] = table[k & 31] * 1000 + table[(k >> 5) & 31] + gbias;
  }
  CLK_END(clk)
}

extern "C" __global__ void transpose_tile(const int* in, int* out, int w, int h, long long* clk) {
  CLK_START
  __shared__ int tile[16][17];
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  int tx = blockIdx.y * 16 + threadIdx.x, ty = blockIdx.x * 16 + threadIdx.y;
  if (tx < h && ty < w) out[ty * h + tx] = tile[threadIdx.x][threadIdx.y] * 2 + 1;
  CLK_END(clk)
}

extern "C" __global__ void atomics(const int* in, int* g, unsigned* u, int n, long long* clk) {
  CLK_START
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = in[i];
    atomicMin(&g[0], x);
    atomicMax(&g[1], x);
    atomicAnd(&g[2], x | 0x0f0f0000);
    atomicOr(&g[3], x & 0x00f000f0);
    atomicXor(&g[4], x);
    atomicInc(&u[0], 37u);
    atomicDec(&u[1], 1000u);
    atomicCAS(&g[8 + i], i & 1, x);  // one slot per thread: order-independent
    atomicAdd(&u[2 + (i & 1)], (unsigned)x);
  }
  CLK_END(clk)
}
