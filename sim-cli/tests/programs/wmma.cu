// WMMA (nvcuda::wmma, mma.h): a 32x32 product as four 16x16 tiles, one
// warp each, of small integers (exact under any order of summation) with
// f32 accumulators, checked against the host's product; then lane 5's
// fragment elements of a matrix holding 0..255, which show which lane
// holds which element (ptxas 13.0.88's sm_90 layout: docs/wmma.md, read
// from its machine code; the expected line follows from it).
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
using namespace nvcuda;

__global__ void tiles(const half* a, const half* b, float* c, int n) {
    int warp = threadIdx.x / 32, ti = warp / 2, tj = warp % 2;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < n; k += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, a + ti * 16 * n + k, n);
        wmma::load_matrix_sync(fb, b + k * n + tj * 16, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + ti * 16 * n + tj * 16, acc, n, wmma::mem_row_major);
}

__global__ void lanes(const half* p, float* out) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> fc;
    wmma::load_matrix_sync(fa, p, 16);
    wmma::load_matrix_sync(fc, p, 16, wmma::mem_col_major);
    if (threadIdx.x == 5) {
        for (int i = 0; i < fa.num_elements; i++) out[i] = __half2float(fa.x[i]);
        for (int i = 0; i < fc.num_elements; i++) out[16 + i] = __half2float(fc.x[i]);
    }
}

int main() {
    const int n = 32;
    static half a[n * n], b[n * n], p[256];
    static float c[n * n], out[24];
    for (int i = 0; i < n * n; i++) {
        a[i] = __float2half((float)(i % 7 - 3));
        b[i] = __float2half((float)(i % 5 - 2));
    }
    for (int i = 0; i < 256; i++) p[i] = __float2half((float)i);
    half *da, *db, *dp;
    float *dc, *dout;
    cudaMalloc(&da, sizeof a); cudaMalloc(&db, sizeof b); cudaMalloc(&dp, sizeof p);
    cudaMalloc(&dc, sizeof c); cudaMalloc(&dout, sizeof out);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    cudaMemcpy(dp, p, sizeof p, cudaMemcpyHostToDevice);
    tiles<<<1, 128>>>(da, db, dc, n);
    lanes<<<1, 32>>>(dp, dout);
    cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float r = 0;
            for (int k = 0; k < n; k++) r += (float)((i * n + k) % 7 - 3) * (float)((k * n + j) % 5 - 2);
            bad += r != c[i * n + j];
        }
    printf("wmma %dx%d: %d wrong, c[0]=%g c[1023]=%g\n", n, n, bad, c[0], c[n * n - 1]);
    printf("lane 5 a:");
    for (int i = 0; i < 16; i++) printf(" %g", out[i]);
    printf("\nlane 5 c:");
    for (int i = 16; i < 24; i++) printf(" %g", out[i]);
    printf("\n");
    return bad != 0;
}
