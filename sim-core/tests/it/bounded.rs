//! Cycle-bounded runs (`Sm::run_until_idle_before`) and idle time
//! (`Sm::idle_until`): a run cut into pieces gives exactly the cycles and
//! statistics of one run.

use super::executed::{active_of, branchy, same_log, Feeder, Kind};
use super::host::{mixed_program, one_warp_sm, replay, stream_of};
use sim_core::*;
use sim_isa::Target;
use std::sync::Arc;

const BOUNDS: [u64; 3] = [1, 7, 1000];

/// GT200 (an issue slot every 4th clock) has no video instructions: a
/// program of its own.
const PLAIN: [&str; 4] = [
    "add.u32 %r1, %r1, %r2;",
    "mul.lo.u32 %r3, %r1, %r2;",
    "mad.lo.u32 %r4, %r3, %r1, %r2;",
    "add.u32 %r2, %r4, 1;",
];

fn program(t: Target) -> Arc<Program> {
    if t == Target::SM_13 {
        Arc::new(Program::from_ptx(t, &PLAIN).unwrap().0)
    } else {
        mixed_program(t)
    }
}

/// Warp `w`'s stream over `t`'s program.
fn indices(t: Target, w: u32) -> Vec<u32> {
    let n = program(t).insts.len() as u32;
    stream_of(w).into_iter().map(|i| i % n).collect()
}

/// Stream-fed warps run to the end in runs of at most `bound` clocks
/// (`None`: by `run_to_completion`).
fn replay_in_pieces(t: Target, warps: u32, bound: Option<u64>) -> (Stats, u64) {
    let mut sm = Sm::new(preset(t), program(t), SchedPolicy::Lrr).unwrap();
    for w in 0..warps {
        sm.add_warp(WarpLaunch {
            warp_id: w,
            active: active_of(w),
            stream: Box::new(VecStream::new(indices(t, w))),
        })
        .unwrap();
    }
    let Some(bound) = bound else {
        sm.run_to_completion().unwrap();
        return (sm.stats(), 0);
    };
    let mut reached = 0;
    loop {
        let until = sm.cycle() + bound;
        match sm.run_until_idle_before(&mut Deferred, until).unwrap() {
            Progress::Done => return (sm.stats(), reached),
            Progress::Reached => {
                assert_eq!(sm.cycle(), until);
                reached += 1;
            }
            Progress::Waiting => panic!("no host warp, nothing external"),
        }
    }
}

#[test]
fn bounded_runs_of_streams_add_up_to_one_run() {
    for t in [Target::SM_13, Target::SM_30, Target::SM_90] {
        let warps = 48;
        let want = replay_in_pieces(t, warps, None).0;
        if t != Target::SM_13 {
            assert_eq!(want, replay(t, warps, SchedPolicy::Lrr));
        }
        assert!(want.cycles > 2000, "{t}: {}", want.cycles);
        for bound in BOUNDS {
            let (got, reached) = replay_in_pieces(t, warps, Some(bound));
            assert_eq!(got, want, "{t}, runs of {bound}");
            // Every run but the last stopped at its bound; the last ends
            // within the final results' latency of the end.
            assert!(reached * bound < want.cycles, "{t} {bound}: {reached}");
            assert!(
                (reached + 1) * bound + 100 >= want.cycles,
                "{t} {bound}: {reached}"
            );
        }
    }
}

/// Host warps of `kind` fed `branchy` streams (taken branches cost 7
/// clocks), instruction 3 external, in epochs of `bound` clocks.
fn fed_in_pieces(t: Target, kind: Kind, bound: u64) -> (Stats, Vec<IssueEvent>, (u64, u64)) {
    let mut cfg = preset(t);
    cfg.taken_branch_cycles = 7;
    let mut sm = Sm::new(cfg, mixed_program(t), SchedPolicy::Gto).unwrap();
    sm.record_issues(1 << 16);
    sm.mark_external(3).unwrap();
    let mut ext = |req: &ExternalRequest<'_>| Some(Completion::at(req.cycle + 40));
    let warps = 40;
    let mut f = Feeder::new(
        kind,
        kind == Kind::Executed,
        (0..warps).map(branchy).collect(),
        (0..warps).map(active_of).collect(),
    );
    f.add_all(&mut sm);
    let reached = f.run(&mut sm, &mut ext, bound);
    (sm.stats(), sm.issue_log().to_vec(), reached)
}

#[test]
fn bounded_runs_of_host_warps_add_up_to_one_run() {
    for t in [Target::SM_30, Target::SM_90] {
        for kind in [Kind::Host, Kind::Executed] {
            let (want, want_log, _) = fed_in_pieces(t, kind, u64::MAX);
            for bound in BOUNDS {
                let (got, log, (runs, reached)) = fed_in_pieces(t, kind, bound);
                assert_eq!(got, want, "{t} {kind:?}, runs of {bound}");
                same_log(&log, &want_log, &format!("{t} {kind:?}, runs of {bound}"));
                // No run crossed an epoch's end before the last issue;
                // short epochs often end with no warp hungry (long ones
                // end where the host is asked for more anyway: it is
                // asked nearly every clock here).
                let last = log.last().unwrap().cycle;
                assert!(runs > last / bound, "{t} {kind:?} {bound}: {runs} runs");
                assert!(reached > 0 || bound == 1000, "{t} {kind:?} {bound}");
            }
        }
    }
}

#[test]
fn a_bound_at_or_before_the_clock_runs_nothing() {
    let mut sm = one_warp_sm(SchedPolicy::Gto, stream_of(0));
    assert_eq!(
        sm.run_until_idle_before(&mut Deferred, 0).unwrap(),
        Progress::Reached
    );
    assert_eq!((sm.cycle(), sm.instructions_issued()), (0, 0));
    assert_eq!(
        sm.run_until_idle_before(&mut Deferred, 10).unwrap(),
        Progress::Reached
    );
    assert_eq!(sm.cycle(), 10);
    assert_eq!(
        sm.run_until_idle_before(&mut Deferred, 5).unwrap(),
        Progress::Reached
    );
    assert_eq!(sm.cycle(), 10);
    // The end moves the clock to the last result, past the bound.
    let issued = sm.instructions_issued();
    assert_eq!(
        sm.run_until_idle_before(&mut Deferred, u64::MAX - 1)
            .unwrap(),
        Progress::Done
    );
    assert!(sm.instructions_issued() > issued);
    assert_eq!(sm.cycle(), sm.stats().cycles);
}

/// Warp `id` of `prog`'s first instruction `n` times, stream-fed.
fn short_warp(id: u32, n: usize) -> WarpLaunch {
    WarpLaunch {
        warp_id: id,
        active: u32::MAX,
        stream: Box::new(VecStream::new(vec![0; n])),
    }
}

#[test]
fn idle_time_counts_as_no_eligible_slots() {
    for t in [Target::SM_13, Target::SM_90] {
        let cfg = preset(t);
        let (scheds, iv) = (u64::from(cfg.schedulers), u64::from(cfg.issue_interval));
        let mut sm = Sm::new(cfg, program(t), SchedPolicy::Gto).unwrap();
        sm.record_issues(16);
        sm.idle_until(101);
        assert_eq!(sm.cycle(), 101);
        let st = sm.stats();
        assert_eq!(st.cycles, 101);
        // Slots at 0, iv, ..., up to 100.
        assert_eq!(st.stalls.no_eligible, scheds * (100 / iv + 1), "{t}");
        assert_eq!(st.stalls.issued + st.stalls.dependency, 0);
        sm.idle_until(50);
        assert_eq!(sm.cycle(), 101);
        // A warp added now starts at the first slot from 101.
        sm.add_warp(short_warp(0, 1)).unwrap();
        sm.idle_until(1000);
        assert_eq!(sm.cycle(), 101, "a live warp keeps its SM's clock");
        sm.run_to_completion().unwrap();
        assert_eq!(sm.issue_log()[0].cycle, 101u64.next_multiple_of(iv));
    }
}

#[test]
fn idle_until_matches_stepping_an_empty_sm() {
    // After a warp ends (its results drained), idling to a clock and
    // stepping there count the same slots; a warp added then runs the same.
    for t in [Target::SM_13, Target::SM_30, Target::SM_90] {
        let run = |idle: bool| {
            let mut sm = Sm::new(preset(t), program(t), SchedPolicy::Lrr).unwrap();
            sm.record_issues(64);
            for w in 0..3 {
                sm.add_warp(short_warp(w, 5)).unwrap();
            }
            assert_eq!(sm.run_until_idle(&mut Deferred).unwrap(), Progress::Done);
            let end = sm.cycle();
            if idle {
                sm.idle_until(end + 333);
            } else {
                while sm.cycle() < end + 333 {
                    sm.step().unwrap();
                }
            }
            sm.add_warp(short_warp(7, 4)).unwrap();
            sm.run_to_completion().unwrap();
            (sm.stats(), sm.issue_log().to_vec())
        };
        let (want, want_log) = run(false);
        assert!(want.stalls.no_eligible > 333 / 4);
        let (got, log) = run(true);
        assert_eq!(got, want, "{t}");
        same_log(&log, &want_log, &t.to_string());
    }
}
