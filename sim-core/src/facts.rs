//! Facts about an instruction that the SM model needs, read from sim-isa's
//! instruction database: the report's mnemonic and the unit class of its
//! native (first) machine instruction.

use crate::config::UnitClass;
use sim_isa::{db, Instruction, Op};

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

/// Whether `inst` is a SIMD video instruction (emulated on sm_5x and later).
pub(crate) fn is_video(inst: &Instruction) -> bool {
    matches!(inst.op, Op::Video(_))
}
