// WMMA (nvcuda::wmma, mma.h) in one block of four warps, each a form:
// warp 0 global row x col with f32 accumulators, dumping its fragments
// (which lane holds which element: docs/wmma.md); warp 1 col x row with a
// leading dimension of 24 and column-major accumulators; warp 2 from
// shared memory with f16 accumulators; warp 3 an f32 c into an f16 d.
// Inputs and expected outputs: reference.py. Built with
//   nvcc -arch=sm_90 -ptx wmma.cu -o wmma.ptx   (nvcc 13.0.88)
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

using A_row = wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>;
using A_col = wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major>;
using B_row = wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major>;
using B_col = wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major>;
using C32 = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
using C16 = wmma::fragment<wmma::accumulator, 16, 16, 16, half>;

// d + at = a x b + c with fragments FA, FB, FC (warps 1 and 2): a and b with
// leading dimension ld, c and the 256 outputs at d + at (of FC's element type
// T) 16 x 16 in `layout`. (The output offset is added here, at the store, as
// the committed wmma.ptx computes it.)
template <typename FA, typename FB, typename FC, typename T>
__device__ __forceinline__ void mma_form(const half* a, const half* b, unsigned ld, const T* c, T* d, int at,
                                         wmma::layout_t layout) {
    FA fa;
    FB fb;
    FC fc;
    wmma::load_matrix_sync(fa, a, ld);
    wmma::load_matrix_sync(fb, b, ld);
    wmma::load_matrix_sync(fc, c, 16, layout);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d + at, fc, 16, layout);
}

extern "C" __global__ void wmma_forms(const unsigned char* in, unsigned char* out) {
    const half* a = (const half*)in;             // 384 halves
    const half* b = (const half*)(in + 768);     // 384 halves
    const float* c = (const float*)(in + 1536);  // 256 floats
    const half* ch = (const half*)(in + 2560);   // 256 halves
    const half* p = (const half*)(in + 3072);    // 256 halves: p[i] = i
    float* d32 = (float*)out;                    // 2 x 256
    half* d16 = (half*)(out + 2048);             // 2 x 256
    half* fa_out = (half*)(out + 3072);          // 32 x 16
    half* fb_out = (half*)(out + 4096);          // 32 x 16
    float* fc_out = (float*)(out + 5120);        // 32 x 8
    __shared__ __align__(32) half sa[256], sb[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        sa[i] = a[i];
        sb[i] = b[i];
    }
    __syncthreads();
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp == 0) {
        A_row pa;
        B_col pb;
        C32 fc;
        wmma::load_matrix_sync(pa, p, 16);
        wmma::load_matrix_sync(pb, p, 16);
        wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
        for (int i = 0; i < pa.num_elements; i++) fa_out[lane * 16 + i] = pa.x[i];
        for (int i = 0; i < pb.num_elements; i++) fb_out[lane * 16 + i] = pb.x[i];
        for (int i = 0; i < fc.num_elements; i++) fc_out[lane * 8 + i] = fc.x[i];
        A_row fa;
        B_col fb;
        wmma::load_matrix_sync(fa, a, 16);
        wmma::load_matrix_sync(fb, b, 16);
        wmma::mma_sync(fc, fa, fb, fc);
        wmma::store_matrix_sync(d32, fc, 16, wmma::mem_row_major);
    } else if (warp == 1) {
        mma_form<A_col, B_row, C32>(a, b, 24, c, d32, 256, wmma::mem_col_major);
    } else if (warp == 2) {
        mma_form<A_row, B_row, C16>(sa, sb, 16, ch, d16, 0, wmma::mem_row_major);
    } else {
        A_row fa;
        B_col fb;
        C32 fc;
        C16 fd;
        wmma::load_matrix_sync(fa, a, 16);
        wmma::load_matrix_sync(fb, b, 16);
        wmma::fill_fragment(fc, 3.0f);
        wmma::mma_sync(fd, fa, fb, fc);
        wmma::store_matrix_sync(d16 + 256, fd, 16, wmma::mem_row_major);
    }
}
