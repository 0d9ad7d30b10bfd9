//! The float arithmetic family's decoded form (a file of its own: `inst.rs`
//! holds the other families).

use super::{Operand, RegId, Type};

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

/// `add sub mul fma min max abs neg` over `.f32`/`.f64` (9.7.3):
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
    /// `.ftz` (`.f32` only).
    pub ftz: bool,
    /// `.sat` (`.f32` add/sub/mul/fma only).
    pub sat: bool,
    /// `.NaN` (`min`/`max.f32`): a NaN source gives NaN.
    pub nan: bool,
    /// `.f32` or `.f64`.
    pub ty: Type,
    /// Destination.
    pub d: RegId,
    /// First source.
    pub a: Operand,
    /// Second source; `None` for `abs`/`neg`/`rcp`/`sqrt`.
    pub b: Option<Operand>,
    /// Addend of `fma`.
    pub c: Option<Operand>,
}
