//! Warp states (Nsight Compute's stall reasons, docs/stalls.md) of
//! launches: they sum to the resident warp-cycles, a memory-bound kernel
//! waits on the long scoreboard, a barrier-heavy one at its barriers.

use super::kernel;
use sim_core::{Stats, WarpStalls};
use sim_kernel::{run_grid, Prepared, RunOptions};
use sim_module::{parse_module, Launch};
use std::path::PathBuf;

fn run(module: &sim_module::Module, launch: &Launch, sms: u32) -> Stats {
    let prep = Prepared::new(module, launch, launch.load_buffers().unwrap()).unwrap();
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, sms);
    opts.max_instructions = 10_000_000;
    run_grid(&prep, launch, &opts).unwrap().timed.stats
}

/// The reasons sum to the resident warp-cycles, per instruction too, and
/// every warp issued: `selected` counts each issue of a warp in its own
/// clock, so it is at most the warp-instructions and more than none.
fn check_sums(what: &str, s: &Stats) -> WarpStalls {
    let w = s.warp_stalls;
    assert!(w.resident_warp_cycles > 0, "{what}");
    assert_eq!(w.total(), w.resident_warp_cycles, "{what}: {w:?}");
    let per_inst: u64 = s.per_inst.iter().flat_map(|p| p.stalls).sum();
    assert_eq!(per_inst, w.total(), "{what}: per instruction");
    let issued: u64 = s.per_inst.iter().map(|p| p.warp_instructions).sum();
    assert_eq!(issued, s.warp_instructions, "{what}");
    let selected = w.get("selected");
    assert!(
        selected > 0 && selected <= s.warp_instructions,
        "{what}: {w:?}"
    );
    // A warp is resident at least from its first issue to its last.
    assert!(w.resident_warp_cycles >= s.warp_instructions / 4, "{what}");
    w
}

fn largest(w: &WarpStalls) -> &'static str {
    w.named().max_by_key(|&(_, n)| n).map(|(k, _)| k).unwrap()
}

#[test]
fn a_pointer_chase_waits_on_the_long_scoreboard() {
    // Each load's address depends on the last load's value (0: the buffer
    // is zero-filled), so one warp waits on memory almost all the time.
    let step = "ld.global.u32 %r2, [%rd3];\ncvt.u64.u32 %rd4, %r2;\nadd.s64 %rd3, %rd2, %rd4;\n";
    let body = format!(
        "mov.u64 %rd3, %rd2;\n{}st.global.u32 [%rd2], %r2;\n",
        step.repeat(24)
    );
    let (module, launch) = kernel(&body, 32);
    let s = run(&module, &launch, 1);
    let w = check_sums("pointer chase", &s);
    assert_eq!(largest(&w), "long_scoreboard", "{w:?}");
    assert!(
        w.get("long_scoreboard") * 2 > w.resident_warp_cycles,
        "{w:?}"
    );
    // The loads' consumers (the `cvt`s) carry the wait.
    let cvt: u64 = s
        .per_inst
        .iter()
        .filter(|p| p.warp_instructions > 0)
        .map(|p| p.stalls[sim_core::warp_states::reason::LONG_SCOREBOARD as usize])
        .max()
        .unwrap();
    assert!(cvt > 0);
}

#[test]
fn warps_held_at_barriers_show_as_barrier() {
    // Warp 0 alone runs a chain of loads before each barrier; the other
    // three warps wait for it there.
    let round = "@%p1 ld.global.u32 %r2, [%rd2];\n@%p1 add.u32 %r3, %r2, %r3;\n@%p1 ld.global.u32 %r2, [%rd2+4];\n@%p1 add.u32 %r3, %r2, %r3;\nbar.sync 0;\n";
    let body = format!(
        "setp.lt.u32 %p1, %r1, 32;\nmov.u32 %r3, 0;\n{}st.global.u32 [%rd2+8], %r3;\n",
        round.repeat(8)
    );
    let (module, launch) = kernel(&body, 128);
    let s = run(&module, &launch, 1);
    let w = check_sums("barriers", &s);
    assert_eq!(largest(&w), "barrier", "{w:?}");
    assert!(w.get("barrier") * 3 > w.resident_warp_cycles, "{w:?}");
}

fn h100_data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../sim-module/tests/data/h100")
}

#[test]
fn nvcc_launches_sum_to_resident_warp_cycles() {
    for name in ["block_sad_reduce.t", "threshold_clamp.t", "audio_mix.v"] {
        let launch = Launch::read(&h100_data().join(format!("{name}.json"))).unwrap();
        let src = std::fs::read_to_string(&launch.ptx).unwrap();
        let module = parse_module(&src, "public.ptx").unwrap();
        for sms in [1, 8] {
            let s = run(&module, &launch, sms);
            check_sums(&format!("{name} on {sms} SMs"), &s);
        }
    }
}

#[test]
fn the_block_reduction_waits_at_its_barriers() {
    let launch = Launch::read(&h100_data().join("block_sad_reduce.t.json")).unwrap();
    let src = std::fs::read_to_string(&launch.ptx).unwrap();
    assert!(src.contains("bar.sync"), "the kernel has barriers");
    let module = parse_module(&src, "public.ptx").unwrap();
    let s = run(&module, &launch, 4);
    let w = check_sums("block_sad_reduce", &s);
    assert!(w.get("barrier") > 0, "{w:?}");
    assert!(w.get("long_scoreboard") > 0, "{w:?}");
}
