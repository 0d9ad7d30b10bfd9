// Producer/consumer through cuda::barrier (issue 23), which nvcc 13.0.88
// compiles to mbarrier.init, mbarrier.arrive and a mbarrier.try_wait loop
// with %globaltimer back-off and nanosleep. Built with
//   nvcc -ptx -arch=sm_90 -O3 -I<cccl>/include/cccl prodcons.cu
// (nvidia-cuda-cccl 13.0.85 for <cuda/barrier>).
#include <cuda/barrier>
#include <cooperative_groups.h>
using barrier = cuda::barrier<cuda::thread_scope_block>;

// Producer/consumer through two cuda::barrier objects (mbarrier.*):
// warp 0 produces a tile of 32 words per round into shared memory and
// arrives on `full`; warps 1..3 wait on `full`, consume, and arrive on
// `empty`; the producer waits on `empty` before the next round.
extern "C" __global__ void prodcons(const unsigned *in, unsigned *out, int rounds)
{
    __shared__ unsigned tile[32];
    __shared__ barrier full, empty;
    const int t = threadIdx.x, w = t / 32, lane = t % 32;
    if (t == 0) {
        init(&full, blockDim.x);
        init(&empty, blockDim.x);
    }
    __syncthreads();
    unsigned acc = 0;
    for (int r = 0; r < rounds; r++) {
        if (w == 0) {
            tile[lane] = in[(blockIdx.x * rounds + r) * 32 + lane] * 3u + r;
        }
        full.arrive_and_wait();
        if (w != 0) {
            acc += tile[(lane + w) % 32] ^ (unsigned)(w << 8);
        }
        barrier::arrival_token tok = empty.arrive();
        empty.wait(std::move(tok));
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}
