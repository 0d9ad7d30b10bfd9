//! Dead instructions issue nothing, as ptxas removes them (`src/dead.rs`).

use crate::timed;

/// The window between the kernel's two clock reads.
fn window(body: &str) -> u64 {
    timed(body, 0).clock_window().unwrap()
}

/// The mixed H100 loops' prologue: a load read only by an unused test. ptxas
/// emits neither (`tests/data/h100-mixed/mixed.ptx.cubin`), so the kernel
/// takes as long as without them; were they issued, the test would wait for
/// its load (a DRAM first touch) and hold up the clock read behind it.
#[test]
fn a_dead_test_and_its_load_cost_nothing() {
    let tail = "ld.global.u32 %r2, [%rd2+4];\nmov.u32 %r6, %clock;\nadd.u32 %r3, %r2, %r1;\n\
                mov.u32 %r7, %clock;\nsub.u32 %r6, %r7, %r6;\nst.global.u32 [%rd2+8], %r3;\n\
                st.global.u32 [%rd2+12], %r6;";
    let dead = format!("ld.global.u32 %r2, [%rd2];\nsetp.ne.u32 %p1, %r2, 0;\n{tail}");
    let live = format!("ld.global.u32 %r2, [%rd2];\nsetp.ne.u32 %p1, %r2, 0;\n{tail}\n@%p1 st.global.u32 [%rd2+16], %r1;");
    let without = window(tail);
    assert_eq!(window(&dead), without);
    assert!(
        without > 600,
        "the load's DRAM access is in the window: {without}"
    );
    // Read by a guard, the test waits for its load before the clock read,
    // and the second load's access overlaps that wait.
    assert!(window(&live) < 100, "{} vs {without}", window(&live));
}

/// The carry flag is a dependency (`sim_isa::carry`): an `add.cc` whose
/// sum no one reads but whose carry an `addc` stores is live, so it issues
/// between the clock reads and waits there for the load it reads; the
/// same `add` without `.cc` is dead, and the window holds the `addc` alone.
#[test]
fn an_add_cc_whose_carry_is_read_is_live() {
    let body = |add: &str| {
        format!(
            "ld.global.u32 %r2, [%rd2];\nmov.u32 %r6, %clock;\n{add} %r4, %r2, %r1;\n\
             addc.u32 %r3, %r1, 0;\nmov.u32 %r7, %clock;\nsub.u32 %r6, %r7, %r6;\n\
             st.global.u32 [%rd2+8], %r3;\nst.global.u32 [%rd2+12], %r6;"
        )
    };
    let live = window(&body("add.cc.u32"));
    let dead = window(&body("add.u32"));
    assert!(live > 600, "the add.cc waits for the load: {live}");
    assert!(dead < 100, "nothing to wait for: {dead}");
}
