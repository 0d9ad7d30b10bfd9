/* A C host driving a simulation through the external-instruction hook: the
 * same run as sim-core's examples/toy_memory.rs, printing the same lines.
 * Instruction 1 (a "load") is the host's: a toy memory answers it with
 * 3 * address + 1 per lane, 100 cycles after issue. */
#include <inttypes.h>
#include <stdio.h>

#include "ptx_sm_sim.h"

#define WARPS 8
#define LOADS_PER_WARP 4
#define MEMORY_LATENCY 100

static const char *PROGRAM[] = {
    "add.u32 %r1, %r0, 4;",
    "add.u32 %r2, %r1, 0;",
    "add.u32 %r3, %r2, %r1;",
    "xor.b32 %r4, %r3, %r2;",
};
#define NINSTS (sizeof PROGRAM / sizeof PROGRAM[0])

static int32_t toy_memory(void *user, const PssExtRequest *req, PssCompletion *out) {
    uint64_t *requests = user;
    *requests += 1;
    out->cycle = req->cycle + MEMORY_LATENCY;
    for (int lane = 0; lane < 32; lane++)
        out->values[0][lane] = (3 * req->src[0][lane] + 1) & 0xffffffffu;
    return 1;
}

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, pss_last_error());
    return 1;
}

int main(void) {
    PssSim *sim = pss_sim_new("sm_90", 2, "gto");
    if (!sim) return fail("pss_sim_new");
    for (size_t i = 0; i < NINSTS; i++)
        if (pss_sim_add_inst(sim, PROGRAM[i]) < 0) return fail("pss_sim_add_inst");
    uint64_t requests = 0;
    if (pss_sim_mark_external(sim, 1) || pss_sim_set_external(sim, toy_memory, &requests))
        return fail("external");
    int64_t r0 = pss_sim_reg(sim, "%r0"), r4 = pss_sim_reg(sim, "%r4");
    if (r0 < 0 || r4 < 0) return fail("pss_sim_reg");
    for (uint32_t w = 0; w < WARPS; w++) {
        uint64_t base[32];
        for (int lane = 0; lane < 32; lane++) base[lane] = (uint64_t)w * 1000 + 4 * (uint64_t)lane;
        if (pss_sim_add_host_warp(sim, w, 0xffffffffu) ||
            pss_sim_write_reg(sim, w, (uint32_t)r0, base))
            return fail("warp");
        for (int k = 0; k < LOADS_PER_WARP; k++)
            for (uint32_t i = 0; i < NINSTS; i++)
                if (pss_sim_push(sim, w, i)) return fail("pss_sim_push");
        if (pss_sim_close_warp(sim, w)) return fail("pss_sim_close_warp");
    }
    int progress;
    while ((progress = pss_sim_run_until(sim, UINT64_MAX, UINT64_MAX)) != PSS_DONE)
        if (progress < 0) return fail("pss_sim_run_until");
    PssStats st;
    if (pss_sim_stats(sim, &st)) return fail("pss_sim_stats");
    uint64_t checksum = 0;
    for (uint32_t w = 0; w < WARPS; w++) {
        uint64_t lanes[32];
        if (pss_sim_read_reg(sim, w, (uint32_t)r4, lanes)) return fail("pss_sim_read_reg");
        for (int lane = 0; lane < 32; lane++) checksum = checksum * 31 + lanes[lane];
    }
    printf("cycles %" PRIu64 "\n", st.cycles);
    printf("warp_instructions %" PRIu64 "\n", st.warp_instructions);
    printf("thread_instructions %" PRIu64 "\n", st.thread_instructions);
    printf("issued %" PRIu64 "\n", st.issued);
    printf("dependency %" PRIu64 "\n", st.dependency);
    printf("external_requests %" PRIu64 "\n", requests);
    printf("checksum %016" PRIx64 "\n", checksum);
    pss_sim_free(sim);
    return 0;
}
