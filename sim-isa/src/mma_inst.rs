//! The tensor-core family: `mma.sync.aligned` ([`Mma`]), a warp-wide
//! matrix multiply-accumulate over fragments held in every lane's registers.
//! (`ldmatrix`/`stmatrix` are memory instructions, [`crate::inst::MemOp`];
//! `movmatrix` is a warp collective, [`crate::inst::WarpOp::Movmatrix`].)
//! Declared as data in [`MMA_SHAPES`] and [`MmaType::WORDS`]; parsed by
//! `parse/matrix.rs`, run by `exec/mma.rs`.

use crate::operand::{word_of, RegId};

/// An `mma` shape this simulator runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaShape {
    /// `.m16n8k16`: f16/bf16 (sm_80) and s8/u8 (sm_80).
    M16n8k16,
    /// `.m16n8k8`: f16 (sm_75) and bf16 (sm_80).
    M16n8k8,
    /// `.m16n8k32`: s8/u8 (sm_80).
    M16n8k32,
    /// `.m8n8k4` with f64 (sm_80).
    M8n8k4,
}

/// Every shape word and its shape.
pub const MMA_SHAPES: [(&str, MmaShape); 4] = [
    ("m16n8k16", MmaShape::M16n8k16),
    ("m16n8k8", MmaShape::M16n8k8),
    ("m16n8k32", MmaShape::M16n8k32),
    ("m8n8k4", MmaShape::M8n8k4),
];

/// Shape words that are valid PTX (for some types and targets) but that
/// this simulator does not run: a statement naming one is `Unimplemented`.
pub const MMA_OTHER_SHAPES: [&str; 8] = [
    "m16n8k4",
    "m8n8k16",
    "m8n8k32",
    "m8n8k128",
    "m16n8k64",
    "m16n8k128",
    "m16n8k256",
    "m16n8k48",
];

impl MmaShape {
    /// `(m, n, k)`.
    pub const fn mnk(self) -> (usize, usize, usize) {
        match self {
            MmaShape::M16n8k16 => (16, 8, 16),
            MmaShape::M16n8k8 => (16, 8, 8),
            MmaShape::M16n8k32 => (16, 8, 32),
            MmaShape::M8n8k4 => (8, 8, 4),
        }
    }

    /// The shape word.
    pub fn word(self) -> &'static str {
        word_of(&MMA_SHAPES, self, "m16n8k16")
    }
}

/// An element type of an `mma` operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaType {
    /// `.f16` (two to a 32-bit register)
    F16,
    /// `.bf16` (two to a register)
    Bf16,
    /// `.f32`
    F32,
    /// `.f64`
    F64,
    /// `.s8` (four to a register)
    S8,
    /// `.u8`
    U8,
    /// `.s32`
    S32,
}

impl MmaType {
    /// Every type word and its type.
    pub const WORDS: [(&'static str, MmaType); 7] = [
        ("f16", MmaType::F16),
        ("bf16", MmaType::Bf16),
        ("f32", MmaType::F32),
        ("f64", MmaType::F64),
        ("s8", MmaType::S8),
        ("u8", MmaType::U8),
        ("s32", MmaType::S32),
    ];

    /// Type words of valid PTX `mma` forms this simulator does not run.
    pub const OTHER_WORDS: [&'static str; 9] = [
        "tf32", "s4", "u4", "b1", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1",
    ];

    /// The type word.
    pub fn word(self) -> &'static str {
        word_of(&MmaType::WORDS, self, "f32")
    }

    /// Width of one element in bits.
    pub const fn bits(self) -> u32 {
        match self {
            MmaType::S8 | MmaType::U8 => 8,
            MmaType::F16 | MmaType::Bf16 => 16,
            MmaType::F32 | MmaType::S32 => 32,
            MmaType::F64 => 64,
        }
    }

    /// Width of the registers holding it: 64 for `.f64`, else 32.
    pub const fn reg_bits(self) -> u32 {
        if matches!(self, MmaType::F64) {
            64
        } else {
            32
        }
    }
}

/// `mma.sync.aligned.shape.row.col{.satfinite}{.rn}.dtype.atype.btype.ctype
/// d, a, b, c`: each of `d`, `a`, `b`, `c` a brace list of registers, the
/// lane's fragment of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mma {
    /// The shape.
    pub shape: MmaShape,
    /// `.dtype`, `.atype`, `.btype`, `.ctype`.
    pub types: [MmaType; 4],
    /// `.satfinite` (integer forms: clamp to the s32 range).
    pub satfinite: bool,
    /// `.rn` written (f64: the only rounding; kept for printing).
    pub rn: bool,
    /// Destination fragment (the first [`Mma::counts`]`[0]`).
    pub d: [RegId; 4],
    /// `a`'s fragment.
    pub a: [RegId; 4],
    /// `b`'s fragment.
    pub b: [RegId; 2],
    /// `c`'s fragment.
    pub c: [RegId; 4],
}

impl Mma {
    /// Registers in each fragment: `[d, a, b, c]`.
    pub fn counts(&self) -> [usize; 4] {
        let acc = |t: MmaType| if t == MmaType::F16 { 2 } else { 4 };
        match self.shape {
            MmaShape::M16n8k16 => {
                if self.types[1].bits() == 8 {
                    [4, 2, 1, 4]
                } else {
                    [acc(self.types[0]), 4, 2, acc(self.types[3])]
                }
            }
            MmaShape::M16n8k8 => [acc(self.types[0]), 2, 1, acc(self.types[3])],
            MmaShape::M16n8k32 => [4, 4, 2, 4],
            MmaShape::M8n8k4 => [2, 1, 1, 2],
        }
    }

    /// Whether the types are a form ptxas 13.0.88 takes for the shape
    /// (`tests/data/mma-ptxas.txt`): f16 with `d` and `c` both f16 or both
    /// f32; bf16 with f32; s8/u8 in any mix with s32; f64 throughout.
    pub fn types_ok(shape: MmaShape, t: [MmaType; 4]) -> bool {
        use MmaType::*;
        let int8 = |x: MmaType| matches!(x, S8 | U8);
        match shape {
            MmaShape::M16n8k16 | MmaShape::M16n8k8 => match (t[1], t[2]) {
                (F16, F16) => t[0] == t[3] && matches!(t[0], F16 | F32),
                (Bf16, Bf16) => t[0] == F32 && t[3] == F32,
                (a, b) if shape == MmaShape::M16n8k16 && int8(a) && int8(b) => {
                    t[0] == S32 && t[3] == S32
                }
                _ => false,
            },
            MmaShape::M16n8k32 => int8(t[1]) && int8(t[2]) && t[0] == S32 && t[3] == S32,
            MmaShape::M8n8k4 => t == [F64; 4],
        }
    }

    /// Whether the form is an integer one (`.satfinite` allowed).
    pub fn is_int(&self) -> bool {
        self.types[0] == MmaType::S32
    }
}
