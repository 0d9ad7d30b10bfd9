// Async copies into shared memory (issue 23): a double-buffered tiled sum
// through __pipeline_memcpy_async (cp.async.ca 4/8/16 bytes and the
// zero-filling src-size form), __pipeline_commit and
// __pipeline_wait_prior (cp.async.commit_group / wait_group 1 / 0).
// Block 128 threads, each tile 128 f32 words; thread t of block b sums
// tile k's words t and (t + 1) % 128, over tiles b, b + grid, ... of n
// tiles, and writes out[b * 128 + t]. Also: a 16-byte copy of four words
// per thread (sixteen-byte aligned), added in, and the last tile of each
// block copied with src-size 0 past `valid` words (zero fill).
#include <cuda_pipeline.h>

extern "C" __global__ void tiled_sum(const float *in, float *out, int ntiles, int valid)
{
    __shared__ __align__(16) float buf[2][128];
    __shared__ __align__(16) float4 wide[128];
    const int t = threadIdx.x;
    float acc = 0.0f;
    int k = blockIdx.x;
    int stage = 0;
    if (k < ntiles) {
        __pipeline_memcpy_async(&buf[0][t], &in[k * 128 + t], 4);
    }
    __pipeline_commit();
    for (; k < ntiles; k += gridDim.x) {
        int next = k + gridDim.x;
        if (next < ntiles) {
            __pipeline_memcpy_async(&buf[stage ^ 1][t], &in[next * 128 + t], 4);
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        acc += buf[stage][t] + buf[stage][(t + 1) % 128];
        __syncthreads();
        stage ^= 1;
    }
    __pipeline_wait_prior(0);
    // 16 bytes per thread, zero-filled past `valid` words of the input.
    const float4 *src = reinterpret_cast<const float4 *>(in) + t;
    int left = valid - 4 * t;
    size_t zfill = left >= 4 ? 0 : (left <= 0 ? 16 : 16 - 4 * left);
    __pipeline_memcpy_async(&wide[t], src, 16, zfill);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    float4 w = wide[(t + 3) % 128];
    acc += w.x + 2.0f * w.y + 3.0f * w.z + 4.0f * w.w;
    out[blockIdx.x * 128 + t] = acc;
}
