// Shared helpers for the GPU benchmarks in tools/gpu/bench (see README.md).
// Every program appends one JSON object per line (JSON Lines) to its output
// file and flushes after each measurement, so a crash or a timeout keeps
// everything measured before it.
#pragma once
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

static int g_errors = 0;
static FILE *g_out = nullptr;

// Checks a CUDA call; on failure prints it, counts it and returns false so the
// caller can skip the measurement and go on (a sticky error ends the program
// later, in fatal_if_sticky).
#define CK(call) ck_((call), #call, __FILE__, __LINE__)
static bool ck_(cudaError_t e, const char *what, const char *file, int line)
{
    if (e == cudaSuccess)
        return true;
    fprintf(stderr, "CUDA error %s (%d) at %s:%d: %s\n", cudaGetErrorString(e), (int)e, file, line, what);
    ++g_errors;
    return false;
}

static void jsonl(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(g_out, fmt, ap);
    va_end(ap);
    fputc('\n', g_out);
    fflush(g_out);
}

// Opens OUTDIR/name for appending; stdout when outdir is "-".
static bool open_out(const char *outdir, const char *name)
{
    if (strcmp(outdir, "-") == 0) {
        g_out = stdout;
        return true;
    }
    std::string p = std::string(outdir) + "/" + name;
    g_out = fopen(p.c_str(), "w");
    if (!g_out) {
        fprintf(stderr, "cannot open %s\n", p.c_str());
        return false;
    }
    return true;
}

// Writes the device line first; false when there is no usable GPU.
static bool device_header(const char *prog, int *sms)
{
    int n = 0, drv = 0, rt = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    if (e != cudaSuccess || n == 0) {
        jsonl("{\"kind\":\"error\",\"prog\":\"%s\",\"error\":\"no CUDA device: %s\",\"driver_api\":%d,\"runtime\":%d}", prog,
              cudaGetErrorString(e), drv, rt);
        fprintf(stderr, "%s: no CUDA device: %s\n", prog, cudaGetErrorString(e));
        return false;
    }
    cudaDeviceProp p;
    if (!CK(cudaGetDeviceProperties(&p, 0)))
        return false;
    int clk_khz = 0, memclk_khz = 0, busw = 0;
    cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&memclk_khz, cudaDevAttrMemoryClockRate, 0);
    cudaDeviceGetAttribute(&busw, cudaDevAttrGlobalMemoryBusWidth, 0);
    *sms = p.multiProcessorCount;
    jsonl("{\"kind\":\"device\",\"prog\":\"%s\",\"name\":\"%s\",\"cc\":\"%d.%d\",\"sms\":%d,\"l2_bytes\":%d,"
          "\"global_bytes\":%zu,\"smem_per_sm\":%zu,\"clock_khz_attr\":%d,\"memclk_khz_attr\":%d,\"bus_width\":%d,"
          "\"driver_api\":%d,\"runtime\":%d}",
          prog, p.name, p.major, p.minor, p.multiProcessorCount, p.l2CacheSize, p.totalGlobalMem,
          p.sharedMemPerMultiprocessor, clk_khz, memclk_khz, busw, drv, rt);
    return true;
}

// A sticky error (illegal address, launch failure) poisons the context:
// nothing later can run, so stop with what was written.
static void fatal_if_sticky(const char *prog)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        jsonl("{\"kind\":\"error\",\"prog\":\"%s\",\"error\":\"%s\"}", prog, cudaGetErrorString(e));
        fprintf(stderr, "%s: fatal: %s\n", prog, cudaGetErrorString(e));
        exit(2);
    }
}

__device__ __forceinline__ unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ unsigned smid()
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

// One record per block, 40 bytes little-endian: smid, pad, clock64 at entry
// and exit, %globaltimer (ns) at entry and exit.
struct BlockRec {
    unsigned smid, pad;
    long long clk0, clk1;
    unsigned long long gt0, gt1;
};

// Keeps every SM busy for `ms` milliseconds (by %globaltimer) so the clocks
// have left idle (an idle H200 reads 345 MHz) before anything is measured.
__global__ void spin_kernel(unsigned long long ns, unsigned *sink)
{
    const unsigned long long t0 = gtimer();
    unsigned n = 0;
    // the cap ends the loop even if %globaltimer were frozen
    while (gtimer() - t0 < ns && n < 20000000u)
        ++n;
    if (n == 0xffffffffu)
        sink[0] = n;
}
static void spin_warmup(int sms, int ms)
{
    unsigned *s = nullptr;
    if (!CK(cudaMalloc(&s, 4)))
        return;
    spin_kernel<<<sms * 4, 256>>>((unsigned long long)ms * 1000000ull, s);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(s));
}

// Simple host RNG (xorshift64*), fixed seeds so runs are repeatable.
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed ? seed : 1) {}
    uint64_t next()
    {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 2685821657736338717ull;
    }
};
