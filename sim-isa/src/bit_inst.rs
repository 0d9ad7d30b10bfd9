//! The bit-manipulation family's decoded form (`popc clz brev not cnot bfe
//! bfi prmt lop3 shf bfind`, PTX ISA 9.7.8 and 9.7.9; and `testp`, 9.7.3,
//! which classifies a float by its exponent and mantissa bits: ptxas
//! emits integer compares and logic for it), re-exported by `inst`.

use crate::operand::{Operand, RegId, Type};

/// `prmt`'s mode (9.7.9.7); `None` in [`BitOp::Prmt`] is the general form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    /// `.f4e`: forward 4 extract.
    F4e,
    /// `.b4e`: backward 4 extract.
    B4e,
    /// `.rc8`: replicate byte.
    Rc8,
    /// `.ecl`: edge clamp left.
    Ecl,
    /// `.ecr`: edge clamp right.
    Ecr,
    /// `.rc16`: replicate half-word.
    Rc16,
}

impl PrmtMode {
    /// Every mode, in the manual's order.
    pub const ALL: [PrmtMode; 6] = [
        PrmtMode::F4e,
        PrmtMode::B4e,
        PrmtMode::Rc8,
        PrmtMode::Ecl,
        PrmtMode::Ecr,
        PrmtMode::Rc16,
    ];

    /// The modifier without its dot.
    pub const fn name(self) -> &'static str {
        match self {
            PrmtMode::F4e => "f4e",
            PrmtMode::B4e => "b4e",
            PrmtMode::Rc8 => "rc8",
            PrmtMode::Ecl => "ecl",
            PrmtMode::Ecr => "ecr",
            PrmtMode::Rc16 => "rc16",
        }
    }
}

/// `testp`'s property (9.7.3.x); positive and negative zero are normal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestOp {
    /// `.finite`: not infinite, not NaN.
    Finite,
    /// `.infinite`: plus or minus infinity.
    Infinite,
    /// `.number`: not NaN.
    Number,
    /// `.notanumber`: NaN.
    Notanumber,
    /// `.normal`: a normal number or zero.
    Normal,
    /// `.subnormal`: a subnormal number.
    Subnormal,
}

impl TestOp {
    /// Every property, in the manual's order.
    pub const ALL: [TestOp; 6] = [
        TestOp::Finite,
        TestOp::Infinite,
        TestOp::Number,
        TestOp::Notanumber,
        TestOp::Normal,
        TestOp::Subnormal,
    ];

    /// The modifier without its dot.
    pub const fn name(self) -> &'static str {
        match self {
            TestOp::Finite => "finite",
            TestOp::Infinite => "infinite",
            TestOp::Number => "number",
            TestOp::Notanumber => "notanumber",
            TestOp::Normal => "normal",
            TestOp::Subnormal => "subnormal",
        }
    }
}

op_with_word! {
/// Operation of the bit-manipulation family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitOp;
/// The bit family's opcode words (the database's `OpKind::Bit`): each
/// operation before its modifiers are read.
pub(crate) enum BitWord;
{
    /// `popc`: population count (`d` is `.u32`).
    Popc,
    /// `clz`: leading zeros (`d` is `.u32`).
    Clz,
    /// `brev`: bit reverse.
    Brev,
    /// `not`: bitwise complement.
    Not,
    /// `cnot`: `a == 0 ? 1 : 0`.
    Cnot,
    /// `bfe d, a, pos, len`: bit-field extract.
    Bfe,
    /// `bfi d, f, b, pos, len`: bit-field insert of `f` into `b`.
    Bfi,
    /// `prmt{.mode}.b32 d, a, b, c`: byte permute.
    Prmt(Option<PrmtMode>),
    /// `lop3.b32 d, a, b, c, immLut`: any three-input logic function.
    Lop3,
    /// `bfind{.shiftamt}.type d, a`: the position of the most significant
    /// non-sign bit (`.shiftamt`: the left shift that brings it to the top),
    /// `0xffffffff` when there is none (`d` is `.u32`).
    Bfind {
        /// `.shiftamt`.
        shiftamt: bool,
    },
    /// `fns.b32 d, mask, base, offset`: the position of the `offset`-th set
    /// bit of `mask` counting from bit `base` (upward for a positive
    /// offset, downward for a negative one; offset 0: `base` itself if
    /// set), `0xffffffff` when there is none.
    Fns,
    /// `bmsk.{clamp|wrap}.b32 d, a, b`: a mask of `b` bits from bit `a`.
    Bmsk {
        /// `.clamp` (else `.wrap`).
        clamp: bool,
    },
    /// `testp.op.type p, a` (`.f32`/`.f64`): whether `a` has the property
    /// (`p` is `.pred`).
    Testp(TestOp),
    /// `shf.{l|r}.{clamp|wrap}.b32 d, a, b, c`: funnel shift.
    Shf {
        /// `.l` (else `.r`).
        left: bool,
        /// `.clamp` (else `.wrap`).
        clamp: bool,
    },
}
}

impl BitOp {
    /// The opcode word.
    pub const fn word(self) -> &'static str {
        match self {
            BitOp::Popc => "popc",
            BitOp::Clz => "clz",
            BitOp::Brev => "brev",
            BitOp::Not => "not",
            BitOp::Cnot => "cnot",
            BitOp::Bfe => "bfe",
            BitOp::Bfi => "bfi",
            BitOp::Prmt(_) => "prmt",
            BitOp::Lop3 => "lop3",
            BitOp::Shf { .. } => "shf",
            BitOp::Bfind { .. } => "bfind",
            BitOp::Testp(_) => "testp",
            BitOp::Fns => "fns",
            BitOp::Bmsk { .. } => "bmsk",
        }
    }

    /// Modifier words besides the type, in order (`prmt`'s mode, `shf`'s
    /// direction and mode).
    pub const fn words(self) -> &'static [&'static str] {
        match self {
            BitOp::Prmt(Some(m)) => match m {
                PrmtMode::F4e => &["f4e"],
                PrmtMode::B4e => &["b4e"],
                PrmtMode::Rc8 => &["rc8"],
                PrmtMode::Ecl => &["ecl"],
                PrmtMode::Ecr => &["ecr"],
                PrmtMode::Rc16 => &["rc16"],
            },
            BitOp::Shf { left, clamp } => match (left, clamp) {
                (true, false) => &["l", "wrap"],
                (true, true) => &["l", "clamp"],
                (false, false) => &["r", "wrap"],
                (false, true) => &["r", "clamp"],
            },
            BitOp::Bfind { shiftamt: true } => &["shiftamt"],
            BitOp::Bmsk { clamp: true } => &["clamp"],
            BitOp::Bmsk { clamp: false } => &["wrap"],
            BitOp::Testp(t) => match t {
                TestOp::Finite => &["finite"],
                TestOp::Infinite => &["infinite"],
                TestOp::Number => &["number"],
                TestOp::Notanumber => &["notanumber"],
                TestOp::Normal => &["normal"],
                TestOp::Subnormal => &["subnormal"],
            },
            BitOp::Prmt(None)
            | BitOp::Bfind { shiftamt: false }
            | BitOp::Popc
            | BitOp::Clz
            | BitOp::Brev
            | BitOp::Not
            | BitOp::Cnot
            | BitOp::Bfe
            | BitOp::Bfi
            | BitOp::Fns
            | BitOp::Lop3 => &[],
        }
    }

    /// Number of sources.
    pub const fn n_srcs(self) -> usize {
        match self {
            BitOp::Popc
            | BitOp::Clz
            | BitOp::Brev
            | BitOp::Not
            | BitOp::Cnot
            | BitOp::Testp(_)
            | BitOp::Bfind { .. } => 1,
            BitOp::Bmsk { .. } => 2,
            BitOp::Bfe | BitOp::Prmt(_) | BitOp::Shf { .. } | BitOp::Fns => 3,
            BitOp::Bfi | BitOp::Lop3 => 4,
        }
    }
}

/// One bit-manipulation instruction: `op.type d, srcs...` (unused sources
/// are immediate 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bit {
    /// Operation.
    pub op: BitOp,
    /// The instruction's type.
    pub ty: Type,
    /// Destination.
    pub d: RegId,
    /// Sources in operand order; the first [`BitOp::n_srcs`] are used.
    pub src: [Operand; 4],
}

impl Bit {
    /// The used sources.
    pub fn srcs(&self) -> &[Operand] {
        &self.src[..self.op.n_srcs()]
    }

    /// Type of `d`: `.u32` for the counts, else the instruction's type.
    pub const fn d_type(&self) -> Type {
        match self.op {
            BitOp::Popc | BitOp::Clz | BitOp::Bfind { .. } => Type::U32,
            BitOp::Testp(_) => Type::Pred,
            BitOp::Brev
            | BitOp::Not
            | BitOp::Cnot
            | BitOp::Bfe
            | BitOp::Bfi
            | BitOp::Prmt(_)
            | BitOp::Lop3
            | BitOp::Fns
            | BitOp::Bmsk { .. }
            | BitOp::Shf { .. } => self.ty,
        }
    }

    /// Type of source `i`: positions, lengths and shift counts are `.u32`.
    pub const fn src_type(&self, i: usize) -> Type {
        let first_count = match self.op {
            BitOp::Bfe => 1,
            BitOp::Bfi | BitOp::Shf { .. } => 2,
            BitOp::Popc
            | BitOp::Clz
            | BitOp::Brev
            | BitOp::Not
            | BitOp::Cnot
            | BitOp::Bfind { .. }
            | BitOp::Testp(_)
            | BitOp::Fns
            | BitOp::Bmsk { .. }
            | BitOp::Prmt(_)
            | BitOp::Lop3 => 4,
        };
        if i >= first_count {
            Type::U32
        } else {
            self.ty
        }
    }
}
