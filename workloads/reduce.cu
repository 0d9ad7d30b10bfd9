// Block-wide f32 sum: each thread adds a grid-stride slice of `in`, the
// block's 256 sums are halved in shared memory down to 32, and the first
// warp finishes with shuffles; thread 0 writes the block's partial to
// out[blockIdx.x]. No atomics, so the result is one fixed order of adds.
// Launch: block (256, 1, 1), any grid.
// tools/gpu/bench/grid.cu's reduce_sum_rec repeats this body between its
// clock records, as that program ran (issue 27).
#define BLOCK 256

extern "C" __global__ void reduce_sum(const float *__restrict__ in,
                                      float *__restrict__ out, unsigned n)
{
    __shared__ float s[BLOCK];
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
