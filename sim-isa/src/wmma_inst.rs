//! The WMMA statements of the tensor-core family (PTX ISA 9.7.14.4, what
//! CUDA C++'s `nvcuda::wmma` compiles to): `wmma.load.{a,b,c}` and
//! `wmma.store.d` are memory instructions ([`crate::inst::MemOp::Wmma`],
//! data [`WmmaMem`]); `wmma.mma` is an [`crate::inst::Mma`] of a shape
//! [`MmaShape::is_wmma`]. Parsed by `parse/wmma.rs`, run by `exec/wmma.rs`.
//! This simulator runs `.m16n16k16`, `.m32n8k16` and `.m8n32k16` with
//! `.f16` `a`/`b` (`.f16`/`.f32` `c`/`d`), `.bf16` (`.f32`) and `.s8`/`.u8`
//! (`.s32`); `.m8n8k4` with `.f64` (every rounding), `.m8n8k32` with
//! `.s4`/`.u4`, `.m16n16k8` with `.tf32` and `.m8n8k128` with `.b1`.
//!
//! The manual leaves which lane holds which element unspecified; a
//! program's registers depend on it, so it is ptxas 13.0.88's for sm_90,
//! read from its machine code (docs/wmma.md): with `g = laneid >> 2`,
//! `t = laneid % 4`, for m16n16k16 and m32n8k16 (`h` = 8 rows on for
//! m32n8k16's second half, 8 columns on for m16n16k16's):
//! - 16-bit `a` (m x k16): register `k` holds row `g + 8 (k & 1)` (+ 16
//!   for m32n8k16's registers 4-7), columns `2t + 8 ((k >> 1) & 1)` (low
//!   half) and the next (high half): `mma.m16n8k16`'s `A` fragment per 16
//!   rows. `.f16` m16n16k16 has eight registers, 4-7 repeating 0-3;
//! - 16-bit `b` (k16 x n): register `k` holds column `g` (+ 8 for
//!   m16n16k16's registers 2-3), rows `2t + 8 (k & 1)` and the next;
//!   `.f16` repeats registers to eight;
//! - 8-bit `a`: register `k` holds row `g + 8k`, columns `4t` to `4t + 3`
//!   (byte `j` column `4t + j`); 8-bit `b`: column `g + 8k`, rows `4t` on;
//! - 32-bit `c`/`d` (eight registers): register `i` holds row
//!   `g + 8 ((i >> 1) & 1)`, column `2t + (i & 1)`, plus `h` for `i >= 4`;
//! - `.f16` `c`/`d` (four registers): register `r` holds row
//!   `g + 8 (r & 1)`, columns `2t` and the next, plus `h` for `r >= 2`.
//!
//! m8n8k4 (`.f64`, 64-bit registers) has `mma.m8n8k4`'s fragments: `a`
//! row `g`, column `t`; `b` row `t`, column `g`; `c`/`d` register `k` row
//! `g`, column `2t + k`. m8n8k32 (`.s4`/`.u4`, eight to a register, the
//! first in the low bits): `a` row `g`, columns `8t` on; `b` column `g`,
//! rows `8t` on; `c`/`d` as m8n8k4's. m8n8k128 (`.b1`, 32 to a register,
//! the first in bit 0) likewise: `a` row `g`, columns `32t` on; `b` column
//! `g`, rows `32t` on. m16n16k8 (`.tf32`, one to a register) has
//! `mma.m16n8k8`'s tf32 fragments: `a` register `k` row `g + 8 (k & 1)`,
//! column `t + 4 (k >> 1)`; `b` register `k` row `t + 4 (k & 1)`, column
//! `g + 8 (k >> 1)`; `c`/`d` as m16n16k16's 32-bit ones.
//!
//! m8n32k16 is m32n8k16 transposed: ptxas computes `d^T = b^T a^T`, so its
//! `a` is laid out as m32n8k16's `b` transposed, its `b` as `a` transposed
//! and `c`/`d` as `c`/`d` transposed.
//!
//! The layout (`.row`/`.col`) and the state space change only which
//! machine instructions move the elements, never where they land.

use crate::mma_inst::{
    wmma_elems_per_reg, wmma_frag_regs, wmma_matrix_dims, wmma_share_regs, MmaShape, MmaType,
};
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

/// `wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type d, [p]{, s}`
/// or `wmma.store.d.sync.aligned.layout.shape{.space}.type [p], b{, s}`.
/// The first four fragment registers are the [`crate::inst::Mem`]'s `d`
/// (load) or `vals` (store); the rest are `hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WmmaMem {
    /// The matrix.
    pub frag: WmmaFrag,
    /// `.col` (else `.row`): how the matrix lies in memory.
    pub col: bool,
    /// The shape: one of [`MmaShape::is_wmma`]'s.
    pub shape: MmaShape,
    /// The element type: `.f16`, `.bf16`, `.s8`, `.u8` for `a`/`b`;
    /// `.f16`, `.f32`, `.s32` for `c`/`d`.
    pub ty: MmaType,
    /// The stride.
    pub stride: WmmaStride,
    /// Fragment registers 4-7 (fragments of more than four registers).
    pub hi: [RegId; 4],
}

impl WmmaMem {
    /// Registers in the fragment ([`wmma_regs`]).
    pub fn regs(&self) -> usize {
        wmma_regs(self.shape, self.frag, self.ty)
    }

    /// Bits of one element.
    pub fn elem_bits(&self) -> u64 {
        u64::from(self.ty.bits())
    }

    /// Whether it stores (`wmma.store.d`).
    pub fn is_store(&self) -> bool {
        self.frag == WmmaFrag::D
    }

    /// The matrix's `(rows, columns)`: `a` is m x k, `b` k x n, `c`/`d` m x n.
    pub fn dims(&self) -> (usize, usize) {
        wmma_dims(self.shape, self.frag)
    }

    /// The stride when none is written: the matrix's leading dimension,
    /// its columns (`.row`) or rows (`.col`), as ptxas's default offsets
    /// (docs/wmma.md).
    pub fn default_stride(&self) -> u32 {
        let (rows, cols) = self.dims();
        (if self.col { rows } else { cols }) as u32
    }
}

/// The index of `frag` in [`crate::mma_inst`]'s WMMA helpers: `a` 0,
/// `b` 1, `c`/`d` 2.
fn which(frag: WmmaFrag) -> usize {
    match frag {
        WmmaFrag::A => 0,
        WmmaFrag::B => 1,
        WmmaFrag::C | WmmaFrag::D => 2,
    }
}

/// The `(rows, columns)` of matrix `frag` of a WMMA shape.
pub fn wmma_dims(shape: MmaShape, frag: WmmaFrag) -> (usize, usize) {
    wmma_matrix_dims(shape, which(frag))
}

/// Elements of type `ty` in one fragment register (f64: one).
pub fn wmma_per_reg(ty: MmaType) -> usize {
    wmma_elems_per_reg(ty)
}

/// Registers of fragment `frag` of type `ty`: a lane's share, except `.f16`
/// `a` and `b`, always eight (ptxas's registers past the share repeat the
/// first ones: the module doc).
pub fn wmma_regs(shape: MmaShape, frag: WmmaFrag, ty: MmaType) -> usize {
    wmma_frag_regs(shape, which(frag), ty)
}

/// Registers of a lane's share of the matrix: the ones the machine code
/// reads (`wmma.mma`'s `HMMA`/`IMMA`/`DMMA`).
pub fn wmma_distinct_regs(shape: MmaShape, frag: WmmaFrag, ty: MmaType) -> usize {
    wmma_share_regs(shape, which(frag), ty)
}

/// Where element `j` (from the register's low bits) of fragment register
/// `k` of lane `lane` lies in matrix `frag` of `shape` with elements of
/// type `ty`: `(row, col)` of `a` (m, k), `b` (k, n) or `c`/`d` (m, n).
/// The module doc's layouts.
pub fn wmma_element(
    shape: MmaShape,
    frag: WmmaFrag,
    ty: MmaType,
    k: usize,
    lane: usize,
    j: usize,
) -> (usize, usize) {
    if shape == MmaShape::M8n32k16 {
        // ptxas computes `d^T = b^T a^T` with m32n8k16's fragments.
        let f = match frag {
            WmmaFrag::A => WmmaFrag::B,
            WmmaFrag::B => WmmaFrag::A,
            WmmaFrag::C | WmmaFrag::D => frag,
        };
        let (r, c) = wmma_element(MmaShape::M32n8k16, f, ty, k, lane, j);
        return (c, r);
    }
    let (g, t) = (lane >> 2, lane & 3);
    if matches!(shape, MmaShape::Wm8n8k32 | MmaShape::Wm8n8k128) {
        // Eight 4-bit (32 1-bit) elements a register: `a` row `g`, columns
        // `8t` (`32t`) on; `b` column `g`, rows `8t` on; `c`/`d` as f64's.
        let per = wmma_per_reg(ty);
        return match frag {
            WmmaFrag::A => (g, per * t + j),
            WmmaFrag::B => (per * t + j, g),
            WmmaFrag::C | WmmaFrag::D => (g, 2 * t + k),
        };
    }
    if shape == MmaShape::Wm16n16k8 && matches!(frag, WmmaFrag::A | WmmaFrag::B) {
        // `HMMA.1684.F32.TF32`'s fragments, two `k` steps of 4.
        return if frag == WmmaFrag::A {
            (g + 8 * (k & 1), t + 4 * (k >> 1))
        } else {
            (t + 4 * (k & 1), g + 8 * (k >> 1))
        };
    }
    if shape == MmaShape::Wm8n8k4 {
        // `mma.m8n8k4.f64`'s fragments (`DMMA.8x8x4`).
        return match frag {
            WmmaFrag::A => (g, t),
            WmmaFrag::B => (t, g),
            WmmaFrag::C | WmmaFrag::D => (g, 2 * t + k),
        };
    }
    // m32n8k16's second half is 16 rows on; m16n16k16's 8 columns on.
    let tall = shape == MmaShape::M32n8k16;
    let (row16, col8) = if tall { (16, 0) } else { (0, 8) };
    match (frag, ty.bits()) {
        (WmmaFrag::A, 8) => (g + 8 * k, 4 * t + j),
        (WmmaFrag::B, 8) => (4 * t + j, g + 8 * k),
        (WmmaFrag::A, _) => {
            let half = if tall { k >> 2 } else { 0 };
            (g + 8 * (k & 1) + 16 * half, 2 * t + j + 8 * ((k >> 1) & 1))
        }
        (WmmaFrag::B, _) => {
            let half = if tall { 0 } else { (k >> 1) & 1 };
            (2 * t + j + 8 * (k & 1), g + 8 * half)
        }
        (WmmaFrag::C | WmmaFrag::D, 32) => {
            let half = k >> 2;
            (
                g + 8 * ((k >> 1) & 1) + row16 * half,
                2 * t + (k & 1) + col8 * half,
            )
        }
        (WmmaFrag::C | WmmaFrag::D, _) => {
            let half = k >> 1;
            (g + 8 * (k & 1) + row16 * half, 2 * t + j + col8 * half)
        }
    }
}
