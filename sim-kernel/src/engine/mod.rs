//! The launch engine: one streaming pass over a grid on a whole GPU.
//!
//! Blocks become resident on an SM when it has room for them (warp slots,
//! shared memory, its block limit: [`crate::timing::blocks_per_sm`]), in
//! grid order, dealt breadth-first over the SMs as the hardware's block
//! scheduler does. Their warps execute functionally a few statements ahead
//! of the SM model ([`warp`]), which times them as it issues them
//! ([`host`]): memory accesses go to the memory model when they issue, a
//! clock read runs when it issues and reads that cycle, a barrier holds
//! its warps until the block's live warps have all issued it. Nothing per
//! instruction is kept once timed, so memory is bounded by the resident
//! blocks and the launch's buffers.
//!
//! The SMs advance in lockstep epochs of [`EPOCH`] cycles (each SM runs
//! its epoch in turn, in SM order), so blocks on different SMs that
//! communicate through global memory see each other's writes within an
//! epoch or so, as on a GPU. New blocks are dealt at epoch boundaries.

mod calls;
mod code;
mod host;
mod preload;
mod sample;
mod shload;
mod slab;
mod warp;

pub(crate) use code::Follow;
pub use sample::{SAMPLE_MIN_BLOCKS, SAMPLE_SMS};

use crate::error::KernelError;
use crate::global::Global;
use crate::memstats::{MemStats, Occupancy, RegSource, Residency};
use crate::memtime::Gpu;
use crate::prepare::Prepared;
use crate::rec::RecWarp;
use crate::timing::Sampled;
use crate::timing::{block_limits, control, program};
use code::Code;
use host::{Block, Host, Shared, SmState};
use sim_core::{ProgramTables, Progress, SchedPolicy, Sm, SmConfig, Stats};
use sim_isa::{Target, ThreadCtx, WARP_SIZE};
use sim_module::Launch;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Cycles each SM runs before the SMs exchange what they wrote.
pub const EPOCH: u64 = 256;

/// How to run a grid.
pub(crate) struct Options<'a> {
    pub target: Target,
    pub config: &'a SmConfig,
    pub policy: SchedPolicy,
    pub sms: u32,
    /// Host threads the SMs run on (results do not depend on it).
    pub threads: usize,
    pub max_instructions: u64,
    /// `--sample`: time a few SMs, run the rest functionally.
    pub sample: bool,
    /// `--sample-sms`: how many SMs it times (default [`SAMPLE_SMS`]).
    pub sample_sms: Option<u32>,
    /// `--timeline`: the most events each SM records (0: none).
    pub timeline: usize,
    /// `--dump-regs`: the block whose final registers are kept.
    pub dump_block: Option<u32>,
    /// Registers a thread, overriding the launch's (`--regs`).
    pub registers: Option<u32>,
    /// What `%envreg0`..`%envreg31` read (a cooperative launch's grid
    /// workspace in 1 and 2); zeros where the launch gives nothing.
    pub envreg: [u32; 32],
    /// Machine code in place of the table's (`--lowering compiler`).
    pub machine_code: Option<&'a crate::lowering::MachineCode>,
}

/// Recorded warps: where a recording's go, or where a replay's come from.
pub(crate) enum Warps<'s> {
    /// Neither: the warps execute freely, unlogged.
    None,
    /// Each warp's log when it retires (in retire order, the SMs' in SM
    /// order at each epoch's end).
    Log(&'s mut dyn FnMut(RecWarp) -> Result<(), KernelError>),
    /// The recorded warps, asked for in grid order as their blocks are
    /// dealt; each is dropped when it retires. With the recording's name
    /// (errors name it).
    Follow(
        &'s mut dyn FnMut() -> Result<RecWarp, KernelError>,
        Arc<str>,
    ),
}

/// What a finished grid gives.
pub(crate) struct Finished {
    pub global: crate::memory::Global,
    pub instructions: u64,
    pub warps: u64,
    pub stats: Stats,
    pub sms_used: u32,
    /// Earliest and latest clock read.
    pub clock_span: Option<(u64, u64)>,
    /// What `--sample` estimated, when it ran functional SMs.
    pub sampled: Option<Sampled>,
    /// What device `printf` printed (see [`crate::printf`]), and the calls
    /// dropped past its bound.
    pub printf: Vec<u8>,
    pub printf_dropped: u64,
    /// What `--timeline` recorded (unless asked, nothing).
    pub timeline: Option<crate::spans::LaunchSpans>,
    /// The `--dump-regs` block's registers (when asked).
    pub regs: Option<crate::spans::BlockRegs>,
    /// Each timed SM that ran blocks: index, statistics, memory counters.
    pub per_sm: Vec<(u32, Stats, MemStats)>,
    /// The memory counters over those SMs.
    pub memory: MemStats,
    pub occupancy: Occupancy,
}

/// One SM: its model and what it holds.
struct Slot {
    /// Built when the SM is first dealt a block it times: most SMs of a
    /// small grid never are, and an SM model's tables are the largest part
    /// of a small launch's setup. One never built never ran anything.
    sm: Option<Sm>,
    st: SmState,
}

/// An SM model of `tables` whose external statements are the engine's.
fn new_sm(
    tables: &Arc<ProgramTables>,
    policy: SchedPolicy,
    code: &Code<'_>,
) -> Result<Sm, KernelError> {
    let mut sm = Sm::from_tables(tables, policy);
    for (i, e) in code.at.iter().enumerate() {
        if e.ext.is_some() {
            sm.mark_external(i as u32)?;
        }
    }
    Ok(sm)
}

/// Cycles in which no SM issues, no warp executes and no block starts or
/// ends before the launch counts as stuck: far longer than any memory
/// access or queue of atomics takes.
const STUCK_CYCLES: u64 = 1 << 20;

/// Runs `launch` over `prep` on `opts.sms` SMs.
pub(crate) fn run(
    prep: &Prepared<'_>,
    mut global: Global,
    launch: &Launch,
    opts: &Options<'_>,
    gpu: &mut Gpu,
    warps: &mut Warps<'_>,
) -> Result<Finished, KernelError> {
    let mut prog = program(prep, opts.config.target);
    let mut code = Code::new(prep, opts.target, &prog, opts.dump_block.is_some());
    code.merge_shared_loads(&mut prog);
    let threads = launch.block_threads();
    let wpb = threads.div_ceil(WARP_SIZE as u64).max(1) as u32;
    let cfg = opts.config.clone();
    let registers = registers_of(opts.registers, launch.registers);
    let resident = resident_limit(prep, &cfg, gpu.limits(), wpb, (threads, registers.0))?;
    let limits = block_limits(&cfg, gpu.limits(), wpb, prep.shared, registers.0);
    let cap = limits.blocks();
    let (loops, targets) = control(prep);
    let prog = Arc::new(prog);
    let dead = |i: usize| code.at.get(i).is_some_and(|s| s.dead);
    let rows = crate::lowering::rows(opts.machine_code, prep, &prog, &dead)?;
    let tables = ProgramTables::with_loops_and_code(cfg, prog, &loops, &targets, rows)?;
    let nsms = opts.sms.max(1);
    let nblocks = launch.grid_blocks();
    let timed = opts.sample_sms.unwrap_or(SAMPLE_SMS);
    let sampling = opts.sample && nblocks > SAMPLE_MIN_BLOCKS && timed < nsms;
    let mut durations = sample::Residencies::new(sample::partners(nsms, timed));
    let timed = |s: usize| !sampling || durations.timed(s);
    let mut slots = new_slots(nsms, timed, cap, opts, matches!(warps, Warps::None));
    let mut executed: u64 = 0;
    let mut next: u64 = 0;
    let mut now: u64 = 0;
    // What changed last, and when: a launch where nothing does is stuck.
    let mut last = (0u64, 0u64, 0u64);
    let mut since = 0u64;
    let mut ended: u64 = 0;
    // Atomics whose result another SM's may change wait for the epoch's
    // end when the blocks can run on more than one SM (see `host::Shared`).
    // A replay does the same, so its atomics land in the same order.
    let defer = nsms > 1 && nblocks > 1;
    let mut printed = crate::printf::Sink::default();
    let notes_hint = AtomicUsize::new(0);
    let fresh = fresh_of(prep, launch, opts, (nsms, wpb), code.nregs);
    let mut hosts = Hosts::new(opts.threads, nsms as usize)?;
    loop {
        // What the SMs read this epoch (dealing runs a new block's warps
        // a stretch ahead too).
        let sh = Shared {
            code: &code,
            global: &global,
            gpu,
            wpb,
            limit: opts.max_instructions.saturating_sub(executed),
            max: opts.max_instructions,
            defer,
            now,
            fresh: &fresh,
            notes_hint: &notes_hint,
        };
        // Deal blocks breadth-first to SMs with room.
        let mut live_blocks: u64 = slots.iter().map(|s| u64::from(s.st.live)).sum();
        let mut dealt = true;
        while next < nblocks && dealt {
            dealt = false;
            for (s, slot) in slots.iter_mut().enumerate() {
                if next >= nblocks || slot.st.live >= cap || live_blocks >= resident {
                    continue;
                }
                live_blocks += 1;
                if slot.st.detail && slot.sm.is_none() {
                    slot.sm = Some(new_sm(&tables, opts.policy, &code)?);
                }
                start_block(&sh, slot, s as u32, next as u32, warps, now)?;
                next += 1;
                dealt = true;
            }
        }
        let busy = slots.iter().filter(|s| s.st.live > 0).count();
        if busy == 0 {
            break;
        }
        let end = now + EPOCH;
        run_epoch(&sh, &mut slots, end, hosts.as_mut())?;
        // What the SMs wrote and added, in SM order.
        for (s, slot) in slots.iter_mut().enumerate() {
            slot.st.overlay.merge_into(&mut global);
            gpu.merge(&mut slot.st.mem);
            slot.st.printf.drain_into(&mut printed);
            executed += std::mem::take(&mut slot.st.executed);
            ended += std::mem::take(&mut slot.st.ended);
            for (seq, d) in slot.st.durations.drain(..) {
                durations.add(s, seq, d);
            }
        }
        if sampling {
            ended += sample::release(&mut slots, &mut durations, gpu, (now, end), next >= nblocks);
        }
        pass_logs(&mut slots, warps)?;
        for slot in slots.iter_mut() {
            slot.st.run_atomics(&code, &mut global, wpb)?;
        }
        if executed > opts.max_instructions {
            return Err(KernelError::InstructionLimit {
                limit: opts.max_instructions,
                waiting: Vec::new(),
            });
        }
        now = end;
        let issued: u64 = slots
            .iter()
            .filter_map(|s| s.sm.as_ref())
            .map(Sm::instructions_issued)
            .sum();
        let seen = (issued, executed, next + ended);
        if seen != last {
            (last, since) = (seen, now);
        } else if now - since > STUCK_CYCLES {
            let s = slots.iter().position(|s| s.st.live > 0).unwrap_or(0);
            return Err(stuck(&slots[s].st));
        }
    }
    let (per_sm, res) = timed_sms(&slots);
    let mut stats = Stats::merge(per_sm.iter().map(|p| &p.1));
    let memory = MemStats::sum(per_sm.iter().map(|p| &p.2));
    let occupancy = Occupancy::new(&limits, wpb, registers, &res);
    let sampled = sampling.then(|| {
        // The launch ends when its last SM does, timed or modelled.
        let last = slots.iter().map(|s| s.st.last_end).max().unwrap_or(0);
        stats.cycles = stats.cycles.max(last);
        durations.report(|s| slots[s].st.used)
    });
    pass_logs(&mut slots, warps)?;
    let clock_span = slots
        .iter()
        .filter_map(|s| s.st.clock_span)
        .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)));
    let (printf, printf_dropped) = printed.into_parts();
    let (timeline, regs) = recorded(prep, opts, &mut slots);
    Ok(Finished {
        timeline,
        regs,
        printf,
        printf_dropped,
        global,
        instructions: executed,
        warps: nblocks * u64::from(wpb),
        stats,
        sms_used: slots.iter().filter(|s| s.st.used).count() as u32,
        clock_span,
        sampled,
        per_sm,
        memory,
        occupancy,
    })
}

/// An SM's state for each of `nsms` SMs, timed in detail where `timed`
/// says.
fn new_slots(
    nsms: u32,
    timed: impl Fn(usize) -> bool,
    cap: u32,
    opts: &Options<'_>,
    unrecorded: bool,
) -> Vec<Slot> {
    (0..nsms as usize)
        .map(|s| {
            let detail = timed(s);
            let st = SmState {
                // Enough for a wave of new blocks to reuse the allocations
                // of the wave before.
                keep: cap.min(8) as usize,
                detail,
                // Recorded and replayed warps are made as they are dealt (a
                // replay reads their records in grid order).
                lazy: !detail && unrecorded,
                ..recording(opts)
            };
            Slot { sm: None, st }
        })
        .collect()
}

/// What a block's warps are made from (`sample::make`), the same for
/// every block of the launch.
fn fresh_of(
    prep: &Prepared<'_>,
    launch: &Launch,
    opts: &Options<'_>,
    (nsms, wpb): (u32, u32),
    nregs: usize,
) -> host::Fresh {
    let threads = launch.block_threads();
    host::Fresh {
        target: opts.target,
        thread: ThreadCtx {
            first_thread: 0,
            ntid: launch.block,
            nctaid: launch.grid,
            nsmid: nsms,
            smem: [0, prep.shared as u32],
            envreg: opts.envreg,
            ..ThreadCtx::default()
        },
        threads,
        wpb,
        nregs,
        local: prep.local,
    }
}

/// Registers a thread and where they came from: the option over the
/// launch file's.
fn registers_of(option: Option<u32>, launch: Option<u32>) -> (Option<u32>, RegSource) {
    match (option, launch) {
        (Some(r), _) => (Some(r), RegSource::Option),
        (None, Some(r)) => (Some(r), RegSource::Launch),
        (None, None) => (None, RegSource::Unknown),
    }
}

/// Each timed SM that ran blocks (index, statistics, memory counters), and
/// their residency summed.
fn timed_sms(slots: &[Slot]) -> (Vec<(u32, Stats, MemStats)>, Residency) {
    let mut res = Residency::default();
    let per_sm = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| s.st.used && s.st.detail)
        .filter_map(|(i, s)| Some((i, s.sm.as_ref()?, &s.st)))
        .map(|(i, sm, st)| {
            res.add(&st.residency);
            let mut stats = sm.stats();
            if stats.per_inst.len() < st.stmt_sectors.len() {
                stats
                    .per_inst
                    .resize(st.stmt_sectors.len(), Default::default());
            }
            for (p, &n) in stats.per_inst.iter_mut().zip(&st.stmt_sectors) {
                p.sectors += n;
            }
            (i as u32, stats, *st.mem.stats())
        })
        .collect();
    (per_sm, res)
}

/// Hands the warps that retired to the recording's sink, SM by SM.
fn pass_logs(slots: &mut [Slot], warps: &mut Warps<'_>) -> Result<(), KernelError> {
    if let Warps::Log(sink) = warps {
        for slot in slots.iter_mut() {
            for w in slot.st.logs.drain(..) {
                sink(w)?;
            }
        }
    }
    Ok(())
}

// The host threads that run SMs besides the calling one, kept for the
// whole launch ([`Hosts`]). An epoch after a sampled launch's first holds
// a few timed SMs' work (about a millisecond): threads started for each
// epoch cost a share of it, and so does waking a thread that went to
// sleep while the calling one merged the epoch's results. So between
// epochs that had work for them each helper spins, yielding to any other
// thread that could run, for at most [`WARM`], until the next epoch begins. No value depends on
// any of it. (Here rather than in a module of its own: a new module moved
// the functional path's code into another codegen unit, and its loop ran
// 5% more host instructions.)

/// Longest a helper spins between two epochs (a sampled launch's are
/// about a millisecond apart; the full launch's merge takes longer than
/// this, and its helpers then sleep until woken).
const WARM: Duration = Duration::from_millis(2);

/// The helpers, and the flag that ends their spinning.
struct Hosts {
    pub pool: rayon::ThreadPool,
    warm: Option<Arc<AtomicBool>>,
}

impl Hosts {
    /// `threads` host threads in all, for a launch on `sms` SMs: `None`
    /// for one.
    pub fn new(threads: usize, sms: usize) -> Result<Option<Hosts>, KernelError> {
        let extra = threads.clamp(1, sms.max(1)) - 1;
        if extra == 0 {
            return Ok(None);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(extra)
            .thread_name(|i| format!("sm-host-{}", i + 1))
            .build()
            .map_err(|e| KernelError::Limit(format!("cannot start {extra} host threads: {e}")))?;
        Ok(Some(Hosts { pool, warm: None }))
    }

    /// An epoch begins: the helpers stop spinning and take its SMs.
    pub fn wake(&mut self) {
        if let Some(w) = self.warm.take() {
            w.store(true, Ordering::Release);
        }
    }

    /// An epoch ended: each helper spins until [`Hosts::wake`] (or
    /// [`WARM`] has passed), awake for the next.
    pub fn keep_warm(&mut self) {
        self.wake();
        let flag = Arc::new(AtomicBool::new(false));
        for _ in 0..self.pool.current_num_threads() {
            let f = Arc::clone(&flag);
            self.pool.spawn(move || {
                let until = Instant::now() + WARM;
                while !f.load(Ordering::Acquire) && Instant::now() < until {
                    for _ in 0..64 {
                        std::hint::spin_loop();
                    }
                    // Any other thread that could run goes first (a busy
                    // machine, or more threads than cores).
                    std::thread::yield_now();
                }
            });
        }
        self.warm = Some(flag);
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        self.wake();
    }
}

/// Runs every busy SM to clock `end`, on the calling thread and the
/// helpers of `hosts`. Returns the first error in SM order.
fn run_epoch(
    sh: &Shared<'_, '_>,
    slots: &mut [Slot],
    end: u64,
    hosts: Option<&mut Hosts>,
) -> Result<(), KernelError> {
    // An SM run functionally (`--sample`) whose blocks have all run to
    // their end only holds them (`sample::release`): nothing to run.
    let mut busy: Vec<(usize, &mut Slot)> = slots
        .iter_mut()
        .enumerate()
        .filter(|(_, s)| s.st.live > 0 && (s.st.detail || s.st.runnable()))
        .collect();
    let Some(hosts) = hosts else {
        return run_slots(sh, &mut busy, end).map_err(|(_, e)| e);
    };
    hosts.wake();
    let helpers = (hosts.pool.current_num_threads()).min(busy.len().saturating_sub(1));
    if helpers == 0 {
        // One SM to run: the helpers sleep (a launch of one block would
        // otherwise keep them spinning throughout).
        return run_slots(sh, &mut busy, end).map_err(|(_, e)| e);
    }
    // The threads take the SMs one at a time, each as it frees up (so a
    // thread whose SMs ran short takes more): which thread runs an SM does
    // not change what it computes. Under `--sample` the few timed SMs cost
    // several times an untimed one each, so they are taken first: taken
    // last, one of them would leave the other threads idle at the epoch's
    // end. After an error no thread takes an SM above the lowest that
    // failed, but every SM below it still runs, so the lowest error is the
    // one a single thread, in SM order, would have met first.
    busy.sort_by_key(|(i, s)| (!s.st.detail, *i));
    let next = AtomicUsize::new(0);
    let failed = AtomicUsize::new(usize::MAX);
    let work: Vec<Mutex<(usize, &mut Slot)>> = busy.into_iter().map(Mutex::new).collect();
    let errors: Mutex<Vec<(usize, KernelError)>> = Mutex::new(Vec::new());
    // A panic on any thread is an error of the launch.
    let take = || {
        let run = || {
            let mut first: Option<(usize, KernelError)> = None;
            while let Some(cell) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
                let mut held = cell.lock().unwrap_or_else(PoisonError::into_inner);
                if held.0 > failed.load(Ordering::Relaxed) {
                    continue;
                }
                if let Err(e) = run_slots(sh, std::slice::from_mut(&mut *held), end) {
                    failed.fetch_min(e.0, Ordering::Relaxed);
                    first = match first {
                        Some(f) if f.0 <= e.0 => Some(f),
                        _ => Some(e),
                    };
                }
            }
            first
        };
        let e = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
            Ok(e) => e,
            Err(_) => Some((0, KernelError::Limit("an SM's host thread panicked".into()))),
        };
        if let Some(e) = e {
            errors
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(e);
        }
    };
    // The calling thread takes SMs too: it would only wait.
    hosts.pool.in_place_scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(|_| take());
        }
        take();
    });
    hosts.keep_warm();
    let errors = errors.into_inner().unwrap_or_else(PoisonError::into_inner);
    match errors.into_iter().min_by_key(|(s, _)| *s) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// Runs the busy SMs of `slots` (with their indices) in turn to clock
/// `end`; stops at the first error, with its SM.
fn run_slots(
    sh: &Shared<'_, '_>,
    slots: &mut [(usize, &mut Slot)],
    end: u64,
) -> Result<(), (usize, KernelError)> {
    for (i, slot) in slots.iter_mut() {
        let Slot { sm, st } = &mut **slot;
        let r = match (st.detail, sm.as_mut()) {
            (true, Some(sm)) => {
                st.to_feed.append(&mut st.pending);
                let r = run_sm(sh, sm, st, end);
                st.pending.append(&mut st.to_feed);
                r
            }
            // Never dealt a block: nothing to run.
            (true, None) => Ok(()),
            (false, _) => sample::run(sh, st),
        };
        r.map_err(|e| (*i, e))?;
    }
    Ok(())
}

/// Most bytes of `.local` memory resident blocks may hold in all.
pub const MAX_RESIDENT_LOCAL: u64 = 1 << 30;

/// Refuses a block no SM can hold, and returns how many blocks may be
/// resident at once on the whole GPU (their local memory bounded by
/// [`MAX_RESIDENT_LOCAL`]).
fn resident_limit(
    prep: &Prepared<'_>,
    cfg: &SmConfig,
    limits: &crate::memtime::MemConfig,
    wpb: u32,
    (threads, registers): (u64, Option<u32>),
) -> Result<u64, KernelError> {
    // As the CUDA runtime refuses the launch ("too many resources
    // requested"): a block whose registers an SM's file cannot hold.
    let regs = registers.map_or(0, |r| limits.block_registers(r, wpb));
    if regs > u64::from(limits.regs_per_sm) {
        return Err(KernelError::Limit(format!(
            "a block of {threads} threads at {} registers a thread needs {regs} registers; an SM has {}",
            registers.unwrap_or(0),
            limits.regs_per_sm
        )));
    }
    if prep.shared > limits.smem_per_sm {
        return Err(KernelError::Limit(format!(
            "a block needs {} bytes of shared memory; an SM has {}",
            prep.shared, limits.smem_per_sm
        )));
    }
    if wpb > cfg.resident_warps {
        return Err(KernelError::Limit(format!(
            "a block of {threads} threads needs {wpb} warps; an SM holds {}",
            cfg.resident_warps
        )));
    }
    let local = prep.local.saturating_mul(threads);
    if local > MAX_RESIDENT_LOCAL {
        return Err(KernelError::Limit(format!(
            "a block needs {local} bytes of local memory, more than the limit of {MAX_RESIDENT_LOCAL}"
        )));
    }
    Ok(MAX_RESIDENT_LOCAL.checked_div(local).unwrap_or(u64::MAX))
}

/// Makes block `cta` resident on SM `s` at clock `now` (its warps
/// following their records, read now, when replaying; an SM run
/// functionally makes them when the block first runs, unless recording
/// or replaying).
fn start_block(
    sh: &Shared<'_, '_>,
    slot: &mut Slot,
    s: u32,
    cta: u32,
    warps: &mut Warps<'_>,
    now: u64,
) -> Result<(), KernelError> {
    let prep = sh.code.prep;
    let f = sh.fresh;
    let wpb = sh.wpb;
    let log = matches!(warps, Warps::Log(_));
    let st = &mut slot.st;
    let mut block = match (st.spare.pop(), st.lazy) {
        (Some(mut b), true) => {
            b.reset_unmade(cta, s, wpb);
            b
        }
        (None, true) => Block::new_unmade(cta, s, wpb),
        (Some(mut b), false) => {
            b.reset(cta, s, &prep.shared_init, prep.shared);
            for (w, wp) in b.warps.iter_mut().enumerate() {
                let w = w as u32;
                wp.reset(f.local, f.lanes(w), f.ctx(cta, s, w), log);
            }
            b
        }
        (None, false) => {
            let warps = (0..wpb)
                .map(|w| warp::Warp::new(f.nregs, f.local, f.lanes(w), f.ctx(cta, s, w), log))
                .collect();
            Block::new(cta, s, prep.shared_init.clone(), prep.shared, warps)
        }
    };
    if let Warps::Follow(next, name) = warps {
        for (w, wp) in block.warps.iter_mut().enumerate() {
            let i = cta as usize * wpb as usize + w;
            wp.follow = Some(Follow::new(next()?, i, name.clone()));
        }
    }
    let idx = match st.free_slots.pop() {
        Some(i) => {
            st.blocks[i as usize] = Some(block);
            i
        }
        None => {
            st.blocks.push(Some(block));
            (st.blocks.len() - 1) as u32
        }
    };
    if let Some(b) = st.blocks[idx as usize].as_mut() {
        b.start = now;
        b.seq = st.dealt;
        for wp in &mut b.warps {
            wp.timed = st.detail;
        }
    }
    st.live += 1;
    st.dealt += 1;
    st.used = true;
    // A timed SM's model was built as it was dealt this block.
    let Some(sm) = slot.sm.as_mut().filter(|_| st.detail) else {
        return Ok(());
    };
    if st.live == 1 {
        sm.idle_until(now);
        st.active_since = now;
    }
    for w in 0..wpb {
        sm.add_executed_warp(idx * wpb + w, f.lanes(w))?;
    }
    for w in 0..wpb {
        st.feed(sh, sm, idx * wpb + w)?;
    }
    Ok(())
}

/// Runs one SM until clock `end` (or until its blocks are done).
fn run_sm(sh: &Shared<'_, '_>, sm: &mut Sm, st: &mut SmState, end: u64) -> Result<(), KernelError> {
    let mut hungry = std::mem::take(&mut st.hungry);
    let mut retired = std::mem::take(&mut st.retired);
    let r = run_sm_with(sh, sm, st, end, &mut hungry, &mut retired);
    (st.hungry, st.retired) = (hungry, retired);
    r
}

fn run_sm_with(
    sh: &Shared<'_, '_>,
    sm: &mut Sm,
    st: &mut SmState,
    end: u64,
    hungry: &mut Vec<u32>,
    retired: &mut Vec<u32>,
) -> Result<(), KernelError> {
    // Returns in a row that changed nothing: a run may return once with
    // nothing new (a push that refilled a queue can flag it hungry), so
    // only a few in a row mean no warp can go on.
    let mut idle = 0;
    loop {
        hungry.clear();
        sm.take_hungry_into(hungry);
        hungry.append(&mut st.to_feed);
        hungry.sort_unstable();
        hungry.dedup();
        let mut fed = false;
        for &id in hungry.iter() {
            fed |= st.feed(sh, sm, id)?;
        }
        let before = (sm.cycle(), sm.instructions_issued());
        let r = sm.run_until_idle_before(&mut Host { sh, st: &mut *st }, end)?;
        if let Some(e) = st.error.take() {
            return Err(e);
        }
        retired.clear();
        sm.take_retired_into(retired);
        for &id in retired.iter() {
            retire(sh.wpb, st, id, sm.cycle());
        }
        match r {
            Progress::Done | Progress::Reached => return Ok(()),
            Progress::Waiting => {
                let still = (sm.cycle(), sm.instructions_issued()) == before;
                if still && !fed && retired.is_empty() && st.to_feed.is_empty() {
                    idle += 1;
                    // Warps stopped at an atomic go on after the epoch.
                    if idle > 3 && st.atomics.is_empty() {
                        return Err(stuck(st));
                    }
                    if idle > 3 {
                        return Ok(());
                    }
                } else {
                    idle = 0;
                }
            }
        }
    }
}

/// A warp the SM retired: its block ends with its last warp.
fn retire(wpb: u32, st: &mut SmState, id: u32, cycle: u64) {
    let (b, w) = ((id / wpb) as usize, id % wpb);
    let Some(Some(block)) = st.blocks.get_mut(b) else {
        return;
    };
    block.retired += 1;
    let held = cycle.saturating_sub(block.start);
    st.residency.warp_cycles += held;
    if let Some(t) = st.spans.as_mut() {
        t.warp(crate::spans::WarpSpan {
            cta: block.cta,
            warp: w,
            start: block.start,
            end: cycle,
        });
    }
    if let Some(x) = block.warps.get_mut(w as usize) {
        if st.dump_block == Some(block.cta) {
            st.dumped.push((w, x.regs.clone()));
        }
        if let Some(l) = x.log.take() {
            st.logs
                .push(crate::rec::rec_warp(block.cta, w, x.lanes, *l));
        }
        // A replayed warp's record is done with.
        x.follow = None;
    }
    if block.retired as usize == block.warps.len() {
        if let Some(t) = st.spans.as_mut() {
            t.block(crate::spans::BlockSpan {
                cta: block.cta,
                start: block.start,
                end: cycle,
            });
        }
        st.durations.push((block.seq, held));
        st.residency.block_cycles += held;
        if let Some(done) = st.blocks[b].take() {
            // A few kept: a wave of new blocks reuses their allocations.
            if st.spare.len() < st.keep {
                st.spare.push(done);
            }
        }
        st.free_slots.push(b as u32);
        st.live -= 1;
        st.ended += 1;
        if st.live == 0 {
            st.residency.active_cycles += cycle.saturating_sub(st.active_since);
        }
    }
}

/// An SM's state with what `--timeline` and `--dump-regs` ask it to record.
fn recording(opts: &Options<'_>) -> SmState {
    SmState {
        spans: (opts.timeline > 0).then(|| Box::new(crate::spans::SmTimeline::new(opts.timeline))),
        dump_block: opts.dump_block,
        ..SmState::default()
    }
}

/// What the SMs recorded for `--timeline` and `--dump-regs`, if asked.
fn recorded(
    prep: &Prepared<'_>,
    opts: &Options<'_>,
    slots: &mut [Slot],
) -> (
    Option<crate::spans::LaunchSpans>,
    Option<crate::spans::BlockRegs>,
) {
    let timeline = (opts.timeline > 0).then(|| crate::spans::LaunchSpans {
        sms: slots
            .iter_mut()
            .map(|s| s.st.spans.take().map(|t| *t).unwrap_or_default())
            .collect(),
        statements: prep
            .body
            .statements
            .iter()
            .map(|s| s.text.clone())
            .collect(),
    });
    let regs = opts.dump_block.map(|cta| dumped_regs(prep, slots, cta));
    (timeline, regs)
}

/// The `--dump-regs` block's registers, from the SM that ran it, by warp.
fn dumped_regs(prep: &Prepared<'_>, slots: &mut [Slot], cta: u32) -> crate::spans::BlockRegs {
    let mut warps: Vec<(u32, sim_isa::WarpRegs)> = slots
        .iter_mut()
        .flat_map(|s| std::mem::take(&mut s.st.dumped))
        .collect();
    warps.sort_by_key(|(w, _)| *w);
    let sym = &prep.body.symbols;
    let regs = (0..sym.len() as u32)
        .map(|r| {
            let id = sim_isa::RegId(r);
            let bits = sym.declared_type(id).map_or(64, |t| t.bits());
            (sym.name(id).to_string(), bits)
        })
        .collect();
    crate::spans::BlockRegs {
        cta,
        warps: warps.into_iter().map(|(_, r)| r).collect(),
        regs,
    }
}

/// The error of an SM that can make no progress (a defect: every wait the
/// engine creates is released by the SM's own issues), naming its first
/// block that has waiting or running warps.
fn stuck(st: &SmState) -> KernelError {
    for b in st.blocks.iter().flatten() {
        let mut waiting = Vec::new();
        let mut running = Vec::new();
        for (w, warp) in b.warps.iter().enumerate() {
            if warp.tblocked {
                waiting.push(w as u32);
            } else if !warp.closed {
                running.push(w as u32);
            }
        }
        if !waiting.is_empty() || !running.is_empty() {
            return KernelError::Deadlock {
                cta: b.warps.first().map_or([0; 3], |w| w.ctx.thread.ctaid),
                waiting,
                running,
            };
        }
    }
    KernelError::Deadlock {
        cta: [0; 3],
        waiting: Vec::new(),
        running: Vec::new(),
    }
}
