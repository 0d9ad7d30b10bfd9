// Cooperative-groups tiles of 8 (`bar.warp.sync` with the tile's mask,
// `shfl.sync` and `match.any.sync` over it) and `elect.sync` (inline PTX:
// CUDA 13.0 has no intrinsic), for sim-kernel/tests/it/warp_coll.rs. Blocks
// of 72 threads (the third warp has 8 lanes); each thread writes 4 words,
// and each warp whose odd-valued lanes elect a leader counts one in
// `leaders` (which lane leads does not matter).
// nvcc -ptx -arch=sm_90 -O3 warp_tile.cu (nvcc 13.0.88); reference.py.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__device__ __forceinline__ bool elect(unsigned mask)
{
    unsigned p;
    asm volatile("{\n .reg .pred e;\n elect.sync _|e, %1;\n selp.u32 %0, 1, 0, e;\n}" : "=r"(p) : "r"(mask));
    return p != 0;
}
extern "C" __global__ void warp_tile(const int* __restrict__ in, unsigned* __restrict__ out, unsigned* __restrict__ leaders)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = in[t];
    auto block = cg::this_thread_block();
    auto tile = cg::tiled_partition<8>(block);
    const int first = tile.shfl(v, 0);
    tile.sync();
    const int mx = cg::reduce(tile, v, cg::greater<int>());
    const unsigned sum = cg::reduce(tile, (unsigned)v, cg::plus<unsigned>());
    const unsigned same = tile.match_any(v & 7);
    if (v & 1) {
        if (elect(__activemask())) atomicAdd(&leaders[blockIdx.x * 4 + threadIdx.x / 32], 1u);
    }
    out[t * 4 + 0] = (unsigned)first;
    out[t * 4 + 1] = (unsigned)mx;
    out[t * 4 + 2] = sum;
    out[t * 4 + 3] = same;
}
