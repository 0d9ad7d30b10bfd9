//! `run --check` against the values recorded in the samples.

use crate::{exit2, parts, root, s, samples, scratch, simcli};
use sim_trace::trace::Lanes;

#[test]
fn samples_pass_check_on_their_target() {
    for p in samples() {
        let (c, _, e) = parts(&simcli(&["run", s(&p), "--check"]));
        assert_eq!(c, 0, "{}: {e}", p.display());
        assert!(e.contains("recorded values match"), "{e}");
    }
}

#[test]
fn altered_value_fails_naming_warp_lane_register() {
    let dir = scratch("check_alter");
    let text = std::fs::read_to_string(root().join("traces/sad16x16.ptx")).unwrap();
    let mut t = sim_trace::kernel::parse_kernel("sad16x16.ptx", &text).unwrap();
    // The recorded %sad of warp 3: alter lane 7 by one.
    let e = t
        .expects
        .iter_mut()
        .find(|e| e.warp == Some(3) && t.syms.name(sim_isa::RegId(e.reg)) == "%sad")
        .expect("warp 3 %sad is recorded");
    let Lanes::Each(a) = &mut e.lanes else {
        panic!("per-lane record")
    };
    // Closed form of the kernel: 30848 - 256 * (lane + warp).
    assert_eq!(a[7], 30848 - 256 * 10);
    a[7] += 1;
    let bin = dir.join("altered.bin");
    std::fs::write(&bin, sim_trace::binfmt::to_bytes(&t).unwrap()).unwrap();
    let (c, _, e) = parts(&simcli(&["run", s(&bin), "--check"]));
    assert_eq!(c, 1, "{e}");
    assert!(
        e.contains("warp 3 lane 7 %sad: expected 0x00006e81, got 0x00006e80"),
        "{e}"
    );
    // Without --check the same trace runs fine.
    assert_eq!(parts(&simcli(&["run", s(&bin)])).0, 0);
}

#[test]
fn record_expect_captures_final_values() {
    let dir = scratch("record");
    let bin = dir.join("t.bin");
    let (c, _, e) = parts(&simcli(&[
        "asm",
        "traces/threshold.ptx",
        "--record-expect",
        "-o",
        s(&bin),
    ]));
    assert_eq!(c, 0, "{e}");
    let t = sim_trace::binfmt::from_bytes(&std::fs::read(&bin).unwrap()).unwrap();
    assert_eq!(
        t.expects.len(),
        t.nregs(),
        "one record per register (warps agree)"
    );
    assert_eq!(parts(&simcli(&["run", s(&bin), "--check"])).0, 0);
}

#[test]
fn check_without_records_is_usage_error() {
    let dir = scratch("norecord");
    let f = dir.join("k.ptx");
    std::fs::write(
        &f,
        ".target sm_30\n.reg .b32 %r<2>;\nadd.u32 %r0, %r1, 1;\n",
    )
    .unwrap();
    let e = exit2(&["run", s(&f), "--check"]);
    assert!(e.contains("no expected values"), "{e}");
}
