//! Clock reads: every instruction with a clock operand reads the cycle it
//! issues at, whatever its family (`sim_isa::db::reads_clock`).

use crate::kernel;
use sim_kernel::{run_grid, Prepared, RunOptions};

/// The first `n` words of the buffer after running `body` on one warp.
fn words(body: &str, n: usize) -> Vec<u32> {
    let (module, launch) = kernel(body, 32);
    let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
    let opts = RunOptions::new(
        sim_core::preset(sim_isa::Target::SM_90),
        sim_core::SchedPolicy::Lrr,
        1,
    );
    let run = run_grid(&prep, &launch, &opts).unwrap();
    let bytes = &run.global.buffer_bytes(&prep.buffers)[0];
    (0..n)
        .map(|k| u32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().unwrap()))
        .collect()
}

/// `st.global.u32 [a], %clock` and `shfl.sync.idx.b32 d, %clock, ...` store
/// the clock as they issue, after the `mov` before them and before the one
/// after (they once ran with the value the last `mov` had read).
#[test]
fn a_store_and_a_shuffle_of_the_clock_read_it_as_they_issue() {
    let body = "mov.u32 %r2, %clock;\nld.global.u32 %r3, [%rd2+60];\nadd.u32 %r4, %r3, 1;\n\
                st.global.u32 [%rd2+16], %r4;\nst.global.u32 [%rd2], %clock;\n\
                shfl.sync.idx.b32 %r6, %clock, 0, 31, -1;\nmov.u32 %r7, %clock;\n\
                st.global.u32 [%rd2+4], %r2;\nst.global.u32 [%rd2+8], %r6;\n\
                st.global.u32 [%rd2+12], %r7;";
    let w = words(body, 5);
    let (before, stored, shuffled, after) = (w[1], w[0], w[2], w[3]);
    assert_eq!(w[4], 1, "the loaded word plus one: {w:?}");
    assert!(before < stored, "the store's clock is its own: {w:?}");
    assert!(stored < shuffled, "the shuffle's clock is its own: {w:?}");
    assert!(shuffled < after, "{w:?}");
}
