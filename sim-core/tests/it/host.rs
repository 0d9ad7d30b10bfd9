//! Host hooks: host-fed warps against replay, lockstep stepping, register
//! access and external instructions.

use sim_core::*;
use sim_isa::{RegId, Target, WARP_SIZE};
use std::sync::Arc;

pub(crate) const MIXED: [&str; 7] = [
    "setp.lt.u32 %p1, %r10, %r11;",
    "set.lt.u32.u32 %r4, %r4, %r5;",
    "vadd4.u32.u32.u32.sat %r6, %r6, %r7, %r8;",
    "vabsdiff4.u32.u32.u32 %r9, %r6, %r7, %r8;",
    "vmax4.u32.u32.u32 %r13, %r9, %r7, %r8;",
    "vmin2.u32.u32.u32 %r12, %r9, %r7, %r8;",
    "setp.lt.and.u32 %p2, %r12, %r4, %p1;",
];

pub(crate) fn mixed_program(t: Target) -> Arc<Program> {
    Arc::new(Program::from_ptx(t, &MIXED).unwrap().0)
}

/// An sm_90 SM of the mixed program under `policy`, with one full warp
/// (id 0) running `stream`.
pub(crate) fn one_warp_sm(policy: SchedPolicy, stream: Vec<u32>) -> Sm {
    let t = Target::SM_90;
    let mut sm = Sm::new(preset(t), mixed_program(t), policy).unwrap();
    sm.add_warp(WarpLaunch {
        warp_id: 0,
        active: u32::MAX,
        stream: Box::new(VecStream::new(stream)),
    })
    .unwrap();
    sm
}

/// Warp `w`'s stream: the body rotated by `w`, repeated a warp-dependent
/// number of times.
pub(crate) fn stream_of(w: u32) -> Vec<u32> {
    let n = MIXED.len() as u32;
    (0..(20 + w % 7) * n).map(|k| (k + w) % n).collect()
}

pub(crate) fn replay(t: Target, warps: u32, policy: SchedPolicy) -> Stats {
    let mut sm = Sm::new(preset(t), mixed_program(t), policy).unwrap();
    for w in 0..warps {
        sm.add_warp(WarpLaunch {
            warp_id: w,
            active: u32::MAX >> (w % 5),
            stream: Box::new(VecStream::new(stream_of(w))),
        })
        .unwrap();
    }
    sm.run_to_completion().unwrap();
    sm.stats()
}

/// The same streams pushed one instruction at a time whenever the SM asks.
fn host_fed(t: Target, warps: u32, policy: SchedPolicy) -> Stats {
    let mut sm = Sm::new(preset(t), mixed_program(t), policy).unwrap();
    let streams: Vec<Vec<u32>> = (0..warps).map(stream_of).collect();
    let mut next = vec![0usize; warps as usize];
    for w in 0..warps {
        sm.add_host_warp(w, u32::MAX >> (w % 5)).unwrap();
    }
    loop {
        let hungry: Vec<u32> = sm.hungry_warps().collect();
        for w in hungry {
            let (s, k) = (&streams[w as usize], &mut next[w as usize]);
            match s.get(*k) {
                Some(&i) => sm.push_instruction(w, i).unwrap(),
                None => sm.close_warp(w).unwrap(),
            }
            *k += 1;
        }
        if sm.run_until_idle(&mut Deferred).unwrap() == Progress::Done {
            break;
        }
    }
    sm.stats()
}

#[test]
fn host_fed_warps_run_like_replayed_streams() {
    // Video needs sm_30; sm_30 dual-issues.
    for t in [Target::SM_30, Target::SM_53, Target::SM_90] {
        for policy in [SchedPolicy::Gto, SchedPolicy::Lrr, SchedPolicy::Oldest] {
            // 32 warps: all resident; 80: more than any preset holds at once.
            for warps in [32, 80] {
                let want = replay(t, warps, policy);
                let got = host_fed(t, warps, policy);
                assert_eq!(got, want, "{t} {policy:?} {warps} warps");
            }
        }
    }
}

#[test]
fn run_to_completion_idles_warps_the_host_has_not_fed() {
    // What `run_until_idle` fixes: feeding every warp only once all wait
    // leaves the early ones idle.
    let t = Target::SM_90;
    let mut sm = Sm::new(preset(t), mixed_program(t), SchedPolicy::Gto).unwrap();
    let streams: Vec<Vec<u32>> = (0..32).map(stream_of).collect();
    for w in 0..32 {
        sm.add_host_warp(w, u32::MAX >> (w % 5)).unwrap();
    }
    for k in 0.. {
        let mut open = false;
        for w in 0..32u32 {
            match streams[w as usize].get(k) {
                Some(&i) => {
                    sm.push_instruction(w, i).unwrap();
                    open = true;
                }
                None if sm.warp_waiting(w) => sm.close_warp(w).unwrap(),
                None => {}
            }
        }
        sm.run_to_completion().unwrap();
        if !open {
            break;
        }
    }
    assert!(sm.is_done());
    assert!(sm.stats().cycles > replay(t, 32, SchedPolicy::Gto).cycles);
}

#[test]
fn lockstep_stepping_matches_run() {
    let t = Target::SM_53;
    let build = || {
        let mut sim = Simulation::new(preset(t), mixed_program(t), SchedPolicy::Lrr, 3).unwrap();
        for w in 0..40 {
            sim.add_warp(WarpLaunch {
                warp_id: w,
                active: u32::MAX,
                stream: Box::new(VecStream::new(stream_of(w))),
            })
            .unwrap();
        }
        sim
    };
    let want = build().run(2).unwrap();
    let mut sim = build();
    // Up to a cycle bound, then an instruction bound, then to the end.
    assert_eq!(
        sim.run_until(100, u64::MAX, &mut Deferred).unwrap(),
        Progress::Reached
    );
    assert_eq!(sim.cycle(), 100);
    assert_eq!(
        sim.run_until(u64::MAX, 1000, &mut Deferred).unwrap(),
        Progress::Reached
    );
    assert!(sim.report().stats.warp_instructions >= 1000);
    while !sim.is_done() {
        sim.step(&mut Deferred).unwrap();
    }
    assert_eq!(sim.report(), want);
}

#[test]
fn registers_read_and_write() {
    let t = Target::SM_90;
    let (prog, syms) = Program::from_ptx(t, &["add.u32 %r1, %r2, %r3;"]).unwrap();
    let (r1, r2, r3) = (
        syms.get("%r1").unwrap(),
        syms.get("%r2").unwrap(),
        syms.get("%r3").unwrap(),
    );
    let mut sm = Sm::new(preset(t), Arc::new(prog), SchedPolicy::Gto).unwrap();
    sm.add_host_warp(0, u32::MAX).unwrap();
    let lanes: [u64; WARP_SIZE] = std::array::from_fn(|l| l as u64);
    sm.set_reg(0, r2, &lanes).unwrap();
    sm.set_reg(0, r3, &[100; WARP_SIZE]).unwrap();
    sm.push_instruction(0, 0).unwrap();
    sm.close_warp(0).unwrap();
    assert_eq!(sm.run_until_idle(&mut Deferred).unwrap(), Progress::Done);
    let r1v = sm.reg(0, r1).unwrap();
    assert!(r1v.iter().enumerate().all(|(l, &v)| v == 100 + l as u64));
    assert_eq!(
        sm.reg(0, RegId(3)),
        Err(SimError::NoSuchRegister {
            warp_id: 0,
            reg: 3,
            nregs: 3
        })
    );
    assert_eq!(sm.reg(9, r1).err(), Some(SimError::UnknownWarp(9)));
}

/// A toy memory: `load` (instruction 1) returns `3 * address + 1`, 100 cycles
/// after issue.
const LOAD_PROGRAM: [&str; 3] = [
    "add.u32 %r1, %r0, 4;",
    "add.u32 %r2, %r1, 0;",
    "add.u32 %r3, %r2, %r1;",
];

fn toy_load(req: &ExternalRequest<'_>) -> Completion {
    let mut c = Completion::at(req.cycle + 100);
    let (_, addr) = req.sources().next().unwrap();
    for (v, &a) in c.values[0].iter_mut().zip(addr) {
        *v = 3 * a + 1;
    }
    c
}

fn load_sm(t: Target) -> (Sm, sim_isa::Symbols) {
    let (prog, syms) = Program::from_ptx(t, &LOAD_PROGRAM).unwrap();
    let mut sm = Sm::new(preset(t), Arc::new(prog), SchedPolicy::Gto).unwrap();
    sm.mark_external(1).unwrap();
    sm.add_warp(WarpLaunch {
        warp_id: 0,
        active: u32::MAX,
        stream: Box::new(VecStream::new(vec![0, 1, 2])),
    })
    .unwrap();
    (sm, syms)
}

/// The result delay of `LOAD_PROGRAM`'s instruction `i` for instruction `to`
/// (its adds run on the ALU or, where ptxas would balance the pipes, the FMA
/// pipe; a result crossing between the two takes a clock more), or with
/// `to` = `i`, until it is written.
fn add_delays(t: Target, i: usize, to: usize) -> u64 {
    let (prog, _) = Program::from_ptx(t, &LOAD_PROGRAM).unwrap();
    let tables = ProgramTables::new(preset(t), Arc::new(prog)).unwrap();
    if i == to {
        tables.issue_timing(i).unwrap().1
    } else {
        tables.result_ready(i, to).unwrap()
    }
}

#[test]
fn external_instruction_completed_at_issue() {
    let t = Target::SM_90;
    let (mut sm, syms) = load_sm(t);
    let mut seen = Vec::new();
    let mut mem = |req: &ExternalRequest<'_>| {
        seen.push((req.warp_id, req.index, req.lanes, req.dests().count()));
        Some(toy_load(req))
    };
    assert_eq!(sm.run_until_idle(&mut mem).unwrap(), Progress::Done);
    assert_eq!(seen, vec![(0, 1, u32::MAX, 1)]);
    assert_toy_load_result(&sm, &syms, t);
}

/// The toy program's result after its load: r1 = 4 (r0 is 0), r2 = 13,
/// r3 = 17; the dependent add waits for the load: its 100 cycles plus the
/// two adds (the first, balanced onto the FMA pipe, reaches the ALU's load
/// a clock later than its own pipe).
fn assert_toy_load_result(sm: &Sm, syms: &sim_isa::Symbols, t: Target) {
    let r3 = sm.reg(0, syms.get("%r3").unwrap()).unwrap();
    assert!(r3.iter().all(|&v| v == 17));
    assert_eq!(
        sm.stats().cycles,
        add_delays(t, 0, 1) + 100 + add_delays(t, 2, 2)
    );
}

#[test]
fn external_instruction_completed_later() {
    let t = Target::SM_90;
    let (mut sm, syms) = load_sm(t);
    let mut asked = Vec::new();
    let mut record = |req: &ExternalRequest<'_>| {
        asked.push((req.ticket, toy_load(req)));
        None
    };
    assert_eq!(sm.run_until_idle(&mut record).unwrap(), Progress::Waiting);
    assert_eq!(sm.pending_externals(), 1);
    let (ticket, c) = asked.pop().unwrap();
    let early = Completion::at(c.cycle - 101);
    assert!(matches!(
        sm.complete_external(ticket, &early),
        Err(SimError::EarlyCompletion { .. })
    ));
    sm.complete_external(ticket, &c).unwrap();
    assert_eq!(
        sm.complete_external(ticket, &c),
        Err(SimError::UnknownTicket(ticket))
    );
    assert_eq!(sm.run_until_idle(&mut Deferred).unwrap(), Progress::Done);
    assert!(sm.is_done());
    assert_toy_load_result(&sm, &syms, t);
}

#[test]
fn bad_marks_and_programs_are_errors() {
    let t = Target::SM_90;
    let (mut sm, _) = load_sm(t);
    assert_eq!(
        sm.mark_external(3),
        Err(SimError::BadMark { index: 3, len: 3 })
    );
    let e = Program::from_ptx(t, &["add.u32 %r1, %r0, 4;", "frob %r1;"]).unwrap_err();
    assert!(matches!(e, SimError::Ptx { index: 1, .. }), "{e}");
}

#[test]
fn lockstep_simulation_waits_for_deferred_completions() {
    let t = Target::SM_53;
    let (prog, syms) = Program::from_ptx(t, &LOAD_PROGRAM).unwrap();
    let mut sim = Simulation::new(preset(t), Arc::new(prog), SchedPolicy::Gto, 2).unwrap();
    sim.mark_external(1).unwrap();
    for w in 0..4 {
        sim.add_warp(WarpLaunch {
            warp_id: w,
            active: u32::MAX,
            stream: Box::new(VecStream::new(vec![0, 1, 2])),
        })
        .unwrap();
    }
    let mut asked = Vec::new();
    let mut record = |req: &ExternalRequest<'_>| {
        asked.push((req.sm, req.ticket, toy_load(req)));
        None
    };
    // Every warp stops at its load; the run hands control back long before
    // the cycle bound.
    assert_eq!(
        sim.run_until(10_000, u64::MAX, &mut record).unwrap(),
        Progress::Waiting
    );
    assert!(sim.cycle() < 100);
    assert_eq!(asked.len(), 4);
    for (sm, ticket, c) in asked {
        sim.sms_mut()[sm as usize]
            .complete_external(ticket, &c)
            .unwrap();
    }
    assert_eq!(
        sim.run_until(u64::MAX, u64::MAX, &mut Deferred).unwrap(),
        Progress::Done
    );
    let r3 = syms.get("%r3").unwrap();
    for w in 0..4 {
        assert!(sim.sm_of(w).reg(w, r3).unwrap().iter().all(|&v| v == 17));
    }
}

/// Issue cycles of a host warp fed `feed` (index, whether a taken branch
/// leads to it) on `cfg`.
fn branch_issues(cfg: SmConfig, feed: &[(u32, bool)]) -> Vec<u64> {
    let t = cfg.target;
    let (prog, _) = Program::from_ptx(
        t,
        &[
            "add.u32 %r1, %r1, 1;",
            "add.u32 %r2, %r2, 1;",
            "add.u32 %r1, %r1, 1;",
        ],
    )
    .unwrap();
    let mut sm = Sm::new(cfg, Arc::new(prog), SchedPolicy::Gto).unwrap();
    sm.record_issues(16);
    sm.add_host_warp(0, u32::MAX).unwrap();
    for &(i, branch) in feed {
        if branch {
            sm.push_branch_target(0, i).unwrap();
        } else {
            sm.push_instruction(0, i).unwrap();
        }
    }
    sm.close_warp(0).unwrap();
    assert_eq!(sm.run_until_idle(&mut Deferred).unwrap(), Progress::Done);
    sm.issue_log().iter().map(|e| e.cycle).collect()
}

/// A taken branch's target issues `taken_branch_cycles` after the branch
/// (the warp's previous issue; 22 in this configuration), and a wait for its
/// operands overlaps that instead of adding to it; without the mark, or on
/// a preset with no figure (0: every preset, the H100's included, see
/// `sm90`), it issues as operands allow.
#[test]
fn a_taken_branch_delays_its_target() {
    assert_eq!(preset(Target::SM_90).taken_branch_cycles, 0);
    let mut sm90 = preset(Target::SM_90);
    sm90.taken_branch_cycles = 22;
    // Independent: the next slot, or 22 clocks on.
    let plain = branch_issues(sm90.clone(), &[(0, false), (1, false)]);
    let taken = branch_issues(sm90.clone(), &[(0, false), (1, true)]);
    assert_eq!(plain[1] - plain[0], 1);
    assert_eq!(taken[1] - taken[0], 22);
    // Dependent on the branch's predecessor (ready 4 later): still 22.
    let dep = branch_issues(sm90.clone(), &[(0, false), (2, true)]);
    assert_eq!(dep[1] - dep[0], 22);
    // Only the marked instruction waits: the one after it follows at once.
    let after = branch_issues(sm90.clone(), &[(0, false), (1, true), (0, false)]);
    assert_eq!(after[2] - after[1], 1);
    // A configuration's own figure, and none on Maxwell.
    let mut five = sm90;
    five.taken_branch_cycles = 5;
    let t5 = branch_issues(five, &[(0, false), (1, true)]);
    assert_eq!(t5[1] - t5[0], 5);
    let sm53 = preset(Target::parse("sm_53").unwrap());
    assert_eq!(sm53.taken_branch_cycles, 0);
    let m = branch_issues(sm53, &[(0, false), (1, true)]);
    assert_eq!(m[1] - m[0], 1);
    // An index with the queue's flag bit is refused like any past the end.
    let (prog, _) = Program::from_ptx(Target::SM_90, &["add.u32 %r1, %r1, 1;"]).unwrap();
    let mut sm = Sm::new(preset(Target::SM_90), Arc::new(prog), SchedPolicy::Gto).unwrap();
    sm.add_host_warp(0, u32::MAX).unwrap();
    assert!(sm.push_instruction(0, 1 << 31).is_err());
    assert!(sm.push_branch_target(0, 1 << 31).is_err());
    assert!(sm.push_branch_target(0, 0).is_ok());
}
