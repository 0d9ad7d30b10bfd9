//! `prefetch` and `prefetchu` in a launch: no value changes, no fault for
//! an address outside every allocation, and the load path's timing (the
//! line it names is in L1 for the load after it: docs/prefetch.md).

use crate::{kernel, opts};
use sim_kernel::{run_grid, GridRun, Prepared};

/// Runs `body` on one warp over the 64-byte buffer of zeros.
fn run(body: &str) -> (GridRun, Vec<u8>) {
    let (module, launch) = kernel(body, 32);
    let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
    let run = run_grid(&prep, &launch, &opts(1, 1)).unwrap_or_else(|e| panic!("{body}: {e}"));
    let bytes = run.global.buffer_bytes(&prep.buffers)[0].clone();
    (run, bytes)
}

/// Thread 0 stores 7 plus the word at 16 (0) at 32, after the prefetches.
const TAIL: &str = "setp.eq.u32 %p1, %r1, 0;\nld.global.u32 %r2, [%rd2+16];\n\
                    add.u32 %r2, %r2, 7;\n@%p1 st.global.u32 [%rd2+32], %r2;";

#[test]
fn every_form_runs_changes_nothing_and_faults_nowhere() {
    // `%rd3`: far past the buffer (and every allocation).
    let body = format!(
        "mov.u64 %rd3, 0xdead00000000;\nprefetch.global.L2 [%rd2];\n\
         prefetch.global.L1 [%rd3+128];\nprefetch.L2 [%rd1];\nprefetch.L1 [%rd3];\n\
         prefetch.global.L2::evict_last [%rd3];\nprefetch.global.L2::evict_normal [%rd2+32];\n\
         prefetch.local.L1 [%rd3];\nprefetchu.L1 [%rd1];\n\
         prefetch.tensormap [%rd3];\nprefetch.const.tensormap [%rd3];\n\
         prefetch.param.tensormap [%rd1];\n{TAIL}"
    );
    let (_, bytes) = run(&body);
    let mut want = vec![0u8; 64];
    want[32] = 7;
    assert_eq!(bytes, want);
}

#[test]
fn the_line_a_prefetch_names_is_there_for_the_load_after_it() {
    let (cold, _) = run(TAIL);
    let (warm, bytes) = run(&format!("prefetch.global.L2 [%rd2+16];\n{TAIL}"));
    assert_eq!(bytes[32], 7);
    // Without the prefetch the load misses L1; with it the load's sector
    // is there (filled by the prefetch, which is the one miss).
    assert_eq!(
        (cold.timed.memory.l1.hits, cold.timed.memory.l1.misses),
        (0, 1)
    );
    assert_eq!(
        (warm.timed.memory.l1.hits, warm.timed.memory.l1.misses),
        (1, 1)
    );
    assert_eq!(
        warm.timed.memory.l1.requests,
        cold.timed.memory.l1.requests + 1
    );
}
