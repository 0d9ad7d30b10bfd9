// 256-bin histogram of u8 data: each block counts its grid-stride slice
// of 32-bit words (four bytes each) into a shared-memory histogram with
// shared atomics, then adds it to the global one with global atomics.
// Counts are integers, so the result does not depend on the atomics'
// order. `hist` must start zeroed. Launch: block (256, 1, 1), any grid.
// The body is histogram_block so that tools/gpu/bench/grid.cu's
// histogram256_rec runs this very code between its clock records; `h` is the
// kernel's own __shared__ array, passed in, which keeps histogram.ptx as it
// was.
#define BINS 256

__device__ __forceinline__ void histogram_block(unsigned *h,
                                                const unsigned *__restrict__ data,
                                                unsigned *__restrict__ hist,
                                                unsigned words)
{
    const unsigned tid = threadIdx.x;
    h[tid] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + tid; i < words;
         i += gridDim.x * blockDim.x) {
        const unsigned w = data[i];
        atomicAdd(&h[w & 0xff], 1u);
        atomicAdd(&h[(w >> 8) & 0xff], 1u);
        atomicAdd(&h[(w >> 16) & 0xff], 1u);
        atomicAdd(&h[w >> 24], 1u);
    }
    __syncthreads();
    const unsigned c = h[tid];
    if (c != 0)
        atomicAdd(&hist[tid], c);
}

extern "C" __global__ void histogram256(const unsigned *__restrict__ data,
                                        unsigned *__restrict__ hist,
                                        unsigned words)
{
    __shared__ unsigned h[BINS];
    histogram_block(h, data, hist, words);
}
