//! What the engine ([`crate::engine`]) needs to time a kernel on
//! sim-core: the instruction sim-core issues for each statement, which ones
//! the host owns, the kernel's loops and branch targets, how many blocks an
//! SM holds, and the result ([`Timed`]).

use crate::memstats::{BlockLimits, MemStats, Occupancy};
use crate::memtime::{Kind, MemConfig};
use crate::prepare::Prepared;
use sim_core::{Program, SmConfig, Stats};
use sim_isa::db::{self, BarrierKind, MemKind};
use sim_isa::{Instruction, Op, Space, WarpInst, WarpOp};
use sim_module::{ControlOp, StatementKind};

/// Cycles of a launch.
#[derive(Clone, Debug)]
pub struct Timed {
    /// Cycles until the last SM finished.
    pub cycles: u64,
    /// The earliest and the latest `%clock`/`%clock64` read, if any.
    pub clock_span: Option<(u64, u64)>,
    /// The SM model's statistics, merged over SMs (cycles: the slowest).
    pub stats: Stats,
    /// SMs that ran blocks.
    pub sms_used: u32,
    /// What `--sample` estimated, when it ran SMs functionally (then
    /// `cycles` is an estimate and `stats` are the timed SMs').
    pub sampled: Option<Sampled>,
    /// What `RunOptions::timeline` asked recorded (else `None`).
    pub timeline: Option<crate::spans::LaunchSpans>,
    /// The registers `RunOptions::dump_block` asked for (else `None`).
    pub regs: Option<crate::spans::BlockRegs>,
    /// Per statement (program instruction, as `stats.per_inst` counts
    /// them): its line in the module and its text (empty where not kept).
    pub sources: Vec<(u32, String)>,
    /// Each timed SM that ran blocks: its index, the SM model's statistics
    /// and the memory model's counters (`stats` and `memory` are their sums).
    pub per_sm: Vec<(u32, Stats, MemStats)>,
    /// The memory model's counters over those SMs.
    pub memory: MemStats,
    /// Theoretical and achieved occupancy.
    pub occupancy: Occupancy,
}

impl Timed {
    /// `max(last clock read) - min(first clock read)` over warps that read
    /// the clock: what the H100 figures of the launch files measure.
    pub fn clock_window(&self) -> Option<u64> {
        self.clock_span.map(|(a, b)| b - a)
    }
}

/// Each statement's line in its module and its text ([`Timed::sources`]).
pub(crate) fn sources(prep: &Prepared<'_>) -> Vec<(u32, String)> {
    prep.body
        .statements
        .iter()
        .map(|s| (s.pos.line, s.text.trim().to_string()))
        .collect()
}

/// The instruction sim-core issues for each statement.
pub(crate) fn program(prep: &Prepared<'_>, target: sim_isa::Target) -> Program {
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
                    ControlOp::Exit | ControlOp::Trap => "exit",
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
pub(crate) fn ext_kind(i: &Instruction) -> Option<Kind> {
    // Kernel parameters are the launch's constants: not the memory model's.
    if let Some(m) = db::memory(i).filter(|m| m.space != Space::Param) {
        return Some(match m.kind {
            MemKind::Load => Kind::Load,
            MemKind::Store => Kind::Store,
            MemKind::Atomic => Kind::Atomic,
        });
    }
    let sync = db::barrier(i) == Some(BarrierKind::Sync);
    (sync || db::reads_clock(i)).then_some(Kind::Store)
}

/// Blocks one SM holds at once: its warp slots, its shared memory and its
/// block limit, as far as this block's needs go.
pub fn blocks_per_sm(
    cfg: &SmConfig,
    limits: &MemConfig,
    warps_per_block: u32,
    smem: u64,
    registers: Option<u32>,
) -> u32 {
    block_limits(cfg, limits, warps_per_block, smem, registers).blocks()
}

/// The blocks one SM could hold by each of its resources
/// ([`blocks_per_sm`] is the least of them).
pub fn block_limits(
    cfg: &SmConfig,
    limits: &MemConfig,
    warps_per_block: u32,
    smem: u64,
    registers: Option<u32>,
) -> BlockLimits {
    let by_warps = cfg.resident_warps / warps_per_block.max(1);
    let by_smem = limits
        .smem_per_sm
        .checked_div(smem)
        .map_or(u32::MAX, |n| u32::try_from(n).unwrap_or(u32::MAX));
    let by_regs = registers.map_or(u32::MAX, |r| {
        let block = limits.block_registers(r, warps_per_block.max(1)).max(1);
        u32::try_from(u64::from(limits.regs_per_sm) / block).unwrap_or(u32::MAX)
    });
    BlockLimits {
        by_warps,
        by_registers: by_regs,
        by_shared: by_smem,
        by_blocks: limits.blocks_per_sm,
    }
}

/// Whether statement `stmt` is a loop's back-edge: a branch to a label at or
/// before it. ptxas keeps these as branches (every PTX back-edge of the
/// public and extra kernels is a backward BRA in ptxas 13.0.88's code),
/// while it turns many forward branches into predicated code (`local_sort`:
/// 30 in the PTX, 1 in the machine code), so only back-edges cost a taken
/// branch's redirect (`SmConfig::taken_branch_cycles`; 0 in the presets).
pub(crate) fn is_back_edge(prep: &Prepared<'_>, stmt: u32) -> bool {
    match &prep.body.statements[stmt as usize].kind {
        StatementKind::Control(c) => match c.op {
            ControlOp::Bra { label, .. } => prep
                .body
                .labels
                .get(label)
                .is_some_and(|l| l.target <= stmt as usize),
            ControlOp::Call { .. } | ControlOp::Ret { .. } | ControlOp::Exit | ControlOp::Trap => {
                false
            }
        },
        StatementKind::Instruction(_) | StatementKind::Unimplemented(_) => false,
    }
}

/// The kernel's loops (per back-edge, a branch to a label at or before it,
/// the statements from its target to it) and the statements branches lead
/// to. The work a loop repeats on values set before it is what ptxas hoists
/// (`ProgramTables::with_loops`).
pub(crate) fn control(prep: &Prepared<'_>) -> (Vec<(u32, u32)>, Vec<u32>) {
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

/// What `--sample` estimated.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampled {
    /// SMs timed on the SM model (that ran blocks).
    pub timed_sms: u32,
    /// Their indices, in SM order.
    pub timed: Vec<u32>,
    /// Blocks timed there.
    pub timed_blocks: u64,
    /// The mean cycles a timed block was resident.
    pub block_cycles: f64,
    /// Half the width of that mean's 95% confidence interval, cycles.
    pub ci95: f64,
    /// Blocks of the other SMs modelled with that mean (each of the rest
    /// is held for the residency of its timed partner's corresponding
    /// block): those whose partner had no corresponding block.
    pub modelled_by_mean: u64,
}
