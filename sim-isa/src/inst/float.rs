//! The float arithmetic family's decoded form (a file of its own: `inst.rs`
//! holds the other families).

use crate::operand::{Operand, RegId, Type};

/// Operation of the float arithmetic family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatOp {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul`
    Mul,
    /// `fma`: `a * b + c` rounded once.
    Fma,
    /// `min`
    Min,
    /// `max`
    Max,
    /// `abs` (one source)
    Abs,
    /// `neg` (one source)
    Neg,
    /// `div`
    Div,
    /// `rcp`: `1 / a` (one source)
    Rcp,
    /// `sqrt` (one source)
    Sqrt,
    /// `rsqrt.approx`: `1 / sqrt(a)` (one source)
    Rsqrt,
    /// `ex2.approx`: `2^a` (one source)
    Ex2,
    /// `lg2.approx`: `log2(a)` (one source)
    Lg2,
    /// `sin.approx` of `a` radians (one source)
    Sin,
    /// `cos.approx` of `a` radians (one source)
    Cos,
    /// `tanh.approx` (one source; `.f32` and the four half types)
    Tanh,
    /// `copysign`: `b` with the sign bit of `a` (a bit operation: ptxas
    /// emits a LOP3 for it).
    Copysign,
}

/// A group of [`FloatOp`]s as a pattern, so that exhaustive matches over
/// the operations name each group once: `rounded` (`add sub mul fma div rcp
/// sqrt`, which take a rounding modifier), `approx` (`rsqrt ex2 lg2 sin cos
/// tanh`, which have only the `.approx` form) and `exact` (`min max abs neg
/// copysign`, exact without rounding). The three cover every operation once.
macro_rules! float_ops {
    (rounded) => {
        $crate::inst::FloatOp::Add
            | $crate::inst::FloatOp::Sub
            | $crate::inst::FloatOp::Mul
            | $crate::inst::FloatOp::Fma
            | $crate::inst::FloatOp::Div
            | $crate::inst::FloatOp::Rcp
            | $crate::inst::FloatOp::Sqrt
    };
    (approx) => {
        $crate::inst::FloatOp::Rsqrt
            | $crate::inst::FloatOp::Ex2
            | $crate::inst::FloatOp::Lg2
            | $crate::inst::FloatOp::Sin
            | $crate::inst::FloatOp::Cos
            | $crate::inst::FloatOp::Tanh
    };
    (exact) => {
        $crate::inst::FloatOp::Min
            | $crate::inst::FloatOp::Max
            | $crate::inst::FloatOp::Abs
            | $crate::inst::FloatOp::Neg
            | $crate::inst::FloatOp::Copysign
    };
}
pub(crate) use float_ops;

impl FloatOp {
    /// Whether the operation has only the `.approx` form (`rsqrt ex2 lg2
    /// sin cos tanh`).
    pub const fn approx_only(self) -> bool {
        matches!(self, float_ops!(approx))
    }

    /// Whether the operation has one source (`fma` has three, the others
    /// two): the database's operand list reads it.
    pub const fn unary(self) -> bool {
        match self {
            FloatOp::Abs | FloatOp::Neg | FloatOp::Rcp | FloatOp::Sqrt | float_ops!(approx) => true,
            // Each other operation named: exhaustive, no wildcard (a new one must be placed).
            FloatOp::Add
            | FloatOp::Sub
            | FloatOp::Mul
            | FloatOp::Fma
            | FloatOp::Min
            | FloatOp::Max
            | FloatOp::Div
            | FloatOp::Copysign => false,
        }
    }
}

/// The approximate forms' modifier, in place of a rounding modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Approx {
    /// `.approx`
    Approx,
    /// `.full` (`div.full.f32`)
    Full,
}

impl Approx {
    /// PTX spelling without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            Approx::Approx => "approx",
            Approx::Full => "full",
        }
    }
}

/// A float rounding modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rnd {
    /// `.rn`: to nearest, ties to even.
    Rn,
    /// `.rz`: toward zero.
    Rz,
    /// `.rm`: toward minus infinity.
    Rm,
    /// `.rp`: toward plus infinity.
    Rp,
}

impl Rnd {
    /// Every mode.
    pub const ALL: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

    /// PTX spelling without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            Rnd::Rn => "rn",
            Rnd::Rz => "rz",
            Rnd::Rm => "rm",
            Rnd::Rp => "rp",
        }
    }
}

/// `add sub mul fma min max abs neg` over `.f32`/`.f64` (9.7.3) and over
/// `.f16 .f16x2 .bf16 .bf16x2` (9.7.4; a packed operand is one 32-bit
/// register holding two halves, each computed on its own):
/// `add{.rnd}{.ftz}{.sat}.f32`, `fma.rnd{.ftz}{.sat}.f32`,
/// `min{.ftz}{.NaN}.f32`, `abs{.ftz}.f32`, `div/rcp/sqrt.rnd{.ftz}.f32`
/// and their `.f64` forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatArith {
    /// Operation.
    pub op: FloatOp,
    /// Rounding modifier as written (`add`/`sub`/`mul` default to `.rn`;
    /// `fma div rcp sqrt` always have one).
    pub rnd: Option<Rnd>,
    /// `.approx` or `.full` (then `rnd` is `None`).
    pub approx: Option<Approx>,
    /// `.ftz` (`.f32` and `.f16`/`.f16x2`).
    pub ftz: bool,
    /// `.sat` (`.f32` and `.f16`/`.f16x2` add/sub/mul/fma only).
    pub sat: bool,
    /// `.NaN` (`min`/`max` on `.f32` and the half types): a NaN source
    /// gives NaN.
    pub nan: bool,
    /// `.relu` (`fma` on the half types): a negative result (and -0) is
    /// +0, a NaN the canonical NaN.
    pub relu: bool,
    /// `.f32`, `.f64`, or a half type.
    pub ty: Type,
    /// Destination.
    pub d: RegId,
    /// First source.
    pub a: Operand,
    /// Second source; `None` for the one-source operations.
    pub b: Option<Operand>,
    /// Addend of `fma`.
    pub c: Option<Operand>,
}

impl FloatArith {
    /// The modifiers between the operation's name and the type, without
    /// their dots, in the order PTX writes them: `.rnd` or
    /// `.approx`/`.full`, then `.ftz`, `.sat`, `.relu`, `.NaN`. The printer
    /// and the lowering key both spell them from here.
    pub fn modifiers(&self) -> impl Iterator<Item = &'static str> {
        let flags = [
            (self.ftz, "ftz"),
            (self.sat, "sat"),
            (self.relu, "relu"),
            (self.nan, "NaN"),
        ];
        let flags = flags.into_iter().filter_map(|(on, m)| on.then_some(m));
        [self.rnd.map(Rnd::name), self.approx.map(Approx::name)]
            .into_iter()
            .flatten()
            .chain(flags)
    }
}
