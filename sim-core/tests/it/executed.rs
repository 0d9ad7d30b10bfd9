//! Host-executed warps (`Sm::add_executed_warp`): timed exactly as host-fed
//! warps, with no registers, forgotten once finished; the host's lists of
//! hungry and finished warps (`take_hungry_into`, `take_retired_into`).

use super::host::{mixed_program, stream_of};
use sim_core::*;
use sim_isa::{RegId, Target};
use std::sync::Arc;

/// How a test host feeds its warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `add_host_warp`, `push_instruction` / `push_branch_target`.
    Host,
    /// `add_executed_warp`, `push_executed`.
    Executed,
    /// `add_executed_warp`, the whole rest of the stream at once with
    /// `push_executed_all`.
    ExecutedAll,
    /// `add_executed_warp`, the rest of the stream three at a time with
    /// `push_executed_from`, straight from the stream (no slice).
    ExecutedFrom,
}

/// A test host: per warp, its stream (index, whether a taken branch leads
/// to it) and active lanes (the lanes pushed with each instruction).
pub(crate) struct Feeder {
    kind: Kind,
    /// Asks `take_hungry_into` which warps to feed (else `hungry_warps`).
    take: bool,
    streams: Vec<Vec<(u32, bool)>>,
    active: Vec<u32>,
    next: Vec<usize>,
    ids: Vec<u32>,
}

impl Feeder {
    pub(crate) fn new(
        kind: Kind,
        take: bool,
        streams: Vec<Vec<(u32, bool)>>,
        active: Vec<u32>,
    ) -> Feeder {
        let next = vec![0; streams.len()];
        Feeder {
            kind,
            take,
            streams,
            active,
            next,
            ids: Vec::new(),
        }
    }

    /// Adds every warp (ids 0, 1, ...) to `sm`.
    pub(crate) fn add_all(&self, sm: &mut Sm) {
        for (w, &a) in self.active.iter().enumerate() {
            match self.kind {
                Kind::Host => sm.add_host_warp(w as u32, a),
                Kind::Executed | Kind::ExecutedAll | Kind::ExecutedFrom => {
                    sm.add_executed_warp(w as u32, a)
                }
            }
            .unwrap();
        }
    }

    /// One instruction (or the close) for every warp the SM names hungry.
    fn feed(&mut self, sm: &mut Sm) {
        self.ids.clear();
        if self.take {
            sm.take_hungry_into(&mut self.ids);
            assert!(self.ids.windows(2).all(|p| p[0] < p[1]), "{:?}", self.ids);
        } else {
            self.ids.extend(sm.hungry_warps());
        }
        for &w in &self.ids {
            let k = &mut self.next[w as usize];
            if self.kind == Kind::ExecutedAll {
                let a = self.active[w as usize];
                let rest: Vec<(u32, u32, bool)> = self.streams[w as usize][*k..]
                    .iter()
                    .map(|&(i, b)| (i, a, b))
                    .collect();
                if rest.is_empty() {
                    sm.close_warp(w).unwrap();
                } else {
                    sm.push_executed_all(w, &rest).unwrap();
                }
                *k += rest.len().max(1);
                continue;
            }
            if self.kind == Kind::ExecutedFrom {
                let a = self.active[w as usize];
                let stream = &self.streams[w as usize];
                if *k >= stream.len() {
                    sm.close_warp(w).unwrap();
                    *k += 1;
                } else {
                    let three = stream[*k..].iter().take(3);
                    sm.push_executed_from(w, three.map(|&(i, b)| (i, a, b)))
                        .unwrap();
                    *k = (*k + 3).min(stream.len());
                }
                continue;
            }
            match self.streams[w as usize].get(*k) {
                Some(&(i, branch)) => match self.kind {
                    Kind::Host if branch => sm.push_branch_target(w, i),
                    Kind::Host => sm.push_instruction(w, i),
                    Kind::Executed | Kind::ExecutedAll | Kind::ExecutedFrom => {
                        sm.push_executed(w, i, self.active[w as usize], branch)
                    }
                }
                .unwrap(),
                None => sm.close_warp(w).unwrap(),
            }
            *k += 1;
        }
    }

    /// Feeds and runs `sm` to its end, in runs that stop at every multiple
    /// of `bound` clocks, as lockstep epochs would (`u64::MAX`: unbounded);
    /// returns how many runs there were and how many of them stopped at
    /// their bound. Checks that no run goes past its bound unless it ends
    /// the SM.
    pub(crate) fn run(&mut self, sm: &mut Sm, ext: &mut dyn External, bound: u64) -> (u64, u64) {
        let (mut runs, mut reached) = (0, 0);
        loop {
            runs += 1;
            self.feed(sm);
            let until = (sm.cycle() / bound + 1).saturating_mul(bound);
            let p = if bound == u64::MAX {
                sm.run_until_idle(ext)
            } else {
                sm.run_until_idle_before(ext, until)
            }
            .unwrap();
            match p {
                Progress::Done => return (runs, reached),
                Progress::Reached => {
                    assert_eq!(sm.cycle(), until);
                    reached += 1;
                }
                Progress::Waiting => assert!(sm.cycle() <= until),
            }
        }
    }
}

/// Warp `w`'s stream of `MIXED` with every fifth instruction a taken
/// branch's target.
pub(crate) fn branchy(w: u32) -> Vec<(u32, bool)> {
    let s = stream_of(w);
    s.into_iter()
        .enumerate()
        .map(|(k, i)| (i, k % 5 == 4))
        .collect()
}

/// Active lanes of warp `w` in these tests.
pub(crate) fn active_of(w: u32) -> u32 {
    u32::MAX >> (w % 5)
}

/// Asserts two issue logs are equal, naming the first difference.
pub(crate) fn same_log(got: &[IssueEvent], want: &[IssueEvent], what: &str) {
    if let Some(k) = (0..got.len().max(want.len())).find(|&k| got.get(k) != want.get(k)) {
        panic!(
            "{what}: issue {k} of {}: {:?}, want {:?}",
            want.len(),
            got.get(k),
            want.get(k)
        );
    }
}

/// What a fed run shows: statistics, issue log, and the external requests
/// (warp, index, lanes, registers in the request).
type Seen = (Stats, Vec<IssueEvent>, Vec<(u32, u32, u32, usize)>);

/// `warps` warps of `branchy` streams on `cfg`, instruction 3 external
/// (completed 40 clocks after issue).
fn timed(cfg: SmConfig, policy: SchedPolicy, warps: u32, kind: Kind, take: bool) -> Seen {
    let t = cfg.target;
    let mut sm = Sm::new(cfg, mixed_program(t), policy).unwrap();
    sm.record_issues(1 << 16);
    sm.mark_external(3).unwrap();
    let mut seen = Vec::new();
    let mut ext = |req: &ExternalRequest<'_>| {
        seen.push((req.warp_id, req.index, req.lanes, req.regs.len()));
        Some(Completion::at(req.cycle + 40))
    };
    let mut f = Feeder::new(
        kind,
        take,
        (0..warps).map(branchy).collect(),
        (0..warps).map(active_of).collect(),
    );
    f.add_all(&mut sm);
    f.run(&mut sm, &mut ext, u64::MAX);
    (sm.stats(), sm.issue_log().to_vec(), seen)
}

#[test]
fn executed_warps_time_like_host_fed_warps() {
    for t in [Target::SM_30, Target::SM_53, Target::SM_90] {
        let mut cfg = preset(t);
        cfg.taken_branch_cycles = 7;
        for policy in [SchedPolicy::Gto, SchedPolicy::Lrr, SchedPolicy::Oldest] {
            for warps in [32, 80] {
                let (want, want_log, want_ext) =
                    timed(cfg.clone(), policy, warps, Kind::Host, false);
                let threads: u64 = (0..warps)
                    .map(|w| branchy(w).len() as u64 * u64::from(active_of(w).count_ones()))
                    .sum();
                assert_eq!(want.thread_instructions, threads);
                assert!(!want_ext.is_empty());
                for (kind, take) in [
                    (Kind::Host, true),
                    (Kind::Executed, false),
                    (Kind::Executed, true),
                    (Kind::ExecutedAll, true),
                    (Kind::ExecutedFrom, true),
                ] {
                    let what = format!("{t} {policy:?} {warps} warps, {kind:?}, take {take}");
                    let (got, log, ext) = timed(cfg.clone(), policy, warps, kind, take);
                    assert_eq!(got.cycles, want.cycles, "{what}");
                    assert_eq!(got.stalls, want.stalls, "{what}");
                    assert_eq!(got, want, "{what}");
                    same_log(&log, &want_log, &what);
                    // Same requests, lanes included; an executed warp's
                    // carry no registers.
                    let strip = |e: &[(u32, u32, u32, usize)]| -> Vec<(u32, u32, u32)> {
                        e.iter().map(|&(w, i, l, _)| (w, i, l)).collect()
                    };
                    assert_eq!(strip(&ext), strip(&want_ext), "{what}");
                    let regs = if kind != Kind::Host {
                        0
                    } else {
                        mixed_program(t).nregs
                    };
                    assert!(ext.iter().all(|e| e.3 == regs), "{what}");
                }
            }
        }
    }
}

/// An sm_90 SM running `text` under greedy-then-oldest scheduling.
fn gto_sm(text: &[&str]) -> Sm {
    let t = Target::SM_90;
    let (prog, _) = Program::from_ptx(t, text).unwrap();
    Sm::new(preset(t), Arc::new(prog), SchedPolicy::Gto).unwrap()
}

/// A guarded instruction and an external one: `%p1` is never computed (the
/// warp has no registers), so only the pushed lanes count.
const GUARDED: [&str; 3] = [
    "setp.lt.u32 %p1, %r1, %r2;",
    "@%p1 add.u32 %r3, %r3, 1;",
    "add.u32 %r4, %r3, 1;",
];

#[test]
fn executed_warps_count_the_pushed_lanes_and_hold_no_registers() {
    let mut sm = gto_sm(&GUARDED);
    sm.mark_external(2).unwrap();
    sm.add_executed_warp(4, u32::MAX).unwrap();
    sm.add_host_warp(5, u32::MAX).unwrap();
    assert_eq!(sm.warp_regs(4).map(|r| r.len()), Some(0));
    assert_eq!(sm.warp_regs(5).map(|r| r.len()), Some(5));
    assert_eq!(
        sm.reg(4, RegId(0)),
        Err(SimError::NoSuchRegister {
            warp_id: 4,
            reg: 0,
            nregs: 0
        })
    );
    // Each kind takes only its own pushes.
    assert_eq!(sm.push_instruction(4, 0), Err(SimError::NotHostWarp(4)));
    assert_eq!(
        sm.push_executed(5, 0, 1, false),
        Err(SimError::NotHostWarp(5))
    );
    assert!(matches!(
        sm.push_executed(4, 3, 1, false),
        Err(SimError::BadIndex { index: 3, .. })
    ));
    sm.push_executed(4, 0, u32::MAX, false).unwrap();
    sm.push_executed(4, 1, 0x0000_ffff, false).unwrap();
    sm.push_executed(4, 2, 0x0f0f_0000, true).unwrap();
    sm.close_warp(4).unwrap();
    sm.close_warp(5).unwrap();
    let mut reqs = Vec::new();
    let mut ext = |req: &ExternalRequest<'_>| {
        reqs.push((
            req.warp_id,
            req.lanes,
            req.sources().count(),
            req.regs.len(),
        ));
        Some(Completion::at(req.cycle + 10))
    };
    assert_eq!(sm.run_until_idle(&mut ext).unwrap(), Progress::Done);
    let st = sm.stats();
    assert_eq!(st.warp_instructions, 3);
    assert_eq!(st.thread_instructions, 32 + 16 + 8);
    // Finished, the executed warp is forgotten; the host warp is not.
    assert!(sm.warp_regs(4).is_none());
    assert_eq!(sm.warp_ids().collect::<Vec<_>>(), vec![5]);
    let mut retired = Vec::new();
    sm.take_retired_into(&mut retired);
    assert_eq!(retired, vec![4]);
    // Its id may come again.
    sm.add_executed_warp(4, 1).unwrap();
    sm.push_executed(4, 2, 1, false).unwrap();
    sm.close_warp(4).unwrap();
    assert_eq!(sm.run_until_idle(&mut ext).unwrap(), Progress::Done);
    assert_eq!(sm.stats().thread_instructions, 56 + 1);
    assert_eq!(reqs, vec![(4, 0x0f0f_0000, 0, 0), (4, 1, 0, 0)]);
}

/// An add, an external load of its result, and an add of the load's.
const LOAD: [&str; 3] = [
    "add.u32 %r1, %r0, 4;",
    "add.u32 %r2, %r1, 0;",
    "add.u32 %r3, %r2, 1;",
];

#[test]
fn a_finished_warps_slot_waits_for_its_external_instructions() {
    let mut sm = gto_sm(&LOAD);
    sm.mark_external(1).unwrap();
    sm.record_issues(16);
    sm.add_executed_warp(0, u32::MAX).unwrap();
    sm.push_executed(0, 0, u32::MAX, false).unwrap();
    sm.push_executed(0, 1, u32::MAX, false).unwrap();
    sm.close_warp(0).unwrap();
    let mut tickets = Vec::new();
    let mut ext = |req: &ExternalRequest<'_>| {
        tickets.push(req.ticket);
        None
    };
    // The warp finishes with its load outstanding.
    assert_eq!(sm.run_until_idle(&mut ext).unwrap(), Progress::Waiting);
    let mut retired = Vec::new();
    sm.take_retired_into(&mut retired);
    assert_eq!(retired, vec![0]);
    assert_eq!(sm.pending_externals(), 1);
    // Its id is free at once; its slot is not: a new warp 0 that reads the
    // same register must not wait for the old warp's load.
    sm.add_executed_warp(0, u32::MAX).unwrap();
    sm.push_executed(0, 2, u32::MAX, false).unwrap();
    sm.close_warp(0).unwrap();
    let late = sm.cycle() + 500;
    sm.complete_external(tickets[0], &Completion::at(late))
        .unwrap();
    assert_eq!(sm.run_until_idle(&mut Deferred).unwrap(), Progress::Done);
    let log = sm.issue_log();
    assert_eq!(log.len(), 3);
    assert_eq!(log[2].inst, 2);
    assert!(log[2].cycle < 50, "{:?}", log[2]);
    // The SM ends when the load's result is written.
    assert_eq!(sm.stats().cycles, late);
    sm.take_retired_into(&mut retired);
    assert_eq!(retired, vec![0, 0]);
}

#[test]
fn executed_warps_leave_no_trace_once_finished() {
    // 100,000 warps, at most 4 live at a time, ids reused: the SM's memory
    // stays that of a few warps.
    let t = Target::SM_90;
    let total = 100_000u32;
    let mut sm = Sm::new(preset(t), mixed_program(t), SchedPolicy::Lrr).unwrap();
    let len = |k: u32| (k % 5 + 1) as usize;
    // Per id: (the warp's number, instructions pushed).
    let mut state = vec![(0u32, 0usize); 64];
    let (mut added, mut live, mut most) = (0u32, 0usize, 0usize);
    let (mut insts, mut threads) = (0u64, 0u64);
    let (mut hungry, mut retired) = (Vec::new(), Vec::new());
    let mut finished = 0u32;
    loop {
        retired.clear();
        sm.take_retired_into(&mut retired);
        live -= retired.len();
        finished += retired.len() as u32;
        while live < 4 && added < total {
            let id = added % 64;
            sm.add_executed_warp(id, active_of(added)).unwrap();
            state[id as usize] = (added, 0);
            added += 1;
            live += 1;
        }
        hungry.clear();
        sm.take_hungry_into(&mut hungry);
        for &id in &hungry {
            let (k, pushed) = &mut state[id as usize];
            if *pushed < len(*k) {
                let lanes = active_of(*k) & !(1 << (*pushed % 32));
                sm.push_executed(id, ((*k as usize + *pushed) % 7) as u32, lanes, false)
                    .unwrap();
                insts += 1;
                threads += u64::from(lanes.count_ones());
                *pushed += 1;
            } else {
                sm.close_warp(id).unwrap();
            }
        }
        most = most.max(sm.state_bytes());
        if sm.run_until_idle(&mut Deferred).unwrap() == Progress::Done && added == total {
            break;
        }
    }
    retired.clear();
    sm.take_retired_into(&mut retired);
    finished += retired.len() as u32;
    assert_eq!(finished, total);
    let st = sm.stats();
    assert_eq!(st.warp_instructions, insts);
    assert_eq!(insts, (0..total).map(|k| len(k) as u64).sum::<u64>());
    assert_eq!(st.thread_instructions, threads);
    assert_eq!(sm.warp_ids().count(), 0);
    // A handful of warps' worth (each about 1 KiB here); every warp kept
    // would be 100 MB.
    assert!(most < 16 << 10, "{most} bytes");
}

#[test]
fn hungry_warps_are_taken_once_in_id_order() {
    let t = Target::SM_90;
    let mut sm = Sm::new(preset(t), mixed_program(t), SchedPolicy::Gto).unwrap();
    assert_eq!(sm.config().issue_width, 1);
    for id in [5, 3, 9] {
        sm.add_host_warp(id, u32::MAX).unwrap();
    }
    for id in [7, 1] {
        sm.add_executed_warp(id, u32::MAX).unwrap();
    }
    let mut got = Vec::new();
    sm.take_hungry_into(&mut got);
    assert_eq!(got, vec![1, 3, 5, 7, 9]);
    assert_eq!(sm.hungry_warps().collect::<Vec<_>>(), vec![5, 3, 9, 7, 1]);
    // Nothing ran low since.
    got.clear();
    sm.take_hungry_into(&mut got);
    assert!(got.is_empty());
    // Warp 3 takes its one instruction at once: empty again, so hungry;
    // warp 5 keeps two queued: not hungry; closed warps never are.
    sm.push_instruction(3, 0).unwrap();
    for i in 0..3 {
        sm.push_instruction(5, i).unwrap();
    }
    sm.close_warp(9).unwrap();
    sm.close_warp(7).unwrap();
    sm.push_executed(1, 0, u32::MAX, false).unwrap();
    got.push(100);
    sm.take_hungry_into(&mut got);
    assert_eq!(got, vec![100, 1, 3]);
    sm.take_retired_into(&mut got);
    assert_eq!(got, vec![100, 1, 3, 7]);
    // Warps 1 and 3 ran low while fed (before the run): the run hands back
    // at once, with nothing new to name.
    assert_eq!(sm.run_until_idle(&mut Deferred).unwrap(), Progress::Waiting);
    assert_eq!((sm.cycle(), sm.instructions_issued()), (0, 0));
    got.clear();
    sm.take_hungry_into(&mut got);
    assert!(got.is_empty());
    // Clock 0: warp 5 issues on scheduler 0 (before warp 1, younger, there),
    // keeping one queued; warp 3 issues on scheduler 1 and runs dry. Warp
    // 1, named before and not fed since, is hungry but not named again.
    assert_eq!(sm.run_until_idle(&mut Deferred).unwrap(), Progress::Waiting);
    assert_eq!((sm.cycle(), sm.instructions_issued()), (1, 2));
    sm.take_hungry_into(&mut got);
    assert_eq!(got, vec![3]);
    assert_eq!(sm.hungry_warps().collect::<Vec<_>>(), vec![3, 1]);
}

#[test]
fn finished_executed_warps_are_reported_in_order_at_once() {
    // One instruction that waits on its own previous write (WAW): warps of
    // 6, 1 and 3 instructions end in the order 1, 2, 0.
    let mut sm = gto_sm(&["add.u32 %r1, %r2, 1;"]);
    sm.record_issues(16);
    for (id, n) in [(0, 6), (1, 1), (2, 3)] {
        sm.add_executed_warp(id, u32::MAX).unwrap();
        for _ in 0..n {
            sm.push_executed(id, 0, u32::MAX, false).unwrap();
        }
        sm.close_warp(id).unwrap();
    }
    let mut order: Vec<u32> = Vec::new();
    let (mut out, mut runs) = (Vec::new(), 0);
    loop {
        let p = sm.run_until_idle(&mut Deferred).unwrap();
        runs += 1;
        out.clear();
        sm.take_retired_into(&mut out);
        if p == Progress::Done {
            order.extend(&out);
            break;
        }
        assert_eq!(p, Progress::Waiting);
        // Each return names one warp, the clock after its last issue.
        assert_eq!(out.len(), 1);
        let last = sm
            .issue_log()
            .iter()
            .filter(|e| e.warp_id == out[0])
            .map(|e| e.cycle)
            .max()
            .unwrap();
        assert_eq!(sm.cycle(), last + 1);
        order.extend(&out);
    }
    assert_eq!(order, vec![1, 2, 0]);
    assert_eq!(runs, 3);
    assert!(sm.is_done());
}

#[test]
fn an_executed_warps_clock_answer_sets_its_destinations() {
    // On time: the load's destination is ready at the host's clock, and the
    // add that reads it issues then (one warp, nothing else to wait for).
    let mut sm = gto_sm(&LOAD);
    sm.mark_external(1).unwrap();
    sm.record_issues(16);
    sm.add_executed_warp(0, u32::MAX).unwrap();
    for i in 0..3 {
        sm.push_executed(0, i, u32::MAX, false).unwrap();
    }
    sm.close_warp(0).unwrap();
    let mut asked = Vec::new();
    let mut ext = |req: &ExternalRequest<'_>| {
        asked.push((req.ticket, req.cycle, req.lanes));
        Some(Completion::at(req.cycle + 40))
    };
    assert_eq!(sm.run_until_idle(&mut ext).unwrap(), Progress::Done);
    let &[(ticket, issued, lanes)] = &asked[..] else {
        panic!("one request: {asked:?}");
    };
    assert_eq!((ticket, lanes), (0, u32::MAX));
    let log = sm.issue_log();
    assert_eq!(log.len(), 3);
    assert_eq!((log[1].inst, log[1].cycle), (1, issued));
    assert_eq!((log[2].inst, log[2].cycle), (2, issued + 40));
    assert_eq!(sm.pending_externals(), 0);

    // Early: an answer before the issue clock is refused with the request's
    // ticket and clocks.
    let mut sm = gto_sm(&LOAD);
    sm.mark_external(1).unwrap();
    sm.add_executed_warp(0, u32::MAX).unwrap();
    for i in 0..3 {
        sm.push_executed(0, i, u32::MAX, false).unwrap();
    }
    sm.close_warp(0).unwrap();
    let mut at = 0;
    let mut early = |req: &ExternalRequest<'_>| {
        at = req.cycle;
        Some(Completion::at(req.cycle - 1))
    };
    let err = sm.run_until_idle(&mut early).unwrap_err();
    assert!(at > 0);
    assert_eq!(
        err,
        SimError::EarlyCompletion {
            ticket: 0,
            issued: at,
            cycle: at - 1
        }
    );
}
