//! The engine's host side of the SM model: resident blocks and their
//! warps, feeding executed statements to the SM, and the instructions the
//! host owns in timing (memory accesses, barriers, clock reads).

use super::code::{Code, Stmt};
use super::slab::Lent;
use super::warp::{Ext, State, Warp};
use crate::error::KernelError;
use crate::exec::Step;
use crate::memory::{Global, GlobalView, WarpMem};
use crate::memtime::{Gpu, SmMem};
use crate::overlay::Overlay;
use sim_core::{Completion, External, ExternalRequest, Sm};
use sim_isa::exec::BarRedShare;
use std::collections::VecDeque;

/// A resident block.
pub(crate) struct Block {
    /// Linear index in the grid.
    pub cta: u32,
    pub sm: u32,
    pub shared: Vec<u8>,
    pub warps: Vec<Warp>,
    /// Warps not yet exited (functionally), and of those at the barrier.
    fn_live: u32,
    fn_wait: u32,
    /// Per barrier generation from `tbase`: warps expected (known once it
    /// opened functionally) and warps whose barrier issued.
    expected: VecDeque<u32>,
    arrived: VecDeque<u32>,
    tbase: u32,
    /// Warps the SM has retired.
    pub retired: u32,
    /// The cycle it became resident.
    pub start: u64,
    /// Its place in the order blocks were dealt to its SM (`--sample`
    /// matches an untimed SM's blocks to its timed partner's by it).
    pub seq: u32,
    /// On an SM run functionally (`--sample`): the first epoch after
    /// which it had run to its end, and the cycle its residency is
    /// modelled to end, once known.
    pub fn_end: Option<u64>,
    pub done_at: Option<u64>,
    /// Warp-instructions its warps executed (functionally).
    pub exec: u64,
    /// On an SM run functionally: the L2 sectors it touched.
    pub notes: crate::memtime::L2Notes,
    /// Dealt to an SM run functionally and not run yet: its warps and
    /// shared memory are made when it first runs (`sample::make`).
    pub unmade: bool,
}

/// How the launch's warps start, so that an untimed block's can be made
/// when it first runs rather than when it is dealt.
#[derive(Clone, Copy)]
pub(crate) struct Fresh {
    pub target: sim_isa::Target,
    /// The launch's thread context (`ctaid`, `smid` and `first_thread`
    /// are each warp's own).
    pub thread: sim_isa::ThreadCtx,
    pub threads: u64,
    pub wpb: u32,
    pub nregs: usize,
    /// Bytes of local memory a thread.
    pub local: u64,
}

impl Fresh {
    /// The lanes warp `w` of a block has.
    pub fn lanes(&self, w: u32) -> u32 {
        let n = self.threads.saturating_sub(u64::from(w) * 32).min(32) as u32;
        if n == 32 {
            u32::MAX
        } else {
            (1u32 << n) - 1
        }
    }

    /// Warp `w` of block `cta` on SM `sm`.
    pub fn ctx(&self, cta: u32, sm: u32, w: u32) -> sim_isa::ExecCtx {
        let [gx, gy, _] = self.thread.nctaid;
        sim_isa::ExecCtx {
            target: self.target,
            warp_id: w,
            thread: sim_isa::ThreadCtx {
                first_thread: w * 32,
                ctaid: [cta % gx, cta / gx % gy, cta / (gx * gy)],
                smid: sm,
                ..self.thread
            },
        }
    }
}

impl Block {
    /// `shared`: the initial image, zero-extended to `size` bytes.
    pub fn new(cta: u32, sm: u32, mut shared: Vec<u8>, size: u64, warps: Vec<Warp>) -> Block {
        shared.resize(size as usize, 0);
        let notes = crate::memtime::L2Notes::for_warps(warps.len());
        Block {
            cta,
            sm,
            shared,
            fn_live: warps.len() as u32,
            fn_wait: 0,
            warps,
            expected: VecDeque::new(),
            arrived: VecDeque::new(),
            tbase: 0,
            retired: 0,
            start: 0,
            seq: 0,
            fn_end: None,
            done_at: None,
            exec: 0,
            notes,
            unmade: false,
        }
    }

    /// Block `cta` dealt to SM `sm`, run functionally: its `wpb` warps and
    /// its shared memory are made when it first runs (`sample::make`).
    /// Blocks are dealt while they are held for their residency, long
    /// after they ran to their end, and an SM runs one at a time: made
    /// then and given back at their end, an SM's blocks run in one
    /// block's storage, kept warm in the cache, not in all of theirs.
    pub fn new_unmade(cta: u32, sm: u32, wpb: u32) -> Block {
        let mut b = Block::new(cta, sm, Vec::new(), 0, Vec::new());
        b.notes = crate::memtime::L2Notes::for_warps(wpb as usize);
        b.fn_live = wpb;
        b.unmade = true;
        b
    }

    /// Starts the block afresh as block `cta` on SM `sm` (a slot reused).
    pub fn reset(&mut self, cta: u32, sm: u32, shared: &[u8], size: u64) {
        self.cta = cta;
        self.sm = sm;
        self.shared.clear();
        self.shared.extend_from_slice(shared);
        self.shared.resize(size as usize, 0);
        self.fn_live = self.warps.len() as u32;
        self.fn_wait = 0;
        self.expected.clear();
        self.arrived.clear();
        self.tbase = 0;
        self.retired = 0;
        self.fn_end = None;
        self.done_at = None;
        self.exec = 0;
        self.notes.clear();
        self.unmade = false;
    }

    /// Starts the block afresh as [`Block::new_unmade`] (a slot of an SM run
    /// functionally reused: its warps were given back at its end).
    pub fn reset_unmade(&mut self, cta: u32, sm: u32, wpb: u32) {
        self.reset(cta, sm, &[], 0);
        self.fn_live = wpb;
        self.unmade = true;
    }

    /// Every warp has exited (functionally).
    pub fn fn_done(&self) -> bool {
        self.fn_live == 0
    }

    /// After warp states changed: opens the barrier if every live warp
    /// waits at it. A `bar.red`'s result is the sum of the shares of the
    /// warps waiting (integer counts: exact, and the same in any order).
    fn check_open(&mut self, code: &Code<'_>) {
        if self.fn_wait > 0 && self.fn_wait == self.fn_live {
            self.expected.push_back(self.fn_wait);
            self.fn_wait = 0;
            let total = self
                .warps
                .iter()
                .filter(|w| w.state == State::AtBarrier)
                .filter_map(|w| w.red.map(|r| r.2))
                .fold(BarRedShare::default(), BarRedShare::add);
            for w in &mut self.warps {
                w.pass_barrier(code, total);
            }
        }
    }

    /// Releases (in timing) every barrier whose expected warps all issued
    /// it; the released warps go to `to_feed`.
    fn check_release(&mut self, slot: u32, wpb: u32, to_feed: &mut Vec<u32>) {
        while let (Some(&e), Some(&a)) = (self.expected.front(), self.arrived.front()) {
            if a < e {
                break;
            }
            self.expected.pop_front();
            self.arrived.pop_front();
            self.tbase += 1;
            for (w, warp) in self.warps.iter_mut().enumerate() {
                if warp.tblocked && warp.tbar == self.tbase {
                    warp.tblocked = false;
                    to_feed.push(slot * wpb + w as u32);
                }
            }
        }
    }
}

/// What every SM reads during an epoch and none changes.
pub(crate) struct Shared<'c, 'p> {
    pub code: &'c Code<'p>,
    /// The global space as the epoch began.
    pub global: &'c Global,
    pub gpu: &'c Gpu,
    pub wpb: u32,
    /// Statements one SM may execute this epoch before the launch's
    /// instruction limit.
    pub limit: u64,
    /// The launch's instruction limit.
    pub max: u64,
    /// Global atomics wait for the epoch's end: the launch's blocks may
    /// run on more than one SM, and an atomic's result may depend on what
    /// another SM does to its word in the same epoch. Run at the epoch's
    /// end, in SM order, each sees all that came before it.
    pub defer: bool,
    /// The epoch's first cycle (a functional SM's clock reads).
    pub now: u64,
    /// How the launch's warps start.
    pub fresh: &'c Fresh,
    /// The most L2 notes a block run functionally has held at its end so
    /// far: the next blocks' notes are sized for it at once (their
    /// growth a push at a time left half of each block's notes unused
    /// and was most of the launch's page faults). Which SM sets it first
    /// changes their allocations only.
    pub notes_hint: &'c std::sync::atomic::AtomicUsize,
}

/// One SM's resident blocks and everything else its epoch changes.
#[derive(Default)]
pub(crate) struct SmState {
    /// Resident blocks by slot (a warp's id on the SM is `slot * wpb + warp`).
    pub blocks: Vec<Option<Block>>,
    /// Resident blocks.
    pub live: u32,
    /// It ran a block.
    pub used: bool,
    /// Finished blocks kept for reuse (their allocations), at most `keep`.
    pub spare: Vec<Block>,
    /// Run functionally: the warps and shared memory of blocks that ran
    /// to their end, for the next block to run (`sample::make`), at
    /// most `keep`.
    pub bodies: Vec<(Vec<Warp>, Vec<u8>)>,
    /// Its blocks' warps are made when they first run and given back at
    /// their end ([`Block::new_unmade`]): run functionally, neither
    /// recording nor replaying.
    pub lazy: bool,
    pub keep: usize,
    pub free_slots: Vec<u32>,
    pub mem: SmMem,
    /// Its writes to the global space this epoch.
    pub overlay: Overlay,
    /// Statements executed this epoch.
    pub executed: u64,
    /// Earliest and latest clock read.
    pub clock_span: Option<(u64, u64)>,
    /// Warps to feed when the SM returns (released from a barrier).
    pub to_feed: Vec<u32>,
    /// Warps released and not yet fed when its epoch ended.
    pub pending: Vec<u32>,
    /// Warps stopped at a global atomic, in the order they stopped.
    pub atomics: Vec<u32>,
    /// The first error met inside a timing callback.
    pub error: Option<KernelError>,
    /// Scratch of the reordering of straight-line stretches.
    pub sched: crate::reorder::Scheduler,
    /// Warps that retired this epoch, as recorded (when logging).
    pub logs: Vec<crate::rec::RecWarp>,
    /// Blocks that ended this epoch.
    pub ended: u64,
    /// Timed on the SM model (not run functionally by `--sample`).
    pub detail: bool,
    /// Blocks dealt to it so far.
    pub dealt: u32,
    /// Each timed block that ended this epoch: its place in the order of
    /// dealing ([`Block::seq`]) and the cycles it was resident.
    pub durations: Vec<(u32, u64)>,
    /// When its last functional block's residency ends.
    pub last_end: u64,
    /// Scratch of the SM's hungry and retired warps.
    pub hungry: Vec<u32>,
    pub retired: Vec<u32>,
    /// What its warps printed this epoch (`printf`).
    pub printf: crate::printf::Sink,
    /// `--timeline`: its blocks, warps and memory accesses (when asked).
    pub spans: Option<Box<crate::spans::SmTimeline>>,
    /// `--dump-regs`: the block whose warps' registers are kept as they
    /// retire, and those kept (warp, registers).
    pub dump_block: Option<u32>,
    pub dumped: Vec<(u32, sim_isa::WarpRegs)>,
    /// When it last went from no block to one, and what its blocks' and
    /// warps' residency added up to (achieved occupancy).
    pub active_since: u64,
    pub residency: crate::memstats::Residency,
    /// Global and local sectors per program instruction (`lines`'
    /// `sectors`), grown to the highest index that accessed memory.
    pub stmt_sectors: Vec<u64>,
}

/// The timing host of one SM for one epoch.
pub(crate) struct Host<'a, 'c, 'p> {
    pub sh: &'a Shared<'c, 'p>,
    pub st: &'a mut SmState,
}

impl SmState {
    fn split(wpb: u32, id: u32) -> (usize, usize) {
        ((id / wpb) as usize, (id % wpb) as usize)
    }

    /// Gives warp `id` its next statements: executes it as far as it may
    /// go, pushes what is ready, closes it at its end. Returns whether it
    /// pushed or closed anything.
    pub fn feed(&mut self, sh: &Shared<'_, '_>, sm: &mut Sm, id: u32) -> Result<bool, KernelError> {
        let (slot, w) = Self::split(sh.wpb, id);
        let code = sh.code;
        let Some((b, mut run, to_feed)) = self.running(slot) else {
            return Ok(false);
        };
        let Some(warp) = b.warps.get_mut(w) else {
            return Ok(false);
        };
        if warp.tblocked || warp.closed {
            return Ok(false);
        }
        if warp.state == State::Run && warp.out.len() < super::warp::AHEAD {
            b.run_warp(sh, w, id, &mut run)?;
        }
        let Some(warp) = b.warps.get_mut(w) else {
            return Ok(false);
        };
        let mut any = push(sm, id, warp, code)?;
        if warp.state == State::Exited && warp.out.is_empty() && !warp.tblocked {
            if let Some(f) = warp.follow.as_ref() {
                f.check_end()?;
            }
            sm.close_warp(id)?;
            warp.closed = true;
            any = true;
        }
        // An exit may complete a barrier the others have all issued.
        b.check_open(code);
        b.check_release(slot as u32, sh.wpb, to_feed);
        Ok(any)
    }

    /// Whether a block it runs functionally has not run to its end (a
    /// block dealt and not yet made has not): else an epoch has nothing
    /// to run on it.
    pub fn runnable(&self) -> bool {
        self.blocks.iter().flatten().any(|b| !b.fn_done())
    }

    /// Runs the warps of the block in `slot` functionally (`--sample`), as
    /// far as they go this epoch: until each exits or waits for a deferred
    /// atomic. A clock read returns the epoch's first cycle.
    pub fn run_functional(&mut self, sh: &Shared<'_, '_>, slot: usize) -> Result<(), KernelError> {
        let code = sh.code;
        let Some((b, mut run, _)) = self.running(slot) else {
            return Ok(());
        };
        loop {
            let mut moved = false;
            for w in 0..b.warps.len() {
                let warp = &mut b.warps[w];
                if warp.state == State::Clock {
                    warp.read_clock(code, sh.now);
                    if warp.state == State::Exited {
                        b.fn_live -= 1;
                    }
                    moved = true;
                }
                if b.warps[w].state != State::Run {
                    continue;
                }
                b.run_warp(sh, w, slot as u32 * sh.wpb + w as u32, &mut run)?;
                moved = true;
                b.check_open(code);
            }
            if !moved {
                return Ok(());
            }
        }
    }

    /// Runs the global atomics its warps stopped at this epoch, in order,
    /// on the global space itself (every SM's writes of the epoch are in
    /// it: SMs take their turn in SM order), and lets the warps go on.
    pub fn run_atomics(
        &mut self,
        code: &Code<'_>,
        global: &mut Global,
        wpb: u32,
    ) -> Result<(), KernelError> {
        for id in std::mem::take(&mut self.atomics) {
            let (slot, w) = Self::split(wpb, id);
            let Some(b) = self.blocks.get_mut(slot).and_then(Option::as_mut) else {
                continue;
            };
            let Some(warp) = b.warps.get_mut(w) else {
                continue;
            };
            let mut local = std::mem::take(&mut warp.local);
            let mut mem = WarpMem {
                global: GlobalView::Direct(global),
                consts: &code.prep.consts,
                params: &code.prep.params,
                shared: &mut b.shared,
                local: &mut local,
                vars: &code.prep.vars,
                one_word: false,
                broadcast: false,
            };
            let r = warp.run_atomic(code, &mut mem);
            warp.local = local;
            r?;
            if warp.state == State::Exited {
                b.fn_live -= 1;
                b.check_open(code);
                b.check_release(slot as u32, wpb, &mut self.to_feed);
            }
            self.pending.push(id);
        }
        Ok(())
    }
}

/// What running one of an SM's warps borrows of its state besides the
/// warp's block ([`SmState::running`]).
struct Running<'s> {
    overlay: &'s mut Overlay,
    executed: &'s mut u64,
    sched: &'s mut crate::reorder::Scheduler,
    printf: &'s mut crate::printf::Sink,
    /// Warps stopped at a global atomic (`SmState::atomics`).
    atomics: &'s mut Vec<u32>,
}

impl SmState {
    /// The block in `slot`, if resident, with what running its warps
    /// borrows and the warps to feed when the SM returns.
    fn running(&mut self, slot: usize) -> Option<(&mut Block, Running<'_>, &mut Vec<u32>)> {
        let SmState {
            blocks,
            overlay,
            executed,
            sched,
            to_feed,
            atomics,
            printf,
            ..
        } = self;
        let b = blocks.get_mut(slot)?.as_mut()?;
        let run = Running {
            overlay,
            executed,
            sched,
            printf,
            atomics,
        };
        Some((b, run, to_feed))
    }
}

impl Block {
    /// Runs its warp `w` (SM warp `id`, running) as far as it may go and
    /// counts where it stopped: at the barrier, exited, or at a global
    /// atomic (queued).
    #[inline]
    fn run_warp(
        &mut self,
        sh: &Shared<'_, '_>,
        w: usize,
        id: u32,
        run: &mut Running<'_>,
    ) -> Result<(), KernelError> {
        let Block {
            shared,
            warps,
            fn_live,
            fn_wait,
            exec,
            notes,
            ..
        } = self;
        let warp = &mut warps[w];
        // The block's count is the SM's less what other blocks executed.
        let before = *run.executed;
        notes.base = exec.wrapping_sub(before);
        let r = run_warp(sh, warp, shared, notes, run);
        *exec += run.executed.wrapping_sub(before);
        if let Err(e) = r {
            return Err(name_waiters(e, sh.max, warps));
        }
        match warp.state {
            State::AtBarrier => *fn_wait += 1,
            State::Exited => *fn_live -= 1,
            State::Atomic => run.atomics.push(id),
            State::Run | State::Clock => {}
        }
        Ok(())
    }
}

/// Runs `warp` as far as it may go (`Warp::run`) against its block's
/// shared memory and the SM's view of the global space.
fn run_warp(
    sh: &Shared<'_, '_>,
    warp: &mut Warp,
    shared: &mut [u8],
    notes: &mut crate::memtime::L2Notes,
    run: &mut Running<'_>,
) -> Result<(), KernelError> {
    let code = sh.code;
    // Lent to the memory while the warp runs (a move, not a copy).
    let mut local = std::mem::take(&mut warp.local);
    let mut mem = WarpMem {
        global: GlobalView::Layered(sh.global, run.overlay),
        consts: &code.prep.consts,
        params: &code.prep.params,
        shared,
        local: &mut local,
        vars: &code.prep.vars,
        one_word: false,
        broadcast: false,
    };
    let mut env = super::warp::Env {
        code,
        mem: &mut mem,
        count: run.executed,
        limit: sh.limit,
        sc: run.sched,
        defer: sh.defer,
        printf: run.printf,
        notes,
    };
    let r = warp.run(&mut env);
    warp.local = local;
    r
}

/// The instruction limit names the warps of the block that wait at a
/// barrier (a looping warp keeps them there).
fn name_waiters(e: KernelError, max: u64, warps: &[Warp]) -> KernelError {
    match e {
        KernelError::InstructionLimit { .. } => KernelError::InstructionLimit {
            limit: max,
            waiting: (0..warps.len() as u32)
                .filter(|&k| {
                    let w = &warps[k as usize];
                    w.state == State::AtBarrier || w.tblocked
                })
                .collect(),
        },
        e => e,
    }
}

/// Pushes the warp's ready steps to the SM, stopping after a barrier:
/// walked in place, handed to the SM as they are walked (no batch in
/// between), and drained once.
fn push(sm: &mut Sm, id: u32, warp: &mut Warp, code: &Code<'_>) -> Result<bool, KernelError> {
    let Warp {
        out,
        exts,
        prev,
        tblocked,
        ..
    } = warp;
    if out.is_empty() {
        return Ok(false);
    }
    let mut walk = Walk {
        steps: out.iter(),
        code,
        prev: *prev,
        exts,
        barrier: false,
        taken: 0,
    };
    let r = sm.push_executed_from(id, &mut walk);
    let taken = walk.taken;
    *prev = walk.prev;
    if walk.barrier {
        *tblocked = true;
    }
    out.drain(..taken);
    r?;
    Ok(true)
}

/// The steps [`push`] hands the SM, `(statement, lanes, after a
/// back-edge)` each: each noted as given (`prev`, its external kind in
/// `exts`), up to and including a barrier. The warp's `prev` and
/// `tblocked` are written once, after the walk, not at each step.
struct Walk<'a, 'c> {
    steps: std::collections::vec_deque::Iter<'a, Step>,
    code: &'a Code<'c>,
    /// The last statement walked (the warp's `prev`).
    prev: Option<u32>,
    exts: &'a mut VecDeque<Ext>,
    /// A barrier was walked (the warp is then `tblocked`): `steps` is
    /// emptied, nothing after it goes.
    barrier: bool,
    /// Steps walked.
    taken: usize,
}

impl Iterator for Walk<'_, '_> {
    type Item = (u32, u32, bool);

    #[inline]
    fn next(&mut self) -> Option<(u32, u32, bool)> {
        let s = self.steps.next()?;
        self.taken += 1;
        let code = self.code;
        let after = self
            .prev
            .is_some_and(|b| s.stmt <= b && code.at[b as usize].back_edge);
        self.prev = Some(s.stmt);
        let st = &code.at[s.stmt as usize];
        if let Some(kind) = st.ext {
            let e = ext_of(st, s, kind);
            self.exts.push_back(e);
            if let Ext::Barrier = e {
                self.barrier = true;
                self.steps = Default::default();
            }
        }
        Some((s.stmt, s.lanes, after))
    }
}

fn ext_of(st: &Stmt, s: &Step, kind: crate::memtime::Kind) -> Ext {
    if st.barrier && s.lanes != 0 {
        Ext::Barrier
    } else if st.barrier {
        // Guarded off in every lane: no barrier (as execution saw it).
        Ext::Nothing
    } else if st.clock {
        Ext::Clock
    } else if let Some(k) = s.access {
        Ext::Mem(k, kind)
    } else {
        Ext::Nothing
    }
}

impl External for Host<'_, '_, '_> {
    fn issue(&mut self, req: &ExternalRequest<'_>) -> Option<Completion> {
        self.issue_at(req).map(Completion::at)
    }

    /// Every warp here is an executed one: the SM asks for the clock only
    /// (no `Completion` of 64 lane values built and read per issue).
    fn issue_at(&mut self, req: &ExternalRequest<'_>) -> Option<u64> {
        let (sh, st) = (self.sh, &mut *self.st);
        let (slot, w) = SmState::split(sh.wpb, req.warp_id);
        let code = sh.code;
        let at = {
            let b = st.blocks.get_mut(slot).and_then(Option::as_mut)?;
            let warp = b.warps.get_mut(w)?;
            match warp.exts.pop_front()? {
                Ext::Mem(k, kind) => {
                    let before = st.mem.stats().l1.sectors;
                    let done = match warp.take_access(k) {
                        Lent::OneWave(lanes, bytes) => {
                            st.mem.shared_one_wave(sh.gpu, req.cycle, lanes, bytes)
                        }
                        Lent::Addrs(acc) => st.mem.access(sh.gpu, req.cycle, acc, kind),
                    };
                    let added = st.mem.stats().l1.sectors - before;
                    if added > 0 {
                        add_sectors(&mut st.stmt_sectors, req.index, added);
                    }
                    if let Some(t) = st.spans.as_mut() {
                        t.access(crate::spans::MemEvent {
                            cta: b.cta,
                            warp: w as u32,
                            stmt: req.index,
                            issue: req.cycle,
                            done,
                        });
                    }
                    done
                }
                Ext::Clock => {
                    warp.read_clock(code, req.cycle);
                    let (lo, hi) = st.clock_span.unwrap_or((req.cycle, req.cycle));
                    st.clock_span = Some((lo.min(req.cycle), hi.max(req.cycle)));
                    if warp.state == State::Exited {
                        b.fn_live -= 1;
                        b.check_open(code);
                        b.check_release(slot as u32, sh.wpb, &mut st.to_feed);
                    }
                    st.to_feed.push(req.warp_id);
                    req.cycle + 1
                }
                Ext::Barrier => {
                    let k = (warp.tbar - b.tbase) as usize;
                    warp.tbar += 1;
                    if b.arrived.len() <= k {
                        b.arrived.resize(k + 1, 0);
                    }
                    b.arrived[k] += 1;
                    b.check_release(slot as u32, sh.wpb, &mut st.to_feed);
                    req.cycle + 1
                }
                Ext::Nothing => req.cycle + 1,
            }
        };
        Some(at)
    }
}

/// Adds `n` sectors to statement `index`'s count, growing the counts to it
/// (once per statement: the program bounds them).
#[cold]
fn grow_sectors(counts: &mut Vec<u64>, index: usize) {
    counts.resize(index + 1, 0);
}

#[inline]
fn add_sectors(counts: &mut Vec<u64>, index: u32, n: u64) {
    let i = index as usize;
    if i >= counts.len() {
        grow_sectors(counts, i);
    }
    if let Some(c) = counts.get_mut(i) {
        *c += n;
    }
}
