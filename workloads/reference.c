/* Independent reference for the workloads' expected outputs.
 *
 * It reproduces the launch files' `random` buffers (docs/launch-format.md,
 * "Random buffers": xoshiro256++ seeded by SplitMix64) and computes each
 * kernel's outputs in the exact order of operations of its PTX, so the
 * results match the simulator bit for bit. Build and run (workloads/README.md):
 *
 *   cc -O2 -ffp-contract=off -o reference reference.c -lm
 *   ./reference sgemm 128 1 2 sgemm_128.C.expected.bin
 *   ./reference reduce 1048576 1024 3 reduce.out.expected.bin
 *   ./reference histogram 1048576 256 4 histogram.hist.expected.bin
 *
 * -ffp-contract=off keeps a*b+c two roundings; fmaf is used exactly where
 * the PTX has fma.rn.f32. Output is little-endian (x86-64, AArch64).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the launch format's random generator ---- */

typedef struct { uint64_t s[4]; } rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static rng seeded(uint64_t seed)
{
    rng r;
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r.s[i] = splitmix64(&x);
    return r;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[0] + s[3], 23) + s[0];
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* `{"type": "f32", "min": lo, "max": hi}`: n values. */
static float *random_f32(uint64_t seed, size_t n, float lo, float hi)
{
    float *v = malloc(n * sizeof *v);
    rng r = seeded(seed);
    for (size_t i = 0; i < n; i++) {
        double u = (double)(next(&r) >> 40) * 0x1p-24;
        float x = (float)((double)lo + ((double)hi - (double)lo) * u);
        if (lo < hi && x >= hi)
            x = nextafterf(hi, -INFINITY);
        v[i] = x;
    }
    return v;
}

/* `{"type": "u8", "min": lo, "max": hi}`: n values. */
static uint8_t *random_u8(uint64_t seed, size_t n, unsigned lo, unsigned hi)
{
    uint8_t *v = malloc(n);
    rng r = seeded(seed);
    uint64_t span = (uint64_t)(hi - lo) + 1;
    for (size_t i = 0; i < n; i++)
        v[i] = (uint8_t)(lo + (((next(&r) >> 32) * span) >> 32));
    return v;
}

static void write_out(const char *path, const void *p, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

/* ---- sgemm.ptx: each output is one chain of fma.rn.f32 over k = 0..N-1
 * (fma(Bs[k][tx], As[ty][k], acc), starting from 0), whatever the tiling. */
static void sgemm(int n, uint64_t seed_a, uint64_t seed_b, const char *out)
{
    size_t nn = (size_t)n * n;
    float *a = random_f32(seed_a, nn, -1.0f, 1.0f);
    float *b = random_f32(seed_b, nn, -1.0f, 1.0f);
    float *c = malloc(nn * sizeof *c);
    for (int r = 0; r < n; r++)
        for (int col = 0; col < n; col++) {
            float acc = 0.0f;
            for (int k = 0; k < n; k++)
                acc = fmaf(b[(size_t)k * n + col], a[(size_t)r * n + k], acc);
            c[(size_t)r * n + col] = acc;
        }
    write_out(out, c, nn * sizeof *c);
}

/* ---- reduce.ptx, blocks of 256: thread t of block b adds in[i] for
 * i = b*256 + t, stepping by blocks*256, in order (add.f32 from 0); then
 * s[t] += s[t+h] for h = 128, 64, 32 (barriers between); then lanes 0..31
 * of the first warp add shfl.down by 16, 8, 4, 2, 1 (a lane whose source
 * is past lane 31 reads its own value); lane 0's value is out[b]. */
static void reduce(uint32_t n, uint32_t blocks, uint64_t seed, const char *out)
{
    float *in = random_f32(seed, n, -1.0f, 1.0f);
    float *res = malloc(blocks * sizeof *res);
    for (uint32_t b = 0; b < blocks; b++) {
        float s[256];
        for (uint32_t t = 0; t < 256; t++) {
            float sum = 0.0f;
            for (uint64_t i = (uint64_t)b * 256 + t; i < n; i += (uint64_t)blocks * 256)
                sum = sum + in[i];
            s[t] = sum;
        }
        for (uint32_t h = 128; h >= 32; h >>= 1)
            for (uint32_t t = 0; t < h; t++)
                s[t] = s[t + h] + s[t];
        float v[32];
        memcpy(v, s, sizeof v);
        for (int off = 16; off > 0; off >>= 1) {
            float w[32];
            for (int l = 0; l < 32; l++)
                w[l] = v[l] + (l + off <= 31 ? v[l + off] : v[l]);
            memcpy(v, w, sizeof v);
        }
        res[b] = v[0];
    }
    write_out(out, res, blocks * sizeof *res);
}

/* ---- histogram.ptx: 256 u32 counts of the bytes of `words` 32-bit words
 * (integer sums: the order of the atomics does not matter). */
static void histogram(uint32_t words, uint32_t blocks, uint64_t seed, const char *out)
{
    (void)blocks;
    size_t bytes = (size_t)words * 4;
    uint8_t *d = random_u8(seed, bytes, 0, 255);
    uint32_t h[256] = {0};
    for (size_t i = 0; i < bytes; i++)
        h[d[i]]++;
    write_out(out, h, sizeof h);
}

int main(int argc, char **argv)
{
    if (argc == 6 && !strcmp(argv[1], "sgemm"))
        sgemm(atoi(argv[2]), strtoull(argv[3], 0, 10), strtoull(argv[4], 0, 10), argv[5]);
    else if (argc == 6 && !strcmp(argv[1], "reduce"))
        reduce(strtoul(argv[2], 0, 10), strtoul(argv[3], 0, 10), strtoull(argv[4], 0, 10), argv[5]);
    else if (argc == 6 && !strcmp(argv[1], "histogram"))
        histogram(strtoul(argv[2], 0, 10), strtoul(argv[3], 0, 10), strtoull(argv[4], 0, 10), argv[5]);
    else {
        fprintf(stderr,
                "usage: reference sgemm N SEED_A SEED_B OUT\n"
                "       reference reduce N BLOCKS SEED OUT\n"
                "       reference histogram WORDS BLOCKS SEED OUT\n");
        return 2;
    }
    return 0;
}
