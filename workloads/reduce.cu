// Block-wide f32 sum: each thread adds a grid-stride slice of `in`, the
// block's 256 sums are halved in shared memory down to 32, and the first
// warp finishes with shuffles; thread 0 writes the block's partial to
// out[blockIdx.x]. No atomics, so the result is one fixed order of adds.
// Launch: block (256, 1, 1), any grid.
// The body is reduce_block so that tools/gpu/bench/grid.cu's reduce_sum_rec
// runs this very code between its clock records; `s` is the kernel's own
// __shared__ array, passed in, which keeps reduce.ptx as it was.
#define BLOCK 256

__device__ __forceinline__ void reduce_block(float *s, const float *__restrict__ in,
                                             float *__restrict__ out, unsigned n)
{
    const unsigned tid = threadIdx.x;
    float sum = 0.0f;
    for (unsigned i = blockIdx.x * BLOCK + tid; i < n; i += gridDim.x * BLOCK)
        sum += in[i];
    s[tid] = sum;
    __syncthreads();
#pragma unroll
    for (unsigned h = BLOCK / 2; h >= 32; h >>= 1) {
        if (tid < h)
            s[tid] += s[tid + h];
        __syncthreads();
    }
    if (tid < 32) {
        float v = s[tid];
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

extern "C" __global__ void reduce_sum(const float *__restrict__ in,
                                      float *__restrict__ out, unsigned n)
{
    __shared__ float s[BLOCK];
    reduce_block(s, in, out, n);
}
