//! The integer family's opcode words and modifier rules (`.sat`, `.relu`):
//! the `Op::Int` declaration's part that is not a table in `mod.rs`.

use crate::inst::{IntOp, MulMode, Type};

/// The integer arithmetic opcode words (`mul`/`mad` take their mode as the
/// first modifier, which ptxas reads as part of the opcode). `IntOp`'s
/// names repeat: an operation is a word with its mode read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntWord {
    Add,
    Sub,
    Mul,
    Mad,
    Min,
    Max,
    Div,
    Rem,
    Abs,
    Neg,
    Dp4a,
    Dp2a,
    Sad,
}

impl IntWord {
    /// For `mul`/`mad`, whose mode (`.lo/.hi/.wide`) ptxas reads as part of
    /// the opcode: the operation of each mode.
    pub(crate) const fn mode_op(self) -> Option<fn(MulMode) -> IntOp> {
        match self {
            IntWord::Mul => Some(IntOp::Mul),
            IntWord::Mad => Some(IntOp::Mad),
            IntWord::Dp2a => Some(IntOp::Dp2a),
            IntWord::Dp4a
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
    match w {
        IntWord::Add | IntWord::Sub => true,
        IntWord::Mad => mode == Some(MulMode::Hi),
        IntWord::Mul
        | IntWord::Min
        | IntWord::Max
        | IntWord::Div
        | IntWord::Rem
        | IntWord::Abs
        | IntWord::Neg
        | IntWord::Dp4a
        | IntWord::Dp2a
        | IntWord::Sad => false,
    }
}

/// Whether `.relu` is legal: `min`/`max` on `.s32` or `.s16x2` (ptxas 13.0:
/// "Illegal modifier '.relu' for instruction 'max' with type '.u16x2'").
pub(crate) fn int_relu_ok(w: IntWord, t: Type) -> bool {
    matches!(w, IntWord::Min | IntWord::Max) && matches!(t, Type::S32 | Type::S16x2)
}
