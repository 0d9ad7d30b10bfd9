//! Which branches cost a taken branch's redirect (`taken_branch_cycles`):
//! a loop's back-edge each time it is taken, and nothing else.

use crate::cycles;

const LOOP: &str = "mov.u32 %r2, 0;\nLOOP:\nadd.u32 %r3, %r3, %r1;\nxor.b32 %r3, %r3, 5;\n\
                    add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, 16;\n@%p1 bra LOOP;\n";
/// Stores the loop's and the tails' results last, so that none of them is
/// dead code (which issues nothing).
const STORE: &str = "st.global.u32 [%rd2], %r3;\nst.global.u32 [%rd2+8], %r4;\n\
                     st.global.u32 [%rd2+12], %r5;\nst.global.u32 [%rd2+16], %r6;\n";

/// 16 iterations take the back-edge 15 times; the loop's exit costs nothing,
/// also where a load after the loop issues first (loads move up within
/// straight-line code, as ptxas schedules them) and a forward branch is free.
#[test]
fn only_taken_back_edges_cost_the_redirect() {
    let extra = |body: &str| cycles(body, 22) - cycles(body, 0);
    let per = extra(&format!("{LOOP}{STORE}"));
    assert_eq!(per % 15, 0, "{per}");
    assert!((15 * 15..=15 * 22).contains(&per), "{per}");
    let load_after = format!("{LOOP}add.u32 %r4, %r1, 1;\nld.global.u32 %r5, [%rd2+4];\n{STORE}");
    assert_eq!(extra(&load_after), per);
    let forward = format!(
        "{LOOP}setp.eq.u32 %p2, %r1, 99;\n@%p2 bra SKIP;\nadd.u32 %r4, %r1, 1;\nSKIP:\nadd.u32 %r6, %r1, 2;\n{STORE}"
    );
    assert_eq!(extra(&forward), per);
}

/// The H100's loops show no redirect (docs/timing-model.md, "Branches"): `b21`
/// (`selp.b32`, 16 iterations of 64 links) takes 4215 cycles between its
/// clock reads, where ptxas has waited for its loaded inputs before the
/// first read (the ISETP of its predicate). The same loop here, with the
/// preset's `taken_branch_cycles` of 0, lands within 1%; the 22 the preset
/// had until 2026-11-25 put it 7% over.
#[test]
fn the_h100_loop_shows_no_redirect() {
    let links = "selp.b32 %r3, %r3, %r2, %p2;\n".repeat(64);
    let body = format!(
        "ld.global.u32 %r2, [%rd2];\nld.global.u32 %r4, [%rd2+4];\nsetp.ne.u32 %p2, %r4, 0;\n\
         mov.u32 %r3, %r1;\nmov.u32 %r6, 0;\nmov.u32 %r5, %clock;\nLOOP:\n{links}\
         add.u32 %r6, %r6, 1;\nsetp.lt.u32 %p1, %r6, 16;\n@%p1 bra LOOP;\n\
         mov.u32 %r7, %clock;\nst.global.u32 [%rd2+8], %r3;\nst.global.u32 [%rd2+12], %r5;\n\
         st.global.u32 [%rd2+16], %r7;\n"
    );
    let preset = sim_core::preset(sim_isa::Target::SM_90).taken_branch_cycles;
    let window = |taken: u32| crate::timed(&body, taken).clock_window().unwrap() as f64;
    let h100 = 4215.0;
    assert!(
        (window(preset) / h100 - 1.0).abs() <= 0.01,
        "{}",
        window(preset)
    );
    assert!(window(22) / h100 > 1.06, "{}", window(22));
}
