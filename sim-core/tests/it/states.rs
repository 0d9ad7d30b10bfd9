//! Warp states (docs/stalls.md) of traces: the reasons sum to the resident
//! warp-cycles on every preset and policy, a dependent chain waits on
//! fixed latencies, and the activity series counts every issue.

use super::host::{one_warp_sm, replay};
use sim_core::*;
use sim_isa::Target;

fn check(what: &str, s: &Stats) {
    let w = s.warp_stalls;
    assert!(w.resident_warp_cycles > 0, "{what}");
    assert_eq!(w.total(), w.resident_warp_cycles, "{what}: {w:?}");
    let per_inst: u64 = s.per_inst.iter().flat_map(|p| p.stalls).sum();
    assert_eq!(per_inst, w.total(), "{what}");
    let selected = w.get("selected");
    assert!(selected > 0 && selected <= s.warp_instructions, "{what}");
    let act: u64 = s.activity.per_sm.iter().flatten().sum();
    assert_eq!(act, s.warp_instructions, "{what}: activity");
    assert!(s.activity.per_sm.iter().all(|b| b.len() <= 256), "{what}");
}

#[test]
fn reasons_sum_to_resident_warp_cycles() {
    for t in [Target::SM_30, Target::SM_53, Target::SM_90] {
        for policy in [SchedPolicy::Lrr, SchedPolicy::Gto, SchedPolicy::Oldest] {
            for warps in [1, 7, 64] {
                check(
                    &format!("{t} {policy:?} {warps}"),
                    &replay(t, warps, policy),
                );
            }
        }
    }
}

#[test]
fn a_dependent_chain_waits_and_a_wide_one_is_not_selected() {
    let t = Target::SM_90;
    let prog = std::sync::Arc::new(
        Program::from_ptx(t, &["vadd4.u32.u32.u32.sat %r6, %r6, %r7, %r8;"])
            .unwrap()
            .0,
    );
    let run = |warps: u32| {
        let mut sm = Sm::new(preset(t), prog.clone(), SchedPolicy::Lrr).unwrap();
        for w in 0..warps {
            sm.add_warp(WarpLaunch {
                warp_id: w,
                active: u32::MAX,
                stream: Box::new(VecStream::new(vec![0; 200])),
            })
            .unwrap();
        }
        sm.run_to_completion().unwrap();
        sm.stats()
    };
    // One warp: every instruction waits for the last one's result.
    let one = run(1);
    check("one warp", &one);
    let w = one.warp_stalls;
    assert_eq!(w.get("selected"), 200);
    assert!(w.get("wait") > w.get("selected"), "{w:?}");
    assert_eq!(w.get("long_scoreboard") + w.get("barrier"), 0, "{w:?}");
    // 64 warps on 4 schedulers: each scheduler has more ready warps than
    // it can issue, so most of their cycles are spent not selected (or
    // waiting for a busy pipe).
    let many = run(64);
    check("64 warps", &many);
    let w = many.warp_stalls;
    let ready = w.get("not_selected") + w.get("math_pipe_throttle");
    assert!(ready > w.get("wait"), "{w:?}");
}

#[test]
fn the_issue_activity_keeps_at_most_256_buckets() {
    let mut sm = one_warp_sm(SchedPolicy::Lrr, (0..20_000u32).map(|k| k % 7).collect());
    sm.run_to_completion().unwrap();
    let s = sm.stats();
    check("long run", &s);
    let a = &s.activity;
    assert!(a.bucket_cycles > 64 && a.bucket_cycles.is_power_of_two());
    // The buckets cover the run up to its last issue (the drain of the
    // last results, far under 100 clocks, may end in a later one).
    let buckets = a.per_sm[0].len() as u64;
    assert!(buckets * a.bucket_cycles + 100 > s.cycles, "{a:?}");
    assert!((buckets - 1) * a.bucket_cycles < s.cycles, "{a:?}");
    assert!(
        a.per_sm[0].iter().all(|&n| n > 0),
        "one warp issues throughout"
    );
}
