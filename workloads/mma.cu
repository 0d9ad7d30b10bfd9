// Tensor-core warp instructions through inline PTX: one warp per output
// tile, tiles of A and B staged in shared memory and loaded with
// ldmatrix (f16), or fragments read straight from global memory by the
// manual's layouts (s8, f64). Inputs are bytes (launch files' `random`
// u8 buffers); every result is an exact integer sum, whatever the
// tensor core's order of summation. Row-major A (M x K), B (K x N) and C
// (M x N) unless said otherwise; M, N multiples of 16 and 8, K of the
// shape's k; blocks of 4 warps.
#include <stdint.h>

// An integer's f16 bits (exact for the small integers here).
static __device__ unsigned short to_f16(int v)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"((float)v));
    return h;
}

// Every kernel's opening: the block's four warps take consecutive output
// tiles, ROWS x 8 each, in row-major order; tm, tn are the warp's tile row
// and column, and a warp whose tile lies past M returns. A macro, as
// F16_FRAGMENTS below is, so that nvcc's PTX stays token for token the same.
#define WARP_TILE(ROWS)                                                                            \
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;                                          \
    int tile = blockIdx.x * 4 + warp;                                                              \
    int tm = tile / (N / 8), tn = tile % (N / 8);                                                  \
    if (tm >= M / ROWS)                                                                            \
        return;

// The f16 kernels' K step at k0: the warp's 16 x 16 tile of A and 16 x 8 tile
// of B (bytes - 4 as f16) staged in its shared tiles As[warp], Bs[warp], then
// the mma's fragments loaded from them, A by ldmatrix.x4 into a0..a3 and B by
// ldmatrix.x2.trans into b0, b1. A macro, not a function: the kernels' code is
// then token for token what it was, and nvcc's workloads/mma.ptx with it (an
// inline function numbers the registers differently).
#define F16_FRAGMENTS                                                                              \
    for (int e = lane; e < 256; e += 32)                                                           \
        As[warp][e / 16][e % 16] = to_f16((int)A[(tm * 16 + e / 16) * K + k0 + e % 16] - 4);       \
    for (int e = lane; e < 128; e += 32)                                                           \
        Bs[warp][e / 8][e % 8] = to_f16((int)B[(k0 + e / 8) * N + tn * 8 + e % 8] - 4);            \
    __syncwarp();                                                                                  \
    uint32_t a0, a1, a2, a3, b0, b1;                                                               \
    uint32_t pa = (uint32_t)__cvta_generic_to_shared(&As[warp][lane % 16][(lane / 16) * 8]);       \
    uint32_t pb = (uint32_t)__cvta_generic_to_shared(&Bs[warp][lane % 16][0]);                     \
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"               \
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)                                          \
                 : "r"(pa));                                                                       \
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"                  \
                 : "=r"(b0), "=r"(b1)                                                              \
                 : "r"(pb));

// C = A B with f16 A, B (byte - 4) and f32 accumulators:
// mma.m16n8k16.row.col.f32.f16.f16.f32; A by ldmatrix.x4, B by
// ldmatrix.x2.trans, the K loop accumulating in place.
extern "C" __global__ void mma_f16(const uint8_t *A, const uint8_t *B, float *C, int M, int N, int K)
{
    __shared__ __align__(16) unsigned short As[4][16][16];
    __shared__ __align__(16) unsigned short Bs[4][16][8];
    WARP_TILE(16) // warp, lane, tm, tn; a warp past M returns
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        F16_FRAGMENTS // declares and loads a0..a3, b0, b1
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        __syncwarp();
    }
    int g = lane / 4, t = lane % 4;
    float *c = C + (tm * 16 + g) * N + tn * 8 + 2 * t;
    c[0] = d0;
    c[1] = d1;
    c[8 * N] = d2;
    c[8 * N + 1] = d3;
}

// The same product with f16 accumulators
// (mma.m16n8k16.row.col.f16.f16.f16.f16: every sum here is an integer of
// at most 1,024, exact in f16), each warp's 16 x 8 tile of D written to
// shared memory with stmatrix.x2 and copied out row by row: C is M x N f16.
extern "C" __global__ void mma_f16h(const uint8_t *A, const uint8_t *B, unsigned short *C, int M, int N, int K)
{
    __shared__ __align__(16) unsigned short As[4][16][16];
    __shared__ __align__(16) unsigned short Bs[4][16][8];
    __shared__ __align__(16) unsigned short Ds[4][16][8];
    WARP_TILE(16) // warp, lane, tm, tn; a warp past M returns
    uint32_t d0 = 0, d1 = 0;
    for (int k0 = 0; k0 < K; k0 += 16) {
        F16_FRAGMENTS // declares and loads a0..a3, b0, b1
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
                     "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};"
                     : "+r"(d0), "+r"(d1)
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        __syncwarp();
    }
    uint32_t pd = (uint32_t)__cvta_generic_to_shared(&Ds[warp][lane % 16][0]);
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(pd), "r"(d0), "r"(d1)
                 : "memory");
    __syncwarp();
    for (int e = lane; e < 128; e += 32)
        C[(tm * 16 + e / 8) * N + tn * 8 + e % 8] = Ds[warp][e / 8][e % 8];
}

// C = A B with s8 A (M x K) and s8 Bt (B transposed: N x K, the `.col`
// layout), s32 accumulators: mma.m16n8k32.row.col.s32.s8.s8.s32, each
// fragment register four consecutive bytes of a row of A or of Bt.
extern "C" __global__ void mma_s8(const uint32_t *A, const uint32_t *Bt, int *C, int M, int N, int K)
{
    WARP_TILE(16) // warp, lane, tm, tn; a warp past M returns
    int g = lane / 4, t = lane % 4, kw = K / 4;
    int d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    for (int k0 = 0; k0 < K; k0 += 32) {
        const uint32_t *a = A + (tm * 16 + g) * kw + k0 / 4 + t;
        const uint32_t *b = Bt + (tn * 8 + g) * kw + k0 / 4 + t;
        uint32_t a0 = a[0], a1 = a[8 * kw], a2 = a[4], a3 = a[8 * kw + 4], b0 = b[0], b1 = b[4];
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+r"(d0), "+r"(d1), "+r"(d2), "+r"(d3)
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    int *c = C + (tm * 16 + g) * N + tn * 8 + 2 * t;
    c[0] = d0;
    c[1] = d1;
    c[8 * N] = d2;
    c[8 * N + 1] = d3;
}

// C = A B in f64 (byte - 4): mma.m8n8k4.row.col.f64.f64.f64.f64, one warp
// per 8 x 8 tile.
extern "C" __global__ void mma_f64(const uint8_t *A, const uint8_t *B, double *C, int M, int N, int K)
{
    WARP_TILE(8) // warp, lane, tm, tn; a warp past M returns
    int g = lane / 4, t = lane % 4;
    double d0 = 0.0, d1 = 0.0;
    for (int k0 = 0; k0 < K; k0 += 4) {
        double a = (double)((int)A[(tm * 8 + g) * K + k0 + t] - 4);
        double b = (double)((int)B[(k0 + t) * N + tn * 8 + g] - 4);
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                     : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
    }
    double *c = C + (tm * 8 + g) * N + tn * 8 + 2 * t;
    c[0] = d0;
    c[1] = d1;
}
