//! Replaying a recording: cycles from the recorded steps and addresses,
//! values from re-executing each warp along its recorded steps with its
//! loads answered from the record.

use super::{compare_outputs, LoadTap, Loads, RecWarp, RecordError, Recording};
use crate::exec::{reads_clock, Executed, Step, WarpTrace};
use crate::memory::{Global, WarpMem};
use crate::memtime::CacheModel;
use crate::prepare::Prepared;
use crate::run::{LaunchRun, RunOptions};
use crate::timing::time;
use crate::KernelError;
use sim_isa::exec::execute_mem;
use sim_isa::{ExecCtx, Op, Target, WarpOp, WarpRegs, WARP_SIZE};
use sim_module::{parse_module, Launch, StatementKind};

/// Replays `rec` (read from the file `name`) with `opts`: times the
/// recorded warps on `opts`' SM and memory model, then re-executes them with
/// the clock values that timing gives. The result's `mismatches` compare
/// the re-executed outputs with the recorded final bytes.
pub fn replay(name: &str, rec: &Recording, opts: &RunOptions) -> Result<LaunchRun, RecordError> {
    let invalid = |msg: String| RecordError::Invalid {
        name: name.to_string(),
        msg,
    };
    let module = parse_module(&rec.module, &rec.module_name)?;
    let launch = rec.launch();
    let data = rec
        .buffers
        .iter()
        .map(|b| match &b.output {
            Some((initial, _)) => initial.clone(),
            None => vec![0u8; b.bytes as usize],
        })
        .collect();
    let prep = Prepared::new(&module, &launch, data)?;
    let n = prep.body.statements.len();
    let mut warps = Vec::with_capacity(rec.warps.len());
    let mut instructions = 0u64;
    for (i, w) in rec.warps.iter().enumerate() {
        warps.push(warp_trace(w, n).map_err(|m| invalid(format!("warps[{i}].{m}")))?);
        instructions += w.steps.len() as u64;
    }
    if instructions > opts.max_instructions {
        return Err(KernelError::InstructionLimit {
            limit: opts.max_instructions,
            waiting: Vec::new(),
        }
        .into());
    }
    let mut exe = Executed {
        global: Global::default(),
        warps,
        instructions,
    };
    let mut mem = CacheModel::new(opts.memory.clone(), opts.sms, &[]);
    let timed = time(&prep, &exe, &opts.config, opts.policy, opts.sms, &mut mem)?;
    let target = Target::parse(&rec.target).map_err(|e| invalid(format!("target: {e}")))?;
    exe.global = reexecute(&prep, &launch, rec, &timed.clocks, target).map_err(|e| match e {
        Diverged::Record(m) => invalid(m),
        Diverged::Kernel(k) => RecordError::Kernel(k),
    })?;
    let buffers = exe.buffer_bytes(&prep.buffers);
    let mismatches = compare_outputs(rec, &buffers);
    Ok(LaunchRun {
        launch,
        buffers,
        executed: exe,
        timed,
        mismatches,
        module_name: rec.module_name.clone(),
    })
}

/// The executed-warp record the timing model reads; statement indices
/// checked against the kernel's `n` statements.
fn warp_trace(w: &RecWarp, n: usize) -> Result<WarpTrace, String> {
    let mut steps = Vec::with_capacity(w.steps.len());
    for (k, &(stmt, lanes)) in w.steps.iter().enumerate() {
        if stmt as usize >= n {
            return Err(format!(
                "steps[{k}]: statement {stmt} is past the kernel's {n} statements"
            ));
        }
        steps.push(Step {
            stmt,
            lanes,
            access: None,
        });
    }
    for (k, a) in w.accesses.iter().enumerate() {
        // `validate` checked that the step exists.
        if let Some(s) = steps.get_mut(a.step as usize) {
            s.access = Some(k as u32);
        }
    }
    Ok(WarpTrace {
        cta: w.cta,
        warp: w.warp,
        lanes: w.lanes,
        steps,
        accesses: w.accesses.iter().map(|a| a.accesses()).collect(),
        loads: w.loads.clone(),
    })
}

/// Why re-execution stopped.
enum Diverged {
    /// The recording does not match its module.
    Record(String),
    /// The kernel stopped (an unsupported statement).
    Kernel(KernelError),
}

/// One warp's state during re-execution.
struct State {
    regs: WarpRegs,
    /// Next step, load value and access.
    pos: usize,
    load: usize,
    access: usize,
    clock_reads: usize,
    ctx: ExecCtx,
}

/// Re-executes every warp in the order `execute` ran them (blocks in grid
/// order; within a block, each live warp up to its next barrier in turn),
/// so that stores to the same address land in the same order. Returns the
/// final global memory.
fn reexecute(
    prep: &Prepared<'_>,
    launch: &Launch,
    rec: &Recording,
    clocks: &[Vec<u64>],
    target: Target,
) -> Result<Global, Diverged> {
    let mut global = prep.global.clone();
    let nwarps = launch.block_threads().div_ceil(WARP_SIZE as u64) as usize;
    for (cta, ws) in rec.warps.chunks(nwarps.max(1)).enumerate() {
        let c = cta as u32;
        let mut shared = prep.shared_init.clone();
        let mut local: Vec<Vec<u8>> = vec![vec![0u8; prep.local as usize]; 32 * ws.len()];
        let mut states: Vec<State> = (0..ws.len())
            .map(|w| State {
                regs: WarpRegs::new(prep.body.symbols.len()),
                pos: 0,
                load: 0,
                access: 0,
                clock_reads: 0,
                ctx: ExecCtx {
                    target,
                    warp_id: w as u32,
                    thread: crate::exec::thread_ctx(prep, launch, c, w as u32, rec.sms),
                },
            })
            .collect();
        loop {
            let mut ran = false;
            for (w, (rw, st)) in ws.iter().zip(states.iter_mut()).enumerate() {
                if st.pos >= rw.steps.len() {
                    continue;
                }
                ran = true;
                let mut mem = WarpMem {
                    global: &mut global,
                    consts: &prep.consts,
                    params: &prep.params,
                    shared: &mut shared,
                    local: &mut local[w * 32..w * 32 + 32],
                    vars: &prep.vars,
                };
                let clk = clocks.get(cta * nwarps + w).map_or(&[][..], |c| &c[..]);
                segment(prep, rw, st, &mut mem, clk)
                    .map_err(|e| at(e, cta * nwarps + w, st.pos))?;
            }
            if !ran {
                break;
            }
        }
        for (w, (rw, st)) in ws.iter().zip(&states).enumerate() {
            if st.load != rw.loads.len() {
                return Err(Diverged::Record(format!(
                    "warps[{}]: {} load values recorded, {} used",
                    cta * nwarps + w,
                    rw.loads.len(),
                    st.load
                )));
            }
        }
    }
    Ok(global)
}

fn at(e: Diverged, warp: usize, step: usize) -> Diverged {
    match e {
        Diverged::Record(m) => Diverged::Record(format!("warps[{warp}].steps[{step}]: {m}")),
        k => k,
    }
}

/// Runs one warp's steps up to and including its next barrier.
fn segment(
    prep: &Prepared<'_>,
    rw: &RecWarp,
    st: &mut State,
    mem: &mut WarpMem<'_>,
    clocks: &[u64],
) -> Result<(), Diverged> {
    let stmts = &prep.body.statements;
    while let Some(&(stmt, lanes)) = rw.steps.get(st.pos) {
        let s = &stmts[stmt as usize];
        let mut barrier = false;
        match &s.kind {
            StatementKind::Instruction(inst) => {
                if reads_clock(inst) {
                    let i = st.clock_reads;
                    st.clock_reads += 1;
                    st.ctx.thread.clock = clocks.get(i).copied().unwrap_or(st.pos as u64);
                }
                match &inst.op {
                    Op::Mem(_) => {
                        let mut m = LoadTap {
                            mem: &mut *mem,
                            loads: Loads::Answer {
                                values: &rw.loads,
                                next: &mut st.load,
                            },
                        };
                        let got = execute_mem(inst, &st.ctx, &mut st.regs, lanes, &mut m).map_err(
                            |f| {
                                Diverged::Record(format!(
                                    "`{}`: {f} (load values or addresses do not match the module)",
                                    s.text
                                ))
                            },
                        )?;
                        let want = rw
                            .accesses
                            .get(st.access)
                            .filter(|a| a.step as usize == st.pos);
                        match (got, want) {
                            (Some(g), Some(w)) if g == w.accesses() => st.access += 1,
                            (None, None) => {}
                            _ => {
                                return Err(Diverged::Record(format!(
                                    "`{}`: its addresses differ from the recorded ones",
                                    s.text
                                )))
                            }
                        }
                    }
                    Op::Warp(w) if w.op == WarpOp::BarSync => barrier = lanes != 0,
                    _ => sim_isa::execute(inst, &st.ctx, &mut st.regs, lanes),
                }
            }
            StatementKind::Control(_) => {}
            StatementKind::Unimplemented(u) => {
                return Err(Diverged::Kernel(KernelError::Unsupported {
                    what: u.opcode.clone(),
                    file: prep.module.file.clone(),
                    pos: s.pos,
                }))
            }
        }
        st.pos += 1;
        if barrier {
            break;
        }
    }
    Ok(())
}
