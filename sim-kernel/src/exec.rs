//! Functional SIMT execution of a launch: values exact, control flow per
//! lane, and a record of what each warp executed for the timing model.
//!
//! Reconvergence policy (as GPGPU-Sim's): each warp keeps a stack of
//! `(pc, reconvergence pc, lanes)`. A branch whose lanes disagree sets the
//! top entry to continue at the branch's immediate post-dominator with all
//! its lanes, then pushes the fall-through lanes and the taken lanes (which
//! run first), both ending at that post-dominator. An entry whose pc reaches
//! its reconvergence pc is popped; `ret`/`exit` remove their lanes from
//! every entry. Blocks run one after another in grid order; within a block,
//! each warp runs until it reaches a barrier or exits, and a barrier opens
//! when every live warp of the block has reached it.

use crate::error::KernelError;
use crate::memory::{Global, WarpMem};
use crate::prepare::Prepared;
use sim_isa::exec::{execute_mem, Accesses};
use sim_isa::{ExecCtx, Op, Target, ThreadCtx, WarpOp, WarpRegs, WARP_SIZE};
use sim_module::{ControlOp, Launch, StatementKind};

/// Options of a functional run.
#[derive(Clone, Copy, Debug)]
pub struct ExecOptions {
    /// The target (semantics that differ by target follow it).
    pub target: Target,
    /// Most warp-instructions the whole launch may execute.
    pub max_instructions: u64,
    /// SMs the blocks are dealt to (for `%smid`).
    pub sms: u32,
    /// Keep every value loads return ([`WarpTrace::loads`]), for a recording.
    pub log_loads: bool,
}

/// Most memory instructions a launch may record (each keeps 32 addresses
/// for the timing pass: about 1.1 GB at this bound).
pub const MAX_ACCESSES: usize = 4_000_000;

/// One executed statement of a warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Statement index in the kernel body.
    pub stmt: u32,
    /// Lanes that executed it (active and guard true).
    pub lanes: u32,
    /// Index into [`WarpTrace::accesses`] for a memory access.
    pub access: Option<u32>,
}

/// What one warp executed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarpTrace {
    /// Its block (linear index in the grid).
    pub cta: u32,
    /// Its index in the block.
    pub warp: u32,
    /// Lanes that exist (the last warp of a block may be partial).
    pub lanes: u32,
    /// The statements executed, in order.
    pub steps: Vec<Step>,
    /// Memory accesses of the memory steps, in order.
    pub accesses: Vec<Accesses>,
    /// Every value a load returned (per lane and element), in order.
    pub loads: Vec<u64>,
}

/// The result of a functional run.
pub struct Executed {
    /// Final global memory.
    pub global: Global,
    /// Every warp's record, block by block.
    pub warps: Vec<WarpTrace>,
    /// Warp-instructions executed.
    pub instructions: u64,
}

/// Values `%clock`/`%clock64` read: per warp (launch order), one per read,
/// in order. Warps beyond the table, and reads beyond a warp's list, read
/// the warp's executed-instruction count.
pub type Clocks = [Vec<u64>];

#[derive(Clone, Copy)]
struct Entry {
    pc: usize,
    rpc: usize,
    mask: u32,
}

struct Warp {
    stack: Vec<Entry>,
    regs: WarpRegs,
    at_barrier: bool,
    trace: WarpTrace,
    clock_reads: usize,
}

/// Runs `launch` to completion on `prep`'s memory.
pub fn execute(
    prep: &Prepared<'_>,
    launch: &Launch,
    opts: &ExecOptions,
    clocks: &Clocks,
) -> Result<Executed, KernelError> {
    let mut global = prep.global.clone();
    let threads = launch.block_threads();
    let nwarps = threads.div_ceil(WARP_SIZE as u64) as u32;
    let mut out = Vec::new();
    let mut count = 0u64;
    for cta in 0..launch.grid_blocks() as u32 {
        let ctaid = thread_ctx(prep, launch, cta, 0, 1).ctaid;
        let mut shared = prep.shared_init.clone();
        let mut warps: Vec<Warp> = (0..nwarps)
            .map(|w| {
                let n = (threads - u64::from(w) * 32).min(32) as u32;
                let lanes = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
                Warp {
                    stack: vec![Entry {
                        pc: 0,
                        rpc: usize::MAX,
                        mask: lanes,
                    }],
                    regs: WarpRegs::new(prep.body.symbols.len()),
                    at_barrier: false,
                    trace: WarpTrace {
                        cta,
                        warp: w,
                        lanes,
                        ..WarpTrace::default()
                    },
                    clock_reads: 0,
                }
            })
            .collect();
        let mut local: Vec<Vec<u8>> = vec![vec![0u8; prep.local as usize]; 32 * nwarps as usize];
        let base = out.len();
        loop {
            let mut ran = false;
            let mut failed = None;
            for (w, warp) in warps.iter_mut().enumerate() {
                if warp.stack.is_empty() || warp.at_barrier {
                    continue;
                }
                ran = true;
                let thread = thread_ctx(prep, launch, cta, w as u32, opts.sms);
                let mut mem = WarpMem {
                    global: &mut global,
                    consts: &prep.consts,
                    params: &prep.params,
                    shared: &mut shared,
                    local: &mut local[w * 32..w * 32 + 32],
                    vars: &prep.vars,
                };
                let ctx = ExecCtx {
                    target: opts.target,
                    warp_id: w as u32,
                    thread,
                };
                let clk = clocks.get(base + w).map_or(&[][..], |c| &c[..]);
                let r = run_warp(prep, warp, ctx, &mut mem, clk, &mut count, opts, ctaid);
                if let Err(e) = r {
                    failed = Some(e);
                    break;
                }
            }
            if let Some(e) = failed {
                return Err(match e {
                    KernelError::InstructionLimit { limit, .. } => KernelError::InstructionLimit {
                        limit,
                        waiting: (0..warps.len() as u32)
                            .filter(|&k| warps[k as usize].at_barrier)
                            .collect(),
                    },
                    e => e,
                });
            }
            let live: Vec<usize> = (0..warps.len())
                .filter(|&w| !warps[w].stack.is_empty())
                .collect();
            if live.is_empty() {
                break;
            }
            if live.iter().all(|&w| warps[w].at_barrier) {
                for &w in &live {
                    warps[w].at_barrier = false;
                }
            } else if !ran {
                return Err(KernelError::Deadlock {
                    cta: ctaid,
                    waiting: live
                        .iter()
                        .filter(|&&w| warps[w].at_barrier)
                        .map(|&w| w as u32)
                        .collect(),
                    running: live
                        .iter()
                        .filter(|&&w| !warps[w].at_barrier)
                        .map(|&w| w as u32)
                        .collect(),
                });
            }
        }
        out.extend(warps.into_iter().map(|w| w.trace));
    }
    Ok(Executed {
        global,
        warps: out,
        instructions: count,
    })
}

/// Special-register values of warp `w` of block `cta` (linear), its block
/// dealt to SM `cta % sms`.
pub(crate) fn thread_ctx(
    prep: &Prepared<'_>,
    launch: &Launch,
    cta: u32,
    w: u32,
    sms: u32,
) -> ThreadCtx {
    let [gx, gy, _] = launch.grid;
    ThreadCtx {
        first_thread: w * 32,
        ntid: launch.block,
        ctaid: [cta % gx, cta / gx % gy, cta / (gx * gy)],
        nctaid: launch.grid,
        smid: cta % sms.max(1),
        nsmid: sms.max(1),
        smem: [0, prep.shared as u32],
        ..ThreadCtx::default()
    }
}

impl Executed {
    /// The final bytes of the allocations at `bases` (a launch's buffers).
    pub fn buffer_bytes(&self, bases: &[u64]) -> Vec<Vec<u8>> {
        bases
            .iter()
            .map(|&base| {
                self.global
                    .regions
                    .iter()
                    .find(|r| r.base == base)
                    .map(|r| r.bytes.clone())
                    .unwrap_or_default()
            })
            .collect()
    }
}

/// Lanes of `mask` whose guard (if any) holds.
fn guard_lanes(g: Option<sim_isa::Guard>, regs: &WarpRegs, mask: u32) -> u32 {
    let Some(g) = g else { return mask };
    let v = regs.get(g.reg);
    let mut m = 0u32;
    for (l, x) in v.iter().enumerate() {
        m |= u32::from((*x & 1 == 1) != g.negate) << l;
    }
    mask & m
}

/// Runs one warp until it exits or reaches a barrier.
#[allow(clippy::too_many_arguments)]
fn run_warp(
    prep: &Prepared<'_>,
    warp: &mut Warp,
    mut ctx: ExecCtx,
    mem: &mut WarpMem<'_>,
    clocks: &[u64],
    count: &mut u64,
    opts: &ExecOptions,
    cta: [u32; 3],
) -> Result<(), KernelError> {
    let (limit, log_loads) = (opts.max_instructions, opts.log_loads);
    let stmts = &prep.body.statements;
    let n = stmts.len();
    while let Some(&top) = warp.stack.last() {
        if top.pc >= n {
            // Fell off the end: these lanes are done.
            exit_lanes(&mut warp.stack, top.mask);
            continue;
        }
        *count += 1;
        if *count > limit {
            return Err(KernelError::InstructionLimit {
                limit,
                waiting: Vec::new(),
            });
        }
        let s = &stmts[top.pc];
        let mut step = sim_isa_step(top.pc, 0);
        let mut next = top.pc + 1;
        let mut barrier = false;
        match &s.kind {
            StatementKind::Instruction(inst) => {
                let lanes = guard_lanes(inst.guard, &warp.regs, top.mask);
                step.lanes = lanes;
                if reads_clock(inst) {
                    let i = warp.clock_reads;
                    warp.clock_reads += 1;
                    ctx.thread.clock = clocks
                        .get(i)
                        .copied()
                        .unwrap_or(warp.trace.steps.len() as u64);
                }
                match &inst.op {
                    Op::Mem(_) => {
                        let mut logged;
                        let m: &mut dyn sim_isa::exec::Memory = if log_loads {
                            logged = crate::record::LoadTap {
                                mem: &mut *mem,
                                loads: crate::record::Loads::Log(&mut warp.trace.loads),
                            };
                            &mut logged
                        } else {
                            &mut *mem
                        };
                        let acc = execute_mem(inst, &ctx, &mut warp.regs, top.mask, m).map_err(
                            |fault| KernelError::Fault {
                                fault,
                                cta,
                                warp: ctx.warp_id,
                                thread: ctx.warp_id * 32 + fault.lane,
                                text: s.text.clone(),
                                file: prep.module.file.clone(),
                                pos: s.pos,
                            },
                        )?;
                        if let Some(a) = acc {
                            if warp.trace.accesses.len() >= MAX_ACCESSES {
                                return Err(KernelError::Limit(format!(
                                    "a warp executed more than {MAX_ACCESSES} memory instructions; \
                                     the record of their addresses would not fit in memory"
                                )));
                            }
                            step.access = Some(warp.trace.accesses.len() as u32);
                            warp.trace.accesses.push(a);
                        }
                    }
                    Op::Warp(w) if w.op == WarpOp::BarSync && lanes != 0 => {
                        barrier = true;
                    }
                    _ => sim_isa::execute(inst, &ctx, &mut warp.regs, top.mask),
                }
            }
            StatementKind::Control(c) => {
                let lanes = guard_lanes(c.guard, &warp.regs, top.mask);
                step.lanes = lanes;
                match &c.op {
                    ControlOp::Bra { label, .. } => {
                        let target = prep.body.labels[*label].target;
                        if lanes == top.mask {
                            next = target;
                        } else if lanes != 0 {
                            diverge(&mut warp.stack, top, target, lanes, prep.reconv[top.pc]);
                            warp.trace.steps.push(step);
                            pop_done(&mut warp.stack);
                            continue;
                        }
                    }
                    ControlOp::Ret { .. } | ControlOp::Exit => {
                        warp.trace.steps.push(step);
                        exit_lanes(&mut warp.stack, lanes);
                        if let Some(t) = warp.stack.last_mut() {
                            if t.pc == top.pc {
                                t.pc = next;
                            }
                        }
                        pop_done(&mut warp.stack);
                        continue;
                    }
                    ControlOp::Call { callee, .. } => {
                        return Err(KernelError::Unsupported {
                            what: format!("call {callee}"),
                            file: prep.module.file.clone(),
                            pos: s.pos,
                        })
                    }
                }
            }
            StatementKind::Unimplemented(u) => {
                return Err(KernelError::Unsupported {
                    what: u.opcode.clone(),
                    file: prep.module.file.clone(),
                    pos: s.pos,
                })
            }
        }
        warp.trace.steps.push(step);
        if let Some(t) = warp.stack.last_mut() {
            t.pc = next;
        }
        pop_done(&mut warp.stack);
        if barrier {
            warp.at_barrier = !warp.stack.is_empty();
            return Ok(());
        }
    }
    Ok(())
}

fn sim_isa_step(pc: usize, lanes: u32) -> Step {
    Step {
        stmt: pc as u32,
        lanes,
        access: None,
    }
}

/// Whether `inst` reads `%clock`, `%clock_hi` or `%clock64`.
pub fn reads_clock(inst: &sim_isa::Instruction) -> bool {
    use sim_isa::{Operand, SpecialReg as S};
    match &inst.op {
        Op::Alu(a) => matches!(a.a, Operand::Special(S::Clock | S::ClockHi | S::Clock64)),
        _ => false,
    }
}

/// Splits the top entry at a divergent branch.
fn diverge(stack: &mut Vec<Entry>, top: Entry, target: usize, taken: u32, reconv: usize) {
    if let Some(t) = stack.last_mut() {
        t.pc = reconv;
    }
    stack.push(Entry {
        pc: top.pc + 1,
        rpc: reconv,
        mask: top.mask & !taken,
    });
    stack.push(Entry {
        pc: target,
        rpc: reconv,
        mask: taken,
    });
}

/// Removes exiting lanes from every entry.
fn exit_lanes(stack: &mut Vec<Entry>, lanes: u32) {
    for e in stack.iter_mut() {
        e.mask &= !lanes;
    }
    pop_done(stack);
}

/// Pops entries that reached their reconvergence point or have no lanes.
fn pop_done(stack: &mut Vec<Entry>) {
    while let Some(t) = stack.last() {
        if t.pc == t.rpc || t.mask == 0 {
            stack.pop();
        } else {
            break;
        }
    }
}
