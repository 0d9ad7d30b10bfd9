//! Facts about an instruction that the SM model needs: the report's
//! mnemonic and the unit class of its native (first) machine instruction.

use crate::config::UnitClass;
use crate::lowering::alu_name;
use sim_isa::{Instruction, Op, Type, TypeKind, VideoOp};

/// The report's mnemonic of `inst` (`vadd4`, `set`, `mul.lo`).
pub(crate) fn mnemonic(inst: &Instruction) -> String {
    match &inst.op {
        Op::Video(v) => {
            let base = match v.op {
                VideoOp::Add => "vadd",
                VideoOp::Sub => "vsub",
                VideoOp::Avrg => "vavrg",
                VideoOp::Absdiff => "vabsdiff",
                VideoOp::Min => "vmin",
                VideoOp::Max => "vmax",
                VideoOp::Set(_) => "vset",
            };
            format!("{base}{}", v.simd.lanes())
        }
        Op::Set(_) => "set".into(),
        Op::Setp(_) => "setp".into(),
        Op::Selp(_) => "selp".into(),
        Op::Slct(_) => "slct".into(),
        Op::Alu(a) => alu_name(a.op).into(),
    }
}

/// Unit class of an instruction's native (first) machine instruction.
pub(crate) fn native_class(inst: &Instruction) -> UnitClass {
    let cmp_class = |t: Type| match t.kind() {
        TypeKind::Float | TypeKind::BFloat => match t {
            Type::F64 => UnitClass::Fp64,
            Type::F32 => UnitClass::Fp32,
            _ => UnitClass::Fp16,
        },
        _ => UnitClass::IntCmp,
    };
    match &inst.op {
        Op::Video(v) if v.op == VideoOp::Absdiff => UnitClass::VideoAbsdiff,
        Op::Video(_) => UnitClass::Video,
        Op::Set(s) => cmp_class(s.stype),
        Op::Setp(s) => cmp_class(s.ty),
        Op::Slct(s) if s.ctype == Type::F32 => UnitClass::Fp32,
        Op::Slct(_) => UnitClass::IntCmp,
        Op::Selp(_) | Op::Alu(_) => UnitClass::IntAlu,
    }
}

/// Whether `inst` is a SIMD video instruction (emulated on sm_5x and later).
pub(crate) fn is_video(inst: &Instruction) -> bool {
    matches!(inst.op, Op::Video(_))
}
