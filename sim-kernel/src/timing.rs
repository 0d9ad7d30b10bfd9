//! Cycles of an executed launch: each warp's record replayed on sim-core's
//! SM model as a host-fed warp. Memory instructions, barriers and clock
//! reads are the host's external instructions: memory completes when
//! [`MemTiming`] says; a barrier holds its warps' next instructions until
//! every warp of the block that reaches it (as execution found) has issued
//! it; a clock read records the cycle it issued, which a second functional
//! pass writes into the kernel's `%clock` values. A taken loop back-edge's
//! target is pushed as a branch target (`Sm::push_branch_target`).

use crate::error::KernelError;
use crate::exec::{reads_clock, Executed};
use crate::memtime::{Kind, MemConfig, MemTiming};
use crate::prepare::Prepared;
use sim_core::{
    Completion, External, ExternalRequest, Program, ProgramTables, SchedPolicy, Sm, SmConfig, Stats,
};
use sim_isa::{Instruction, MemOp, Op, Space, WarpInst, WarpOp};
use sim_module::{ControlOp, StatementKind};
use std::collections::VecDeque;
use std::sync::Arc;

/// Cycles of a launch.
#[derive(Clone, Debug)]
pub struct Timed {
    /// Cycles until the last SM finished.
    pub cycles: u64,
    /// Per warp (launch order), the cycle of each clock read.
    pub clocks: Vec<Vec<u64>>,
    /// The SM model's statistics, merged over SMs (cycles: the slowest).
    pub stats: Stats,
    /// SMs that ran blocks.
    pub sms_used: u32,
}

impl Timed {
    /// `max(last clock read) - min(first clock read)` over warps that read
    /// the clock: what the H100 figures of the launch files measure.
    pub fn clock_window(&self) -> Option<u64> {
        let first = self.clocks.iter().filter_map(|c| c.first()).min()?;
        let last = self.clocks.iter().filter_map(|c| c.last()).max()?;
        Some(last - first)
    }
}

/// What the host does when a warp issues an external instruction.
#[derive(Clone, Copy, Debug)]
enum Ext {
    Mem { access: u32, kind: Kind },
    Barrier,
    Clock,
}

/// The instruction sim-core issues for each statement.
fn program(prep: &Prepared<'_>, target: sim_isa::Target) -> Program {
    let stand_in = |w: &str| Instruction {
        guard: None,
        op: Op::Warp(WarpInst::control(w).unwrap_or_else(unreachable_control)),
    };
    let insts = prep
        .body
        .statements
        .iter()
        .map(|s| match &s.kind {
            StatementKind::Instruction(i) => *i,
            StatementKind::Control(c) => {
                let mut i = stand_in(match c.op {
                    ControlOp::Bra { .. } | ControlOp::Call { .. } => "bra",
                    ControlOp::Ret { .. } => "ret",
                    ControlOp::Exit => "exit",
                });
                i.guard = c.guard;
                i
            }
            StatementKind::Unimplemented(_) => stand_in("exit"),
        })
        .collect();
    Program {
        target,
        insts,
        nregs: prep.body.symbols.len(),
    }
}

fn unreachable_control() -> WarpInst {
    // `WARP_WORDS` lists `bra`, `ret` and `exit`; a fence stands in otherwise.
    WarpInst::control("bra").unwrap_or(WarpInst {
        op: WarpOp::Fence,
        word: 0,
        d: None,
        p: None,
        srcs: [sim_isa::Operand::Imm(0); 3],
        pred: sim_isa::PredSrc::Imm(true),
        mask: sim_isa::Operand::Imm(0),
        nsrc: 0,
    })
}

/// Whether statement `i` is external, and the memory kind of a memory one.
fn ext_kind(i: &Instruction) -> Option<Kind> {
    match &i.op {
        Op::Mem(m) if m.accesses_memory() && m.space != Space::Param => Some(match m.op {
            MemOp::Ld | MemOp::Ldu => Kind::Load,
            MemOp::St => Kind::Store,
            MemOp::Atom(_) | MemOp::Red(_) => Kind::Atomic,
            // `accesses_memory` is false for these: never reached.
            MemOp::Cvta { .. } | MemOp::MovAddr | MemOp::Pack | MemOp::Unpack => Kind::Load,
        }),
        Op::Warp(w) if w.op == WarpOp::BarSync => Some(Kind::Store),
        _ if reads_clock(i) => Some(Kind::Store),
        _ => None,
    }
}

struct Host<'a> {
    run: &'a Executed,
    /// Per warp: its steps in issue order.
    order: Vec<Vec<crate::exec::Step>>,
    mem: &'a mut dyn MemTiming,
    sm: u32,
    /// Per warp: external instructions fed and not yet issued.
    queue: Vec<VecDeque<Ext>>,
    /// Per warp: next step to feed; blocked at a barrier.
    pos: Vec<usize>,
    blocked: Vec<bool>,
    /// Per block: arrivals at its current barrier, warps expected.
    arrived: Vec<Vec<usize>>,
    clocks: Vec<Vec<u64>>,
    /// Per warp: index of the barrier it waits at, per block the barrier count.
    bar_no: Vec<usize>,
    /// Per block, per barrier instance: warps that reach it.
    expected: Vec<Vec<usize>>,
    cta_of: Vec<usize>,
    released: Vec<usize>,
}

impl External for Host<'_> {
    fn issue(&mut self, req: &ExternalRequest<'_>) -> Option<Completion> {
        let w = req.warp_id as usize;
        let e = self.queue.get_mut(w)?.pop_front()?;
        let at = match e {
            Ext::Mem { access, kind } => {
                let acc = &self.run.warps[w].accesses[access as usize];
                self.mem.access(self.sm, req.cycle, acc, kind)
            }
            Ext::Clock => {
                self.clocks[w].push(req.cycle);
                req.cycle + 1
            }
            Ext::Barrier => {
                let c = self.cta_of[w];
                let k = self.bar_no[w];
                self.bar_no[w] += 1;
                if self.arrived[c].len() <= k {
                    self.arrived[c].resize(k + 1, 0);
                }
                self.arrived[c][k] += 1;
                if self.arrived[c][k] >= self.expected[c].get(k).copied().unwrap_or(0) {
                    self.released.push(c);
                }
                req.cycle + 1
            }
        };
        Some(Completion::at(at))
    }
}

/// Blocks one SM holds at once: its warp slots, its shared memory and its
/// block limit, as far as this block's needs go.
pub fn blocks_per_sm(cfg: &SmConfig, limits: &MemConfig, warps_per_block: u32, smem: u64) -> u32 {
    let by_warps = cfg.resident_warps / warps_per_block.max(1);
    let by_smem = limits
        .smem_per_sm
        .checked_div(smem)
        .map_or(u32::MAX, |n| u32::try_from(n).unwrap_or(u32::MAX));
    by_warps.min(by_smem).min(limits.blocks_per_sm).max(1)
}

/// Replays `run` on `sms` SMs of `cfg` (blocks dealt round-robin), with
/// memory latencies from `mem`. An SM admits warps as earlier ones finish,
/// up to [`blocks_per_sm`] blocks' worth.
pub fn time(
    prep: &Prepared<'_>,
    run: &Executed,
    cfg: &SmConfig,
    policy: SchedPolicy,
    sms: u32,
    mem: &mut dyn MemTiming,
) -> Result<Timed, KernelError> {
    let prog = Arc::new(program(prep, cfg.target));
    let warps_per_block = run.warps.iter().map(|w| w.warp + 1).max().unwrap_or(1);
    let mut cfg = cfg.clone();
    let blocks = blocks_per_sm(&cfg, mem.limits(), warps_per_block, prep.shared);
    cfg.resident_warps = cfg.resident_warps.min(blocks * warps_per_block).max(1);
    let cfg = &cfg;
    let ext: Vec<Option<Kind>> = prog.insts.iter().map(ext_kind).collect();
    let (loops, targets) = control(prep);
    let tables = ProgramTables::with_loops(cfg.clone(), prog, &loops, &targets)?;
    let nw = run.warps.len();
    let nblocks = run
        .warps
        .iter()
        .map(|w| w.cta as usize + 1)
        .max()
        .unwrap_or(0);
    let mut expected = vec![Vec::new(); nblocks];
    for t in &run.warps {
        let bars = t
            .steps
            .iter()
            .filter(|s| ext[s.stmt as usize].is_some() && is_barrier(prep, s.stmt))
            .count();
        let e: &mut Vec<usize> = &mut expected[t.cta as usize];
        if e.len() < bars {
            e.resize(bars, 0);
        }
        for x in e.iter_mut().take(bars) {
            *x += 1;
        }
    }
    let deps = crate::reorder::deps(prep.body);
    // ptxas removes dead instructions: they issue nothing (see `dead`).
    let dead = crate::dead::dead_statements(prep.body);
    let live = |s: &&crate::exec::Step| !dead.get(s.stmt as usize).copied().unwrap_or(false);
    let mut host = Host {
        run,
        order: run
            .warps
            .iter()
            .map(|t| {
                let steps: Vec<_> = t.steps.iter().filter(live).copied().collect();
                crate::reorder::reorder(&deps, &steps)
            })
            .collect(),
        mem,
        sm: 0,
        queue: vec![VecDeque::new(); nw],
        pos: vec![0; nw],
        blocked: vec![false; nw],
        arrived: vec![Vec::new(); nblocks],
        clocks: vec![Vec::new(); nw],
        bar_no: vec![0; nw],
        expected,
        cta_of: run.warps.iter().map(|w| w.cta as usize).collect(),
        released: Vec::new(),
    };
    let used = sms.max(1).min(nblocks.max(1) as u32);
    let mut all = Vec::new();
    for s in 0..used {
        let mut sm = Sm::from_tables(&tables, policy);
        for (i, e) in ext.iter().enumerate() {
            if e.is_some() {
                sm.mark_external(i as u32)?;
            }
        }
        let mine: Vec<usize> = (0..nw).filter(|&w| run.warps[w].cta % used == s).collect();
        for &w in &mine {
            sm.add_host_warp(w as u32, run.warps[w].lanes)?;
        }
        host.sm = s;
        drive(&mut sm, &mut host, &mine, prep, &ext)?;
        all.push(sm.stats());
    }
    let stats = Stats::merge(&all);
    Ok(Timed {
        cycles: stats.cycles,
        clocks: host.clocks,
        stats,
        sms_used: used,
    })
}

fn is_barrier(prep: &Prepared<'_>, stmt: u32) -> bool {
    matches!(
        &prep.body.statements[stmt as usize].kind,
        StatementKind::Instruction(Instruction { op: Op::Warp(w), .. }) if w.op == WarpOp::BarSync
    )
}

/// Whether statement `stmt` is a loop's back-edge: a branch to a label at or
/// before it. ptxas keeps these as branches (every PTX back-edge of the
/// public and extra kernels is a backward BRA in ptxas 13.0.88's code),
/// while it turns many forward branches into predicated code (`local_sort`:
/// 30 in the PTX, 1 in the machine code), so only back-edges cost a taken
/// branch's redirect (`SmConfig::taken_branch_cycles`; 0 in the presets).
fn is_back_edge(prep: &Prepared<'_>, stmt: u32) -> bool {
    match &prep.body.statements[stmt as usize].kind {
        StatementKind::Control(c) => match c.op {
            ControlOp::Bra { label, .. } => prep
                .body
                .labels
                .get(label)
                .is_some_and(|l| l.target <= stmt as usize),
            ControlOp::Call { .. } | ControlOp::Ret { .. } | ControlOp::Exit => false,
        },
        StatementKind::Instruction(_) | StatementKind::Unimplemented(_) => false,
    }
}

/// The kernel's loops (per back-edge, a branch to a label at or before it,
/// the statements from its target to it) and the statements branches lead
/// to. The work a loop repeats on values set before it is what ptxas hoists
/// (`ProgramTables::with_loops`).
fn control(prep: &Prepared<'_>) -> (Vec<(u32, u32)>, Vec<u32>) {
    let n = prep.body.statements.len();
    let (mut loops, mut targets) = (Vec::new(), Vec::new());
    for (b, s) in prep.body.statements.iter().enumerate() {
        if let StatementKind::Control(c) = &s.kind {
            if let ControlOp::Bra { label, .. } = c.op {
                if let Some(t) = prep.body.labels.get(label).map(|l| l.target) {
                    if t < n {
                        targets.push(t as u32);
                    }
                    if t <= b {
                        loops.push((t as u32, b as u32));
                    }
                }
            }
        }
    }
    (loops, targets)
}

/// Feeds `mine` until the SM is done.
fn drive(
    sm: &mut Sm,
    host: &mut Host<'_>,
    mine: &[usize],
    prep: &Prepared<'_>,
    ext: &[Option<Kind>],
) -> Result<(), KernelError> {
    loop {
        for c in std::mem::take(&mut host.released) {
            for &w in mine {
                if host.cta_of[w] == c {
                    host.blocked[w] = false;
                }
            }
        }
        let hungry: Vec<u32> = sm.hungry_warps().collect();
        let mut fed = false;
        for id in hungry {
            let w = id as usize;
            if host.blocked[w] {
                continue;
            }
            fed |= feed(sm, host, w, prep, ext)?;
        }
        let before = (sm.cycle(), sm.instructions_issued());
        match sm.run_until_idle(host)? {
            sim_core::Progress::Done => return Ok(()),
            sim_core::Progress::Waiting | sim_core::Progress::Reached => {
                // Stuck: nothing fed, issued or released, and no time passed.
                let still = (sm.cycle(), sm.instructions_issued()) == before;
                if still && !fed && host.released.is_empty() && sm.pending_externals() == 0 {
                    let waiting: Vec<u32> = mine
                        .iter()
                        .filter(|&&w| host.blocked[w])
                        .map(|&w| w as u32)
                        .collect();
                    return Err(KernelError::Deadlock {
                        cta: [0; 3],
                        waiting,
                        running: Vec::new(),
                    });
                }
            }
        }
    }
}

/// Pushes warp `w`'s next steps, up to and including a barrier; closes it
/// at its end. Returns whether anything was pushed or closed.
fn feed(
    sm: &mut Sm,
    host: &mut Host<'_>,
    w: usize,
    prep: &Prepared<'_>,
    ext: &[Option<Kind>],
) -> Result<bool, KernelError> {
    let steps = &host.order[w];
    let start = host.pos[w];
    if start == usize::MAX {
        return Ok(false);
    }
    if start >= steps.len() {
        if !sm.warp_waiting(w as u32) {
            return Ok(false);
        }
        sm.close_warp(w as u32)?;
        host.pos[w] = usize::MAX;
        return Ok(true);
    }
    let mut prev = start.checked_sub(1).map(|k| steps[k].stmt);
    for s in &host.order[w][start..] {
        host.pos[w] += 1;
        // A loop's back-edge taken: the next step is at or before it (its
        // exit goes on after it, though loads moved up there come first).
        match prev {
            Some(b) if s.stmt <= b && is_back_edge(prep, b) => {
                sm.push_branch_target(w as u32, s.stmt)?
            }
            _ => sm.push_instruction(w as u32, s.stmt)?,
        }
        prev = Some(s.stmt);
        if let Some(kind) = ext[s.stmt as usize] {
            let e = if is_barrier(prep, s.stmt) {
                Ext::Barrier
            } else if let Some(access) = s.access {
                Ext::Mem { access, kind }
            } else {
                Ext::Clock
            };
            host.queue[w].push_back(e);
            if let Ext::Barrier = e {
                host.blocked[w] = true;
                break;
            }
        }
        if host.pos[w] - start >= 256 {
            break;
        }
    }
    Ok(true)
}
