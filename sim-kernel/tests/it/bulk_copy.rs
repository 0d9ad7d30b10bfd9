//! Hopper's bulk copies in a launch: `tests/data/bulk-copy/bulk_copy.cu`
//! is CUDA C++ as a user writes it, compiled by nvcc 13.0.88 for sm_90:
//! `tiled_sum` pulls each block's tile with `cuda::memcpy_async(block,
//! ..., cuda::aligned_size_t<16>, barrier)` (`cp.async.bulk.shared::cluster
//! .global.mbarrier::complete_tx::bytes` and `mbarrier.expect_tx`, then
//! every thread's `arrive` and a `try_wait` loop), twice on one barrier,
//! and writes the second tile back with `cuda::ptx::cp_async_bulk`
//! (`cp.async.bulk.global.shared::cta.bulk_group`, `commit_group`,
//! `wait_group.read 0`, after `fence.proxy.async.shared::cta`); `tx_pair`
//! puts two copies on one barrier with `cuda::device::memcpy_async_tx` and
//! `barrier_arrive_tx` (`mbarrier.arrive.expect_tx`). Expected outputs
//! from `reference.py`, which follows the source's meaning (no H100 was at
//! hand).

use crate::async_copy::run;
use crate::records_and_replays;
use sim_kernel::KernelError;
use std::path::PathBuf;

fn launch(name: &str) -> PathBuf {
    crate::in_crate("tests/data/bulk-copy", name)
}

/// The reference's bytes (the sums and the stored-back tiles) on 1, 2 and
/// 4 SMs and 1-3 host threads, the cycles the same on any thread count.
#[test]
fn the_tiled_sum_matches_the_reference() {
    crate::matches_on_sms(&launch("tiled_sum.json"), &[1, 2, 4], 2);
}

/// Two copies completing one phase through `arrive.expect_tx`.
#[test]
fn two_copies_on_one_barrier_match_the_reference() {
    crate::matches_on_sms(&launch("tx_pair.json"), &[1, 3], 1);
}

/// A recording replays to the same outputs and cycles.
#[test]
fn the_tiled_sum_records_and_replays() {
    records_and_replays(&launch("tiled_sum.json"));
}

/// Lane 0 copies the buffer's first 256 bytes into shared memory on a
/// barrier at `s+496`; every lane spins on the phase's parity, then stores
/// back (words 64-95) its word of the copy and (words 96-127) the clocks
/// around the wait: a global load's latency, as `cp.async`'s wait.
const COPY: &str = "mov.u32 %r4, s;\nadd.u32 %r10, %r4, 496;\n\
    setp.eq.u32 %p1, %r1, 0;\n\
    @%p1 mbarrier.init.shared.b64 [%r10], 1;\n\
    mov.u32 %r11, %clock;\n\
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r10], 256;\n\
    @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd2], SIZE, [%r10];\n\
    WAIT: mbarrier.try_wait.parity.shared.b64 %p2, [%r10], 0;\n\
    @!%p2 bra WAIT;\n\
    mov.u32 %r12, %clock;\nsub.u32 %r12, %r12, %r11;\n\
    shl.b32 %r5, %r1, 2;\nadd.u32 %r6, %r4, %r5;\nld.shared.u32 %r7, [%r6];\n\
    mul.wide.u32 %rd4, %r1, 4;\nadd.s64 %rd4, %rd2, %rd4;\n\
    st.global.u32 [%rd4+256], %r7;\nst.global.u32 [%rd4+384], %r12;";

#[test]
fn a_bulk_copy_lands_by_its_barrier() {
    let (b, w) = run(&COPY.replace("SIZE", "256"), sim_isa::Target::SM_90).unwrap();
    for lane in 0..32 {
        assert_eq!(w[64 + lane], b[lane], "lane {lane}");
    }
    // A global load's latency is some hundreds of cycles on the preset.
    assert!(w[96] > 200, "{}", w[96]);
}

/// A size that is no multiple of 16 faults, naming it, the thread and
/// line; sm_80 refuses the copy before anything runs.
#[test]
fn bad_sizes_and_old_targets_are_refused() {
    let body = COPY
        .replace("SIZE", "%r13")
        .replace("setp.eq.u32", "mov.u32 %r13, 24;\nsetp.eq.u32");
    let e = run(&body, sim_isa::Target::SM_90).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, KernelError::Fault { .. }), "{text}");
    assert!(
        text.contains("bulk copy size not a multiple of 16") && text.contains("k.ptx:"),
        "{text}"
    );
    let e = run(
        &COPY.replace("SIZE", "256"),
        sim_isa::Target::parse("sm_80").unwrap(),
    );
    let text = e.unwrap_err().to_string();
    assert!(text.contains("cp.async.bulk needs sm_90"), "{text}");
}
