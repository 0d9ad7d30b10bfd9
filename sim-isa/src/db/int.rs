//! The integer family's opcode words and modifier rules (`.sat`, `.relu`):
//! the `Op::Int` declaration's part that is not a table in `mod.rs`.

use super::{Gate, OpTag};
pub(crate) use crate::inst::IntWord;
use crate::inst::{Instruction, IntArith, IntOp, MulMode, Op, Type};

impl IntWord {
    /// For `mul`/`mad`, whose mode (`.lo/.hi/.wide`) ptxas reads as part of
    /// the opcode: the operation of each mode.
    pub(crate) const fn mode_op(self) -> Option<fn(MulMode) -> IntOp> {
        match self {
            IntWord::Mul => Some(IntOp::Mul),
            IntWord::Mad => Some(IntOp::Mad),
            IntWord::Dp2a => Some(IntOp::Dp2a),
            IntWord::Madc => Some(IntOp::Madc),
            IntWord::Dp4a
            | IntWord::Addc
            | IntWord::Subc
            | IntWord::Sad
            | IntWord::Add
            | IntWord::Sub
            | IntWord::Min
            | IntWord::Max
            | IntWord::Div
            | IntWord::Rem
            | IntWord::Abs
            | IntWord::Neg => None,
        }
    }
}

/// Whether `.sat` is legal on the integer family's type (`.s32` only).
pub(crate) fn int_sat_type_ok(t: Type) -> bool {
    t == Type::S32
}

/// Whether the integer family's opcode takes `.sat` at all (`add`, `sub`,
/// `mad.hi`; ptxas: "Illegal modifier '.sat' for instruction 'mad.lo'").
pub(crate) fn int_sat_ok(w: IntWord, mode: Option<MulMode>) -> bool {
    // ptxas takes `addc.sat`, `madc.hi.sat` (the validator refuses them as
    // unimplemented: `carry_rules`).
    sat_cc_word(w).unwrap_or(mode == Some(MulMode::Hi))
}

/// The words' part of [`int_sat_ok`] and [`int_cc_ok`], which agree on
/// them: `add`, `sub` and the carry-in words take `.sat` and `.cc`, the
/// other words neither, and for `mad`/`madc` (`None`) the mode decides.
fn sat_cc_word(w: IntWord) -> Option<bool> {
    match w {
        IntWord::Add | IntWord::Sub | IntWord::Addc | IntWord::Subc => Some(true),
        IntWord::Mad | IntWord::Madc => None,
        IntWord::Mul
        | IntWord::Min
        | IntWord::Max
        | IntWord::Div
        | IntWord::Rem
        | IntWord::Abs
        | IntWord::Neg
        | IntWord::Dp4a
        | IntWord::Dp2a
        | IntWord::Sad => Some(false),
    }
}

/// Whether `.relu` is legal: `min`/`max` on `.s32` or `.s16x2` (ptxas 13.0:
/// "Illegal modifier '.relu' for instruction 'max' with type '.u16x2'").
pub(crate) fn int_relu_ok(w: IntWord, t: Type) -> bool {
    matches!(w, IntWord::Min | IntWord::Max) && matches!(t, Type::S32 | Type::S16x2)
}

/// The extended-precision forms' types (PTX ISA 9.7.2; the 64-bit ones
/// from PTX 4.3: [`CARRY_GATES`]).
pub(crate) const CARRY_TYPES: &[Type] = &[Type::U32, Type::S32, Type::U64, Type::S64];

/// Whether the opcode word reads the carry flag (`addc`, `subc`, `madc`).
pub(crate) const fn reads_carry(w: IntWord) -> bool {
    matches!(w, IntWord::Addc | IntWord::Subc | IntWord::Madc)
}

/// Whether `.cc` is legal on the word with its mode: `add`, `sub` and
/// the carry-in words; `mad`/`madc` with `.lo` or `.hi` (ptxas 13.0.88,
/// `tests/data/carry-ptxas.txt`).
pub(crate) fn int_cc_ok(w: IntWord, mode: Option<MulMode>) -> bool {
    sat_cc_word(w).unwrap_or(matches!(mode, Some(MulMode::Lo | MulMode::Hi)))
}

fn carry_form(i: &Instruction) -> Option<IntArith> {
    match i.op {
        Op::Int(x) if x.carry.is_some() => Some(x),
        _ => None,
    }
}

/// The extended-precision forms' gates. The manual: `add.cc`/`addc` from
/// PTX 1.2, `mad.cc`/`madc` from PTX 3.0 and sm_20, the 64-bit types from
/// PTX 4.3. ptxas (`tests/data/carry-ptxas.txt`): every form on every
/// target from sm_35 (11.8) and sm_75 (13.0.88), at the lowest version
/// sm_35 knows, 3.1, except a 64-bit `.cc` form, from 4.3 (a 64-bit
/// carry-in form without `.cc` is taken at 3.1).
pub(crate) const CARRY_GATES: &[Gate] = &[Gate {
    what: "a 64-bit .cc form (add.cc, addc.cc, sub.cc, subc.cc, mad.cc, madc.cc)",
    feature: None,
    ptx: (4, 3),
    on: &[OpTag::Int],
    applies: |i| carry_form(i).is_some_and(|x| x.ty.bits() == 64 && x.carry.is_some_and(|k| k.out)),
}];
