//! One SM: resident warps, schedulers, scoreboard, functional units.
//!
//! The pieces, one file each: `table` (the per-program instruction table,
//! shared by all SMs), `warp` (warp lifecycle), `sched` (schedulers, issue,
//! slot accounting), `units` (unit occupancy) and `clock` (the clock loop and
//! run limits). This file holds the SM's state and its statistics.

mod board;
mod clock;
mod facts;
mod host;
mod hunger;
mod icache;
mod masks;
mod sched;
mod stall_acc;
mod states;
mod table;
mod units;
mod warp;

pub use host::Progress;
pub use table::ProgramTables;

use crate::config::{Limits, SchedPolicy, SmConfig, UnitClass};
use crate::error::SimError;
use crate::program::Program;
use crate::stats::Report;
use crate::stats::{OpStats, Stats, UnitStats};
use host::Outstanding;
use sched::Sched;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use table::InstInfo;
use units::UnitState;
use warp::Warp;

/// A cycle-approximate SM. See the crate documentation for the model.
pub struct Sm {
    /// What the clock loop reads of the configuration (the whole of it is in
    /// `tables`, shared: an idle SM stays small).
    cfg: Hot,
    prog: Arc<Program>,
    policy: SchedPolicy,
    /// Shared with every SM built from the same [`ProgramTables`].
    info: Arc<[InstInfo]>,
    /// The program's distinct result-delay rows (`ProgramTables::rows`).
    rows: Arc<[[u64; board::ROW]]>,
    /// Warp states, per-instruction stalls and issue activity (`states`);
    /// boxed and made with the first warp, so an idle SM stays small.
    states: Option<Box<stall_acc::Acc>>,
    /// Per program instruction, decoded for execution (shared).
    prepared: Arc<[sim_isa::exec::Prepared]>,
    op_names: Arc<[String]>,
    /// The tables themselves, for the statistics (machine code per instruction).
    tables: Arc<ProgramTables>,
    warps: Vec<Warp>,
    by_id: BTreeMap<u32, usize>,
    pending: VecDeque<usize>,
    resident: u32,
    next_sched: usize,
    scheds: Vec<Sched>,
    units: UnitState,
    cycle: u64,
    /// Latest result-ready cycle seen (the SM is finished when it passes).
    drain: u64,
    live: usize,
    /// Warp instructions issued (for [`crate::Limits::max_instructions`]).
    issued: u64,
    /// Per program instruction: (times issued, threads that ran it). Micro-ops
    /// and latency are per-instruction constants, so `stats` derives every
    /// total from these: one add pair per issue. Empty until the first warp
    /// is added.
    inst_acc: Vec<(u64, u64)>,
    /// Earliest cycle a dependency-stalled warp becomes ready (this cycle's scan).
    min_event: u64,
    /// Optional record of instruction starts (tests, debugging); bounded, preallocated.
    log: Vec<IssueEvent>,
    log_cap: usize,
    /// The host's instructions: marks, outstanding ones, tickets.
    host: host::HostSide,
    /// Host warps that ran low and executed warps that finished: what
    /// [`Sm::run_until_idle`] returns to the host for.
    hungry: hunger::Hungry,
    /// Resident instruction-cache lines (sized when the first warp is added).
    icache: icache::ICacheState,
}

/// The figures of an SM's configuration that its slots and clock loop read.
#[derive(Clone, Copy, Debug)]
struct Hot {
    resident_warps: u32,
    issue_width: u32,
    issue_interval: u32,
    /// `ICache::miss_cycles`.
    miss_cycles: u32,
    limits: Limits,
}

impl Hot {
    fn of(cfg: &SmConfig) -> Hot {
        Hot {
            resident_warps: cfg.resident_warps,
            issue_width: cfg.issue_width,
            issue_interval: cfg.issue_interval,
            miss_cycles: cfg.icache.miss_cycles,
            limits: cfg.limits,
        }
    }
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

impl Sm {
    /// An SM with no warps, with tables of its own. Fails if an instruction
    /// uses a register at or above [`Program::nregs`] or a unit the
    /// configuration lacks. SMs running one program should share its tables
    /// ([`Sm::from_tables`]).
    pub fn new(
        config: SmConfig,
        program: Arc<Program>,
        policy: SchedPolicy,
    ) -> Result<Sm, SimError> {
        Ok(Sm::from_tables(
            &ProgramTables::new(config, program)?,
            policy,
        ))
    }

    /// An SM with no warps over shared tables. Until warps are added it holds
    /// only its schedulers' and units' state, whatever the program's size.
    pub fn from_tables(tables: &Arc<ProgramTables>, policy: SchedPolicy) -> Sm {
        let cfg = &tables.cfg;
        let units = UnitState::new(cfg);
        Sm {
            scheds: (0..cfg.schedulers)
                .map(|_| Sched {
                    pipes: units.pipes(),
                    ..Sched::default()
                })
                .collect(),
            units,
            cfg: Hot::of(cfg),
            prog: tables.prog.clone(),
            policy,
            info: tables.info.clone(),
            rows: tables.rows.clone(),
            states: None,
            prepared: tables.prepared.clone(),
            op_names: tables.op_names.clone(),
            tables: tables.clone(),
            warps: Vec::new(),
            by_id: BTreeMap::new(),
            pending: VecDeque::new(),
            resident: 0,
            next_sched: 0,
            cycle: 0,
            drain: 0,
            live: 0,
            issued: 0,
            inst_acc: Vec::new(),
            min_event: u64::MAX,
            log: Vec::new(),
            log_cap: 0,
            host: host::HostSide::default(),
            hungry: hunger::Hungry::default(),
            icache: icache::ICacheState::default(),
        }
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
        &self.tables.cfg
    }

    /// Current clock.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Whether every warp has finished and every external instruction has
    /// been completed.
    pub fn is_done(&self) -> bool {
        self.live == 0 && self.host.outstanding.is_empty()
    }

    /// Warp instructions issued so far.
    pub fn instructions_issued(&self) -> u64 {
        self.issued
    }

    /// A warp's registers (resident, pending or finished; none for an
    /// executed warp, which has none and is forgotten once finished).
    pub fn warp_regs(&self, warp_id: u32) -> Option<&sim_isa::WarpRegs> {
        self.by_id.get(&warp_id).map(|&i| &self.warps[i].regs)
    }

    /// Ids of the warps on this SM, ascending.
    pub fn warp_ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.by_id.keys().copied()
    }

    /// Approximate bytes this SM holds of its own (its state and its warps'),
    /// not counting the shared [`ProgramTables`] and program.
    pub fn state_bytes(&self) -> usize {
        let sched = |s: &Sched| {
            std::mem::size_of::<Sched>()
                + s.warps.capacity() * std::mem::size_of::<usize>()
                + s.ready.capacity() * std::mem::size_of::<u64>()
                + s.need.capacity() * std::mem::size_of::<u64>()
        };
        std::mem::size_of::<Sm>()
            + self.scheds.iter().map(sched).sum::<usize>()
            + self
                .warps
                .iter()
                .map(|w| std::mem::size_of::<Warp>() + w.heap_bytes())
                .sum::<usize>()
            // A B-tree entry: key, value and about as much again of node overhead.
            + self.by_id.len() * 2 * std::mem::size_of::<(u32, usize)>()
            + self.pending.capacity() * std::mem::size_of::<usize>()
            + self.inst_acc.capacity() * std::mem::size_of::<(u64, u64)>()
            + self.log.capacity() * std::mem::size_of::<IssueEvent>()
            + self.host.mark.capacity() * std::mem::size_of::<host::Mark>()
            + self.host.outstanding.capacity() * std::mem::size_of::<Outstanding>()
            + self.hungry.heap_bytes()
            + self.states.as_ref().map_or(0, |a| a.heap_bytes())
    }

    /// This SM's statistics as a one-SM report.
    pub(crate) fn report(&self) -> Report {
        let stats = self.stats();
        Report {
            config: self.tables.cfg.name(),
            policy: self.policy,
            sms: 1,
            per_sm: vec![stats.clone()],
            stats,
        }
    }

    /// Statistics so far (cycles include the final results' latency once done).
    pub fn stats(&self) -> Stats {
        let mut op_acc = vec![OpStats::default(); self.op_names.len()];
        for (i, (ii, &(n, threads))) in self.info.iter().zip(&self.inst_acc).enumerate() {
            if let Some(acc) = op_acc.get_mut(ii.op_id as usize) {
                match self.host.mark.get(i).and_then(|m| m.lat.as_ref()) {
                    Some(m) => acc.record_measured(n, threads, ii.uops as u64, m),
                    None => acc.record(n, threads, ii.uops as u64, ii.delay),
                }
            }
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
            icache_misses: self.icache.misses,
            ..Default::default()
        };
        (st.warp_stalls, st.per_inst) = self.states_now();
        st.activity = self.activity_now();
        for s in &self.scheds {
            st.stalls.add(&s.stalls());
        }
        // Machine instructions per pipe and per opcode: each program
        // instruction's (static) machine code times its issue count.
        let mut pipe_ops = [0u64; UnitClass::COUNT];
        let mut mach_ops = vec![0u64; self.tables.mach_names.len()];
        for (l, &(n, _)) in self.tables.mach.iter().zip(&self.inst_acc) {
            for (acc, &k) in pipe_ops.iter_mut().zip(&l.pipe_ops) {
                *acc += n * u64::from(k);
            }
            for &(id, k) in &l.opcodes {
                if let Some(acc) = mach_ops.get_mut(usize::from(id)) {
                    *acc += n * u64::from(k);
                }
            }
        }
        for c in UnitClass::ALL {
            let lanes = self.tables.cfg.units.get(c).lanes_per_sm;
            if lanes > 0 {
                st.units.insert(
                    c.name().to_string(),
                    UnitStats {
                        ops: pipe_ops[c.index()],
                        lanes_per_sm: lanes,
                        utilisation: 0.0,
                    },
                );
            }
        }
        for (name, &n) in self.tables.mach_names.iter().zip(&mach_ops) {
            if n > 0 {
                st.per_machine_opcode.insert(name.clone(), n);
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
