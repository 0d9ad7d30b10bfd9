//! The WMMA statements of the tensor-core family (PTX ISA 9.7.14.4, what
//! CUDA C++'s `nvcuda::wmma` compiles to): `wmma.load.{a,b,c}` and
//! `wmma.store.d` are memory instructions ([`crate::inst::MemOp::Wmma`],
//! data [`WmmaMem`]); `wmma.mma` is an [`crate::inst::Mma`] of shape
//! [`crate::inst::MmaShape::M16n16k16`]. Parsed by `parse/wmma.rs`, run by
//! `exec/wmma.rs`. This simulator runs `.m16n16k16` with `.f16` `a`/`b`
//! and `.f16`/`.f32` `c`/`d`; the other shapes and types are valid PTX it
//! reports as `Unimplemented`.
//!
//! The manual leaves which lane holds which element unspecified; a
//! program's registers depend on it, so it is ptxas 13.0.88's for sm_90,
//! read from its machine code (docs/wmma.md): with `g = laneid >> 2`,
//! `t = laneid % 4`,
//! - `a` (m16 x k16, eight `.f16x2` registers): register `k` (`r = k % 4`)
//!   holds row `g + 8 (r & 1)`, columns `2t + 8 (r >> 1)` (low half) and
//!   the next (high half); registers 4-7 repeat 0-3 (`mma.m16n8k16`'s `A`
//!   fragment, twice);
//! - `b` (k16 x n16, eight registers): register `k` holds column
//!   `g + 8 (r >> 1)`, rows `2t + 8 (r & 1)` and the next; 4-7 repeat 0-3;
//! - `c`/`d` `.f32` (eight registers): register `i` holds row
//!   `g + 8 ((i >> 1) & 1)`, column `2t + (i & 1) + 8 (i >> 2)`;
//! - `c`/`d` `.f16` (four registers): register `r` holds row `g + 8 (r & 1)`,
//!   columns `2t + 8 (r >> 1)` and the next.
//!
//! The layout (`.row`/`.col`) and the state space change only which
//! machine instructions move the elements, never where they land.

use crate::operand::RegId;

/// Which matrix a `wmma.load`/`wmma.store` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WmmaFrag {
    /// `wmma.load.a`: the m x k multiplicand.
    A,
    /// `wmma.load.b`: the k x n multiplicand.
    B,
    /// `wmma.load.c`: the accumulator.
    C,
    /// `wmma.store.d`: the result.
    D,
}

impl WmmaFrag {
    /// The statement's opcode words, `load.a` ... `store.d`.
    pub fn words(self) -> &'static str {
        match self {
            WmmaFrag::A => "load.a",
            WmmaFrag::B => "load.b",
            WmmaFrag::C => "load.c",
            WmmaFrag::D => "store.d",
        }
    }
}

/// A `wmma.load`/`wmma.store`'s stride operand, in elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WmmaStride {
    /// None written: the matrix's own leading dimension (16).
    Default,
    /// An immediate.
    Imm(u32),
    /// A `.u32` register.
    Reg(RegId),
}

/// `wmma.load.{a,b,c}.sync.aligned.layout.m16n16k16{.space}.type d, [p]{, s}`
/// or `wmma.store.d.sync.aligned.layout.m16n16k16{.space}.type [p], b{, s}`.
/// The first four fragment registers are the [`crate::inst::Mem`]'s `d`
/// (load) or `vals` (store); the rest are `hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WmmaMem {
    /// The matrix.
    pub frag: WmmaFrag,
    /// `.col` (else `.row`): how the matrix lies in memory.
    pub col: bool,
    /// `.f32` (else `.f16`): the element type (`a`/`b` are always `.f16`).
    pub f32: bool,
    /// The stride.
    pub stride: WmmaStride,
    /// Fragment registers 4-7 (eight-register fragments).
    pub hi: [RegId; 4],
}

impl WmmaMem {
    /// Registers in the fragment: eight, or four for `.f16` `c`/`d`.
    pub fn regs(&self) -> usize {
        match self.frag {
            WmmaFrag::A | WmmaFrag::B => 8,
            WmmaFrag::C | WmmaFrag::D => {
                if self.f32 {
                    8
                } else {
                    4
                }
            }
        }
    }

    /// Bytes of one element.
    pub fn elem_bytes(&self) -> u64 {
        if self.f32 {
            4
        } else {
            2
        }
    }

    /// Whether it stores (`wmma.store.d`).
    pub fn is_store(&self) -> bool {
        self.frag == WmmaFrag::D
    }
}

/// Where element `h` (0, or 1 for a register's high half) of fragment
/// register `k` of lane `lane` lies in the 16 x 16 matrix: `(row, col)` of
/// `a` (m, k), `b` (k, n) or `c`/`d` (m, n). The module doc's layouts.
pub fn wmma_element(frag: WmmaFrag, f32: bool, k: usize, lane: usize, h: usize) -> (usize, usize) {
    let (g, t) = (lane >> 2, lane & 3);
    let r = k & 3;
    match frag {
        WmmaFrag::A => (g + 8 * (r & 1), 2 * t + h + 8 * (r >> 1)),
        WmmaFrag::B => (2 * t + h + 8 * (r & 1), g + 8 * (r >> 1)),
        WmmaFrag::C | WmmaFrag::D if f32 => {
            (g + 8 * ((k >> 1) & 1), 2 * t + (k & 1) + 8 * (k >> 2))
        }
        WmmaFrag::C | WmmaFrag::D => (g + 8 * (r & 1), 2 * t + h + 8 * (r >> 1)),
    }
}

/// Shape words of valid `wmma` forms this simulator does not run (with
/// any types: `.tf32` is `m16n16k8`'s, `.f64` `m8n8k4`'s, the sub-byte
/// types `m8n8k32`'s and `m8n8k128`'s).
pub const WMMA_OTHER_SHAPES: [&str; 6] = [
    "m32n8k16", "m8n32k16", "m16n16k8", "m8n8k4", "m8n8k32", "m8n8k128",
];

/// Type words of valid `m16n16k16` forms this simulator does not run.
pub const WMMA_OTHER_TYPES: [&str; 4] = ["bf16", "s8", "u8", "s32"];
