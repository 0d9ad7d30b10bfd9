// Memory latency microbenchmarks (README.md, "memlat"): pointer chases over
// working sets, first-touch chases, TLB-reach chases, shared-memory and
// L1-hit baselines, clock64 overhead and constant-memory gathers.
// Usage: memlat OUTDIR   (writes OUTDIR/memlat.jsonl; "-" for stdout)
#include "common.h"
#include <algorithm>
#include <vector>

// One block of 1024 threads. If warm_bytes > 0 every thread first reads the
// buffer with the same cache operator as the chase (one 8-byte load per
// 32-byte sector), so the working set is in L1 (ca) / L2 as far as it fits
// and its pages are in the TLBs. Then thread 0 follows the chain twice for
// `hops` dependent 8-byte loads (pass A, then pass B continuing where A
// stopped), each timed with clock64. A chain element holds the address of the
// next element, so each hop is exactly one load (no address arithmetic).
template <int CA>
__global__ void chase(const unsigned long long *start, int hops, const unsigned long long *warm, size_t warm_words,
                      long long *cyc, unsigned long long *sink)
{
    unsigned long long acc = 0;
    for (size_t i = (size_t)threadIdx.x * 4; i < warm_words; i += (size_t)blockDim.x * 4)
        acc ^= CA ? __ldca(warm + i) : __ldcg(warm + i);
    if (acc == 0x9e3779b97f4a7c15ull)
        sink[1] = acc;  // never true in practice; keeps the warm loads alive
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    const unsigned long long *p = start;
    long long t0 = clock64();
#pragma unroll 8
    for (int i = 0; i < hops; ++i)
        p = (const unsigned long long *)(CA ? __ldca(p) : __ldcg(p));
    long long t1 = clock64();
#pragma unroll 8
    for (int i = 0; i < hops; ++i)
        p = (const unsigned long long *)(CA ? __ldca(p) : __ldcg(p));
    // The store depends on the last load, and the clock read follows it.
    sink[0] = (unsigned long long)p;
    long long t2 = clock64();
    cyc[0] = t1 - t0;
    cyc[1] = t2 - t1;
}

// element k of `order` links to element k+1 (cyclically): the chain visits the
// lines in the order given.
__global__ void build_chain(unsigned long long *buf, const unsigned *order, size_t n, size_t stride_words)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    size_t from = order ? order[k] : k;
    size_t to = order ? order[(k + 1) % n] : (k + 1) % n;
    buf[from * stride_words] = (unsigned long long)(buf + to * stride_words);
}

// The H100 kernels of sim-core/data/calibration/h100/memlat.cu (u32 index
// chase), so the two GPUs can be compared figure for figure: there chase_idx
// loads with __ldcg and chase_idx_ca with __ldca, here chase_idx<0> and
// chase_idx<1> (one body; the SASS is that of the two kernels).
template <int CA>
__global__ void chase_idx(const uint32_t *__restrict__ next, int steps, uint32_t *sink, long long *cyc)
{
    uint32_t j = 0;
    long long t0 = clock64();
    for (int i = 0; i < steps; ++i)
        j = CA ? __ldca(&next[j]) : __ldcg(&next[j]);
    long long t1 = clock64();
    sink[0] = j;
    cyc[0] = t1 - t0;
}
__global__ void chase_shared(int steps, uint32_t *sink, long long *cyc)
{
    __shared__ uint32_t s[4096];
    for (int i = threadIdx.x; i < 4096; i += blockDim.x)
        s[i] = (i * 97 + 13) & 4095;
    __syncthreads();
    if (threadIdx.x)
        return;
    uint32_t j = 0;
    long long t0 = clock64();
    for (int i = 0; i < steps; ++i)
        j = s[j];
    long long t1 = clock64();
    sink[0] = j;
    cyc[0] = t1 - t0;
}

__global__ void clock_overhead(long long *cyc)
{
    long long t0 = clock64();
    long long t1 = clock64();
    cyc[0] = t1 - t0;
}

// Constant memory: cbuf is all zeros, so v stays 0, but the compiler cannot
// know: each access depends on the previous one. Lane l reads the word at
// byte (l % k) * 256 + v: k distinct 256-byte-apart words per warp (k = 1 is
// a broadcast). One warp gives the latency (plus one dependent IADD per
// access); 32 warps the throughput.
#define CWORDS 16384
__constant__ uint32_t cbuf[CWORDS];
__global__ void const_gather(int k, int iters, long long *cyc, uint32_t *sink)
{
    const unsigned lane = threadIdx.x & 31;
    // byte offsets, so each access is one IADD and one LDC (v is 0 at run time)
    const unsigned offb = (lane % (unsigned)k) * 256u;
    const char *base = (const char *)cbuf;
    uint32_t v = 0;
    __syncthreads();
    long long t0 = clock64();
#pragma unroll 16
    for (int i = 0; i < iters; ++i)
        v = *(const uint32_t *)(base + offb + v);
    __syncthreads();
    long long t1 = clock64();
    if (v == 12345u)
        sink[0] = v;
    if (threadIdx.x == 0)
        cyc[0] = t1 - t0;
}

static unsigned long long *d_sink;
static long long *d_cyc;

static void shuffle(std::vector<unsigned> &o, uint64_t seed)
{
    Rng r(seed);
    for (size_t i = o.size() - 1; i > 0; --i)
        std::swap(o[i], o[r.next() % (i + 1)]);
}

// Builds the chain in buf (bytes long, stride bytes per element) and runs
// the chase; writes one JSON line.
static void one_chase(const char *label, char *buf, size_t bytes, size_t stride, bool random, bool warm, bool ca,
                      int hops, unsigned *d_order, size_t order_cap, uint64_t seed)
{
    size_t n = bytes / stride;
    if (n < 2)
        return;
    unsigned *ord = nullptr;
    if (random) {
        if (n > order_cap)
            return;
        std::vector<unsigned> o(n);
        for (size_t i = 0; i < n; ++i)
            o[i] = (unsigned)i;
        shuffle(o, seed);
        if (!CK(cudaMemcpy(d_order, o.data(), n * 4, cudaMemcpyHostToDevice)))
            return;
        ord = d_order;
    }
    build_chain<<<(unsigned)((n + 255) / 256), 256>>>((unsigned long long *)buf, ord, n, stride / 8);
    if (!CK(cudaGetLastError()))
        return;
    size_t warm_words = warm ? bytes / 8 : 0;
    if (ca)
        chase<1><<<1, 1024>>>((unsigned long long *)buf, hops, (unsigned long long *)buf, warm_words, d_cyc, d_sink);
    else
        chase<0><<<1, 1024>>>((unsigned long long *)buf, hops, (unsigned long long *)buf, warm_words, d_cyc, d_sink);
    long long c[2] = {0, 0};
    if (!CK(cudaMemcpy(c, d_cyc, 16, cudaMemcpyDeviceToHost)))
        return;
    jsonl("{\"kind\":\"chase\",\"set\":\"%s\",\"bytes\":%zu,\"stride\":%zu,\"order\":\"%s\",\"op\":\"%s\",\"warm\":%s,"
          "\"hops\":%d,\"cycles_a\":%lld,\"cycles_b\":%lld,\"cph_a\":%.2f,\"cph_b\":%.2f}",
          label, bytes, stride, random ? "random" : "sequential", ca ? "ca" : "cg", warm ? "true" : "false", hops, c[0],
          c[1], (double)c[0] / hops, (double)c[1] / hops);
}

// First touch: a fresh cudaMalloc, the chain written from the host with
// cudaMemcpy, chased without any warm-up; then the same launch again.
static void first_touch(size_t bytes, int hops)
{
    const size_t stride = 128;
    size_t n = bytes / stride;
    std::vector<unsigned> o(n);
    for (size_t i = 0; i < n; ++i)
        o[i] = (unsigned)i;
    shuffle(o, 7 + bytes);
    char *d = nullptr;
    if (!CK(cudaMalloc(&d, bytes)))
        return;
    std::vector<unsigned long long> h(bytes / 8, 0);
    for (size_t k = 0; k < n; ++k)
        h[o[k] * (stride / 8)] = (unsigned long long)(d + o[(k + 1) % n] * stride);
    long long c1[2] = {0, 0}, c2[2] = {0, 0};
    unsigned long long *start = (unsigned long long *)(d + (size_t)o[0] * stride);
    if (CK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice))) {
        chase<0><<<1, 1024>>>(start, hops, nullptr, 0, d_cyc, d_sink);
        CK(cudaMemcpy(c1, d_cyc, 16, cudaMemcpyDeviceToHost));
        chase<0><<<1, 1024>>>(start, hops, nullptr, 0, d_cyc, d_sink);
        CK(cudaMemcpy(c2, d_cyc, 16, cudaMemcpyDeviceToHost));
        jsonl("{\"kind\":\"first_touch\",\"bytes\":%zu,\"stride\":128,\"order\":\"random\",\"op\":\"cg\",\"hops\":%d,"
              "\"first_cycles_a\":%lld,\"first_cycles_b\":%lld,\"second_cycles_a\":%lld,\"second_cycles_b\":%lld,"
              "\"first_cph_a\":%.2f,\"second_cph_a\":%.2f}",
              bytes, hops, c1[0], c1[1], c2[0], c2[1], (double)c1[0] / hops, (double)c2[0] / hops);
    }
    CK(cudaFree(d));
}

static void h100_compatible()
{
    const int steps = 4096;
    size_t sizes[] = {4096, 16384, 65536, 1 << 20, 8 << 20, 32 << 20, 256 << 20};
    uint32_t *sink = (uint32_t *)d_sink;
    for (size_t bytes : sizes) {
        size_t n = bytes / 4, stride = 32, lines = n / stride;
        std::vector<uint32_t> h(n, 0);
        std::vector<size_t> order(lines);
        for (size_t i = 0; i < lines; ++i)
            order[i] = i;
        uint64_t x = 88172645463325252ull;
        for (size_t i = lines - 1; i > 0; --i) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            std::swap(order[i], order[x % (i + 1)]);
        }
        for (size_t i = 0; i < lines; ++i)
            h[order[i] * stride] = (uint32_t)(order[(i + 1) % lines] * stride);
        uint32_t *d = nullptr;
        if (!CK(cudaMalloc(&d, bytes)))
            continue;
        long long c1 = 0, c2 = 0, c3 = 0;
        if (CK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice))) {
            chase_idx<0><<<1, 1>>>(d, steps, sink, d_cyc);
            CK(cudaMemcpy(&c1, d_cyc, 8, cudaMemcpyDeviceToHost));
            chase_idx<0><<<1, 1>>>(d, steps, sink, d_cyc);
            CK(cudaMemcpy(&c2, d_cyc, 8, cudaMemcpyDeviceToHost));
            chase_idx<1><<<1, 1>>>(d, steps, sink, d_cyc);
            chase_idx<1><<<1, 1>>>(d, steps, sink, d_cyc);
            CK(cudaMemcpy(&c3, d_cyc, 8, cudaMemcpyDeviceToHost));
            jsonl("{\"kind\":\"h100_memlat\",\"footprint_bytes\":%zu,\"ldcg_first\":%.1f,\"ldcg_second\":%.1f,"
                  "\"ldca_second\":%.1f}",
                  bytes, (double)c1 / steps, (double)c2 / steps, (double)c3 / steps);
        }
        CK(cudaFree(d));
    }
    long long cs = 0;
    chase_shared<<<1, 128>>>(steps, sink, d_cyc);
    if (CK(cudaMemcpy(&cs, d_cyc, 8, cudaMemcpyDeviceToHost)))
        jsonl("{\"kind\":\"h100_memlat\",\"shared\":%.1f}", (double)cs / steps);
}

static void constants()
{
    std::vector<uint32_t> z(CWORDS, 0);
    if (!CK(cudaMemcpyToSymbol(cbuf, z.data(), CWORDS * 4)))
        return;
    const int iters = 4096;
    for (int k : {1, 2, 4, 8, 16, 32}) {
        for (int warps : {1, 32}) {
            long long best = -1;
            for (int rep = 0; rep < 3; ++rep) {
                const_gather<<<1, 32 * warps>>>(k, iters, d_cyc, (uint32_t *)d_sink);
                long long c = 0;
                if (!CK(cudaMemcpy(&c, d_cyc, 8, cudaMemcpyDeviceToHost)))
                    break;
                if (rep > 0 && (best < 0 || c < best))
                    best = c;  // rep 0 warms the constant caches
            }
            if (best > 0)
                jsonl("{\"kind\":\"const\",\"distinct_per_warp\":%d,\"warps\":%d,\"iters\":%d,\"cycles\":%lld,"
                      "\"cycles_per_access\":%.2f,\"warp_accesses_per_cycle\":%.4f}",
                      k, warps, iters, best, (double)best / iters, (double)warps * iters / best);
        }
    }
}

int main(int argc, char **argv)
{
    const char *outdir = argc > 1 ? argv[1] : "-";
    if (!open_out(outdir, "memlat.jsonl"))
        return 1;
    int sms = 0;
    if (!device_header("memlat", &sms))
        return 3;
    if (!CK(cudaMalloc(&d_sink, 64)) || !CK(cudaMalloc(&d_cyc, 64)))
        return 2;
    spin_warmup(sms, 300);
    {
        long long c = 0;
        clock_overhead<<<1, 1>>>(d_cyc);
        if (CK(cudaMemcpy(&c, d_cyc, 8, cudaMemcpyDeviceToHost)))
            jsonl("{\"kind\":\"clock_overhead\",\"cycles\":%lld}", c);
    }
    h100_compatible();
    fatal_if_sticky("memlat");
    constants();
    fatal_if_sticky("memlat");

    const size_t GiB = 1ull << 30;
    char *buf = nullptr;
    unsigned *d_order = nullptr;
    const size_t order_cap = GiB / 32;  // 32-byte stride over 1 GiB
    if (!CK(cudaMalloc(&buf, GiB)) || !CK(cudaMalloc(&d_order, order_cap * 4)))
        return 2;
    std::vector<size_t> sizes;
    for (size_t s = 4096; s <= GiB; s *= 2)
        sizes.push_back(s);
    // between the powers of two near the L1 (256 KiB with shared) and the
    // L2 (50 MiB on H100, 60 MiB on H200; two 30 MiB partitions)
    for (size_t s : {96ull << 10, 160ull << 10, 192ull << 10, 224ull << 10, 24ull << 20, 40ull << 20, 48ull << 20,
                     56ull << 20, 80ull << 20, 96ull << 20})
        sizes.push_back(s);
    std::sort(sizes.begin(), sizes.end());
    const int hops = 8192;
    for (size_t s : sizes) {
        one_chase("main", buf, s, 128, true, true, false, hops, d_order, order_cap, 11 + s);
        one_chase("main", buf, s, 128, true, true, true, hops, d_order, order_cap, 11 + s);
        one_chase("main", buf, s, 32, true, true, false, hops, d_order, order_cap, 13 + s);
        if (s <= (512ull << 10) || s >= (16ull << 20))
            one_chase("main", buf, s, 32, false, true, true, hops, d_order, order_cap, 0);
        fatal_if_sticky("memlat");
    }
    // TLB reach: one hop per 64 KiB or 2 MiB (or more) in random order; pass A
    // (>= every element once) warms, pass B is the steady state.
    for (size_t stride : {64ull << 10, 2ull << 20, 32ull << 20}) {
        for (size_t s = stride * 8; s <= GiB; s *= 2)
            one_chase("tlb", buf, s, stride, true, false, false, (int)std::max<size_t>(4096, s / stride), d_order, order_cap,
                      17 + s);
        fatal_if_sticky("memlat");
    }
    CK(cudaFree(buf));
    CK(cudaFree(d_order));
    for (size_t s : {64ull << 10, 1ull << 20, 16ull << 20, 256ull << 20})
        first_touch(s, (int)std::min<size_t>(2048, s / 128));  // each line once
    fatal_if_sticky("memlat");
    jsonl("{\"kind\":\"done\",\"prog\":\"memlat\",\"errors\":%d}", g_errors);
    return g_errors ? 1 : 0;
}
