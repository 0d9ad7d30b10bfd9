// Warp collectives and block reductions as CUDA C++ writes them, for
// sim-kernel/tests/it/warp_coll.rs. Blocks of 80 threads (the third warp
// has 16 lanes); the odd inputs take a divergent branch, where the
// collectives run over the lanes that took it (a ballot's mask), and a
// nested branch narrows that to lanes 0-15. Each thread writes 15 words.
// nvcc -ptx -arch=sm_90 -O3 warp_coll.cu (nvcc 13.0.88); reference.py
// computes the expected words from this source's meaning, not the PTX.

#define N_OUT 15

extern "C" __global__ void warp_coll(const unsigned* __restrict__ in, unsigned* __restrict__ out)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x & 31;
    const unsigned v = in[t];
    unsigned r[N_OUT];
    for (int i = 0; i < N_OUT; i++) r[i] = 0;
    // The lanes that exist (the block's last warp has 16).
    const unsigned full = __activemask();
    const unsigned odd = __ballot_sync(full, v & 1);
    if (v & 1) {
        r[0] = __reduce_add_sync(odd, v);
        r[1] = __reduce_min_sync(odd, v);
        r[2] = (unsigned)__reduce_max_sync(odd, (int)v);
        r[3] = __reduce_or_sync(odd, v >> 8);
        r[4] = __reduce_and_sync(odd, v | 0x0F0F0000u);
        r[5] = __reduce_xor_sync(odd, v);
        r[6] = __match_any_sync(odd, v >> 28);
        int pred = 0;
        r[7] = __match_all_sync(odd, (unsigned long long)(v >> 29) << 33, &pred);
        r[8] = (unsigned)pred;
        r[9] = __match_any_sync(odd, ((unsigned long long)(v & 3) << 32) | (v >> 30));
        if (lane < 16) {
            const unsigned low = odd & 0xFFFFu;
            r[10] = __reduce_max_sync(low, v);
            r[11] = (unsigned)__reduce_min_sync(low, (int)v);
        }
    }
    __syncwarp(full);
    __nanosleep(v & 255);
    r[12] = (unsigned)__syncthreads_count(v & 2);
    r[13] = (unsigned)__syncthreads_and(v & 4);
    r[14] = (unsigned)__syncthreads_or((v & 0x7F00u) == 0x1200u);
    for (int i = 0; i < N_OUT; i++) out[t * N_OUT + i] = r[i];
}
