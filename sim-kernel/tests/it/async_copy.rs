//! Async copies in a launch: `tests/data/async-copy` is CUDA C++
//! (`async_copy.cu`: a double-buffered tiled sum through
//! `__pipeline_memcpy_async` of 4 bytes, `__pipeline_commit`,
//! `__pipeline_wait_prior(1)` and `(0)`, then 16-byte copies zero-filled
//! past a bound) compiled by nvcc 13.0.88, with expected outputs from
//! `reference.py`, which follows the source's meaning (no H100 was at hand).
//! And the timing: a wait holds the warp until its copies have landed.

use crate::records_and_replays;
use sim_kernel::*;
use sim_module::{parse_module, Launch};
use std::path::{Path, PathBuf};

fn launch() -> PathBuf {
    crate::in_crate("tests/data/async-copy", "async_copy.json")
}

/// The reference's bytes on every SM count and host-thread count, and for
/// one SM count the same cycles on any number of threads.
#[test]
fn the_tiled_sum_matches_the_reference_on_any_sms_and_threads() {
    crate::matches_on_sms(&launch(), &[1, 2, 6], 1);
}

/// A recording replays to the same outputs and cycles (the copies' loads
/// answered from the record).
#[test]
fn the_tiled_sum_records_and_replays() {
    records_and_replays(&launch());
}

/// One warp of `body` over a 1024-byte global buffer `%rd2` of random
/// words (`%rd3` its lane's 16 bytes) with a 512-byte shared `s` (`%r2`
/// its lane's 16 bytes) on `target`: the buffer's words before and after.
pub(crate) type Words = (Vec<u32>, Vec<u32>);

pub(crate) fn run(body: &str, target: sim_isa::Target) -> Result<Words, KernelError> {
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
         .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;\n\
         .shared .align 16 .b8 s[512];\n\
         ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
         mov.u32 %r2, s;\nshl.b32 %r3, %r1, 4;\nadd.u32 %r2, %r2, %r3;\n\
         mul.wide.u32 %rd3, %r1, 16;\nadd.s64 %rd3, %rd2, %rd3;\n{body}\nret;\n}}\n"
    );
    let module = parse_module(&src, "k.ptx").unwrap();
    let launch = Launch::parse(
        r#"{"ptx": "k.ptx", "entry": "k", "grid": [1,1,1], "block": [32,1,1],
            "buffers": {"b": {"bytes": 1024, "random": {"seed": 3, "type": "u32", "min": 0, "max": 4000000000}}},
            "params": [{"buffer": "b"}]}"#,
        Path::new("."),
    )
    .unwrap();
    let data = launch.load_buffers().unwrap();
    let words = |b: &[u8]| -> Vec<u32> {
        (0..256)
            .map(|k| u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap()))
            .collect()
    };
    let before = words(&data[0]);
    let prep = Prepared::new(&module, &launch, data).unwrap();
    let opts = RunOptions::new(sim_core::preset(target), sim_core::SchedPolicy::Lrr, 1);
    let run = run_grid(&prep, &launch, &opts)?;
    Ok((before, words(&run.global.buffer_bytes(&prep.buffers)[0])))
}

/// Each lane copies its 16 bytes into shared memory, waits, and stores
/// back (words 0-31) the clocks around the copy and (words 32-63) the word
/// its neighbour copied (lane + 1's first: the buffer's word 4 (lane + 1)).
const CLOCKED: &str = "mov.u32 %r4, %clock;\n\
    cp.async.cg.shared.global [%r2], [%rd3], 16;\n\
    cp.async.commit_group;\n\
    WAIT\n\
    mov.u32 %r5, %clock;\n\
    bar.sync 0;\n\
    add.u32 %r6, %r1, 1;\nand.b32 %r6, %r6, 31;\nshl.b32 %r6, %r6, 4;\n\
    mov.u32 %r7, s;\nadd.u32 %r6, %r6, %r7;\nld.shared.u32 %r8, [%r6];\n\
    bar.sync 0;\n\
    sub.u32 %r9, %r5, %r4;\n\
    mul.wide.u32 %rd4, %r1, 4;\nadd.s64 %rd4, %rd2, %rd4;\n\
    st.global.u32 [%rd4], %r9;\nst.global.u32 [%rd4+128], %r8;";

/// The values arrive whatever the wait; the clocks around a copy and its
/// wait span a global load's latency (the copy is timed as its load, and
/// the wait reads the token it writes), without a wait they do not.
#[test]
fn a_wait_holds_the_warp_until_its_copies_land() {
    let mut spans = Vec::new();
    for wait in ["cp.async.wait_all;", "cp.async.wait_group 0;", ""] {
        let (b, w) = run(&CLOCKED.replace("WAIT", wait), sim_isa::Target::SM_90).unwrap();
        for lane in 0..32usize {
            let next = (lane + 1) % 32;
            assert_eq!(w[32 + lane], b[4 * next], "{wait}: lane {lane}");
        }
        spans.push(w[0]);
    }
    // A global load's latency is some hundreds of cycles on the sm_90
    // preset; two clock reads a few instructions apart, some tens.
    assert!(spans[0] > 200 && spans[1] > 200, "{spans:?}");
    assert!(spans[2] < 100, "{spans:?}");
}

/// A launch for a target below sm_80 is refused before anything runs.
#[test]
fn sm_75_refuses_the_copies() {
    let body = "cp.async.ca.shared.global [%r2], [%rd3], 4;\ncp.async.wait_all;";
    let e = run(body, sim_isa::Target::parse("sm_75").unwrap()).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, KernelError::Refused { .. }), "{text}");
    assert!(text.contains("cp.async needs sm_80"), "{text}");
}

/// A source address out of bounds is a fault naming the thread and line.
#[test]
fn a_copy_out_of_bounds_faults() {
    let body = "add.s64 %rd3, %rd3, 4096;\ncp.async.ca.shared.global [%r2], [%rd3], 16;";
    let e = run(body, sim_isa::Target::SM_90).unwrap_err();
    assert!(matches!(e, KernelError::Fault { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("out-of-bounds") && text.contains("k.ptx:"),
        "{text}"
    );
}

/// `mbarrier` through a generic address into the shared window: 32
/// arrivals on an object expecting 32 complete phase 0, so each lane's
/// state (pending 32 - lane as it found it) tests complete afterwards.
#[test]
fn mbarrier_through_a_generic_address() {
    let body = "mov.u32 %r4, s;\ncvta.shared.u64 %rd4, %r4;\n\
                setp.eq.u32 %p1, %r1, 0;\n@%p1 mbarrier.init.b64 [%rd4], 32;\nbar.sync 0;\n\
                mbarrier.arrive.b64 %rd5, [%rd4];\nmbarrier.pending_count.b64 %r5, %rd5;\n\
                mbarrier.test_wait.b64 %p2, [%rd4], %rd5;\nselp.u32 %r6, 1, 0, %p2;\n\
                mul.wide.u32 %rd6, %r1, 4;\nadd.s64 %rd6, %rd2, %rd6;\n\
                st.global.u32 [%rd6], %r5;\nst.global.u32 [%rd6+128], %r6;";
    let (_, w) = run(body, sim_isa::Target::SM_90).unwrap();
    for lane in 0..32 {
        assert_eq!(
            (w[lane], w[32 + lane]),
            (32 - lane as u32, 1),
            "lane {lane}"
        );
    }
}
