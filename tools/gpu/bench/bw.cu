// Bandwidth sweep and atomics throughput (README.md, "bw").
// Usage: bw OUTDIR   (writes OUTDIR/bw.jsonl; "-" for stdout)
#include "common.h"
#include <algorithm>
#include <vector>

// Grid-stride streaming kernels over n elements of T (float or float4).
__device__ __forceinline__ float hsum(float v) { return v; }
__device__ __forceinline__ float hsum(float4 v) { return v.x + v.y + v.z + v.w; }
__device__ __forceinline__ float4 fma4(float4 b, float s, float4 c)
{
    return make_float4(b.x + s * c.x, b.y + s * c.y, b.z + s * c.z, b.w + s * c.w);
}
__device__ __forceinline__ float fma4(float b, float s, float c) { return b + s * c; }
template <typename T> __device__ __forceinline__ T splat(float v);
template <> __device__ __forceinline__ float splat<float>(float v) { return v; }
template <> __device__ __forceinline__ float4 splat<float4>(float v) { return make_float4(v, v, v, v); }

template <typename T> __global__ void k_read(const T *__restrict__ a, size_t n, float *sink)
{
    float acc = 0.0f;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        acc += hsum(a[i]);
    if (acc == -1.2345f)
        sink[0] = acc;  // the buffers hold zeros: never true, keeps the loads
}
template <typename T> __global__ void k_write(T *__restrict__ a, size_t n, float v)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = splat<T>(v);
}
template <typename T> __global__ void k_copy(T *__restrict__ a, const T *__restrict__ b, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = b[i];
}
template <typename T>
__global__ void k_triad(T *__restrict__ a, const T *__restrict__ b, const T *__restrict__ c, float s, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = fma4(b[i], s, c[i]);
}

// Atomics: every thread does `iters` atomicAdd(+1) on u32 (result unused, so
// ptxas emits REDG.E.ADD for global and ATOMS.POPC.INC for shared). Modes:
// 0 one address for all threads (the whole grid for global, the block for
// shared), computed as tid & zero with zero = 0 a kernel argument, so the
// compiler cannot see that it is uniform and every lane issues its own add;
// 1 one address per warp (128 bytes apart); 2 one address per thread,
// coalesced; 3 pseudo-random over 1 MiB (global) or 32 KiB (shared), a
// per-thread LCG; 4 the literal address 0, which nvcc turns into one add of
// popc(active lanes) per warp (VOTEU.ANY + POPC + one RED; warp-aggregated).
// Thread 0 of each block records its clocks (BlockRec) for the clock rate.
template <int MODE> __device__ __forceinline__ unsigned aidx(unsigned gtid, unsigned &x, unsigned mask, unsigned zero)
{
    if (MODE == 0)
        return gtid & zero;
    if (MODE == 4)
        return 0;
    if (MODE == 1)
        return (gtid >> 5) * 32u & mask;
    if (MODE == 2)
        return gtid & mask;
    x = x * 1664525u + 1013904223u;
    return (x >> 8) & mask;
}
template <int MODE> __global__ void k_atom_global(unsigned *g, int iters, BlockRec *rec, unsigned zero)
{
    long long c0 = clock64();
    unsigned long long t0 = gtimer();
    const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = gtid * 2654435761u + 1u;
    for (int i = 0; i < iters; ++i)
        atomicAdd(&g[aidx<MODE>(gtid, x, (1u << 18) - 1, zero)], 1u);
    __syncthreads();
    if (threadIdx.x == 0)
        rec[blockIdx.x] = BlockRec{smid(), 0, c0, clock64(), t0, gtimer()};
}
template <int MODE> __global__ void k_atom_shared(unsigned *g, int iters, BlockRec *rec, unsigned zero)
{
    __shared__ unsigned s[8192];
    long long c0 = clock64();
    unsigned long long t0 = gtimer();
    for (int i = threadIdx.x; i < 8192; i += blockDim.x)
        s[i] = 0;
    __syncthreads();
    const unsigned tid = threadIdx.x;
    unsigned x = (blockIdx.x * blockDim.x + tid) * 2654435761u + 1u;
    for (int i = 0; i < iters; ++i)
        atomicAdd(&s[aidx<MODE>(tid, x, 8191, zero)], 1u);
    __syncthreads();
    if (tid == 0) {
        g[blockIdx.x] = s[0];
        rec[blockIdx.x] = BlockRec{smid(), 0, c0, clock64(), t0, gtimer()};
    }
}

static cudaEvent_t ev0, ev1;
static float *d_sink;

// Runs launch() once to warm up, then `reps` times under events; best and
// median milliseconds, or false on an error.
template <typename F> static bool timeit(F launch, int reps, double *best, double *median)
{
    launch();
    if (!CK(cudaGetLastError()) || !CK(cudaDeviceSynchronize()))
        return false;
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(ev0));
        launch();
        CK(cudaEventRecord(ev1));
        if (!CK(cudaEventSynchronize(ev1)))
            return false;
        float ms = 0;
        if (!CK(cudaEventElapsedTime(&ms, ev0, ev1)))
            return false;
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    *best = t[0];
    *median = t[t.size() / 2];
    return true;
}

template <typename T>
static void sweep(const char *vec, char *A, char *B, char *C, int blocks, const std::vector<size_t> &footprints)
{
    const int threads = 256;
    for (size_t f : footprints) {
        for (int op = 0; op < 4; ++op) {
            const char *name[] = {"read", "write", "copy", "triad"};
            const int arrays[] = {1, 1, 2, 3};
            size_t n = f / arrays[op] / sizeof(T);
            size_t moved = n * sizeof(T) * arrays[op];
            double best = 0, med = 0;
            bool ok = false;
            T *a = (T *)A, *b = (T *)B, *c = (T *)C;
            switch (op) {
            case 0: ok = timeit([&] { k_read<T><<<blocks, threads>>>(a, n, d_sink); }, 5, &best, &med); break;
            case 1: ok = timeit([&] { k_write<T><<<blocks, threads>>>(a, n, 1.0f); }, 5, &best, &med); break;
            case 2: ok = timeit([&] { k_copy<T><<<blocks, threads>>>(a, b, n); }, 5, &best, &med); break;
            default: ok = timeit([&] { k_triad<T><<<blocks, threads>>>(a, b, c, 3.0f, n); }, 5, &best, &med); break;
            }
            if (ok)
                jsonl("{\"kind\":\"bw\",\"op\":\"%s\",\"vec\":\"%s\",\"footprint\":%zu,\"bytes_moved\":%zu,"
                      "\"elements\":%zu,\"grid\":%d,\"block\":%d,\"best_ms\":%.5f,\"median_ms\":%.5f,"
                      "\"gbps_best\":%.2f,\"gbps_median\":%.2f}",
                      name[op], vec, f, moved, n, blocks, threads, best, med, moved / (best * 1e6), moved / (med * 1e6));
        }
        fatal_if_sticky("bw");
    }
}

// Median over blocks of clock64 ticks per globaltimer ns (GHz).
static double clock_ghz(const std::vector<BlockRec> &r)
{
    std::vector<double> v;
    for (const BlockRec &b : r)
        if (b.gt1 > b.gt0 + 1000)
            v.push_back((double)(b.clk1 - b.clk0) / (double)(b.gt1 - b.gt0));
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// One full wave: SMs x the kernel's own occupancy (the shared kernels' 32 KiB
// of shared memory allows fewer blocks per SM than the global ones).
template <typename K> static int wave(K kernel, int sms)
{
    int per_sm = 0;
    if (!CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 256, 0)) || per_sm < 1)
        per_sm = 1;
    return sms * per_sm;
}

template <int MODE> static void atomics(unsigned *g, BlockRec *rec, int sms)
{
    const int threads = 256;
    const char *mname[] = {"same_address", "per_warp_address", "distinct_coalesced", "random",
                           "same_address_warp_aggregated"};
    for (int shared = 0; shared < 2; ++shared) {
        const int iters = shared ? 256 : 64;
        const int blocks = shared ? wave(k_atom_shared<MODE>, sms) : wave(k_atom_global<MODE>, sms);
        double best = 0, med = 0;
        bool ok;
        if (shared)
            ok = timeit([&] { k_atom_shared<MODE><<<blocks, threads>>>(g, iters, rec, 0u); }, 3, &best, &med);
        else
            ok = timeit([&] { k_atom_global<MODE><<<blocks, threads>>>(g, iters, rec, 0u); }, 3, &best, &med);
        if (!ok)
            continue;
        std::vector<BlockRec> r(blocks);
        if (!CK(cudaMemcpy(r.data(), rec, blocks * sizeof(BlockRec), cudaMemcpyDeviceToHost)))
            continue;
        double ghz = clock_ghz(r);
        double ops = (double)blocks * threads * iters;
        double cyc_per_op_sm = best * 1e-3 * ghz * 1e9 / (ops / sms);
        jsonl("{\"kind\":\"atomic\",\"space\":\"%s\",\"mode\":\"%s\",\"grid\":%d,\"block\":%d,\"iters\":%d,"
              "\"ops\":%.0f,\"best_ms\":%.5f,\"median_ms\":%.5f,\"gops\":%.3f,\"clock_ghz\":%.4f,"
              "\"cycles_per_op_per_sm\":%.4f,\"ops_per_cycle_per_sm\":%.3f}",
              shared ? "shared" : "global", mname[MODE], blocks, threads, iters, ops, best, med, ops / (best * 1e6),
              ghz, cyc_per_op_sm, cyc_per_op_sm > 0 ? 1.0 / cyc_per_op_sm : 0.0);
    }
    fatal_if_sticky("bw");
}

// The opening is grid.cu's and memlat.cu's (output file, device line, warm-up),
// kept in each program as it ran (issue 27).
int main(int argc, char **argv)
{
    const char *outdir = argc > 1 ? argv[1] : "-";
    if (!open_out(outdir, "bw.jsonl"))
        return 1;
    int sms = 0;
    if (!device_header("bw", &sms))
        return 3;
    CK(cudaEventCreate(&ev0));
    spin_warmup(sms, 300);
    CK(cudaEventCreate(&ev1));
    const size_t GiB = 1ull << 30;
    char *A = nullptr, *B = nullptr, *C = nullptr;
    if (!CK(cudaMalloc(&d_sink, 64)) || !CK(cudaMalloc(&A, 2 * GiB)) || !CK(cudaMalloc(&B, GiB)) ||
        !CK(cudaMalloc(&C, GiB)))
        return 2;
    CK(cudaMemset(A, 0, 2 * GiB));
    CK(cudaMemset(B, 0, GiB));
    CK(cudaMemset(C, 0, GiB));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_triad<float4>, 256, 0));
    if (per_sm < 1)
        per_sm = 8;
    const int blocks = sms * per_sm;
    jsonl("{\"kind\":\"bw_config\",\"blocks_per_sm\":%d,\"grid\":%d,\"block\":256,\"reps\":5,\"note\":\"best and "
          "median of 5 event-timed launches after one warm-up; GB/s = bytes_moved / time / 1e9\"}",
          per_sm, blocks);
    std::vector<size_t> fp;
    for (size_t f = 1ull << 20; f <= 2 * GiB; f *= 2)
        fp.push_back(f);
    fp.push_back(1000000000ull);  // the "1 GB" triad, decimal
    std::sort(fp.begin(), fp.end());
    sweep<float4>("float4", A, B, C, blocks, fp);
    sweep<float>("float", A, B, C, blocks, fp);

    unsigned *g = (unsigned *)B;  // 1 MiB of counters is enough for every mode
    BlockRec *rec = (BlockRec *)C;
    CK(cudaMemset(g, 0, 1 << 20));
    atomics<0>(g, rec, sms);
    atomics<1>(g, rec, sms);
    atomics<2>(g, rec, sms);
    atomics<3>(g, rec, sms);
    atomics<4>(g, rec, sms);
    jsonl("{\"kind\":\"done\",\"prog\":\"bw\",\"errors\":%d}", g_errors);
    return g_errors ? 1 : 0;
}
