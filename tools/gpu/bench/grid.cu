// Whole-grid launches with per-block records (README.md, "grid"): the
// workload kernels (workloads/sgemm.cu, reduce.cu, histogram.cu), a 5-point
// stencil (stencil.cu) and a triad, each launched plainly (the workload's own
// kernel, included verbatim) and as a "_rec" kernel that runs the same body
// and also writes one BlockRec per block.
// Usage: grid OUTDIR   (writes OUTDIR/grid.jsonl and OUTDIR/grid_NAME.bin)
//
// What the _rec kernels change, and nothing else: one extra pointer argument
// `rec`; thread 0 stores clock64 and %globaltimer into its block's record on
// entry (a branch and two stores before the body); after the body a
// __syncthreads and thread 0 stores %smid, clock64 and %globaltimer. The arithmetic, loads, stores, shared memory and barriers of the
// body are the workload's own (one inlined device function), so the loop's
// machine code is the same.
#include "common.h"
#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "../../../workloads/histogram.cu"
#include "../../../workloads/reduce.cu"
#include "../../../workloads/sgemm.cu"
#include "stencil.cu"

// Entry: thread 0 stores clock64 and %globaltimer at once (nothing stays
// live across the body, so the body's registers and schedule are those of the
// workload kernel). Exit: a barrier, then thread 0 stores %smid and the exit
// clocks.
#define REC_ENTRY(first)                                                                                               \
    if (first) {                                                                                                       \
        BlockRec *rec_p = &rec[blockIdx.y * gridDim.x + blockIdx.x];                                                   \
        rec_p->clk0 = clock64();                                                                                       \
        rec_p->gt0 = gtimer();                                                                                         \
    }
#define REC_EXIT(first)                                                                                                \
    __syncthreads();                                                                                                   \
    if (first) {                                                                                                       \
        BlockRec *rec_p = &rec[blockIdx.y * gridDim.x + blockIdx.x];                                                   \
        rec_p->smid = smid();                                                                                          \
        rec_p->clk1 = clock64();                                                                                       \
        rec_p->gt1 = gtimer();                                                                                         \
    }

// Each _rec kernel below runs its workload kernel's body (the device function
// workloads/X.cu's kernel calls) between REC_ENTRY and REC_EXIT, with the
// __shared__ arrays declared here as the workload kernel declares them.
extern "C" __global__ void sgemm_rec(const float *__restrict__ A, const float *__restrict__ B,
                                     float *__restrict__ C, int N, BlockRec *rec)
{
    REC_ENTRY(threadIdx.x == 0 && threadIdx.y == 0)
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    sgemm_tile(As, Bs, A, B, C, N);
    REC_EXIT(threadIdx.x == 0 && threadIdx.y == 0)
}

extern "C" __global__ void reduce_sum_rec(const float *__restrict__ in, float *__restrict__ out, unsigned n,
                                          BlockRec *rec)
{
    REC_ENTRY(threadIdx.x == 0)
    __shared__ float s[BLOCK];
    reduce_block(s, in, out, n);
    REC_EXIT(threadIdx.x == 0)
}

extern "C" __global__ void histogram256_rec(const unsigned *__restrict__ data, unsigned *__restrict__ hist,
                                            unsigned words, BlockRec *rec)
{
    REC_ENTRY(threadIdx.x == 0)
    __shared__ unsigned h[BINS];
    histogram_block(h, data, hist, words);
    REC_EXIT(threadIdx.x == 0)
}

extern "C" __global__ void stencil5_rec(const float *__restrict__ in, float *__restrict__ out, int nx, int ny,
                                        BlockRec *rec)
{
    REC_ENTRY(threadIdx.x == 0 && threadIdx.y == 0)
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1) {
        const int c = y * nx + x;
        out[c] = 0.5f * in[c] + 0.125f * (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx]);
    }
    REC_EXIT(threadIdx.x == 0 && threadIdx.y == 0)
}

// a = b + s * c over n floats, grid-stride (the STREAM triad).
extern "C" __global__ void triad(float *__restrict__ a, const float *__restrict__ b, const float *__restrict__ c,
                                 float s, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = b[i] + s * c[i];
}
extern "C" __global__ void triad_rec(float *__restrict__ a, const float *__restrict__ b, const float *__restrict__ c,
                                     float s, size_t n, BlockRec *rec)
{
    REC_ENTRY(threadIdx.x == 0)
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = b[i] + s * c[i];
    REC_EXIT(threadIdx.x == 0)
}

// Inputs: value i of stream `seed` is a hash, the same on host and device,
// so the host can check results without copying the inputs.
__host__ __device__ inline unsigned hash32(unsigned long long i, unsigned seed)
{
    unsigned long long x = i * 0x9e3779b97f4a7c15ull + seed * 0xbf58476d1ce4e5b9ull + 1;
    x ^= x >> 31;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 29;
    return (unsigned)(x >> 32);
}
__host__ __device__ inline float hashf(unsigned long long i, unsigned seed)
{
    return (float)(hash32(i, seed) >> 8) * (2.0f / 16777216.0f) - 1.0f;  // [-1, 1)
}
__global__ void fill_f(float *p, size_t n, unsigned seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = hashf(i, seed);
}
__global__ void fill_u(unsigned *p, size_t n, unsigned seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = hash32(i, seed);
}

static cudaEvent_t ev0, ev1;
static const char *g_outdir = "-";
static BlockRec *d_rec;
static size_t rec_cap;

struct Case {
    std::string name, kernel;
    dim3 grid, block;
};

// Event-timed launches: `plain` once to warm up then 3 times; `rec` 3 times,
// every run's records kept. `before` runs outside the events (e.g. zeroing
// the histogram). Writes grid_NAME.bin (runs x blocks BlockRecs) and a JSON
// line; `check` is a short verdict on the last output.
template <typename P, typename R, typename B, typename C>
static void run_case(const Case &c, P plain, R rec, B before, C check)
{
    const size_t blocks = (size_t)c.grid.x * c.grid.y * c.grid.z;
    if (blocks > rec_cap) {
        fprintf(stderr, "%s: too many blocks\n", c.name.c_str());
        return;
    }
    const int runs = 3;
    std::vector<float> tp, tr;
    auto timed = [&](auto launch, std::vector<float> &out) {
        before();
        CK(cudaEventRecord(ev0));
        launch();
        CK(cudaGetLastError());
        CK(cudaEventRecord(ev1));
        float ms = -1;
        if (CK(cudaEventSynchronize(ev1)) && CK(cudaEventElapsedTime(&ms, ev0, ev1)))
            out.push_back(ms);
    };
    std::vector<float> warm;
    timed(plain, warm);
    for (int r = 0; r < runs; ++r)
        timed(plain, tp);
    std::vector<BlockRec> all;
    for (int r = 0; r < runs; ++r) {
        CK(cudaMemset(d_rec, 0, blocks * sizeof(BlockRec)));
        timed(rec, tr);
        std::vector<BlockRec> h(blocks);
        if (CK(cudaMemcpy(h.data(), d_rec, blocks * sizeof(BlockRec), cudaMemcpyDeviceToHost)))
            all.insert(all.end(), h.begin(), h.end());
    }
    std::string verdict = check();
    std::string bin = "grid_" + c.name + ".bin";
    if (strcmp(g_outdir, "-") != 0 && !all.empty()) {
        FILE *f = fopen((std::string(g_outdir) + "/" + bin).c_str(), "wb");
        if (f) {
            fwrite(all.data(), sizeof(BlockRec), all.size(), f);
            fclose(f);
        }
    }
    // Summary of the last complete run.
    std::string sum = "{}";
    size_t nr = all.size() / blocks;
    if (nr > 0) {
        const BlockRec *r = &all[(nr - 1) * blocks];
        std::map<unsigned, std::vector<const BlockRec *>> per;
        long long cmin = r[0].clk0, cmax = r[0].clk1;
        unsigned long long gmin = r[0].gt0, gmax = r[0].gt1;
        for (size_t i = 0; i < blocks; ++i) {
            per[r[i].smid].push_back(&r[i]);
            cmin = std::min(cmin, r[i].clk0);
            cmax = std::max(cmax, r[i].clk1);
            gmin = std::min(gmin, r[i].gt0);
            gmax = std::max(gmax, r[i].gt1);
        }
        long long span_max = 0;
        size_t bmin = blocks, bmax = 0;
        std::vector<double> ghz;
        for (auto &kv : per) {
            long long a = kv.second[0]->clk0, b = kv.second[0]->clk1;
            unsigned long long ga = kv.second[0]->gt0, gb = kv.second[0]->gt1;
            for (const BlockRec *p : kv.second) {
                a = std::min(a, p->clk0);
                b = std::max(b, p->clk1);
                ga = std::min(ga, p->gt0);
                gb = std::max(gb, p->gt1);
            }
            span_max = std::max(span_max, b - a);
            if (gb > ga)
                ghz.push_back((double)(b - a) / (double)(gb - ga));
            bmin = std::min(bmin, kv.second.size());
            bmax = std::max(bmax, kv.second.size());
        }
        std::sort(ghz.begin(), ghz.end());
        double g = ghz.empty() ? 0 : ghz[ghz.size() / 2];
        // per block too, over blocks that lasted >= 2 us of %globaltimer
        std::vector<double> gb;
        for (size_t i = 0; i < blocks; ++i)
            if (r[i].gt1 >= r[i].gt0 + 2000)
                gb.push_back((double)(r[i].clk1 - r[i].clk0) / (double)(r[i].gt1 - r[i].gt0));
        std::sort(gb.begin(), gb.end());
        double g2 = gb.empty() ? 0 : gb[gb.size() / 2];
        char buf[512];
        snprintf(buf, sizeof buf,
                 "{\"sms_used\":%zu,\"blocks_per_sm_min\":%zu,\"blocks_per_sm_max\":%zu,\"cycles_global\":%lld,"
                 "\"cycles_max_per_sm\":%lld,\"globaltimer_ns\":%llu,\"clock_ghz_median_sm\":%.4f,"
                 "\"clock_ghz_median_block\":%.4f,\"blocks_for_block_ghz\":%zu}",
                 per.size(), bmin, bmax, cmax - cmin, span_max, gmax - gmin, g, g2, gb.size());
        sum = buf;
    }
    auto list = [](const std::vector<float> &v) {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i) {
            char b[32];
            snprintf(b, sizeof b, "%s%.5f", i ? "," : "", v[i]);
            s += b;
        }
        return s + "]";
    };
    jsonl("{\"kind\":\"grid\",\"name\":\"%s\",\"kernel\":\"%s\",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],"
          "\"blocks\":%zu,\"warmup_ms\":%s,\"plain_ms\":%s,\"rec_ms\":%s,\"rec_file\":\"%s\",\"rec_runs\":%zu,"
          "\"rec_bytes\":%zu,\"check\":\"%s\",\"last_run\":%s}",
          c.name.c_str(), c.kernel.c_str(), c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z, blocks,
          list(warm).c_str(), list(tp).c_str(), list(tr).c_str(), bin.c_str(), nr, sizeof(BlockRec), verdict.c_str(),
          sum.c_str());
    fatal_if_sticky("grid");
}

static std::string fmt_check(bool ok, const char *what, double err)
{
    char b[160];
    snprintf(b, sizeof b, "%s %s (max err %.3g)", ok ? "ok" : "MISMATCH", what, err);
    return b;
}

static void sgemm_case(int N)
{
    float *A, *B, *C;
    size_t nn = (size_t)N * N;
    if (!CK(cudaMalloc(&A, nn * 4)) || !CK(cudaMalloc(&B, nn * 4)) || !CK(cudaMalloc(&C, nn * 4)))
        return;
    fill_f<<<1024, 256>>>(A, nn, 1);
    fill_f<<<1024, 256>>>(B, nn, 2);
    CK(cudaMemset(C, 0, nn * 4));
    Case c{"sgemm_" + std::to_string(N), "sgemm", dim3(N / 32, N / 32), dim3(32, 8)};
    run_case(
        c, [&] { sgemm<<<c.grid, c.block>>>(A, B, C, N); }, [&] { sgemm_rec<<<c.grid, c.block>>>(A, B, C, N, d_rec); },
        [] {},
        [&] {
            // 16 entries of C against a double-precision dot product
            double worst = 0;
            Rng r(N);
            for (int k = 0; k < 16; ++k) {
                int i = (int)(r.next() % N), j = (int)(r.next() % N);
                double ref = 0;
                for (int t = 0; t < N; ++t)
                    ref += (double)hashf((size_t)i * N + t, 1) * (double)hashf((size_t)t * N + j, 2);
                float got = 0;
                if (!CK(cudaMemcpy(&got, C + (size_t)i * N + j, 4, cudaMemcpyDeviceToHost)))
                    return std::string("copy failed");
                worst = std::max(worst, std::fabs(got - ref));
            }
            return fmt_check(worst < 1e-3 * N, "16 entries of C vs double", worst);
        });
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
}

static void reduce_case(const char *name, unsigned n, unsigned grid)
{
    float *in, *out;
    if (!CK(cudaMalloc(&in, (size_t)n * 4)) || !CK(cudaMalloc(&out, (size_t)grid * 4)))
        return;
    fill_f<<<1024, 256>>>(in, n, 3);
    Case c{name, "reduce_sum", dim3(grid), dim3(BLOCK)};
    run_case(
        c, [&] { reduce_sum<<<grid, BLOCK>>>(in, out, n); }, [&] { reduce_sum_rec<<<grid, BLOCK>>>(in, out, n, d_rec); },
        [] {},
        [&] {
            std::vector<float> h(grid);
            if (!CK(cudaMemcpy(h.data(), out, (size_t)grid * 4, cudaMemcpyDeviceToHost)))
                return std::string("copy failed");
            double got = 0, ref = 0;
            for (float v : h)
                got += v;
            for (size_t i = 0; i < n; ++i)
                ref += hashf(i, 3);
            return fmt_check(std::fabs(got - ref) < 1e-3 * std::sqrt((double)n) + 1.0, "sum of partials vs double",
                             std::fabs(got - ref));
        });
    cudaFree(in);
    cudaFree(out);
}

static void histogram_case(const char *name, unsigned words, unsigned grid)
{
    unsigned *data, *hist;
    if (!CK(cudaMalloc(&data, (size_t)words * 4)) || !CK(cudaMalloc(&hist, 1024)))
        return;
    fill_u<<<1024, 256>>>(data, words, 4);
    Case c{name, "histogram256", dim3(grid), dim3(256)};
    run_case(
        c, [&] { histogram256<<<grid, 256>>>(data, hist, words); },
        [&] { histogram256_rec<<<grid, 256>>>(data, hist, words, d_rec); }, [&] { CK(cudaMemset(hist, 0, 1024)); },
        [&] {
            std::vector<unsigned> h(256);
            if (!CK(cudaMemcpy(h.data(), hist, 1024, cudaMemcpyDeviceToHost)))
                return std::string("copy failed");
            unsigned long long t = 0;
            for (unsigned v : h)
                t += v;
            return fmt_check(t == 4ull * words, "bin total == 4 x words", (double)t - 4.0 * words);
        });
    cudaFree(data);
    cudaFree(hist);
}

static void stencil_case(int nx, int ny)
{
    float *in, *out;
    size_t n = (size_t)nx * ny;
    if (!CK(cudaMalloc(&in, n * 4)) || !CK(cudaMalloc(&out, n * 4)))
        return;
    fill_f<<<1024, 256>>>(in, n, 5);
    CK(cudaMemset(out, 0, n * 4));
    Case c{"stencil5_" + std::to_string(nx), "stencil5", dim3(nx / 32, ny / 8), dim3(32, 8)};
    run_case(
        c, [&] { stencil5<<<c.grid, c.block>>>(in, out, nx, ny); },
        [&] { stencil5_rec<<<c.grid, c.block>>>(in, out, nx, ny, d_rec); }, [] {},
        [&] {
            double worst = 0;
            Rng r(nx);
            for (int k = 0; k < 64; ++k) {
                size_t x = 1 + r.next() % (nx - 2), y = 1 + r.next() % (ny - 2), i = y * nx + x;
                float ref = 0.5f * hashf(i, 5) +
                            0.125f * (hashf(i - 1, 5) + hashf(i + 1, 5) + hashf(i - nx, 5) + hashf(i + nx, 5));
                float got = 0;
                if (!CK(cudaMemcpy(&got, out + i, 4, cudaMemcpyDeviceToHost)))
                    return std::string("copy failed");
                worst = std::max(worst, (double)std::fabs(got - ref));
            }
            return fmt_check(worst < 1e-5, "64 points vs host", worst);
        });
    cudaFree(in);
    cudaFree(out);
}

static void triad_case(size_t footprint, int grid)
{
    size_t n = footprint / 12;
    float *a, *b, *cc;
    if (!CK(cudaMalloc(&a, n * 4)) || !CK(cudaMalloc(&b, n * 4)) || !CK(cudaMalloc(&cc, n * 4)))
        return;
    fill_f<<<1024, 256>>>(b, n, 6);
    fill_f<<<1024, 256>>>(cc, n, 7);
    Case c{"triad_" + std::to_string(footprint), "triad", dim3(grid), dim3(256)};
    run_case(
        c, [&] { triad<<<grid, 256>>>(a, b, cc, 3.0f, n); }, [&] { triad_rec<<<grid, 256>>>(a, b, cc, 3.0f, n, d_rec); },
        [] {},
        [&] {
            double worst = 0;
            Rng r(n);
            for (int k = 0; k < 64; ++k) {
                size_t i = r.next() % n;
                float got = 0;
                if (!CK(cudaMemcpy(&got, a + i, 4, cudaMemcpyDeviceToHost)))
                    return std::string("copy failed");
                worst = std::max(worst, (double)std::fabs(got - (hashf(i, 6) + 3.0f * hashf(i, 7))));
            }
            return fmt_check(worst < 1e-5, "64 elements vs host", worst);
        });
    cudaFree(a);
    cudaFree(b);
    cudaFree(cc);
}

// The opening is bw.cu's and memlat.cu's (output file, device line, warm-up),
// kept in each program as it ran (issue 27).
int main(int argc, char **argv)
{
    g_outdir = argc > 1 ? argv[1] : "-";
    if (!open_out(g_outdir, "grid.jsonl"))
        return 1;
    int sms = 0;
    if (!device_header("grid", &sms))
        return 3;
    CK(cudaEventCreate(&ev0));
    spin_warmup(sms, 300);
    CK(cudaEventCreate(&ev1));
    rec_cap = 1 << 20;
    if (!CK(cudaMalloc(&d_rec, rec_cap * sizeof(BlockRec))))
        return 2;
    int occ_r = 0, occ_h = 0, occ_t = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_r, reduce_sum_rec, 256, 0));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_h, histogram256_rec, 256, 0));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_t, triad_rec, 256, 0));
    jsonl("{\"kind\":\"grid_config\",\"sms\":%d,\"occupancy\":{\"reduce_sum_rec\":%d,\"histogram256_rec\":%d,"
          "\"triad_rec\":%d},\"rec_layout\":\"u32 smid, u32 pad, i64 clk_entry, i64 clk_exit, u64 gt_entry_ns, u64 "
          "gt_exit_ns (40 bytes, little-endian), runs x blocks, block index = blockIdx.y * gridDim.x + blockIdx.x\"}",
          sms, occ_r, occ_h, occ_t);
    // As the launch files first (workloads/*.json), then whole-GPU sizes.
    sgemm_case(1024);
    sgemm_case(2048);
    sgemm_case(4096);
    reduce_case("reduce_1M", 1u << 20, 1024);
    reduce_case("reduce_256M", 1u << 28, sms * std::max(occ_r, 1));
    histogram_case("histogram_1M", 1u << 20, 256);
    histogram_case("histogram_256M", 1u << 28, sms * std::max(occ_h, 1));
    stencil_case(4096, 4096);
    triad_case(1000000000ull, sms * std::max(occ_t, 1));
    jsonl("{\"kind\":\"done\",\"prog\":\"grid\",\"errors\":%d}", g_errors);
    return g_errors ? 1 : 0;
}
