// A C++ host driving a simulation through the external-instruction hook: the
// same run as sim-core's examples/toy_memory.rs, printing the same lines.
// Instruction 1 (a "load") is the host's: a toy memory, here a C++ object,
// answers it with 3 * address + 1 per lane, 100 cycles after issue.
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ptx_sm_sim.h"

namespace {

constexpr uint32_t kWarps = 8;
constexpr int kLoadsPerWarp = 4;

struct ToyMemory {
    uint64_t latency = 100;
    uint64_t requests = 0;

    static int32_t issue(void *self, const PssExtRequest *req, PssCompletion *out) {
        auto *m = static_cast<ToyMemory *>(self);
        m->requests++;
        out->cycle = req->cycle + m->latency;
        for (int lane = 0; lane < 32; lane++)
            out->values[0][lane] = (3 * req->src[0][lane] + 1) & 0xffffffffu;
        return 1;
    }
};

// Returns `v`, or throws with the library's message when it is -1 (failed).
int64_t check(int64_t v, const char *what) {
    if (v < 0) throw std::runtime_error(std::string(what) + ": " + pss_last_error());
    return v;
}

}  // namespace

int main() try {
    const std::vector<std::string> program = {
        "add.u32 %r1, %r0, 4;",
        "add.u32 %r2, %r1, 0;",
        "add.u32 %r3, %r2, %r1;",
        "xor.b32 %r4, %r3, %r2;",
    };
    std::unique_ptr<PssSim, void (*)(PssSim *)> sim(pss_sim_new("sm_90", 2, "gto"), pss_sim_free);
    if (!sim) throw std::runtime_error(std::string("pss_sim_new: ") + pss_last_error());
    for (const auto &inst : program) check(pss_sim_add_inst(sim.get(), inst.c_str()), "pss_sim_add_inst");
    ToyMemory memory;
    check(pss_sim_mark_external(sim.get(), 1), "pss_sim_mark_external");
    check(pss_sim_set_external(sim.get(), &ToyMemory::issue, &memory), "pss_sim_set_external");
    const auto r0 = check(pss_sim_reg(sim.get(), "%r0"), "pss_sim_reg");
    const auto r4 = check(pss_sim_reg(sim.get(), "%r4"), "pss_sim_reg");
    for (uint32_t w = 0; w < kWarps; w++) {
        uint64_t base[32];
        for (int lane = 0; lane < 32; lane++) base[lane] = uint64_t{w} * 1000 + 4 * uint64_t(lane);
        check(pss_sim_add_host_warp(sim.get(), w, 0xffffffffu), "pss_sim_add_host_warp");
        check(pss_sim_write_reg(sim.get(), w, uint32_t(r0), base), "pss_sim_write_reg");
        for (int k = 0; k < kLoadsPerWarp; k++)
            for (uint32_t i = 0; i < program.size(); i++)
                check(pss_sim_push(sim.get(), w, i), "pss_sim_push");
        check(pss_sim_close_warp(sim.get(), w), "pss_sim_close_warp");
    }
    int progress;
    while ((progress = pss_sim_run_until(sim.get(), UINT64_MAX, UINT64_MAX)) != PSS_DONE)
        check(progress, "pss_sim_run_until");
    PssStats st{};
    check(pss_sim_stats(sim.get(), &st), "pss_sim_stats");
    uint64_t checksum = 0;
    for (uint32_t w = 0; w < kWarps; w++) {
        uint64_t lanes[32];
        check(pss_sim_read_reg(sim.get(), w, uint32_t(r4), lanes), "pss_sim_read_reg");
        for (uint64_t v : lanes) checksum = checksum * 31 + v;
    }
    std::printf("cycles %" PRIu64 "\n", st.cycles);
    std::printf("warp_instructions %" PRIu64 "\n", st.warp_instructions);
    std::printf("thread_instructions %" PRIu64 "\n", st.thread_instructions);
    std::printf("issued %" PRIu64 "\n", st.issued);
    std::printf("dependency %" PRIu64 "\n", st.dependency);
    std::printf("external_requests %" PRIu64 "\n", memory.requests);
    std::printf("checksum %016" PRIx64 "\n", checksum);
    return 0;
} catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
}
