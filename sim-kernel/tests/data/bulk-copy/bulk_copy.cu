// Hopper bulk copies (TMA 1D) the way a user writes them (issue 23).
// Built with
//   nvcc -ptx -arch=sm_90 -O3 -I<cccl>/include -I<cccl>/include/cccl bulk_copy.cu
// (nvcc 13.0.88, nvidia-cuda-cccl 13.0.85).
//
// tiled_sum: each block pulls its tile of TILE words from global memory
// into shared memory with cuda::memcpy_async(block, ..., aligned_size_t<16>,
// barrier), which on sm_90 is cp.async.bulk.shared::cluster.global
// .mbarrier::complete_tx::bytes with mbarrier.arrive.expect_tx, completing
// by the barrier's transaction count. Two phases: the second tile reuses
// the barrier. Each thread sums its strided words of both tiles; thread 0
// also writes the tile back through cp.async.bulk.global.shared::cta
// (cuda::device::experimental::cp_async_bulk_shared_to_global) and waits
// with cp.async.bulk.commit_group / wait_group.read 0.
#include <cuda/barrier>
#include <cuda/ptx>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
namespace ptx = cuda::ptx;
using barrier = cuda::barrier<cuda::thread_scope_block>;

#define TILE 256

extern "C" __global__ void tiled_sum(const unsigned *in, unsigned *out, unsigned *copy)
{
    __shared__ alignas(128) unsigned tile[TILE];
    __shared__ barrier bar;
    auto block = cg::this_thread_block();
    const unsigned t = threadIdx.x;
    if (block.thread_rank() == 0) {
        init(&bar, block.size());
    }
    block.sync();
    unsigned acc = 0;
    for (int round = 0; round < 2; round++) {
        const unsigned *src = in + (blockIdx.x * 2 + round) * TILE;
        cuda::memcpy_async(block, tile, src, cuda::aligned_size_t<16>(sizeof(tile)), bar);
        bar.arrive_and_wait();
        for (unsigned i = t; i < TILE; i += blockDim.x) {
            acc += tile[i] * (round + 1) ^ i;
        }
        block.sync();
        if (round == 1 && t == 0) {
            // Write the second tile back with a bulk store.
            ptx::fence_proxy_async(ptx::space_shared);
            ptx::cp_async_bulk(ptx::space_global, ptx::space_shared,
                               copy + blockIdx.x * TILE, tile, sizeof(tile));
            ptx::cp_async_bulk_commit_group();
            ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
        }
        block.sync();
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}

// expect_tx: one thread issues two bulk copies onto one barrier with
// memcpy_async_tx and barrier_arrive_tx; all wait by parity.
extern "C" __global__ void tx_pair(const unsigned *in, unsigned *out)
{
    __shared__ alignas(16) unsigned a[64], b[32];
    __shared__ barrier bar;
    const unsigned t = threadIdx.x;
    if (t == 0) {
        init(&bar, blockDim.x);
        ptx::fence_proxy_async(ptx::space_shared);
    }
    __syncthreads();
    barrier::arrival_token tok;
    if (t == 0) {
        cuda::device::memcpy_async_tx(a, in + blockIdx.x * 96, cuda::aligned_size_t<16>(sizeof(a)), bar);
        cuda::device::memcpy_async_tx(b, in + blockIdx.x * 96 + 64, cuda::aligned_size_t<16>(sizeof(b)), bar);
        tok = cuda::device::barrier_arrive_tx(bar, 1, sizeof(a) + sizeof(b));
    } else {
        tok = bar.arrive();
    }
    bar.wait(std::move(tok));
    out[blockIdx.x * blockDim.x + t] = a[t % 64] + 7u * b[t % 32];
}
