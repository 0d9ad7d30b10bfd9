//! The tensor-core family: `mma.sync.aligned` ([`Mma`]), a warp-wide
//! matrix multiply-accumulate over fragments held in every lane's registers.
//! (`ldmatrix`/`stmatrix` are memory instructions, [`crate::inst::MemOp`];
//! `movmatrix` is a warp collective, [`crate::inst::WarpOp::Movmatrix`].)
//! Declared as data in [`MMA_SHAPES`] and [`MmaType::WORDS`]; parsed by
//! `parse/matrix.rs`, run by `exec/mma.rs`.

use crate::inst::float::Rnd;
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
    /// `.m16n16k16`: `wmma.mma` (`wmma_inst.rs`).
    M16n16k16,
    /// `.m32n8k16`: `wmma.mma`.
    M32n8k16,
    /// `.m8n32k16`: `wmma.mma`.
    M8n32k16,
    /// `wmma.mma`'s `.m8n8k4` (f64; `mma`'s is [`MmaShape::M8n8k4`]).
    Wm8n8k4,
    /// `wmma.mma`'s `.m8n8k32` (s4/u4).
    Wm8n8k32,
    /// `wmma.mma`'s `.m16n16k8` (tf32).
    Wm16n16k8,
    /// `wmma.mma`'s `.m8n8k128` (b1).
    Wm8n8k128,
}

/// Every shape word and its shape.
pub const MMA_SHAPES: [(&str, MmaShape); 4] = [
    ("m16n8k16", MmaShape::M16n8k16),
    ("m16n8k8", MmaShape::M16n8k8),
    ("m16n8k32", MmaShape::M16n8k32),
    ("m8n8k4", MmaShape::M8n8k4),
];

/// Every `wmma` shape word this simulator runs and its shape
/// (`wmma_inst.rs`).
pub const WMMA_SHAPES: [(&str, MmaShape); 7] = [
    ("m16n16k16", MmaShape::M16n16k16),
    ("m32n8k16", MmaShape::M32n8k16),
    ("m8n32k16", MmaShape::M8n32k16),
    ("m8n8k4", MmaShape::Wm8n8k4),
    ("m8n8k32", MmaShape::Wm8n8k32),
    ("m16n16k8", MmaShape::Wm16n16k8),
    ("m8n8k128", MmaShape::Wm8n8k128),
];

/// The `(rows, columns)` of a WMMA shape's matrix `which`: `a` (0, m x k),
/// `b` (1, k x n), `c`/`d` (2, m x n).
pub const fn wmma_matrix_dims(shape: MmaShape, which: usize) -> (usize, usize) {
    let (m, n, k) = shape.mnk();
    match which {
        0 => (m, k),
        1 => (k, n),
        _ => (m, n),
    }
}

/// Elements of type `ty` in one fragment register (one for f64's 64-bit
/// registers).
pub const fn wmma_elems_per_reg(ty: MmaType) -> usize {
    let per = 32 / ty.bits();
    if per == 0 {
        1
    } else {
        per as usize
    }
}

/// Registers of a lane's share of WMMA matrix `which` (as in
/// [`wmma_matrix_dims`]): the ones the machine code reads.
pub const fn wmma_share_regs(shape: MmaShape, which: usize, ty: MmaType) -> usize {
    let (rows, cols) = wmma_matrix_dims(shape, which);
    rows * cols / 32 / wmma_elems_per_reg(ty)
}

/// Registers of WMMA fragment `which`: the lane's share, except `.f16`
/// `a` and `b`, always eight (ptxas's registers past the share repeat the
/// first ones: `wmma_inst.rs`).
pub const fn wmma_frag_regs(shape: MmaShape, which: usize, ty: MmaType) -> usize {
    if matches!(ty, MmaType::F16) && which < 2 {
        8
    } else {
        wmma_share_regs(shape, which, ty)
    }
}

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
            MmaShape::M16n16k16 => (16, 16, 16),
            MmaShape::M32n8k16 => (32, 8, 16),
            MmaShape::M8n32k16 => (8, 32, 16),
            MmaShape::Wm8n8k4 => (8, 8, 4),
            MmaShape::Wm8n8k32 => (8, 8, 32),
            MmaShape::Wm16n16k8 => (16, 16, 8),
            MmaShape::Wm8n8k128 => (8, 8, 128),
        }
    }

    /// Whether this is a `wmma.mma` shape (`wmma_inst.rs`): one of
    /// [`WMMA_SHAPES`].
    pub fn is_wmma(self) -> bool {
        WMMA_SHAPES.iter().any(|s| s.1 == self)
    }

    /// The shape word.
    pub fn word(self) -> &'static str {
        // WMMA's shapes are not `mma` shapes (`MMA_SHAPES` lists those).
        if self.is_wmma() {
            return word_of(&WMMA_SHAPES, self, "m16n16k16");
        }
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
    /// `.s4` (eight to a register; `wmma` only)
    S4,
    /// `.u4` (`wmma` only)
    U4,
    /// `.tf32` (a 32-bit register; `wmma` only): f32's layout, of which the
    /// tensor core reads the sign, the exponent and 10 fraction bits.
    Tf32,
    /// `.b1` (32 to a register; `wmma` only).
    B1,
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

    /// The type words only `wmma` runs: the sub-byte integers, `.tf32`,
    /// `.b1`.
    pub const WMMA_WORDS: [(&'static str, MmaType); 4] = [
        ("s4", MmaType::S4),
        ("u4", MmaType::U4),
        ("tf32", MmaType::Tf32),
        ("b1", MmaType::B1),
    ];

    /// The type word.
    pub fn word(self) -> &'static str {
        MmaType::WORDS
            .iter()
            .chain(&MmaType::WMMA_WORDS)
            .find(|w| w.1 == self)
            .map_or("f32", |w| w.0)
    }

    /// Width of one element in bits.
    pub const fn bits(self) -> u32 {
        match self {
            MmaType::B1 => 1,
            MmaType::S4 | MmaType::U4 => 4,
            MmaType::S8 | MmaType::U8 => 8,
            MmaType::F16 | MmaType::Bf16 => 16,
            MmaType::F32 | MmaType::S32 | MmaType::Tf32 => 32,
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
/// lane's fragment of the matrix. Also `wmma.mma.sync.aligned.alayout.blayout
/// .m16n16k16.dtype.ctype d, a, b, c` (shape [`MmaShape::M16n16k16`], `a`
/// and `b` `.f16`, eight registers each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mma {
    /// The shape.
    pub shape: MmaShape,
    /// `.dtype`, `.atype`, `.btype`, `.ctype`.
    pub types: [MmaType; 4],
    /// `.satfinite` (integer forms: clamp to the s32 range).
    pub satfinite: bool,
    /// The rounding word written (f64 only: `.rn`, and for `wmma.mma`
    /// `.rz`, `.rm`, `.rp`; none is `.rn`).
    pub rnd: Option<Rnd>,
    /// `wmma.mma`'s `.xor.popc` / `.and.popc` (`.b1` only).
    pub bop: Option<B1Op>,
    /// `wmma.mma`'s `.col` words for `a` and `b` (else `.row`): kept for
    /// printing; the fragments do not depend on them (`wmma_inst.rs`).
    pub wmma_col: [bool; 2],
    /// Destination fragment (the first [`Mma::counts`]`[0]`).
    pub d: [RegId; 8],
    /// `a`'s fragment.
    pub a: [RegId; 8],
    /// `b`'s fragment.
    pub b: [RegId; 8],
    /// `c`'s fragment.
    pub c: [RegId; 8],
}

/// The bit operation of `wmma.mma...m8n8k128.s32.b1.b1.s32`: each element
/// of `d` is `c` plus the population count of a row of `a` and a column of
/// `b` combined by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum B1Op {
    /// `.xor.popc`
    Xor,
    /// `.and.popc`
    And,
}

impl B1Op {
    /// The operation word.
    pub fn word(self) -> &'static str {
        match self {
            B1Op::Xor => "xor",
            B1Op::And => "and",
        }
    }
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
            MmaShape::M16n16k16
            | MmaShape::M32n8k16
            | MmaShape::M8n32k16
            | MmaShape::Wm8n8k4
            | MmaShape::Wm8n8k32
            | MmaShape::Wm16n16k8
            | MmaShape::Wm8n8k128 => {
                let regs = |w, t| wmma_frag_regs(self.shape, w, t);
                [
                    regs(2, self.types[0]),
                    regs(0, self.types[1]),
                    regs(1, self.types[2]),
                    regs(2, self.types[3]),
                ]
            }
        }
    }

    /// Registers of each fragment the machine code reads or writes,
    /// `[d, a, b, c]`: [`Mma::counts`], but for `wmma.mma` with `.f16`
    /// `a` and `b` only a lane's share of each (ptxas 13.0.88's two
    /// `HMMA.16816` read those alone: the other registers repeat them
    /// after `wmma.load`, docs/wmma.md). The scoreboard and the register
    /// checks use these.
    pub fn used_counts(&self) -> [usize; 4] {
        let [d, a, b, c] = self.counts();
        if self.shape.is_wmma() {
            let a = wmma_share_regs(self.shape, 0, self.types[1]);
            let b = wmma_share_regs(self.shape, 1, self.types[2]);
            [d, a, b, c]
        } else {
            [d, a, b, c]
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
            MmaShape::M8n8k4 | MmaShape::Wm8n8k4 => t == [F64; 4],
            MmaShape::Wm8n8k32 => {
                t[1] == t[2] && matches!(t[1], S4 | U4) && t[0] == S32 && t[3] == S32
            }
            MmaShape::Wm16n16k8 => t == [F32, Tf32, Tf32, F32],
            MmaShape::Wm8n8k128 => t == [S32, B1, B1, S32],
            // `wmma.mma`: f16 with any mix of f16 and f32 accumulators;
            // bf16 with f32; s8 or u8 (the same for `a` and `b`) with s32.
            MmaShape::M16n16k16 | MmaShape::M32n8k16 | MmaShape::M8n32k16 => match (t[1], t[2]) {
                (F16, F16) => matches!(t[0], F16 | F32) && matches!(t[3], F16 | F32),
                (Bf16, Bf16) => t[0] == F32 && t[3] == F32,
                (a, b) if a == b && int8(a) => t[0] == S32 && t[3] == S32,
                _ => false,
            },
        }
    }

    /// Whether the `mma` form needs sm_80 (`Feature::MmaAmpere`): every
    /// shape but Turing's `m16n8k8`, and bf16. `wmma.mma`'s gates are
    /// `db/wmma_gates.rs`'s.
    pub fn needs_ampere(&self) -> bool {
        !self.shape.is_wmma() && (self.shape != MmaShape::M16n8k8 || self.types[1] == MmaType::Bf16)
    }

    /// Whether the form is an integer one (`.satfinite` allowed).
    pub fn is_int(&self) -> bool {
        self.types[0] == MmaType::S32
    }
}
