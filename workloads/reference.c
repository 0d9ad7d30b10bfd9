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
 *   ./reference halfops 4000 5 halfops.out.expected.bin
 *   ./reference mma 64 64 64 6 7 mma_f16.C.expected.bin mma_s8.C.expected.bin mma_f64.C.expected.bin mma_f16h.C.expected.bin
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

/* ---- halfops.ptx: f16 and bf16 arithmetic. Each result is the exact value
 * (sign, integer magnitude, power of two, in 128-bit integers) rounded once to
 * nearest even, as the PTX ISA defines add/fma/mul .rn on f16/bf16 (and cvt.rn
 * from f32). Inputs in [-2, 2) give finite results: no NaN or infinity. */
typedef struct { int neg; unsigned __int128 m; int e; } exact;

static exact from_half(uint16_t v, int mb, int eb)
{
    int field = (v >> mb) & ((1 << eb) - 1), bias = (1 << (eb - 1)) - 1;
    exact x = { v >> 15, v & ((1u << mb) - 1), (field ? field : 1) - bias - mb };
    if (field)
        x.m |= (unsigned __int128)1 << mb;
    return x;
}

static exact from_f32(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    int field = (b >> 23) & 255;
    exact x = { b >> 31, b & 0x7fffff, (field ? field : 1) - 150 };
    if (field)
        x.m |= 1u << 23;
    return x;
}

static uint16_t round_half(exact x, int mb, int eb)
{
    uint16_t sign = (uint16_t)(x.neg << 15);
    if (x.m == 0)
        return sign;
    int bias = (1 << (eb - 1)) - 1, top = x.e, q;
    for (unsigned __int128 t = x.m >> 1; t; t >>= 1)
        top++;
    q = top - mb > 1 - bias - mb ? top - mb : 1 - bias - mb;
    int s = q - x.e;
    unsigned __int128 n;
    if (s <= 0)
        n = x.m << -s;
    else {
        unsigned __int128 k = x.m >> s, rem = x.m & (((unsigned __int128)1 << s) - 1),
                          half = (unsigned __int128)1 << (s - 1);
        n = k + (rem > half || (rem == half && (k & 1)));
    }
    if (n >> (mb + 1)) {
        n >>= 1;
        q++;
    }
    if (!(n >> mb))
        return sign | (uint16_t)n;
    int field = q + mb + bias;
    if (field >= (1 << eb) - 1)
        return sign | (uint16_t)(((1 << eb) - 1) << mb);
    return sign | (uint16_t)(field << mb) | (uint16_t)(n & ((1u << mb) - 1));
}

static exact ex_mul(exact a, exact b)
{
    exact x = { a.neg != b.neg, a.m * b.m, a.e + b.e };
    return x;
}

static exact ex_add(exact a, exact b)
{
    if (a.m == 0 && b.m == 0) {
        exact z = { a.neg && b.neg, 0, 0 };
        return z;
    }
    int e = a.e < b.e ? a.e : b.e;
    __int128 va = (__int128)(a.m << (a.e - e)), vb = (__int128)(b.m << (b.e - e));
    __int128 v = (a.neg ? -va : va) + (b.neg ? -vb : vb);
    exact x = { v < 0, (unsigned __int128)(v < 0 ? -v : v), e };
    return x;
}

#define F16(v) from_half(v, 10, 5)
#define BF16(v) from_half(v, 7, 8)
#define TO_F16(x) round_half(x, 10, 5)
#define TO_BF16(x) round_half(x, 7, 8)

static void halfops(uint32_t n, uint64_t seed, const char *out)
{
    float *in = random_f32(seed, (size_t)n * 4, -2.0f, 2.0f);
    uint32_t *o = malloc((size_t)n * 3 * sizeof *o);
    for (uint32_t i = 0; i < n; i++) {
        float *v = in + 4 * (size_t)i;
        /* __floats2half2_rn(x, y): x in the low half. */
        uint16_t a[2] = { TO_F16(from_f32(v[0])), TO_F16(from_f32(v[1])) };
        uint16_t b[2] = { TO_F16(from_f32(v[2])), TO_F16(from_f32(v[3])) };
        uint16_t s[2], f[2];
        for (int k = 0; k < 2; k++) {
            s[k] = TO_F16(ex_add(F16(a[k]), F16(b[k])));
            f[k] = TO_F16(ex_add(ex_mul(F16(a[k]), F16(b[k])), F16(s[k])));
        }
        uint16_t m = TO_F16(ex_mul(F16(f[0]), F16(s[1])));
        uint16_t p = TO_BF16(from_f32(v[0])), q = TO_BF16(from_f32(v[2]));
        uint16_t w = TO_BF16(from_f32(v[3]));
        uint16_t r = TO_BF16(ex_add(ex_mul(BF16(p), BF16(q)), BF16(w)));
        uint16_t t = TO_BF16(ex_add(BF16(r), BF16(p)));
        o[3 * (size_t)i] = s[0] | (uint32_t)s[1] << 16;
        o[3 * (size_t)i + 1] = f[0] | (uint32_t)f[1] << 16;
        o[3 * (size_t)i + 2] = m | (uint32_t)t << 16;
    }
    write_out(out, o, (size_t)n * 3 * sizeof *o);
}

/* An integer of magnitude at most 2048 as f16 bits (exact). */
static uint16_t f16_of_int(long v)
{
    uint16_t sign = v < 0 ? 0x8000 : 0;
    unsigned long a = v < 0 ? (unsigned long)-v : (unsigned long)v;
    if (a == 0)
        return 0;
    int e = 0;
    while ((a >> e) > 1)
        e++;
    /* a = 1.f * 2^e: 10 fraction bits, exponent bias 15. */
    return sign | (uint16_t)((e + 15) << 10) | (uint16_t)(((a << 10) >> e) & 0x3ff);
}

/* ---- mma.ptx: C = A B over small integers (every sum exact, in any
 * order): mma_f16, mma_f16h and mma_f64 read bytes as byte - 4 (A M x K,
 * B K x N row-major) into f32, f16 and f64 results; mma_s8 reads the same
 * A bytes and the B bytes as s8, B transposed (N x K: `Bt[j][k]` is byte
 * j * K + k), into s32. */
static void mma(int m, int n, int k, uint64_t seed_a, uint64_t seed_b, const char *out_f16,
                const char *out_s8, const char *out_f64, const char *out_f16h)
{
    uint8_t *a = random_u8(seed_a, (size_t)m * k, 0, 8);
    uint8_t *b = random_u8(seed_b, (size_t)k * n, 0, 8);
    uint8_t *as = random_u8(seed_a, (size_t)m * k, 0, 255);
    uint8_t *bs = random_u8(seed_b, (size_t)k * n, 0, 255);
    float *cf = malloc((size_t)m * n * sizeof *cf);
    int32_t *ci = malloc((size_t)m * n * sizeof *ci);
    double *cd = malloc((size_t)m * n * sizeof *cd);
    uint16_t *ch = malloc((size_t)m * n * sizeof *ch);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            long s = 0, t = 0;
            for (int x = 0; x < k; x++) {
                s += (long)((int)a[i * k + x] - 4) * ((int)b[x * n + j] - 4);
                t += (long)(int8_t)as[i * k + x] * (int8_t)bs[j * k + x];
            }
            cf[i * n + j] = (float)s;
            cd[i * n + j] = (double)s;
            ch[i * n + j] = f16_of_int(s);
            ci[i * n + j] = (int32_t)t;
        }
    write_out(out_f16, cf, (size_t)m * n * sizeof *cf);
    write_out(out_s8, ci, (size_t)m * n * sizeof *ci);
    write_out(out_f64, cd, (size_t)m * n * sizeof *cd);
    write_out(out_f16h, ch, (size_t)m * n * sizeof *ch);
}

int main(int argc, char **argv)
{
    if (argc == 6 && !strcmp(argv[1], "sgemm"))
        sgemm(atoi(argv[2]), strtoull(argv[3], 0, 10), strtoull(argv[4], 0, 10), argv[5]);
    else if (argc == 6 && !strcmp(argv[1], "reduce"))
        reduce(strtoul(argv[2], 0, 10), strtoul(argv[3], 0, 10), strtoull(argv[4], 0, 10), argv[5]);
    else if (argc == 5 && !strcmp(argv[1], "halfops"))
        halfops(strtoul(argv[2], 0, 10), strtoull(argv[3], 0, 10), argv[4]);
    else if (argc == 11 && !strcmp(argv[1], "mma"))
        mma(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), strtoull(argv[5], 0, 10),
            strtoull(argv[6], 0, 10), argv[7], argv[8], argv[9], argv[10]);
    else if (argc == 6 && !strcmp(argv[1], "histogram"))
        histogram(strtoul(argv[2], 0, 10), strtoul(argv[3], 0, 10), strtoull(argv[4], 0, 10), argv[5]);
    else {
        fprintf(stderr,
                "usage: reference sgemm N SEED_A SEED_B OUT\n"
                "       reference reduce N BLOCKS SEED OUT\n"
                "       reference histogram WORDS BLOCKS SEED OUT\n"
                "       reference halfops N SEED OUT\n"
                "       reference mma M N K SEED_A SEED_B OUT_F16 OUT_S8 OUT_F64 OUT_F16H\n");
        return 2;
    }
    return 0;
}
