//! Facts about an instruction that the SM model needs, read from sim-isa's
//! instruction database: the report's mnemonic and the unit class of its
//! native (first) machine instruction.

use crate::config::UnitClass;
use sim_isa::{db, Instruction, Op, Operand, PredSrc};

/// The report's mnemonic of `inst` (`vadd4`, `set`, `mul.lo`).
pub(crate) fn mnemonic(inst: &Instruction) -> String {
    db::mnemonic(inst).into()
}

/// Unit class of an instruction's native (first) machine instruction.
pub(crate) fn native_class(inst: &Instruction) -> UnitClass {
    match db::unit_class(inst) {
        db::UnitClass::IntAlu => UnitClass::IntAlu,
        db::UnitClass::IntCmp => UnitClass::IntCmp,
        db::UnitClass::Fp32 => UnitClass::Fp32,
        db::UnitClass::Fp16 => UnitClass::Fp16,
        db::UnitClass::Fp64 => UnitClass::Fp64,
        db::UnitClass::Video => UnitClass::Video,
        db::UnitClass::VideoAbsdiff => UnitClass::VideoAbsdiff,
    }
}

/// A PTX source operand as the lowering table names it (`a`..`d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SrcOperand {
    /// The instruction has no such operand.
    Absent,
    /// An immediate or a special register: ptxas folds it or reads it once.
    Fixed,
    /// A register.
    Reg(sim_isa::RegId),
}

fn operand(o: Operand) -> SrcOperand {
    match o {
        Operand::Reg(r) => SrcOperand::Reg(r),
        Operand::Imm(_) | Operand::Special(_) => SrcOperand::Fixed,
    }
}

fn pred(p: PredSrc) -> SrcOperand {
    match p {
        PredSrc::Reg { reg, .. } => SrcOperand::Reg(reg),
        PredSrc::Imm(_) => SrcOperand::Fixed,
    }
}

fn opt(o: Option<Operand>) -> SrcOperand {
    o.map_or(SrcOperand::Absent, operand)
}

/// `inst`'s sources `a`, `b`, `c`, `d` in the lowering table's sense (`c`
/// is also the BoolOp/selp predicate, `d` bfi's length).
pub(crate) fn sources(inst: &Instruction) -> [SrcOperand; 4] {
    use SrcOperand::Absent;
    let bool_c = |b: Option<(sim_isa::BoolOp, PredSrc)>| b.map_or(Absent, |(_, p)| pred(p));
    match inst.op {
        Op::Video(v) => [
            SrcOperand::Reg(v.a),
            SrcOperand::Reg(v.b),
            SrcOperand::Reg(v.c),
            Absent,
        ],
        Op::Set(s) => [operand(s.a), operand(s.b), bool_c(s.bool_op), Absent],
        Op::Setp(s) => [operand(s.a), operand(s.b), bool_c(s.bool_op), Absent],
        Op::Selp(s) => [operand(s.a), operand(s.b), pred(s.c), Absent],
        Op::Slct(s) => [operand(s.a), operand(s.b), operand(s.c), Absent],
        Op::Alu(a) => [operand(a.a), opt(a.b), Absent, Absent],
        Op::Int(x) => [operand(x.a), opt(x.b), opt(x.c), Absent],
        Op::Float(x) => [operand(x.a), opt(x.b), opt(x.c), Absent],
        Op::Cvt(x) => [operand(x.a), opt(x.b), Absent, Absent],
        Op::Bit(x) => {
            let s = x.srcs();
            let at = |i: usize| s.get(i).copied().map_or(Absent, operand);
            [at(0), at(1), at(2), at(3)]
        }
        // The address register, then the values (`st`'s first, `atom`'s b, c).
        Op::Mem(m) => {
            let addr = match m.addr.base {
                sim_isa::AddrBase::Reg(r) => SrcOperand::Reg(r),
                sim_isa::AddrBase::Var(_) | sim_isa::AddrBase::Abs => SrcOperand::Fixed,
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
    }
}

/// Whether `inst`'s result can differ between two executions with the same
/// register inputs: it reads memory, other lanes or the clock.
fn varies(inst: &Instruction) -> bool {
    match &inst.op {
        Op::Mem(m) => m.accesses_memory(),
        Op::Warp(_) => true,
        Op::Alu(a) => matches!(
            a.a,
            Operand::Special(
                sim_isa::SpecialReg::Clock
                    | sim_isa::SpecialReg::ClockHi
                    | sim_isa::SpecialReg::Clock64
            )
        ),
        Op::Video(_)
        | Op::Set(_)
        | Op::Setp(_)
        | Op::Selp(_)
        | Op::Slct(_)
        | Op::Int(_)
        | Op::Bit(_)
        | Op::Cvt(_)
        | Op::Float(_) => false,
    }
}

/// Per register (indexed by id, `nregs` long): whether its value is the same
/// wherever the program reads it, as far as the program text shows: every
/// instruction that writes it reads only such registers, immediates and
/// special registers, and not through a guard. Registers nothing writes count
/// too. A least fixpoint, so a register in a dependence cycle (`x = f(x)`, or
/// `setp p, x` with `selp x, .., p`) is never invariant.
pub(crate) fn invariant_registers(insts: &[Instruction], nregs: usize) -> Vec<bool> {
    // Worklist: an instruction settles when none of its reads is pending; a
    // register becomes invariant when its last writer settles.
    let mut writers = vec![0usize; nregs];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); nregs];
    let mut pending = vec![0usize; insts.len()];
    for (i, inst) in insts.iter().enumerate() {
        let uses = inst.reg_uses();
        for u in uses.writes() {
            if let Some(w) = writers.get_mut(u.reg.0 as usize) {
                *w += 1;
            }
        }
        for u in uses.reads() {
            if let Some(r) = readers.get_mut(u.reg.0 as usize) {
                r.push(i);
                pending[i] += 1;
            }
        }
        // A guarded write may keep the old value, and a load or a clock
        // read may return another value each time: never settled.
        if inst.guard.is_some() || varies(inst) {
            pending[i] += 1;
        }
    }
    let mut inv: Vec<bool> = writers.iter().map(|&w| w == 0).collect();
    let mut ready: Vec<usize> = (0..insts.len()).collect();
    for r in 0..nregs {
        if inv[r] {
            for &i in &readers[r] {
                pending[i] -= 1;
            }
        }
    }
    ready.retain(|&i| pending[i] == 0);
    while let Some(i) = ready.pop() {
        for u in insts[i].reg_uses().writes() {
            let r = u.reg.0 as usize;
            let Some(w) = writers.get_mut(r) else {
                continue;
            };
            *w -= 1;
            if *w == 0 && !inv[r] {
                inv[r] = true;
                for &j in &readers[r] {
                    pending[j] -= 1;
                    if pending[j] == 0 {
                        ready.push(j);
                    }
                }
            }
        }
    }
    inv
}
