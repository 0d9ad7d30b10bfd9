//! One warp's functional execution, a few statements ahead of its timing:
//! SIMT control flow (a reconvergence stack, as GPGPU-Sim's), values
//! exact, and the executed statements handed on in the order the machine
//! code issues them ([`crate::reorder`]).
//!
//! Reconvergence policy: each warp keeps a stack of `(pc, reconvergence pc,
//! lanes)`. A branch whose lanes disagree sets the top entry to continue at
//! the branch's immediate post-dominator with all its lanes, then pushes
//! the fall-through lanes and the taken lanes (which run first), both
//! ending at that post-dominator. An entry whose pc reaches its
//! reconvergence pc is popped; `ret`/`exit` remove their lanes from every
//! entry.
//!
//! A warp stops executing at a barrier (until its block's live warps have
//! all reached it) and before a clock read (whose value is the cycle the
//! timing model issues it: [`Warp::read_clock`]).

mod bare;
mod mem;

use super::calls::{self, unsupported};
use super::code::{Code, Follow, Stmt};
use super::preload::Preloaded;
use super::slab::{Lent, Slab};
use crate::error::KernelError;
use crate::exec::Step;
use crate::memory::WarpMem;
use crate::reconv::{diverge, exit_lanes, pop_done, Entry};
use crate::reorder::{self, Scheduler};
use crate::tap::Log;
use sim_isa::exec::{bar_red_deliver, bar_red_share, execute_prepared, BarRedShare};
use sim_isa::{db, ExecCtx, Op, WarpRegs};
use sim_module::{ControlOp, StatementKind};
use std::collections::VecDeque;

/// Where a warp's functional execution stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Executing.
    Run,
    /// Executed a barrier that its block has not opened yet.
    AtBarrier,
    /// Stopped before a clock read, which runs when it issues.
    Clock,
    /// Stopped at a global atomic, which runs at the epoch's end
    /// ([`Warp::run_atomic`]), or at a `malloc`/`free`, served then.
    Atomic,
    /// Every lane exited.
    Exited,
}

/// What timing does with an instruction the host owns, in issue order.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ext {
    /// A memory access: its addresses in the warp's slab, its kind.
    Mem(u32, crate::memtime::Kind),
    /// A barrier.
    Barrier,
    /// A clock read (executed when it issues).
    Clock,
    /// A memory instruction whose lanes were all off: no access.
    Nothing,
}

/// One warp of a resident block.
pub(crate) struct Warp {
    /// Lanes that exist.
    pub lanes: u32,
    stack: Vec<Entry>,
    pub regs: WarpRegs,
    /// Local memory of its 32 lanes.
    pub local: Vec<Vec<u8>>,
    pub ctx: ExecCtx,
    pub state: State,
    /// Fed up to a barrier that timing has not released.
    pub tblocked: bool,
    /// Barriers it has issued.
    pub tbar: u32,
    /// The open stretch of straight-line steps (see `reorder`).
    stretch: Vec<Step>,
    /// Steps in issue order, not yet given to the SM.
    pub out: VecDeque<Step>,
    /// External instructions given to the SM and not yet issued.
    pub exts: VecDeque<Ext>,
    /// Addresses of memory steps not yet issued, by slot.
    slab: Slab,
    /// The last statement given to the SM (a back-edge's target follows it).
    pub prev: Option<u32>,
    /// The SM was told no more will come.
    pub closed: bool,
    /// Its steps go to an SM model (not on an SM that `--sample` runs
    /// functionally).
    pub timed: bool,
    /// The recording cursor (replay) or log (record), if any.
    pub follow: Option<Follow>,
    pub log: Option<Box<Log>>,
    /// The clock read it stopped at has issued and is a memory instruction,
    /// which runs as the warp next executes (it needs the block's memory).
    clock_mem: bool,
    /// At a `bar.red`: its statement, the lanes that arrived and their
    /// share of the reduction, delivered when the block opens the barrier.
    pub red: Option<(usize, u32, BarRedShare)>,
    /// Members of a merged group read at its leader (`preload`).
    pre: Preloaded,
    /// A bare warp's last address of each global load, with its statement
    /// (an entry a load, `WordAccess::ahead`: `prefetch_next`).
    ahead: [(u32, u64); super::shload::LOADS_KEPT],
    /// The shapes of base registers a bare warp's word accesses found in
    /// its current straight line (`WordAccess::base_back`).
    shapes: super::shload::Shapes,
}

/// What a warp's execution uses besides the warp: the kernel, its memory,
/// the launch's instruction count and limit, the reordering scratch.
pub(crate) struct Env<'e, 'c, 'm> {
    pub code: &'e Code<'c>,
    pub mem: &'e mut WarpMem<'m>,
    pub count: &'e mut u64,
    pub limit: u64,
    pub sc: &'e mut Scheduler,
    /// Global atomics wait for the epoch's end.
    pub defer: bool,
    /// Where `printf` output goes (the SM's, for the epoch).
    pub printf: &'e mut crate::printf::Sink,
    /// An untimed warp's block's L2 sectors (`--sample`).
    pub notes: &'e mut crate::memtime::L2Notes,
}

impl Env<'_, '_, '_> {
    /// Counts one executed statement against the limit.
    fn tick(&mut self) -> Result<(), KernelError> {
        *self.count += 1;
        if *self.count > self.limit {
            return Err(KernelError::InstructionLimit {
                limit: self.limit,
                waiting: Vec::new(),
            });
        }
        Ok(())
    }
}

/// Steps a feed aims to have ready before it stops executing.
pub(crate) const AHEAD: usize = 32;

impl Warp {
    pub fn new(nregs: usize, local: u64, lanes: u32, ctx: ExecCtx, log: bool) -> Warp {
        // Lanes are the low bits: only those that exist get local memory.
        let n = if local == 0 {
            0
        } else {
            lanes.count_ones() as usize
        };
        Warp {
            lanes,
            stack: vec![Entry {
                pc: 0,
                rpc: usize::MAX,
                mask: lanes,
            }],
            regs: WarpRegs::new(nregs),
            local: vec![vec![0u8; local as usize]; n],
            ctx,
            state: State::Run,
            tblocked: false,
            tbar: 0,
            // Its full size at once (a stretch is flushed there): grown a
            // push at a time it was seven reallocations a warp.
            stretch: Vec::with_capacity(reorder::WINDOW),
            out: VecDeque::new(),
            exts: VecDeque::new(),
            slab: Slab::default(),
            prev: None,
            closed: false,
            timed: true,
            follow: None,
            clock_mem: false,
            pre: Preloaded::default(),
            ahead: [(u32::MAX, 0); super::shload::LOADS_KEPT],
            shapes: Default::default(),
            red: None,
            log: log.then(Box::default),
        }
    }

    /// Starts the warp afresh (a block slot reused): as [`Warp::new`], in
    /// the allocations it has.
    pub fn reset(&mut self, local: u64, lanes: u32, ctx: ExecCtx, log: bool) {
        self.lanes = lanes;
        self.stack.clear();
        self.stack.push(Entry {
            pc: 0,
            rpc: usize::MAX,
            mask: lanes,
        });
        for r in 0..self.regs.len() {
            *self.regs.get_mut(sim_isa::RegId(r as u32)) = [0; sim_isa::WARP_SIZE];
        }
        let n = if local == 0 {
            0
        } else {
            lanes.count_ones() as usize
        };
        self.local.resize_with(n, Vec::new);
        for l in &mut self.local {
            l.clear();
            l.resize(local as usize, 0);
        }
        self.ctx = ctx;
        self.state = State::Run;
        self.red = None;
        self.tblocked = false;
        self.tbar = 0;
        self.stretch.clear();
        self.out.clear();
        self.exts.clear();
        self.slab.clear();
        self.prev = None;
        self.closed = false;
        self.timed = true;
        self.follow = None;
        self.log = log.then(Box::default);
        // As new: a block's warps may be made in another's (`sample::make`).
        self.clock_mem = false;
        self.pre = Preloaded::default();
    }

    /// Frees slot `k` and lends its addresses, unpacked, for one last look.
    #[inline(always)]
    pub fn take_access(&mut self, k: u32) -> Lent<'_> {
        self.slab.take(k)
    }

    /// Slot `acc` (if any) kept for timing if the statement (its record
    /// `st`) is one it asks about (not `ld.param`, which the SM runs
    /// itself), else freed.
    fn keep_access(&mut self, st: &Stmt, acc: Option<u32>) -> Option<u32> {
        let k = acc?;
        if st.ext.is_some() {
            return Some(k);
        }
        self.slab.free(k);
        None
    }

    /// Hands step `s` on: dead steps issue nothing; the rest gather into
    /// stretches that go out reordered (as `reorder::reorder` would order
    /// the whole record).
    // Always: at its call sites' frequency its own frame cost 16 Ir a step.
    #[inline(always)]
    fn emit(&mut self, code: &Code<'_>, sc: &mut Scheduler, s: Step) {
        self.emit_at(code, &code.at[s.stmt as usize], sc, s);
    }

    /// [`Warp::emit`] with the step's statement record at hand (`st`).
    #[inline(always)]
    fn emit_at(&mut self, code: &Code<'_>, st: &Stmt, sc: &mut Scheduler, s: Step) {
        if st.dead || !self.timed {
            if let Some(k) = s.access {
                self.slab.free(k);
            }
            return;
        }
        self.emit_live(code, st, sc, s);
    }

    /// [`Warp::emit_at`] for a step that is timed: it is live and its
    /// warp timed.
    #[inline(always)]
    fn emit_live(&mut self, code: &Code<'_>, st: &Stmt, sc: &mut Scheduler, s: Step) {
        if st.fence {
            self.flush(code, sc);
            self.out.push_back(s);
            return;
        }
        if self.stretch.first().is_some_and(|f| f.lanes != s.lanes) {
            self.flush(code, sc);
        }
        self.stretch.push(s);
        if self.stretch.len() >= reorder::WINDOW {
            self.flush(code, sc);
        }
    }

    #[inline(never)]
    fn flush(&mut self, code: &Code<'_>, sc: &mut Scheduler) {
        if !self.stretch.is_empty() {
            sc.schedule_into(&code.deps, &self.stretch, &mut self.out);
            self.stretch.clear();
        }
    }

    /// Executes until `AHEAD` steps are ready or it stops (barrier, clock
    /// read, exit). Counts each statement in `count`, failing past `limit`.
    pub fn run(&mut self, env: &mut Env<'_, '_, '_>) -> Result<(), KernelError> {
        // Addresses are for timing and recordings (`timed` is set as its
        // block is dealt, after `reset`).
        self.slab.keeps = self.timed || self.log.is_some();
        if self.clock_mem {
            self.clock_mem = false;
            self.run_clock_mem(env)?;
        }
        if !self.timed && self.log.is_none() && self.follow.is_none() {
            self.run_untimed(env)?;
        }
        while self.state == State::Run && self.out.len() < AHEAD {
            if self.follow.is_some() {
                self.follow_step(env)?;
            } else {
                self.step(env)?;
            }
        }
        if self.state != State::Run {
            self.flush(env.code, env.sc);
        }
        Ok(())
    }

    /// One statement, control flow from the stack.
    // Always: called from both loops, it stays in line in the timed one.
    #[inline(always)]
    fn step(&mut self, env: &mut Env<'_, '_, '_>) -> Result<(), KernelError> {
        let code = env.code;
        let Some(&top) = self.stack.last() else {
            self.state = State::Exited;
            return Ok(());
        };
        // A record per statement: past the last, these lanes fell off the
        // end and are done.
        let Some(st) = code.at.get(top.pc) else {
            exit_lanes(&mut self.stack, top.mask);
            return Ok(());
        };
        env.tick()?;
        let mut step = Step {
            stmt: top.pc as u32,
            lanes: 0,
            access: None,
        };
        let mut next = top.pc + 1;
        if st.plain {
            return self.run_plain(env, top, st);
        }
        if st.member {
            // A merged group's member (a shared load, so no clock read,
            // barrier or atomic): read at its leader, it writes its word
            // and issues nothing (it is dead), without the kind asked.
            step.lanes = st.lanes(&self.regs, top.mask);
            let pre = code.preload_tables();
            if self.pre.take(pre, top.pc, top.mask, &mut self.regs) {
                self.record(step, None);
                self.emit_at(code, st, env.sc, step);
                self.advance(next);
                return Ok(());
            }
        }
        if st.mem && !st.clock {
            // Only an instruction executes through a memory (`Code::new`):
            // its kind need not be asked.
            step.lanes = st.lanes(&self.regs, top.mask);
            return self.mem_step(env, top, st, step);
        }
        let s = &code.prep.body.statements[top.pc];
        match &s.kind {
            StatementKind::Instruction(_) => {
                step.lanes = st.lanes(&self.regs, top.mask);
                if st.clock {
                    // Runs when it issues (`read_clock`).
                    self.record(step, None);
                    self.emit(code, env.sc, step);
                    self.state = State::Clock;
                    return Ok(());
                }
                if st.barrier && step.lanes != 0 {
                    self.arrive(code, top.pc, step.lanes);
                    self.record(step, None);
                    self.emit(code, env.sc, step);
                    self.advance(next);
                    self.state = if self.stack.is_empty() {
                        State::Exited
                    } else {
                        State::AtBarrier
                    };
                    return Ok(());
                } else {
                    self.record(step, None);
                    self.exec_alu(code, top.pc, top.mask);
                }
            }
            StatementKind::Control(c) => {
                let lanes = st.lanes(&self.regs, top.mask);
                step.lanes = lanes;
                self.record(step, None);
                match &c.op {
                    ControlOp::Bra { label, .. } => {
                        let target = code.prep.body.labels[*label].target;
                        if lanes == top.mask {
                            next = target;
                        } else if lanes != 0 {
                            let r = code.prep.reconv[top.pc];
                            diverge(&mut self.stack, top, target, lanes, r);
                            self.emit(code, env.sc, step);
                            pop_done(&mut self.stack);
                            return Ok(());
                        }
                    }
                    ControlOp::Ret { .. } | ControlOp::Exit => {
                        self.emit(code, env.sc, step);
                        exit_lanes(&mut self.stack, lanes);
                        if let Some(t) = self.stack.last_mut() {
                            if t.pc == top.pc {
                                t.pc = next;
                            }
                        }
                        pop_done(&mut self.stack);
                        return Ok(());
                    }
                    // `malloc`/`free`: served at the epoch's end, as a
                    // deferred atomic runs (`crate::heap` says why).
                    ControlOp::Call { .. } if lanes != 0 && calls::is_heap_call(s) => {
                        self.emit(code, env.sc, step);
                        self.state = State::Atomic;
                        return Ok(());
                    }
                    // A call that stays a call, or `trap`; guarded off in
                    // every lane, nothing happens.
                    ControlOp::Call { .. } | ControlOp::Trap => {
                        if lanes != 0 {
                            let (regs, ctx) = (&mut self.regs, &self.ctx);
                            let parts = (code, &mut *env.mem, &mut *env.printf);
                            calls::call_or_trap(regs, ctx, parts, &c.op, lanes, s)?;
                        }
                    }
                }
            }
            StatementKind::Unimplemented(u) => {
                return Err(unsupported(code, u.opcode.clone(), s.pos))
            }
        }
        self.emit(code, env.sc, step);
        self.advance(next);
        Ok(())
    }

    /// A memory statement that reads no clock, at the stack's `top` (its
    /// record `st`, `step` its lanes): its values now, its addresses kept
    /// for timing; a global atomic while other SMs run stops the warp
    /// until the epoch's end.
    // Always: a call of its own in the timed loop since the bare one
    // (`run_untimed`) calls `step` too.
    #[inline(always)]
    fn mem_step(
        &mut self,
        env: &mut Env<'_, '_, '_>,
        top: Entry,
        st: &Stmt,
        mut step: Step,
    ) -> Result<(), KernelError> {
        let code = env.code;
        let atomic = st.ext == Some(crate::memtime::Kind::Atomic);
        if env.defer && step.lanes != 0 && atomic {
            if let Some(k) = self.defer_atomic(code.inst[top.pc].as_ref(), top.mask, env.mem)? {
                self.record(step, Some(k));
                step.access = Some(k);
                self.emit_at(code, st, env.sc, step);
                self.state = State::Atomic;
                return Ok(());
            }
        }
        let acc = self.exec_or_preloaded(env, st, top.pc, top.mask)?;
        self.record(step, acc);
        step.access = self.keep_access(st, acc);
        self.emit_at(code, st, env.sc, step);
        self.advance(top.pc + 1);
        Ok(())
    }

    /// Most statements: no memory, clock or barrier (the `Instruction`
    /// arm of `step`, without asking the kind), from the stack's `top`
    /// (its statement `st`, counted) on to the next that is not one, to
    /// `top`'s reconvergence point or until `AHEAD` steps are ready. None
    /// of them changes the warp's state, its stack or whether it replays,
    /// so the loop keeps its place in a local and asks none of those per
    /// statement: the stack's top is written once, at the end.
    #[inline(always)]
    fn run_plain<'e>(
        &mut self,
        env: &mut Env<'e, '_, '_>,
        top: Entry,
        mut st: &'e Stmt,
    ) -> Result<(), KernelError> {
        let code = env.code;
        let mut pc = top.pc;
        loop {
            let mut step = Step {
                stmt: pc as u32,
                lanes: 0,
                access: None,
            };
            if st.dead || !self.timed {
                // Nothing to time (`emit_at`), so no lanes to find but a
                // recording's (before it runs: it may write its guard).
                if self.log.is_some() {
                    step.lanes = st.lanes(&self.regs, top.mask);
                    self.log_step(step, None);
                }
                self.exec_alu(code, pc, top.mask);
            } else {
                step.lanes = st.lanes(&self.regs, top.mask);
                self.record(step, None);
                self.exec_alu(code, pc, top.mask);
                self.emit_live(code, st, env.sc, step);
            }
            pc += 1;
            // Where `advance` would pop the entry (its reconvergence point,
            // or no lanes left), the step loop takes over.
            if pc == top.rpc || top.mask == 0 || self.out.len() >= AHEAD {
                break;
            }
            match code.at.get(pc) {
                Some(s) if s.plain => st = s,
                _ => break,
            }
            if let Err(e) = env.tick() {
                self.advance(pc);
                return Err(e);
            }
        }
        self.advance(pc);
        Ok(())
    }

    /// One recorded step (a replay): the statement and lanes come from the
    /// recording, loads are answered from it, addresses checked against it.
    fn follow_step(&mut self, env: &mut Env<'_, '_, '_>) -> Result<(), KernelError> {
        let code = env.code;
        let Some(f) = self.follow.as_mut() else {
            return Ok(());
        };
        let Some((stmt, lanes)) = f.next_step() else {
            self.state = State::Exited;
            return Ok(());
        };
        env.tick()?;
        let pc = stmt as usize;
        let s = &code.prep.body.statements[pc];
        let st = &code.at[pc];
        let mut step = Step {
            stmt,
            lanes,
            access: None,
        };
        if lanes != 0 && calls::is_heap_call(s) {
            // Served at the epoch's end as in the recorded run.
            self.emit(code, env.sc, step);
            self.state = State::Atomic;
            return Ok(());
        }
        if let StatementKind::Instruction(_) = &s.kind {
            if st.clock {
                self.emit(code, env.sc, step);
                self.state = State::Clock;
                return Ok(());
            }
            let atomic = st.ext == Some(crate::memtime::Kind::Atomic);
            if env.defer && lanes != 0 && atomic {
                // Stops as the recorded run's warp did (the same timing).
                if let Some(k) = self.defer_atomic(code.inst[pc].as_ref(), lanes, env.mem)? {
                    if let Some(f) = self.follow.as_mut() {
                        f.check_access(Some(&self.slab.scratch), &s.text)?;
                    }
                    step.access = Some(k);
                    self.emit(code, env.sc, step);
                    self.state = State::Atomic;
                    return Ok(());
                }
            }
            if st.mem {
                let acc = self.exec_mem(code, pc, lanes, env.mem)?;
                if let Some(f) = self.follow.as_mut() {
                    // The slot's addresses are still the scratch's.
                    f.check_access(acc.map(|_| &self.slab.scratch), &s.text)?;
                }
                step.access = self.keep_access(st, acc);
            } else if st.barrier && lanes != 0 {
                // At the barrier even when it is the last recorded step
                // (as a free-running warp): its block counts it there.
                self.arrive(code, pc, lanes);
                self.emit(code, env.sc, step);
                self.state = State::AtBarrier;
                return Ok(());
            } else {
                self.exec_alu(code, pc, lanes);
            }
        }
        if let StatementKind::Unimplemented(u) = &s.kind {
            return Err(unsupported(code, u.opcode.clone(), s.pos));
        }
        self.emit(code, env.sc, step);
        Ok(())
    }

    #[inline(always)]
    fn exec_alu(&mut self, code: &Code<'_>, pc: usize, mask: u32) {
        if let Some(p) = &code.exec[pc] {
            execute_prepared(p, &self.ctx, &mut self.regs, mask);
        }
    }

    /// Runs the clock read the warp stopped at, reading `cycle`.
    pub fn read_clock(&mut self, code: &Code<'_>, cycle: u64) {
        if self.state != State::Clock {
            return;
        }
        self.ctx.thread.clock = cycle;
        if let Some(l) = self.log.as_mut() {
            l.clocks.push(cycle);
        }
        let at = self.stopped_at();
        if at.is_some_and(|(pc, _)| code.at.get(pc).is_some_and(|s| s.mem)) {
            // `st [a], %clock`: the value is this cycle's, the access
            // waits for the block's memory (`run_clock_mem`). Its issue was
            // the clock read's, so its addresses are not timed again.
            self.clock_mem = true;
            self.state = State::Run;
            return;
        }
        if let Some((pc, lanes)) = at {
            self.exec_alu(code, pc, lanes);
            self.pass_stop(pc);
        }
        self.state = if self.done() {
            State::Exited
        } else {
            State::Run
        };
    }

    /// Runs the memory instruction whose clock read issued (see
    /// [`Self::read_clock`]) with the clock it read, and goes on past it.
    fn run_clock_mem(&mut self, env: &mut Env<'_, '_, '_>) -> Result<(), KernelError> {
        if let Some((pc, lanes)) = self.stopped_at() {
            // Timed as the clock read issued.
            let acc = match self.exec_word(&env.code.at[pc], lanes, env.mem) {
                Some(acc) => acc,
                None => self.exec_mem(env.code, pc, lanes, env.mem)?,
            };
            if let Some(k) = acc {
                self.slab.free(k);
            }
            self.pass_stop(pc);
        }
        if self.done() {
            self.state = State::Exited;
        }
        Ok(())
    }

    /// The statement the warp stopped at (a clock read, a deferred atomic)
    /// and its lanes: the recorded step of a replay, else the stack's top.
    fn stopped_at(&self) -> Option<(usize, u32)> {
        match self.follow.as_ref().map(Follow::current) {
            Some((stmt, lanes)) => Some((stmt as usize, lanes)),
            None => self.stack.last().map(|t| (t.pc, t.mask)),
        }
    }

    /// Goes on past statement `pc`, where it stopped (a replay's cursor
    /// already has).
    fn pass_stop(&mut self, pc: usize) {
        if self.follow.is_none() {
            self.advance(pc + 1);
        }
    }

    fn done(&self) -> bool {
        match &self.follow {
            Some(f) => !f.has_more(),
            None => self.stack.is_empty(),
        }
    }

    /// Arrives at the barrier `pc` with `lanes`: a `bar.red` keeps their
    /// share of its reduction for the block to add up.
    fn arrive(&mut self, code: &Code<'_>, pc: usize, lanes: u32) {
        let red = code.inst[pc]
            .as_ref()
            .filter(|i| db::barrier_reduction(i).is_some());
        self.red = red.and_then(|i| {
            let Op::Warp(w) = &i.op else { return None };
            Some((pc, lanes, bar_red_share(w, &self.regs, lanes)))
        });
    }

    /// Leaves the barrier its block opened; a `bar.red` writes `total`,
    /// the block's reduction, to its destination.
    pub fn pass_barrier(&mut self, code: &Code<'_>, total: BarRedShare) {
        if self.state == State::AtBarrier {
            if let Some((pc, lanes, _)) = self.red.take() {
                if let Some(sim_isa::Instruction {
                    op: Op::Warp(w), ..
                }) = &code.inst[pc]
                {
                    bar_red_deliver(w, &mut self.regs, lanes, total);
                }
            }
            self.state = State::Run;
        }
    }

    // Always, as `emit`: at the step loop's call sites it was a call of
    // its own; what pops is out of line.
    #[inline(always)]
    fn advance(&mut self, next: usize) {
        if let Some(t) = self.stack.last_mut() {
            t.pc = next;
            // `pop_done`'s test of the top, which mostly pops nothing.
            if t.pc != t.rpc && t.mask != 0 {
                return;
            }
        }
        self.pop_done();
    }

    #[inline(never)]
    fn pop_done(&mut self) {
        pop_done(&mut self.stack);
    }

    /// Logs `step` and the addresses in slot `acc` (if any), recording:
    /// the test in line at each step, the log out of line.
    #[inline(always)]
    fn record(&mut self, step: Step, acc: Option<u32>) {
        if self.log.is_some() {
            self.log_step(step, acc);
        }
    }

    #[cold]
    #[inline(never)]
    fn log_step(&mut self, step: Step, acc: Option<u32>) {
        if let Some(l) = self.log.as_mut() {
            if let Some(k) = acc {
                l.accesses.push((l.steps.len() as u32, self.slab.get(k)));
            }
            l.steps.push((step.stmt, step.lanes));
        }
    }
}
