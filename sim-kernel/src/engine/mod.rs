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

mod code;
mod host;
mod warp;

pub(crate) use code::Follow;

use crate::error::KernelError;
use crate::memtime::MemTiming;
use crate::prepare::Prepared;
use crate::timing::{blocks_per_sm, control, program};
use code::Code;
use host::{Block, Host};
use sim_core::{ProgramTables, Progress, SchedPolicy, Sm, SmConfig, Stats};
use sim_isa::{ExecCtx, Target, ThreadCtx, WARP_SIZE};
use sim_module::Launch;
use std::sync::Arc;

/// Finished blocks kept for reuse.
const SPARE_BLOCKS: usize = 64;

/// Cycles each SM runs before the next takes its turn.
pub const EPOCH: u64 = 256;

/// How to run a grid.
pub(crate) struct Options<'a> {
    pub target: Target,
    pub config: &'a SmConfig,
    pub policy: SchedPolicy,
    pub sms: u32,
    pub max_instructions: u64,
    /// Keep what each warp executed (a recording).
    pub log: bool,
    /// Replay these recorded warps instead of executing freely.
    pub follow: Option<(Arc<[crate::rec::RecWarp]>, Arc<str>)>,
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
    /// Per warp (grid order), when logging.
    pub logs: Vec<(u32, u32, u32, crate::tap::Log)>,
}

/// One SM and the blocks it holds.
struct Slot {
    sm: Sm,
    blocks: u32,
    used: bool,
    /// Its warps released from a barrier and not yet fed.
    pending: Vec<u32>,
}

/// Cycles in which no SM issues, no warp executes and no block starts or
/// ends before the launch counts as stuck: far longer than any memory
/// access or queue of atomics takes.
const STUCK_CYCLES: u64 = 1 << 20;

/// Runs `launch` over `prep` on `opts.sms` SMs.
pub(crate) fn run(
    prep: &Prepared<'_>,
    launch: &Launch,
    opts: &Options<'_>,
    mem: &mut dyn MemTiming,
) -> Result<Finished, KernelError> {
    let prog = Arc::new(program(prep, opts.config.target));
    let code = Code::new(prep, opts.target, &prog);
    let threads = launch.block_threads();
    let wpb = threads.div_ceil(WARP_SIZE as u64).max(1) as u32;
    let cfg = opts.config.clone();
    let resident = resident_limit(prep, &cfg, mem.limits(), wpb, threads)?;
    let cap = blocks_per_sm(&cfg, mem.limits(), wpb, prep.shared);
    let (loops, targets) = control(prep);
    let tables = ProgramTables::with_loops(cfg, prog, &loops, &targets)?;
    let nsms = opts.sms.max(1);
    let mut slots = Vec::with_capacity(nsms as usize);
    for _ in 0..nsms {
        let mut sm = Sm::from_tables(&tables, opts.policy);
        for (i, e) in code.ext.iter().enumerate() {
            if e.is_some() {
                sm.mark_external(i as u32)?;
            }
        }
        slots.push(Slot {
            sm,
            blocks: 0,
            used: false,
            pending: Vec::new(),
        });
    }
    let nblocks = launch.grid_blocks();
    let mut host = Host {
        code: &code,
        global: prep.global.clone(),
        mem,
        blocks: Vec::new(),
        spare: Vec::new(),
        free_slots: Vec::new(),
        wpb,
        sm: 0,
        executed: 0,
        limit: opts.max_instructions,
        clock_span: None,
        to_feed: Vec::new(),
        error: None,
        sched: Default::default(),
        batch: Vec::new(),
    };
    let mut logs = Vec::new();
    let mut next: u64 = 0;
    let mut now: u64 = 0;
    // What changed last, and when: a launch where nothing does is stuck.
    let mut last = (0u64, 0u64, 0u64);
    let mut since = 0u64;
    let mut scratch = (Vec::new(), Vec::new());
    loop {
        // Deal blocks breadth-first to SMs with room.
        let mut live_blocks: u64 = slots.iter().map(|s| u64::from(s.blocks)).sum();
        let mut dealt = true;
        while next < nblocks && dealt {
            dealt = false;
            for (s, slot) in slots.iter_mut().enumerate() {
                if next >= nblocks || slot.blocks >= cap || live_blocks >= resident {
                    continue;
                }
                live_blocks += 1;
                start_block(&mut host, slot, s as u32, next as u32, launch, opts, now)?;
                next += 1;
                dealt = true;
            }
        }
        if slots.iter().all(|s| s.blocks == 0) {
            break;
        }
        let end = now + EPOCH;
        for (s, slot) in slots.iter_mut().enumerate() {
            if slot.blocks > 0 {
                host.sm = s as u32;
                host.to_feed.append(&mut slot.pending);
                run_sm(&mut host, slot, end, &mut scratch, &mut logs)?;
                slot.pending.append(&mut host.to_feed);
            }
        }
        now = end;
        let issued: u64 = slots.iter().map(|s| s.sm.instructions_issued()).sum();
        let seen = (issued, host.executed, next + host.free_slots.len() as u64);
        if seen != last {
            (last, since) = (seen, now);
        } else if now - since > STUCK_CYCLES {
            let s = slots.iter().position(|s| s.blocks > 0).unwrap_or(0);
            host.sm = s as u32;
            return Err(stuck(&host));
        }
    }
    let all: Vec<Stats> = slots
        .iter()
        .filter(|s| s.used)
        .map(|s| s.sm.stats())
        .collect();
    logs.sort_by_key(|l: &(u32, u32, u32, crate::tap::Log)| (l.0, l.1));
    Ok(Finished {
        global: host.global,
        instructions: host.executed,
        warps: nblocks * u64::from(wpb),
        stats: Stats::merge(&all),
        sms_used: slots.iter().filter(|s| s.used).count() as u32,
        clock_span: host.clock_span,
        logs,
    })
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
    threads: u64,
) -> Result<u64, KernelError> {
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

/// Makes block `cta` resident on SM `s` at clock `now`.
fn start_block(
    host: &mut Host<'_, '_>,
    slot: &mut Slot,
    s: u32,
    cta: u32,
    launch: &Launch,
    opts: &Options<'_>,
    now: u64,
) -> Result<(), KernelError> {
    let prep = host.code.prep;
    let threads = launch.block_threads();
    let wpb = host.wpb;
    let [gx, gy, _] = launch.grid;
    let thread = ThreadCtx {
        first_thread: 0,
        ntid: launch.block,
        ctaid: [cta % gx, cta / gx % gy, cta / (gx * gy)],
        nctaid: launch.grid,
        smid: s,
        nsmid: opts.sms.max(1),
        smem: [0, prep.shared as u32],
        ..ThreadCtx::default()
    };
    let lanes_of = |w: u32| {
        let n = (threads - u64::from(w) * 32).min(32) as u32;
        if n == 32 {
            u32::MAX
        } else {
            (1u32 << n) - 1
        }
    };
    let ctx_of = |w: u32| ExecCtx {
        target: opts.target,
        warp_id: w,
        thread: ThreadCtx {
            first_thread: w * 32,
            ..thread
        },
    };
    let mut block = match host.spare.pop() {
        Some(mut b) => {
            b.reset(cta, s, &prep.shared_init);
            for (w, wp) in b.warps.iter_mut().enumerate() {
                let w = w as u32;
                wp.reset(prep.local, lanes_of(w), ctx_of(w), opts.log);
            }
            b
        }
        None => {
            let nregs = host.code.nregs;
            let warps = (0..wpb)
                .map(|w| warp::Warp::new(nregs, prep.local, lanes_of(w), ctx_of(w), opts.log))
                .collect();
            Block::new(cta, s, prep.shared_init.clone(), warps)
        }
    };
    if let Some((rec, name)) = &opts.follow {
        for (w, wp) in block.warps.iter_mut().enumerate() {
            let i = cta as usize * wpb as usize + w;
            wp.follow = Some(Follow::new(rec.clone(), i, name.clone()));
        }
    }
    let idx = match host.free_slots.pop() {
        Some(i) => {
            host.blocks[i as usize] = Some(block);
            i
        }
        None => {
            host.blocks.push(Some(block));
            (host.blocks.len() - 1) as u32
        }
    };
    if slot.blocks == 0 {
        slot.sm.idle_until(now);
    }
    slot.blocks += 1;
    slot.used = true;
    for w in 0..wpb {
        slot.sm.add_executed_warp(idx * wpb + w, lanes_of(w))?;
    }
    for w in 0..wpb {
        host.feed(&mut slot.sm, idx * wpb + w)?;
    }
    Ok(())
}

/// Runs one SM until clock `end` (or until its blocks are done).
fn run_sm(
    host: &mut Host<'_, '_>,
    slot: &mut Slot,
    end: u64,
    scratch: &mut (Vec<u32>, Vec<u32>),
    logs: &mut Vec<(u32, u32, u32, crate::tap::Log)>,
) -> Result<(), KernelError> {
    let (hungry, retired) = scratch;
    // Returns in a row that changed nothing: a run may return once with
    // nothing new (a push that refilled a queue can flag it hungry), so
    // only a few in a row mean no warp can go on.
    let mut idle = 0;
    loop {
        hungry.clear();
        slot.sm.take_hungry_into(hungry);
        hungry.append(&mut host.to_feed);
        hungry.sort_unstable();
        hungry.dedup();
        let mut fed = false;
        for &id in hungry.iter() {
            fed |= host.feed(&mut slot.sm, id)?;
        }
        let before = (slot.sm.cycle(), slot.sm.instructions_issued());
        let r = slot.sm.run_until_idle_before(host, end)?;
        if let Some(e) = host.error.take() {
            return Err(e);
        }
        retired.clear();
        slot.sm.take_retired_into(retired);
        for &id in retired.iter() {
            retire(host, slot, id, logs);
        }
        match r {
            Progress::Done | Progress::Reached => return Ok(()),
            Progress::Waiting => {
                let still = (slot.sm.cycle(), slot.sm.instructions_issued()) == before;
                if still && !fed && retired.is_empty() && host.to_feed.is_empty() {
                    idle += 1;
                    if idle > 3 {
                        return Err(stuck(host));
                    }
                } else {
                    idle = 0;
                }
            }
        }
    }
}

/// A warp the SM retired: its block ends with its last warp.
fn retire(
    host: &mut Host<'_, '_>,
    slot: &mut Slot,
    id: u32,
    logs: &mut Vec<(u32, u32, u32, crate::tap::Log)>,
) {
    let (b, w) = ((id / host.wpb) as usize, id % host.wpb);
    let Some(Some(block)) = host.blocks.get_mut(b) else {
        return;
    };
    block.retired += 1;
    if let Some(x) = block.warps.get_mut(w as usize) {
        if let Some(l) = x.log.take() {
            logs.push((block.cta, w, x.lanes, *l));
        }
    }
    if block.retired as usize == block.warps.len() {
        if let Some(done) = host.blocks[b].take() {
            // A few kept: a wave of new blocks reuses their allocations.
            if host.spare.len() < SPARE_BLOCKS {
                host.spare.push(done);
            }
        }
        host.free_slots.push(b as u32);
        slot.blocks -= 1;
    }
}

/// The error of an SM that can make no progress (a defect: every wait the
/// engine creates is released by the SM's own issues), naming its first
/// block that has waiting or running warps.
fn stuck(host: &Host<'_, '_>) -> KernelError {
    for b in host.blocks.iter().flatten().filter(|b| b.sm == host.sm) {
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
