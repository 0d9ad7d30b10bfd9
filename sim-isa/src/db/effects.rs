//! What a decoded instruction does to the machine besides its lane values:
//! which operands it reads (and so whether it reads the clock), the memory
//! it touches and how, barriers, whether dead-code removal may drop it,
//! whether a scheduler may move work across it, and its sources as the
//! lowering table names them. Each is one exhaustive match over the family
//! (or derived from the operands), so every crate downstream asks here and
//! a new family cannot compile until it has said what it does. The arm
//! lists that name every other family or operation repeat on purpose (the
//! `duplicates` tool reports them): a `_ =>` would hand a new one an answer
//! silently. Only the accessors of one family's fields (`warp_op`,
//! `mem_of`, `async_of`, `barrier_reduction`) are `if let`: they decide
//! nothing for a new family.

use crate::inst::{
    AddrBase, AsyncInst, BarRedOp, Instruction, Mem, MemOp, Op, Operand, PredSrc, RegId, Space,
    SpecialReg, WarpOp, QUAL_WORDS,
};

/// How an instruction touches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemKind {
    /// `ld`, `ldu`: reads only.
    Load,
    /// `st`: writes only.
    Store,
    /// `atom`, `red`: reads and writes in one access.
    Atomic,
}

/// The memory access an instruction makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAccess {
    /// Load, store or atomic.
    pub kind: MemKind,
    /// The state space its address is in (`Generic`: any writable one).
    pub space: Space,
}

/// A barrier among the threads of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarrierKind {
    /// `bar.sync`, `barrier.sync`, `bar.red`: arrive and wait (`bar.red`
    /// also reduces a predicate over the block: [`barrier_reduction`]).
    Sync,
    /// `bar.arrive`, `barrier.arrive`: arrive without waiting.
    Arrive,
}

/// A PTX source operand as the lowering table names it (`a`..`d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// The instruction has no such operand.
    Absent,
    /// An immediate or a special register: ptxas folds it or reads it once.
    Fixed,
    /// A register.
    Reg(RegId),
}

/// Calls `f` with every operand `inst` reads, special registers and
/// immediates included (predicate sources and the guard are registers of
/// their own: [`Instruction::reg_uses`]).
pub fn for_each_source(inst: &Instruction, mut f: impl FnMut(Operand)) {
    let mut each = |ops: &[Option<Operand>]| ops.iter().flatten().for_each(|&o| f(o));
    match &inst.op {
        // Registers only.
        Op::Video(_) => {}
        Op::Set(s) => each(&[Some(s.a), Some(s.b)]),
        Op::Setp(s) => each(&[Some(s.a), Some(s.b)]),
        Op::Selp(s) => each(&[Some(s.a), Some(s.b)]),
        Op::Slct(s) => each(&[Some(s.a), Some(s.b), Some(s.c)]),
        Op::Alu(a) => each(&[Some(a.a), a.b]),
        Op::Int(x) => each(&[Some(x.a), x.b, x.c]),
        Op::Float(x) => each(&[Some(x.a), x.b, x.c]),
        Op::Cvt(x) => each(&[Some(x.a), x.b, x.c]),
        Op::Bit(x) => x.srcs().iter().for_each(|&o| f(o)),
        Op::Mem(m) => {
            m.vals[..m.sources()].iter().for_each(|&o| f(o));
            // `wmma.store.d`'s fragment registers 4-7; a `wmma` stride.
            let (hi, stride) = m.wmma_extra();
            if m.op.is_wmma_store() {
                hi.iter().for_each(|&r| f(Operand::Reg(r)));
            }
            stride.into_iter().for_each(|r| f(Operand::Reg(r)));
        }
        Op::Warp(w) => {
            w.srcs[..w.nsrc_values()].iter().for_each(|&o| f(o));
            f(w.mask);
        }
        Op::Async(a) => each(&[a.src_size, a.a, a.hint]),
        Op::Mma(m) => {
            let [_, na, nb, nc] = m.used_counts();
            let regs = m.a[..na].iter().chain(&m.b[..nb]).chain(&m.c[..nc]);
            regs.for_each(|&r| f(Operand::Reg(r)));
        }
    }
}

/// Whether `inst` reads `%clock`, `%clock_hi` or `%clock64` in any operand:
/// its value is the cycle it issues at, which only a timing model knows.
pub fn reads_clock(inst: &Instruction) -> bool {
    let mut clock = false;
    for_each_source(inst, |o| {
        clock |= match o {
            Operand::Special(s) => is_clock(s),
            Operand::Reg(_) | Operand::Imm(_) => false,
        }
    });
    clock
}

/// The cycle counter's registers.
const fn is_clock(s: SpecialReg) -> bool {
    matches!(
        s,
        SpecialReg::Clock | SpecialReg::ClockHi | SpecialReg::Clock64 | SpecialReg::GlobalTimer
    )
}

/// The memory access `inst` makes; `None` for an instruction that touches
/// no memory (`cvta`, `mov` of an address, packing: they only compute).
pub fn memory(inst: &Instruction) -> Option<MemAccess> {
    // An async copy is timed as its global load, an `mbarrier` operation
    // as an atomic on its object (docs/async-copies.md).
    if let Some(a) = async_of(&inst.op) {
        // A bulk copy as the access of its global side (a store to global
        // memory, else a load), or of its shared source.
        if a.is_bulk() {
            let (kind, space) = if a.dst_space() == Space::Global {
                (MemKind::Store, Space::Global)
            } else {
                (MemKind::Load, a.src_space())
            };
            return Some(MemAccess { kind, space });
        }
        if a.is_copy() {
            return Some(MemAccess {
                kind: MemKind::Load,
                space: Space::Global,
            });
        }
        if a.touches_object() {
            let space = if a.generic {
                Space::Generic
            } else {
                Space::Shared
            };
            return Some(MemAccess {
                kind: MemKind::Atomic,
                space,
            });
        }
    }
    let m = mem_of(&inst.op)?;
    let kind = match m.op {
        MemOp::Wmma(w) if w.is_store() => MemKind::Store,
        // A prefetch goes down the load path: the LSU issues its lines and
        // the caches take them (docs/prefetch.md); nothing waits for it.
        MemOp::Ld | MemOp::Ldu | MemOp::Ldmatrix { .. } | MemOp::Wmma(_) | MemOp::Prefetch(_) => {
            MemKind::Load
        }
        MemOp::St | MemOp::Stmatrix { .. } => MemKind::Store,
        MemOp::Atom(_) | MemOp::Red(_) => MemKind::Atomic,
        MemOp::Cvta { .. } | MemOp::MovAddr | MemOp::Pack | MemOp::Unpack => return None,
    };
    Some(MemAccess {
        kind,
        space: m.space,
    })
}

/// Whether `inst` executes through a memory (`exec::execute_mem`): every
/// instruction of the memory family, the address computations included
/// (a generic window or a variable's place is the memory's to say).
pub fn runs_with_memory(inst: &Instruction) -> bool {
    mem_of(&inst.op).is_some() || async_of(&inst.op).is_some_and(AsyncInst::in_memory)
}

/// Whether only a launch can run `inst`: it accesses memory or computes an
/// address (a variable's place, a window), or it is a barrier, which needs
/// the threads of a block.
pub fn needs_launch(inst: &Instruction) -> bool {
    let address = mem_of(&inst.op).is_some_and(|m| match m.op {
        // Each other operation named: exhaustive, no wildcard (a new one must be placed).
        MemOp::Ld
        | MemOp::Ldu
        | MemOp::St
        | MemOp::Atom(_)
        | MemOp::Red(_)
        | MemOp::Cvta { .. }
        | MemOp::MovAddr
        | MemOp::Ldmatrix { .. }
        | MemOp::Stmatrix { .. }
        | MemOp::Wmma(_)
        | MemOp::Prefetch(_) => true,
        MemOp::Pack | MemOp::Unpack => false,
    });
    let copy = async_of(&inst.op).is_some_and(AsyncInst::in_memory);
    address || copy || barrier(inst).is_some()
}

/// The block barrier `inst` is, if any. `bar.warp.sync` is none: it waits
/// for lanes of its own warp only, which execute it together.
pub fn barrier(inst: &Instruction) -> Option<BarrierKind> {
    match warp_op(&inst.op)? {
        WarpOp::BarSync | WarpOp::BarRed(_) => Some(BarrierKind::Sync),
        WarpOp::BarArrive => Some(BarrierKind::Arrive),
        // Each other operation named: exhaustive, no wildcard (a new one must be placed).
        WarpOp::Fence
        | WarpOp::Shfl(_)
        | WarpOp::Vote(_)
        | WarpOp::Activemask
        | WarpOp::Control
        | WarpOp::WarpSync
        | WarpOp::Redux(_)
        | WarpOp::Match { .. }
        | WarpOp::Nanosleep
        | WarpOp::Elect
        | WarpOp::Movmatrix => None,
    }
}

/// The reduction a barrier makes over its block's threads (`bar.red`):
/// its destination is written when the barrier opens, from every arriving
/// warp's share (`exec::bar_red_share`, `exec::bar_red_deliver`).
pub fn barrier_reduction(inst: &Instruction) -> Option<BarRedOp> {
    if let WarpOp::BarRed(op) = warp_op(&inst.op)? {
        Some(op)
    } else {
        None
    }
}

/// The sm_90 machine opcode (and the modifier that sets its timing) of a
/// warp-wide operation that the lowering tables have no row for, so that
/// the SM model can time it as that opcode (sim-core's pipe rules): ptxas
/// 13.0.88 emits `SHFL.{IDX,UP,DOWN,BFLY}`, `VOTE.{ALL,ANY}` (ballot too),
/// `REDUX.{SUM,MIN,MAX,AND,OR,XOR}` (+ a move out of the uniform register)
/// and `MATCH.{ANY,ALL}` (tools/gpu/ubench/manifest.json's histograms).
/// `None` for the rest: barriers, fences and sleeps are timed as such, and
/// `activemask`, `bar.warp.sync` and `elect.sync` stay one ALU operation.
/// The tensor-core family: `mma` as ptxas 13.0.88 lowers it for sm_90
/// (`HMMA.16816.F32`, `HMMA.16816.F32.BF16`, `HMMA.1688.F16`,
/// `IMMA.16832.S8.S8`, `IMMA.16816.U8.S8`, `DMMA.8x8x4`: one machine
/// instruction each, `tests/data/mma-sass-sm90.txt` from
/// `tools/lowering/mma_sass.py`), `movmatrix` as `MOVM.16.MT88`.
/// (`ldmatrix`/`stmatrix` are memory instructions, `LDSM`/`STSM`, timed
/// by the memory model as shared loads and stores.)
pub fn warp_machine_opcode(inst: &Instruction) -> Option<(&'static str, &'static str)> {
    if let Op::Mma(m) = &inst.op {
        return Some(mma_machine_opcode(m));
    }
    match warp_op(&inst.op)? {
        WarpOp::Shfl(_) => Some(("SHFL", "")),
        WarpOp::Vote(_) => Some(("VOTE", "")),
        WarpOp::Redux(_) => Some(("REDUX", "")),
        WarpOp::Match { all: true, .. } => Some(("MATCH", ".ALL")),
        WarpOp::Match { all: false, .. } => Some(("MATCH", ".ANY")),
        WarpOp::Movmatrix => Some(("MOVM", ".16.MT88")),
        // Each other operation named: exhaustive, no wildcard (a new one must be placed).
        WarpOp::BarSync
        | WarpOp::BarArrive
        | WarpOp::Fence
        | WarpOp::Activemask
        | WarpOp::WarpSync
        | WarpOp::BarRed(_)
        | WarpOp::Nanosleep
        | WarpOp::Elect
        | WarpOp::Control => None,
    }
}

/// `mma`'s machine opcode and the modifiers that set its timing.
fn mma_machine_opcode(m: &crate::inst::Mma) -> (&'static str, &'static str) {
    use crate::inst::{MmaShape, MmaType};
    match (m.shape, m.types[1], m.types[0]) {
        (MmaShape::M8n8k4 | MmaShape::Wm8n8k4, _, _) => ("DMMA", ".8x8x4"),
        // sm_90 has no 4-bit IMMA: ptxas widens to bytes for two
        // `IMMA.8816` (docs/wmma.md), timed as one.
        (MmaShape::Wm8n8k32, _, _) => ("IMMA", ".8816"),
        // Four `HMMA.1684.F32.TF32` (two `k` steps on each half of `d`),
        // timed as one.
        (MmaShape::Wm16n16k8, _, _) => ("HMMA", ".1684.F32.TF32"),
        // sm_90 has `BMMA.88128.AND.POPC` alone: `.xor.popc` is two of
        // them on complemented sources (docs/wmma.md), timed as one.
        (MmaShape::Wm8n8k128, _, _) => ("BMMA", ".88128.AND.POPC"),
        // `wmma.mma`: two `HMMA.16816` or `IMMA.16816` (docs/wmma.md),
        // timed as one.
        (
            MmaShape::M16n16k16 | MmaShape::M32n8k16 | MmaShape::M8n32k16,
            MmaType::S8 | MmaType::U8,
            _,
        ) => ("IMMA", ".16816"),
        (MmaShape::M16n16k16 | MmaShape::M32n8k16 | MmaShape::M8n32k16, _, MmaType::F16) => {
            ("HMMA", ".16816.F16")
        }
        (MmaShape::M16n16k16 | MmaShape::M32n8k16 | MmaShape::M8n32k16, _, _) => {
            ("HMMA", ".16816.F32")
        }
        (MmaShape::M16n8k32, _, _) => ("IMMA", ".16832"),
        (MmaShape::M16n8k16, MmaType::S8 | MmaType::U8, _) => ("IMMA", ".16816"),
        (MmaShape::M16n8k16, _, MmaType::F16) => ("HMMA", ".16816.F16"),
        (MmaShape::M16n8k16, _, _) => ("HMMA", ".16816.F32"),
        (MmaShape::M16n8k8, _, MmaType::F16) => ("HMMA", ".1688.F16"),
        (MmaShape::M16n8k8, _, _) => ("HMMA", ".1688.F32"),
    }
}

/// Whether `inst` works across the warp's lanes (shuffles, votes,
/// barriers, fences, `activemask`, the tensor-core family): what it reads
/// or writes is not one lane's alone.
pub fn is_warp_wide(inst: &Instruction) -> bool {
    warp_op(&inst.op).is_some() || is_matrix(&inst.op)
}

/// Whether `op` is of the tensor-core family: `mma`, and the memory
/// family's `ldmatrix`/`stmatrix` (whose lanes load and store one
/// another's rows).
fn is_matrix(op: &Op) -> bool {
    let mem = mem_of(op).is_some_and(|m| match m.op {
        MemOp::Ldmatrix { .. } | MemOp::Stmatrix { .. } | MemOp::Wmma(_) => true,
        // Each other operation named: exhaustive, no wildcard (a new one must be placed).
        MemOp::Ld
        | MemOp::Ldu
        | MemOp::St
        | MemOp::Atom(_)
        | MemOp::Red(_)
        | MemOp::Cvta { .. }
        | MemOp::MovAddr
        | MemOp::Pack
        | MemOp::Unpack
        | MemOp::Prefetch(_) => false,
    });
    mem || matches!(op, Op::Mma(_))
}

/// Whether `inst` does more than write its registers, so that removing it
/// as dead code would change the run: memory writes and atomics, loads with
/// a memory order or `.volatile` (ptxas keeps them), warp-wide operations
/// and barriers, clock reads.
pub fn has_effect(inst: &Instruction) -> bool {
    const ORDERED: [&str; 6] = [
        "volatile", "relaxed", "acquire", "release", "acq_rel", "mmio",
    ];
    let own = match &inst.op {
        Op::Mem(m) => match m.op {
            MemOp::St | MemOp::Atom(_) | MemOp::Red(_) | MemOp::Stmatrix { .. } => true,
            // ptxas keeps every prefetch (`CCTL.E.PF1/PF2/PML2`): it has
            // no register to be dead through, and its cost is its effect.
            MemOp::Prefetch(_) => true,
            MemOp::Wmma(w) => w.is_store(),
            MemOp::Ldmatrix { .. } => false,
            MemOp::Ld | MemOp::Ldu => m.quals.iter().any(|&q| {
                QUAL_WORDS
                    .get(q as usize)
                    .is_some_and(|w| ORDERED.contains(w))
            }),
            MemOp::Cvta { .. } | MemOp::MovAddr | MemOp::Pack | MemOp::Unpack => false,
        },
        Op::Warp(_) => true,
        // `mbarrier.pending_count` only decodes its operand.
        Op::Async(a) => a.mbar() != Some(crate::inst::MbarOp::PendingCount),
        // A register function of the warp's fragments: dead when they are.
        Op::Mma(_) => false,
        // Each other kind named: exhaustive, no wildcard over kinds (tidy).
        Op::Video(_)
        | Op::Set(_)
        | Op::Setp(_)
        | Op::Selp(_)
        | Op::Slct(_)
        | Op::Alu(_)
        | Op::Int(_)
        | Op::Bit(_)
        | Op::Cvt(_)
        | Op::Float(_) => false,
    };
    own || reads_clock(inst)
}

/// Whether no instruction may be scheduled across `inst`: barriers (the
/// warp's `bar.warp.sync` too), fences and the other warp-wide operations
/// (their lanes' values meet there), control stand-ins, `nanosleep` (a
/// spin loop's back-off: what follows it is meant to run later), clock
/// reads (moving work across one changes what it measures). `activemask`
/// reads only the warp's own mask. The tensor-core family's lanes meet
/// too.
pub fn is_fence(inst: &Instruction) -> bool {
    // Async copies and their waits order shared memory: nothing crosses them.
    let own = is_matrix(&inst.op)
        || match warp_op(&inst.op) {
            None => async_of(&inst.op)
                .is_some_and(|a| a.mbar() != Some(crate::inst::MbarOp::PendingCount)),
            Some(WarpOp::Activemask) => false,
            // Each other operation named: exhaustive, no wildcard (a new one must be placed).
            Some(
                WarpOp::BarSync
                | WarpOp::BarArrive
                | WarpOp::Fence
                | WarpOp::Shfl(_)
                | WarpOp::Vote(_)
                | WarpOp::Control
                | WarpOp::WarpSync
                | WarpOp::Redux(_)
                | WarpOp::Match { .. }
                | WarpOp::BarRed(_)
                | WarpOp::Nanosleep
                | WarpOp::Elect
                | WarpOp::Movmatrix,
            ) => true,
        };
    own || reads_clock(inst)
}

/// Whether `inst`'s result can differ between two executions with the same
/// register inputs: it reads memory, other lanes or the clock.
pub fn varies(inst: &Instruction) -> bool {
    memory(inst).is_some() || is_warp_wide(inst) || reads_clock(inst)
}

/// `inst`'s sources `a`, `b`, `c`, `d` in the lowering table's sense (`c`
/// is also the BoolOp/selp predicate, `d` bfi's length; a memory
/// instruction's address register, then its values: `st`'s first, `atom`'s
/// `b`, `c`).
pub fn lowering_sources(inst: &Instruction) -> [Source; 4] {
    use Source::Absent;
    let bool_c = |b: Option<(crate::inst::BoolOp, PredSrc)>| b.map_or(Absent, |(_, p)| pred(p));
    match inst.op {
        Op::Video(v) => [Source::Reg(v.a), Source::Reg(v.b), Source::Reg(v.c), Absent],
        Op::Set(s) => [operand(s.a), operand(s.b), bool_c(s.bool_op), Absent],
        Op::Setp(s) => [operand(s.a), operand(s.b), bool_c(s.bool_op), Absent],
        Op::Selp(s) => [operand(s.a), operand(s.b), pred(s.c), Absent],
        Op::Slct(s) => [operand(s.a), operand(s.b), operand(s.c), Absent],
        Op::Alu(a) => [operand(a.a), opt(a.b), Absent, Absent],
        Op::Int(x) => [operand(x.a), opt(x.b), opt(x.c), Absent],
        Op::Float(x) => [operand(x.a), opt(x.b), opt(x.c), Absent],
        Op::Cvt(x) => [operand(x.a), opt(x.b), opt(x.c), Absent],
        Op::Bit(x) => {
            let s = x.srcs();
            let at = |i: usize| s.get(i).copied().map_or(Absent, operand);
            [at(0), at(1), at(2), at(3)]
        }
        Op::Mem(m) => {
            let addr = match m.addr.base {
                AddrBase::Reg(r) => Source::Reg(r),
                AddrBase::Var(_) | AddrBase::Abs => Source::Fixed,
            };
            let v = |k: usize| {
                if k < m.sources() {
                    operand(m.vals[k])
                } else {
                    Absent
                }
            };
            [addr, v(0), v(1), Absent]
        }
        Op::Warp(w) => {
            let v = |k: usize| {
                if k < w.nsrc_values() {
                    operand(w.srcs[k])
                } else {
                    Absent
                }
            };
            [v(0), v(1), v(2), Absent]
        }
        Op::Async(a) => {
            let addr = |x: crate::inst::Address| match x.base {
                AddrBase::Reg(r) => Source::Reg(r),
                AddrBase::Var(_) | AddrBase::Abs => Source::Fixed,
            };
            if a.is_bulk() {
                [addr(a.dst), addr(a.src), opt(a.a), addr(a.bar)]
            } else if a.is_copy() {
                [addr(a.dst), addr(a.src), opt(a.src_size), Absent]
            } else if a.mbar().is_some() {
                let object = if a.touches_object() {
                    addr(a.dst)
                } else {
                    Absent
                };
                [object, opt(a.a), opt(a.hint), Absent]
            } else {
                [Absent; 4]
            }
        }
        // The first register of each fragment.
        Op::Mma(m) => [
            Source::Reg(m.a[0]),
            Source::Reg(m.b[0]),
            Source::Reg(m.c[0]),
            Absent,
        ],
    }
}

fn operand(o: Operand) -> Source {
    match o {
        Operand::Reg(r) => Source::Reg(r),
        Operand::Imm(_) | Operand::Special(_) => Source::Fixed,
    }
}

fn pred(p: PredSrc) -> Source {
    match p {
        PredSrc::Reg { reg, .. } => Source::Reg(reg),
        PredSrc::Imm(_) => Source::Fixed,
    }
}

fn opt(o: Option<Operand>) -> Source {
    o.map_or(Source::Absent, operand)
}

/// The warp family's operation, if `op` is of that family.
fn warp_op(op: &Op) -> Option<WarpOp> {
    if let Op::Warp(w) = op {
        Some(w.op)
    } else {
        None
    }
}

/// The memory family's instruction, if `op` is of that family.
fn mem_of(op: &Op) -> Option<&Mem> {
    if let Op::Mem(m) = op {
        Some(m)
    } else {
        None
    }
}

/// The async-copy family's instruction, if `op` is of that family.
fn async_of(op: &Op) -> Option<&AsyncInst> {
    if let Op::Async(a) = op {
        Some(a)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_instruction;
    use crate::Symbols;

    fn inst(text: &str) -> Instruction {
        let mut syms = Symbols::new();
        match parse_instruction(text, &mut syms) {
            Ok(i) => i,
            Err(e) => panic!("{text}: {e}"),
        }
    }

    /// Every family reads the clock where an operand is a clock register,
    /// not only `mov` (a store or a shuffle of `%clock` once kept the last
    /// value read).
    #[test]
    fn a_clock_operand_is_a_clock_read_in_every_family() {
        for t in [
            "mov.u32 %r1, %clock",
            "mov.u64 %rd1, %clock64",
            "st.global.u32 [%rd2], %clock",
            "shfl.sync.idx.b32 %r6, %clock, 0, 31, -1",
            "atom.global.add.u32 %r1, [%rd2], %clock",
        ] {
            assert!(reads_clock(&inst(t)), "{t}");
        }
        for t in [
            "mov.u32 %r1, %tid.x",
            "st.global.u32 [%rd2], %r1",
            "bar.sync 0",
        ] {
            assert!(!reads_clock(&inst(t)), "{t}");
        }
    }

    #[test]
    fn memory_barriers_effects_and_fences() {
        let ld = inst("ld.shared.u32 %r1, [%rd2]");
        assert_eq!(
            memory(&ld),
            Some(MemAccess {
                kind: MemKind::Load,
                space: Space::Shared
            })
        );
        assert!(!has_effect(&ld) && !is_fence(&ld) && varies(&ld));
        assert!(has_effect(&inst("ld.volatile.global.u32 %r1, [%rd2]")));
        let atom = inst("atom.global.add.u32 %r1, [%rd2], 1");
        assert_eq!(memory(&atom).map(|m| m.kind), Some(MemKind::Atomic));
        assert!(has_effect(&atom) && needs_launch(&atom));
        let cvta = inst("cvta.to.global.u64 %rd2, %rd1");
        assert!(memory(&cvta).is_none() && runs_with_memory(&cvta) && needs_launch(&cvta));
        assert!(!has_effect(&cvta));
        let bar = inst("bar.sync 0");
        assert_eq!(barrier(&bar), Some(BarrierKind::Sync));
        assert!(is_fence(&bar) && has_effect(&bar) && needs_launch(&bar));
        let am = inst("activemask.b32 %r1");
        assert!(!is_fence(&am) && is_warp_wide(&am) && barrier(&am).is_none());
        let add = inst("add.u32 %r1, %r2, 3");
        assert!(!has_effect(&add) && !is_fence(&add) && !varies(&add) && !needs_launch(&add));
        let st = inst("st.global.u32 [%rd2], %clock");
        assert!(is_fence(&st) && varies(&st));
        assert_eq!(
            lowering_sources(&inst("atom.global.cas.b32 %r1, [%rd2], %r3, 7")),
            [
                Source::Reg(RegId(1)),
                Source::Reg(RegId(2)),
                Source::Fixed,
                Source::Absent
            ]
        );
    }
}
