//! Which branches cost a taken branch's redirect (`taken_branch_cycles`):
//! a loop's back-edge each time it is taken, and nothing else.

use sim_kernel::*;

/// Cycles of a one-warp kernel running `body` over a 64-byte buffer, with a
/// redirect of `taken` clocks.
fn cycles(body: &str, taken: u32) -> u64 {
    let (module, launch) = crate::kernel(body, 32);
    let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
    let target = sim_isa::Target::SM_90;
    let opts = ExecOptions {
        target,
        max_instructions: 100_000,
        sms: 1,
        log_loads: false,
    };
    let run = execute(&prep, &launch, &opts, &[]).unwrap();
    let mut cfg = sim_core::preset(target);
    cfg.taken_branch_cycles = taken;
    let mut mem = CacheModel::new(MemConfig::preset(target), 1, &[]);
    timing::time(&prep, &run, &cfg, sim_core::SchedPolicy::Lrr, 1, &mut mem)
        .unwrap()
        .cycles
}

const LOOP: &str = "mov.u32 %r2, 0;\nLOOP:\nadd.u32 %r3, %r3, %r1;\nxor.b32 %r3, %r3, 5;\n\
                    add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, 16;\n@%p1 bra LOOP;\n";

/// 16 iterations take the back-edge 15 times; the loop's exit costs nothing,
/// also where a load after the loop issues first (loads move up within
/// straight-line code, as ptxas schedules them) and a forward branch is free.
#[test]
fn only_taken_back_edges_cost_the_redirect() {
    let extra = |body: &str| cycles(body, 22) - cycles(body, 0);
    let per = extra(LOOP);
    assert_eq!(per % 15, 0, "{per}");
    assert!((15 * 15..=15 * 22).contains(&per), "{per}");
    let load_after = format!("{LOOP}add.u32 %r4, %r1, 1;\nld.global.u32 %r5, [%rd2];\n");
    assert_eq!(extra(&load_after), per);
    let forward = format!(
        "{LOOP}setp.eq.u32 %p2, %r1, 99;\n@%p2 bra SKIP;\nadd.u32 %r4, %r1, 1;\nSKIP:\nadd.u32 %r6, %r1, 2;\n"
    );
    assert_eq!(extra(&forward), per);
}
