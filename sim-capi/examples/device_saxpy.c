/* A kernel launched through the C API's device: memory and modules that
 * persist across launches, as a CUDA context's do.
 *
 *   cc -std=c99 -I sim-capi/include device_saxpy.c libsim_capi.a -lpthread -ldl -lm
 *   ./a.out sim-capi/examples/saxpy.ptx
 *
 * y = 2x + y runs twice on the same device memory; the result is checked
 * against the host's fmaf bit for bit, and the kernel's .global launch
 * counter is read back. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_sm_sim.h"

enum { N = 1000, MAX_PTX = 1 << 16 };

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, pss_last_error());
    return 1;
}

int main(int argc, char **argv) {
    static char ptx[MAX_PTX];
    static float x[N], y[N], want[N];
    const char *path = argc > 1 ? argv[1] : "saxpy.ptx";
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t len = fread(ptx, 1, MAX_PTX - 1, f);
    fclose(f);
    ptx[len] = '\0';

    for (int i = 0; i < N; i++) {
        x[i] = (float)i * 0.5f;
        y[i] = (float)(N - i);
        want[i] = fmaf(2.0f, x[i], fmaf(2.0f, x[i], y[i]));
    }

    PssDevice *dev = pss_device_new("sm_90", 0); /* 0: the whole GPU */
    if (!dev) return fail("pss_device_new");
    int64_t m = pss_device_load_module(dev, path, ptx);
    if (m < 0) return fail("pss_device_load_module");
    uint64_t dx, dy;
    if (pss_device_malloc(dev, sizeof x, &dx) || pss_device_malloc(dev, sizeof y, &dy))
        return fail("pss_device_malloc");
    if (pss_device_write(dev, dx, x, sizeof x) || pss_device_write(dev, dy, y, sizeof y))
        return fail("pss_device_write");

    /* The parameters at the offsets the kernel declares. */
    unsigned char params[64];
    size_t params_len = 0;
    memset(params, 0, sizeof params);
    uint32_t n = N;
    float a = 2.0f;
    const void *values[4] = {&dx, &dy, &n, &a};
    if (pss_device_param_count(dev, (uint32_t)m, "saxpy") != 4) return fail("pss_device_param_count");
    for (uint32_t k = 0; k < 4; k++) {
        PssParam p;
        if (pss_device_param(dev, (uint32_t)m, "saxpy", k, &p)) return fail("pss_device_param");
        memcpy(params + p.offset, values[k], p.size);
        if (p.offset + p.size > params_len) params_len = p.offset + p.size;
    }

    const uint32_t grid[3] = {(N + 127) / 128, 1, 1};
    const uint32_t block[3] = {128, 1, 1};
    for (int k = 0; k < 2; k++) {
        PssLaunchReport r;
        if (pss_device_launch(dev, (uint32_t)m, "saxpy", grid, block, 0, params, params_len, &r))
            return fail("pss_device_launch");
        printf("launch %d: cycles %llu warps %llu instructions %llu\n", k,
               (unsigned long long)r.cycles, (unsigned long long)r.warps,
               (unsigned long long)r.instructions);
    }

    if (pss_device_read(dev, dy, y, sizeof y)) return fail("pss_device_read");
    int bad = 0;
    for (int i = 0; i < N; i++) bad += memcmp(&y[i], &want[i], sizeof(float)) != 0;
    uint32_t launches = 0;
    if (pss_device_read_symbol(dev, (uint32_t)m, "launches", 0, &launches, sizeof launches))
        return fail("pss_device_read_symbol");
    printf("launches %u\nmismatches %d\n", launches, bad);
    if (pss_device_mem_free(dev, dx) || pss_device_mem_free(dev, dy)) return fail("pss_device_mem_free");
    pss_device_free(dev);
    return bad != 0;
}
