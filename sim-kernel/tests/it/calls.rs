//! Device-function calls in a launch: `tests/data/calls` is CUDA C++
//! (`calls.cu`: a `__noinline__` function with two arguments and a result,
//! called uniformly and in a divergent branch; one taking a float and a
//! 64-bit integer; a recursion nvcc keeps as calls, with a lane-dependent
//! depth) compiled by nvcc 13.0.88, with expected outputs from
//! `reference.py`, which follows the source's meaning thread by thread (no
//! H100 was at hand). Calls run inlined (`sim_module::inline`).

use crate::opts;
use sim_kernel::*;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    crate::in_crate("tests/data/calls", name)
}

/// The reference's bytes on every SM count and host-thread count, and for
/// one SM count the same cycles and statistics on any number of threads.
#[test]
fn calls_match_the_reference_on_any_sms_and_threads() {
    crate::matches_on_sms(&data("calls.json"), &[1, 2, 132], 2);
}

/// A recording of a launch with calls replays to the same outputs and cycles.
#[test]
fn calls_record_and_replay() {
    use sim_kernel::record::{record_launch, replay_stream, RecordReader};
    let o = opts(2, 2);
    let direct = run_launch(&data("calls.json"), &o).unwrap();
    let mut bytes = Vec::new();
    let rec = record_launch(&data("calls.json"), &o, &mut bytes, "r.bin").unwrap();
    assert_eq!(rec.run.buffers, direct.buffers);
    let rep = replay_stream(RecordReader::open("r.bin", &bytes[..]).unwrap(), &o).unwrap();
    assert!(rep.run.mismatches.is_empty(), "{:?}", rep.run.mismatches);
    assert_eq!(rep.run.timed.cycles, direct.timed.cycles);
}

/// `deep` recurses `threadIdx.x` levels below its own call: thread 12 is
/// the first to need a 13th nested call, past `MAX_CALL_DEPTH` (12), and the
/// launch stops naming the recursive call's line and that thread.
#[test]
fn recursion_past_the_depth_limit_stops_the_launch() {
    assert_eq!(sim_module::MAX_CALL_DEPTH, 12);
    let Err(e) = run_launch(&data("deep.json"), &opts(1, 1)) else {
        panic!("the deep recursion ran");
    };
    let text = e.to_string();
    assert!(
        text.contains("calls.ptx:71:2 is nested deeper than simcli inlines calls (12 levels"),
        "{text}"
    );
    assert!(text.starts_with("call _Z4walkPKii at "), "{text}");
    assert!(
        text.contains("block [0, 0, 0] warp 0 (thread 12)"),
        "{text}"
    );
}

/// Structures passed and returned by value (`tests/data/structs`: nvcc
/// 13.0.88's `.param .align N .b8 x[16]` arguments and results, one such
/// call inside a function returning a structure, one in a divergent
/// branch, a loop nvcc unrolled into four call sites) give the
/// reference's bytes on any SM and host-thread count.
#[test]
fn structures_by_value_match_the_reference() {
    let json = crate::in_crate("tests/data/structs", "structs.json");
    crate::matches_on_sms(&json, &[1, 2, 132], 3);
}

/// A device `assert` that holds everywhere runs as if it were not there
/// (the module still calls `__assertfail`, which no thread reaches); one
/// that fails stops the launch with CUDA's line for each failing thread of
/// the warp: file, line, function, block, thread and condition.
#[test]
fn a_failed_assert_stops_the_launch_with_cudas_lines() {
    let data = |n: &str| crate::in_crate("tests/data/assert", n);
    let good = run_launch(&data("good.json"), &opts(2, 2)).unwrap();
    assert!(good.mismatches.is_empty(), "{:?}", good.mismatches);
    let Err(e) = run_launch(&data("bad.json"), &opts(2, 2)) else {
        panic!("the failing assert ran through");
    };
    let RunError::Kernel(KernelError::Assert { lines, at }) = &e else {
        panic!("not an assert: {e}");
    };
    let (cta, thread) = (&at.cta, &at.thread);
    let want = "assert.cu:10: void check(const int *, int *, int): block: [1,0,0], thread: [5,0,0] Assertion `v[i] >= 0` failed.\n\
                assert.cu:10: void check(const int *, int *, int): block: [1,0,0], thread: [6,0,0] Assertion `v[i] >= 0` failed.\n";
    assert_eq!(lines, want);
    assert_eq!((*cta, *thread), ([1, 0, 0], 5));
    let text = e.to_string();
    assert!(
        text.starts_with("device-side assert triggered in block [1, 0, 0] warp 0 (thread 5) at "),
        "{text}"
    );
    assert!(text.contains("assert.ptx:74:2:\n"), "{text}");
}
