//! One SM: resident warps, schedulers, scoreboard, functional units.

use crate::config::{SchedPolicy, SmConfig, UnitClass};
use crate::facts::{is_video, mnemonic, native_class};
use crate::lowering;
use crate::stats::{OpStats, Stalls, Stats, UnitStats};
use crate::{Program, SimError, WarpLaunch, WarpStream};
use sim_isa::{ExecCtx, RegId, WarpRegs, WARP_SIZE};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

const NONE: u32 = u32::MAX;
const NCLASS: usize = UnitClass::COUNT;

/// Everything the hot loop needs about one program instruction, computed once.
#[derive(Clone, Copy, Debug)]
struct InstInfo {
    /// Unit of the first micro-op (the native operation).
    first_class: u8,
    /// Unit of the remaining micro-ops of an expansion.
    rest_class: u8,
    uops: u16,
    /// Unit ticks the first micro-op, and the rest together, occupy their units.
    first_ticks: u64,
    rest_ticks: u64,
    /// Unit classes the instruction needs: the first micro-op's, and the
    /// rest's (the first's again when there is no rest).
    need: [u8; 2],
    /// Clocks from the first micro-op until the result is ready (see `issue`).
    delay: u64,
    /// Clocks the scheduler spends issuing the micro-ops (0 unless expanded).
    busy: u64,
    op_id: u16,
    /// Registers read or written (the scoreboard checks both), padded with
    /// the sentinel `nregs`, whose `ready_at` entry stays 0: the fetch takes
    /// a fixed-length, branch-free maximum.
    uses: [u32; MAX_USES],
    writes: [u32; 2],
    nwrites: u8,
    /// Guard register and negation; `NONE` when unguarded.
    guard: u32,
    guard_neg: bool,
}

/// Most registers one instruction names (guard, `p|q`, `a`, `b`, `c`).
const MAX_USES: usize = 6;

/// Indices a stream hands over per [`WarpStream::next_batch`] call.
const BATCH: usize = 16;

enum Source {
    /// `buf[pos..len]` are fetched but not yet started.
    Stream {
        stream: Box<dyn WarpStream>,
        buf: [u32; BATCH],
        pos: u8,
        len: u8,
    },
    Host {
        queue: VecDeque<u32>,
        closed: bool,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum WarpState {
    Pending,
    Resident,
    Done,
}

struct Warp {
    id: u32,
    active: u32,
    /// `active.count_ones()`: the thread count of an unguarded instruction
    /// (baseline x86-64 has no popcount instruction).
    threads: u64,
    source: Source,
    regs: WarpRegs,
    /// Per register: cycle its pending write completes.
    ready_at: Vec<u64>,
    state: WarpState,
    /// Scheduler and position in its lists while resident.
    sched: u32,
    pos: u32,
    /// Instruction waiting to start, or `NONE`.
    cur: u32,
    /// Cycle `cur`'s operands are all ready (scoreboard, precomputed at fetch:
    /// only the warp's own issues change its registers).
    cur_ready: u64,
}

#[derive(Default)]
struct Sched {
    /// Warp indices, oldest first.
    warps: Vec<usize>,
    /// Per position: earliest clock the warp could issue (`u64::MAX`: nothing
    /// to issue). Contiguous so the scan skips stalled warps with one load.
    ready: Vec<u64>,
    /// Per position: the two unit classes its next instruction needs (see
    /// `InstInfo::need`).
    need: Vec<[u8; 2]>,
    /// LRR: position to start the next scan at.
    rr_next: usize,
    /// GTO: position of the greedy warp.
    greedy: Option<usize>,
    issues: u64,
    stalls: Stalls,
    /// Outcome of the last slot (for idle-cycle skipping).
    last: Outcome,
    /// Clock until which the scheduler issues the rest of an expansion.
    busy_until: u64,
    /// While `now < wake`, a slot repeats `last` (`Dep` or `Empty`) without a
    /// scan: nothing can become ready before the earliest pending operand, and
    /// any change to the scheduler's warps resets it to 0.
    wake: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Default)]
enum Outcome {
    #[default]
    Empty,
    Dep,
    Unit,
    Issued,
}

/// A cycle-approximate SM. See the crate documentation for the model.
pub struct Sm {
    cfg: SmConfig,
    prog: Arc<Program>,
    policy: SchedPolicy,
    info: Vec<InstInfo>,
    op_names: Vec<String>,
    warps: Vec<Warp>,
    by_id: BTreeMap<u32, usize>,
    pending: VecDeque<usize>,
    resident: u32,
    next_sched: usize,
    scheds: Vec<Sched>,
    /// Per (scheduler, class): tick at which the unit is free (ticks = cycles * scale).
    unit_free: Vec<[u64; NCLASS]>,
    unit_scale: [u64; NCLASS],
    /// Per class: `(cycle + 1) * unit_scale`, the tick a unit must be free
    /// before to accept a micro-op this clock (set once per clock by `step`).
    unit_lim: [u64; NCLASS],
    /// Per class: `cycle * unit_scale`, the tick this clock starts at (set with `unit_lim`).
    unit_now: [u64; NCLASS],
    unit_ops: [u64; NCLASS],
    cycle: u64,
    /// Latest result-ready cycle seen (the SM is finished when it passes).
    drain: u64,
    live: usize,
    /// Per program instruction: (times issued, threads that ran it). Micro-ops
    /// and latency are per-instruction constants, so `stats` derives every
    /// total from these: one add pair per issue.
    inst_acc: Vec<(u64, u64)>,
    nops: usize,
    /// Earliest cycle a dependency-stalled warp becomes ready (this cycle's scan).
    min_event: u64,
    /// Optional record of instruction starts (tests, debugging); bounded, preallocated.
    log: Vec<IssueEvent>,
    log_cap: usize,
}

/// One instruction start, as recorded by [`Sm::record_issues`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IssueEvent {
    /// Clock of the first micro-op.
    pub cycle: u64,
    /// Scheduler.
    pub sched: u32,
    /// Warp id.
    pub warp_id: u32,
    /// Index into [`Program::insts`].
    pub inst: u32,
}

/// First position in `from..to` whose warp can issue now: operands ready and
/// both units it needs free (`unit_free[c] < lim[c]`). Units are tested only
/// for warps whose operands are ready, usually the first one looked at.
#[inline]
fn first_ok(
    ready: &[u64],
    need: &[[u8; 2]],
    from: usize,
    to: usize,
    now: u64,
    unit_free: &[u64; NCLASS],
    lim: &[u64; NCLASS],
) -> Option<usize> {
    let free = |c: u8| {
        // Classes are below NCLASS: the modulo only drops the bounds checks.
        let c = c as usize % NCLASS;
        unit_free[c] < lim[c]
    };
    ready[from..to]
        .iter()
        .zip(&need[from..to])
        .position(|(&r, &[c1, c2])| r <= now && free(c1) && free(c2))
        .map(|p| from + p)
}

impl Sm {
    /// An SM with no warps. Fails if an instruction uses a register at or above
    /// [`Program::nregs`] or a unit the configuration lacks.
    pub fn new(
        config: SmConfig,
        program: Arc<Program>,
        policy: SchedPolicy,
    ) -> Result<Sm, SimError> {
        if config.schedulers == 0 || config.issue_width == 0 || config.issue_interval == 0 {
            return Err(SimError::BadConfig(
                "schedulers, issue_width and issue_interval must be at least 1".into(),
            ));
        }
        if config.resident_warps == 0 {
            return Err(SimError::BadConfig(
                "resident_warps must be at least 1".into(),
            ));
        }
        let nsched = config.schedulers as usize;
        let mut unit_scale = [0u64; NCLASS];
        let mut unit_occ = [0u64; NCLASS];
        for c in UnitClass::ALL {
            let u = config.units.get(c);
            // Time in ticks of 1/lanes_per_sm clock: a partition gets lanes/nsched
            // lanes per clock, so a 32-lane warp op takes 32*nsched ticks.
            unit_scale[c.index()] = u.lanes_per_sm as u64;
            unit_occ[c.index()] = WARP_SIZE as u64 * nsched as u64;
        }
        let mut names: BTreeMap<String, u16> = BTreeMap::new();
        let mut op_names = Vec::new();
        let mut info = Vec::with_capacity(program.insts.len());
        for (index, inst) in program.insts.iter().enumerate() {
            let name = mnemonic(inst);
            let op_id = *names.entry(name.clone()).or_insert_with(|| {
                op_names.push(name);
                (op_names.len() - 1) as u16
            });
            let cost = lowering::cost(config.lowering, inst);
            let native = native_class(inst);
            let emulated_video = is_video(inst) && cost.uops > 1;
            let first = if emulated_video {
                UnitClass::Expansion
            } else {
                native
            };
            let rest = UnitClass::Expansion;
            for c in [first, rest] {
                if config.units.get(c).lanes_per_sm == 0 {
                    return Err(SimError::MissingUnit {
                        index,
                        unit: c.name(),
                        config: config.name.clone(),
                    });
                }
            }
            let latency = if cost.uops == 1 {
                config.units.get(first).latency
            } else {
                config.units.get(rest).latency
            };
            let mut ii = InstInfo {
                first_class: first as u8,
                rest_class: rest as u8,
                uops: cost.uops,
                first_ticks: unit_occ[first.index()],
                rest_ticks: (cost.uops as u64 - 1) * unit_occ[rest.index()],
                need: [first as u8, if cost.uops > 1 { rest } else { first } as u8],
                delay: {
                    let (lat, uops) = (latency.max(1) as u64, cost.uops as u64);
                    ((cost.steps as u64 - 1) * lat).max(uops - 1) + lat
                },
                busy: if cost.uops > 1 {
                    (cost.uops as u64).div_ceil(config.issue_width as u64)
                        * config.issue_interval as u64
                } else {
                    0
                },
                op_id,
                uses: [program.nregs as u32; MAX_USES],
                writes: [0; 2],
                nwrites: 0,
                guard: NONE,
                guard_neg: false,
            };
            for (k, u) in inst.reg_uses().iter().enumerate() {
                if u.reg.0 as usize >= program.nregs {
                    return Err(SimError::BadRegister {
                        index,
                        reg: u.reg.0,
                        nregs: program.nregs,
                    });
                }
                ii.uses[k] = u.reg.0;
                if u.write && (ii.nwrites as usize) < 2 {
                    ii.writes[ii.nwrites as usize] = u.reg.0;
                    ii.nwrites += 1;
                }
            }
            if let Some(g) = inst.guard {
                ii.guard = g.reg.0;
                ii.guard_neg = g.negate;
            }
            info.push(ii);
        }
        let nops = op_names.len();
        Ok(Sm {
            unit_free: vec![[0; NCLASS]; nsched],
            inst_acc: vec![(0, 0); info.len()],
            scheds: (0..nsched).map(|_| Sched::default()).collect(),
            cfg: config,
            prog: program,
            policy,
            info,
            op_names,
            warps: Vec::new(),
            by_id: BTreeMap::new(),
            pending: VecDeque::new(),
            resident: 0,
            next_sched: 0,
            unit_scale,
            unit_lim: [0; NCLASS],
            unit_now: [0; NCLASS],
            unit_ops: [0; NCLASS],
            cycle: 0,
            drain: 0,
            live: 0,
            nops,
            min_event: u64::MAX,
            log: Vec::new(),
            log_cap: 0,
        })
    }

    /// Records the first `capacity` instruction starts (storage reserved now, so
    /// the hot loop stays allocation-free); read them with [`Sm::issue_log`].
    pub fn record_issues(&mut self, capacity: usize) {
        self.log = Vec::with_capacity(capacity);
        self.log_cap = capacity;
    }

    /// Instruction starts recorded since [`Sm::record_issues`], in issue order.
    pub fn issue_log(&self) -> &[IssueEvent] {
        &self.log
    }

    /// The configuration.
    pub fn config(&self) -> &SmConfig {
        &self.cfg
    }

    /// Current clock.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    fn push_warp(&mut self, warp_id: u32, active: u32, source: Source) -> Result<(), SimError> {
        if self.by_id.contains_key(&warp_id) {
            return Err(SimError::DuplicateWarp(warp_id));
        }
        let n = self.prog.nregs;
        let idx = self.warps.len();
        self.warps.push(Warp {
            id: warp_id,
            active,
            threads: active.count_ones() as u64,
            source,
            regs: WarpRegs::new(n),
            // One more than `nregs`: the sentinel of `InstInfo::uses`.
            ready_at: vec![0; n + 1],
            state: WarpState::Pending,
            sched: 0,
            pos: 0,
            cur: NONE,
            cur_ready: 0,
        });
        self.by_id.insert(warp_id, idx);
        self.live += 1;
        self.pending.push_back(idx);
        self.admit()
    }

    /// Adds a warp. It becomes resident at once if a slot is free, otherwise when
    /// an earlier warp finishes (in the order added).
    pub fn add_warp(&mut self, launch: WarpLaunch) -> Result<(), SimError> {
        self.push_warp(
            launch.warp_id,
            launch.active,
            Source::Stream {
                stream: launch.stream,
                buf: [0; BATCH],
                pos: 0,
                len: 0,
            },
        )
    }

    /// Adds a warp fed by the host with [`Sm::push_instruction`] and ended with
    /// [`Sm::close_warp`].
    pub fn add_host_warp(&mut self, warp_id: u32, active: u32) -> Result<(), SimError> {
        self.push_warp(
            warp_id,
            active,
            Source::Host {
                queue: VecDeque::new(),
                closed: false,
            },
        )
    }

    /// Appends one dynamic instruction (index into [`Program::insts`]) to a host warp.
    pub fn push_instruction(&mut self, warp_id: u32, index: u32) -> Result<(), SimError> {
        let &wi = self
            .by_id
            .get(&warp_id)
            .ok_or(SimError::UnknownWarp(warp_id))?;
        if index as usize >= self.prog.insts.len() {
            return Err(SimError::BadIndex {
                warp_id,
                index,
                len: self.prog.insts.len(),
            });
        }
        let w = &mut self.warps[wi];
        match &mut w.source {
            Source::Host {
                queue,
                closed: false,
            } => queue.push_back(index),
            _ => return Err(SimError::NotHostWarp(warp_id)),
        }
        if w.state == WarpState::Resident && w.cur == NONE {
            self.fetch(wi)?;
        }
        Ok(())
    }

    /// Ends a host warp: it finishes once its queued instructions have issued.
    pub fn close_warp(&mut self, warp_id: u32) -> Result<(), SimError> {
        let &wi = self
            .by_id
            .get(&warp_id)
            .ok_or(SimError::UnknownWarp(warp_id))?;
        let w = &mut self.warps[wi];
        match &mut w.source {
            Source::Host { closed, .. } => *closed = true,
            _ => return Err(SimError::NotHostWarp(warp_id)),
        }
        if w.state == WarpState::Resident && w.cur == NONE {
            self.fetch(wi)?;
        }
        Ok(())
    }

    /// Whether a host warp has nothing queued (the host should push or close it).
    pub fn warp_waiting(&self, warp_id: u32) -> bool {
        match self.by_id.get(&warp_id).map(|&i| &self.warps[i]) {
            Some(w) => {
                w.state != WarpState::Done
                    && matches!(&w.source, Source::Host { queue, closed: false } if queue.is_empty())
            }
            None => false,
        }
    }

    fn admit(&mut self) -> Result<(), SimError> {
        while self.resident < self.cfg.resident_warps {
            let Some(wi) = self.pending.pop_front() else {
                break;
            };
            self.resident += 1;
            self.warps[wi].state = WarpState::Resident;
            let s = self.next_sched % self.scheds.len();
            self.next_sched += 1;
            let sc = &mut self.scheds[s];
            self.warps[wi].sched = s as u32;
            self.warps[wi].pos = sc.warps.len() as u32;
            sc.warps.push(wi);
            sc.ready.push(u64::MAX);
            sc.need.push([0; 2]);
            sc.wake = 0;
            tracing::debug!(
                cycle = self.cycle,
                warp = self.warps[wi].id,
                sched = s,
                "warp admitted"
            );
            self.fetch(wi)?;
        }
        Ok(())
    }

    /// Loads the warp's next instruction and its scoreboard-ready cycle, or
    /// retires the warp when its stream ends.
    #[inline(always)]
    fn fetch(&mut self, wi: usize) -> Result<(), SimError> {
        let len = self.prog.insts.len();
        let w = &mut self.warps[wi];
        let next = match &mut w.source {
            Source::Stream {
                stream,
                buf,
                pos,
                len,
            } => {
                if *pos == *len {
                    *len = stream.next_batch(buf).min(BATCH) as u8;
                    *pos = 0;
                }
                if *pos < *len {
                    let i = buf[*pos as usize];
                    *pos += 1;
                    Ok(Some(i))
                } else {
                    Ok(None)
                }
            }
            Source::Host { queue, closed } => match queue.pop_front() {
                Some(i) => Ok(Some(i)),
                None if *closed => Ok(None),
                None => Err(()),
            },
        };
        match next {
            Ok(Some(i)) => {
                // `info` has one entry per program instruction.
                let Some(ii) = self.info.get(i as usize) else {
                    w.cur = NONE;
                    return Err(SimError::BadIndex {
                        warp_id: w.id,
                        index: i,
                        len,
                    });
                };
                let mut r = 0;
                for &u in &ii.uses {
                    r = r.max(w.ready_at[u as usize]);
                }
                w.cur = i;
                w.cur_ready = r;
                // `refresh`, with the entry already at hand.
                if w.state == WarpState::Resident {
                    let sc = &mut self.scheds[w.sched as usize];
                    sc.ready[w.pos as usize] = r;
                    sc.need[w.pos as usize] = ii.need;
                    sc.wake = 0;
                }
                return Ok(());
            }
            Ok(None) => {
                w.cur = NONE;
                self.retire(wi)?;
            }
            Err(()) => w.cur = NONE,
        }
        self.refresh(wi);
        Ok(())
    }

    /// Recomputes the warp's scan entry (ready clock, units needed) after its state changed.
    #[inline]
    fn refresh(&mut self, wi: usize) {
        let w = &self.warps[wi];
        if w.state != WarpState::Resident {
            return;
        }
        let (r, n) = if w.cur != NONE {
            let ii = &self.info[w.cur as usize];
            (w.cur_ready, ii.need)
        } else {
            (u64::MAX, [0; 2])
        };
        let sc = &mut self.scheds[w.sched as usize];
        sc.ready[w.pos as usize] = r;
        sc.need[w.pos as usize] = n;
        sc.wake = 0;
    }

    fn retire(&mut self, wi: usize) -> Result<(), SimError> {
        self.warps[wi].state = WarpState::Done;
        self.live -= 1;
        self.resident -= 1;
        tracing::debug!(
            cycle = self.cycle,
            warp = self.warps[wi].id,
            "warp finished"
        );
        let (si, p) = (self.warps[wi].sched as usize, self.warps[wi].pos as usize);
        let s = &mut self.scheds[si];
        s.warps.remove(p);
        s.ready.remove(p);
        s.need.remove(p);
        s.wake = 0;
        for &later in &s.warps[p..] {
            self.warps[later].pos -= 1;
        }
        if s.rr_next > p {
            s.rr_next -= 1;
        }
        s.greedy = match s.greedy {
            Some(g) if g == p => None,
            Some(g) if g > p => Some(g - 1),
            g => g,
        };
        self.admit()
    }

    /// Whether every warp has finished and its results are written.
    pub fn is_done(&self) -> bool {
        self.live == 0
    }

    /// A warp's registers (resident, pending or finished).
    pub fn warp_regs(&self, warp_id: u32) -> Option<&WarpRegs> {
        self.by_id.get(&warp_id).map(|&i| &self.warps[i].regs)
    }

    /// Ids of the warps on this SM, ascending.
    pub fn warp_ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.by_id.keys().copied()
    }

    /// Whether the unit can accept a micro-op during this clock.
    #[inline]
    fn unit_free(&self, sched: usize, class: usize, now: u64) -> bool {
        // Free at some point during this clock: lets fractional rates (40 lanes
        // per partition = 1.25 ops/clock) come out exact on average.
        // Free at some point during this clock: lets fractional rates (40 lanes
        // per partition = 1.25 ops/clock) come out exact on average.
        self.unit_free[sched][class] < (now + 1) * self.unit_scale[class]
    }

    /// Occupies the unit with `n` micro-ops (`ticks` of it) issued from this clock on.
    #[inline]
    fn unit_take(&mut self, sched: usize, class: usize, n: u64, ticks: u64) {
        // Classes are below NCLASS: the modulo only drops the bounds checks.
        let class = class % NCLASS;
        let slot = &mut self.unit_free[sched][class];
        *slot = (*slot).max(self.unit_now[class]) + ticks;
        self.unit_ops[class] += n;
    }

    /// Tries to start warp `wi`'s next instruction on scheduler `sched`.
    ///
    /// An instruction of `uops` machine instructions and `steps` dependent steps
    /// takes `uops` consecutive issue slots of its scheduler (the scheduler is
    /// busy meanwhile) and its result is ready `max((steps-1) x latency,
    /// uops-1) + latency` clocks after the first: the critical chain, or the
    /// last micro-op when the others do not fit between the chain's steps.
    /// Handling the sequence as one decision keeps the cost per PTX instruction
    /// constant; throughput and latency are those of issuing the micro-ops
    /// one by one.
    /// The caller's scan has checked that the warp has an instruction whose
    /// operands are ready and whose units are free.
    fn issue(&mut self, wi: usize, sched: usize, now: u64) -> Result<(), SimError> {
        let w = &self.warps[wi];
        let idx = w.cur;
        debug_assert!(idx != NONE && w.cur_ready <= now);
        // Fields read by name, not the entry copied: a copy goes through the
        // stack, and reading back part of it stalls store forwarding.
        let ii = &self.info[idx as usize];
        let (first, rest, uops) = (
            ii.first_class as usize,
            ii.rest_class as usize,
            ii.uops as u64,
        );
        let (guard, guard_neg, delay, busy) = (ii.guard, ii.guard_neg, ii.delay, ii.busy);
        let (writes, nwrites) = (ii.writes, ii.nwrites as usize);
        let (first_ticks, rest_ticks) = (ii.first_ticks, ii.rest_ticks);
        debug_assert!(
            self.unit_free(sched, first, now) && (uops == 1 || self.unit_free(sched, rest, now))
        );
        self.unit_take(sched, first, 1, first_ticks);
        // Unconditional (taking 0 micro-ops leaves the unit as free as it
        // was): whether an instruction expands varies from one to the next,
        // so a branch here mispredicts.
        self.unit_take(sched, rest, uops - 1, rest_ticks);
        // Execute functionally now; the guard is read before the instruction
        // can overwrite it.
        let w = &mut self.warps[wi];
        let mut threads = w.threads;
        if guard != NONE {
            let mut lanes = w.active;
            let g = w.regs.get(RegId(guard));
            let mut m = 0u32;
            for (l, v) in g.iter().enumerate() {
                m |= ((*v != 0) as u32) << l;
            }
            lanes &= if guard_neg { !m } else { m };
            threads = lanes.count_ones() as u64;
        }
        let inst = &self.prog.insts[idx as usize];
        // `new` checked every register against `nregs`, the size of `regs`.
        sim_isa::exec::execute_fitted(
            inst,
            &ExecCtx {
                target: self.prog.target,
                warp_id: w.id,
            },
            &mut w.regs,
            w.active,
        );
        tracing::trace!(cycle = now, sched, warp = w.id, inst = idx, uops, "issue");
        if self.log.len() < self.log_cap {
            self.log.push(IssueEvent {
                cycle: now,
                sched: sched as u32,
                warp_id: w.id,
                inst: idx,
            });
        }
        let ready = now + delay;
        for &r in &writes[..nwrites] {
            w.ready_at[r as usize] = ready;
        }
        self.drain = self.drain.max(ready);
        let acc = &mut self.inst_acc[idx as usize];
        acc.0 += 1;
        acc.1 += threads;
        let sc = &mut self.scheds[sched];
        sc.issues += uops;
        // The rest of an expansion occupies the following issue slots (`busy`
        // is 0 for one micro-op: a no-op, written without a branch).
        sc.busy_until = sc.busy_until.max(now + busy);
        self.fetch(wi)
    }

    /// One issue slot of scheduler `s`: up to `issue_width` micro-ops.
    fn schedule(&mut self, s: usize, now: u64) -> Result<Outcome, SimError> {
        let mut best = Outcome::Empty;
        let st = &mut self.scheds[s];
        if now < st.busy_until {
            // Still issuing an expansion's micro-ops.
            st.stalls.issued += 1;
            st.last = Outcome::Issued;
            return Ok(Outcome::Issued);
        }
        if now < st.wake {
            // Same outcome as the last slot (see `Sched::wake`).
            match st.last {
                Outcome::Dep => {
                    st.stalls.dependency += 1;
                    self.min_event = self.min_event.min(st.wake);
                }
                _ => st.stalls.no_eligible += 1,
            }
            return Ok(st.last);
        }
        let mut wake = 0;
        for _ in 0..self.cfg.issue_width {
            if now < self.scheds[s].busy_until {
                break;
            }
            let n = self.scheds[s].warps.len();
            if n == 0 {
                if best == Outcome::Empty {
                    wake = u64::MAX;
                }
                break;
            }
            let sc = &self.scheds[s];
            let (row, lim) = (&self.unit_free[s], &self.unit_lim);
            let first_ok =
                |from: usize, to: usize| first_ok(&sc.ready, &sc.need, from, to, now, row, lim);
            // Scan order: GTO tries its greedy warp first, then oldest-first;
            // LRR starts after the warp that issued last; oldest from the front.
            let pick = match self.policy {
                SchedPolicy::Gto => match sc.greedy {
                    Some(g) if g < n && first_ok(g, g + 1).is_some() => Some(g),
                    _ => first_ok(0, n),
                },
                SchedPolicy::Oldest => first_ok(0, n),
                SchedPolicy::Lrr => {
                    // rr_next <= n always; avoid a division in the common case.
                    let start = if sc.rr_next < n {
                        sc.rr_next
                    } else {
                        sc.rr_next % n
                    };
                    first_ok(start, n).or_else(|| first_ok(0, start))
                }
            };
            let Some(pos) = pick else {
                // Nothing can issue: classify the slot.
                let mut o = Outcome::Empty;
                let mut first = u64::MAX;
                for &r in &sc.ready {
                    if r <= now {
                        o = Outcome::Unit;
                    } else if r != u64::MAX {
                        if o == Outcome::Empty {
                            o = Outcome::Dep;
                        }
                        first = first.min(r);
                    }
                }
                self.min_event = self.min_event.min(first);
                if best == Outcome::Empty && o != Outcome::Unit {
                    // Nothing issued and nothing ready: the outcome holds until
                    // the first pending operand is ready (never, when empty).
                    wake = first;
                }
                best = best.max(o);
                break;
            };
            let wi = sc.warps[pos];
            self.issue(wi, s, now)?;
            best = Outcome::Issued;
            let sc = &mut self.scheds[s];
            // The warp may have retired (and been removed) while issuing.
            let still = sc.warps.get(pos) == Some(&wi);
            match self.policy {
                SchedPolicy::Lrr => sc.rr_next = if still { pos + 1 } else { pos },
                SchedPolicy::Gto => sc.greedy = if still { Some(pos) } else { None },
                SchedPolicy::Oldest => {}
            }
        }
        let st = &mut self.scheds[s];
        match best {
            Outcome::Issued => st.stalls.issued += 1,
            Outcome::Unit => st.stalls.unit_busy += 1,
            Outcome::Dep => st.stalls.dependency += 1,
            Outcome::Empty => st.stalls.no_eligible += 1,
        }
        st.last = best;
        st.wake = wake;
        Ok(best)
    }

    /// Advances one clock.
    pub fn step(&mut self) -> Result<(), SimError> {
        let now = self.cycle;
        let iv = self.cfg.issue_interval as u64;
        if iv == 1 || now.is_multiple_of(iv) {
            for c in 0..NCLASS {
                self.unit_now[c] = now * self.unit_scale[c];
                self.unit_lim[c] = self.unit_now[c] + self.unit_scale[c];
            }
            for s in 0..self.scheds.len() {
                self.schedule(s, now)?;
            }
        }
        self.cycle += 1;
        Ok(())
    }

    /// Number of issue slots in clocks `[from, to)`.
    fn slots_between(&self, from: u64, to: u64) -> u64 {
        let iv = self.cfg.issue_interval as u64;
        if to <= from {
            return 0;
        }
        (to - 1) / iv + 1 - from.div_ceil(iv)
    }

    /// Jumps over the slots from `now` (an issue clock) in which every
    /// scheduler's outcome is already known (busy with an expansion, or waiting
    /// with [`Sched::wake`] in the future), counting them as stepping would.
    fn skip_known(&mut self, now: u64) -> bool {
        let mut target = u64::MAX;
        for sc in &self.scheds {
            let until = if now < sc.busy_until {
                sc.busy_until
            } else if now < sc.wake {
                sc.wake
            } else {
                return false;
            };
            target = target.min(until);
        }
        if target == u64::MAX {
            // Everything waits for the host: let `step` record the slot and stop.
            return false;
        }
        let slots = self.slots_between(now, target);
        for sc in &mut self.scheds {
            if now < sc.busy_until {
                sc.stalls.issued += slots;
                sc.last = Outcome::Issued;
            } else if sc.last == Outcome::Dep {
                sc.stalls.dependency += slots;
            } else {
                sc.stalls.no_eligible += slots;
            }
        }
        self.cycle = target;
        true
    }

    /// Runs until every warp has finished and its results are written, or until
    /// every live warp waits for host input ([`Sm::push_instruction`]).
    ///
    /// Clocks in which no scheduler can issue and only dependencies are pending
    /// are skipped in one go; their issue slots are still counted.
    pub fn run_to_completion(&mut self) -> Result<(), SimError> {
        let iv = self.cfg.issue_interval as u64;
        while self.live > 0 {
            let now = self.cycle;
            if iv != 1 && !now.is_multiple_of(iv) {
                self.cycle = now.next_multiple_of(iv);
                continue;
            }
            if self.skip_known(now) {
                continue;
            }
            self.min_event = u64::MAX;
            self.step()?;
            let mut best = Outcome::Empty;
            for s in &self.scheds {
                best = best.max(s.last);
            }
            match best {
                Outcome::Issued | Outcome::Unit => {}
                Outcome::Empty if self.live > 0 => {
                    // Everything live waits for the host.
                    return Ok(());
                }
                _ => {
                    let target = self.min_event;
                    if target != u64::MAX && target > self.cycle {
                        let skipped = self.slots_between(self.cycle, target);
                        for s in &mut self.scheds {
                            match s.last {
                                Outcome::Dep => s.stalls.dependency += skipped,
                                _ => s.stalls.no_eligible += skipped,
                            }
                        }
                        self.cycle = target;
                    }
                }
            }
        }
        self.cycle = self.cycle.max(self.drain);
        Ok(())
    }

    /// Statistics so far (cycles include the final results' latency once done).
    pub fn stats(&self) -> Stats {
        let mut op_acc = vec![OpStats::default(); self.nops];
        for (ii, &(n, threads)) in self.info.iter().zip(&self.inst_acc) {
            op_acc[ii.op_id as usize].record(n, threads, ii.uops as u64, ii.delay);
        }
        let mut st = Stats {
            sms: 1,
            cycles: if self.live == 0 {
                self.cycle.max(self.drain)
            } else {
                self.cycle
            },
            warp_instructions: op_acc.iter().map(|o| o.count).sum(),
            thread_instructions: op_acc.iter().map(|o| o.thread_instructions).sum(),
            micro_ops: op_acc.iter().map(|o| o.micro_ops).sum(),
            scheduler_issues: self.scheds.iter().map(|s| s.issues).collect(),
            ..Default::default()
        };
        for s in &self.scheds {
            st.stalls.no_eligible += s.stalls.no_eligible;
            st.stalls.dependency += s.stalls.dependency;
            st.stalls.unit_busy += s.stalls.unit_busy;
            st.stalls.issued += s.stalls.issued;
        }
        for c in UnitClass::ALL {
            let lanes = self.cfg.units.get(c).lanes_per_sm;
            if lanes > 0 {
                st.units.insert(
                    c.name().to_string(),
                    UnitStats {
                        ops: self.unit_ops[c.index()],
                        lanes_per_sm: lanes,
                        utilisation: 0.0,
                    },
                );
            }
        }
        for (name, acc) in self.op_names.iter().zip(&op_acc) {
            if acc.count > 0 {
                st.per_opcode.insert(name.clone(), *acc);
            }
        }
        st.finish();
        st
    }
}
