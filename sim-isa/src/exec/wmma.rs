//! `wmma.load`, `wmma.store` and `wmma.mma` (PTX ISA 9.7.14.4) with the
//! fragments of ptxas 13.0.88 for sm_90 (`wmma_inst.rs`, docs/wmma.md).
//!
//! - Loads and stores: every lane moves its own fragment's elements, at
//!   its own address `p` plus the element's offset, `row * stride + col`
//!   (`.row`) or `col * stride + row` (`.col`) elements, `stride` the
//!   lane's own operand (the matrix's leading dimension when none is
//!   written). The machine moves 4-byte words for all but the 8-bit
//!   layouts ptxas loads a byte at a time (`LDG`/`STG`, `LDSM`/`STSM` for
//!   shared memory); a lane whose `p` is not a multiple of 4 faults as
//!   misaligned here, whatever the type. (The CUDA guide asks for a
//!   32-byte aligned `p` and a stride of a multiple of 16 bytes; ptxas's
//!   address arithmetic agrees with the formula above for those, the only
//!   strides the tests use.)
//! - `wmma.mma`: ptxas emits two `HMMA.16816` (`IMMA.16816` for the
//!   integer types), each `mma.m16n8k16` on one half of `d`: for
//!   m16n16k16 each eight columns, for m32n8k16 each sixteen rows, for
//!   m8n32k16 (computed as `d^T = b^T a^T`) each sixteen columns. Each
//!   element of `d` is therefore `exec/mma.rs`'s [`super::mma::dot`] of a
//!   row of `a` and a column of `b` with the element of `c`, under
//!   sm_90's model: the f16/bf16 model, or the exact integer sum (wrapping,
//!   or clamped with `.satfinite`). An `.f16` `c` with an `.f32` `d` is
//!   first widened exactly (`HADD2.F32`); an `.f32` `c` with an `.f16` `d`
//!   is summed in f32 and then rounded to nearest even
//!   (`F2FP.F16.F32.PACK_AB`), two roundings.

use super::cvt::{decode_float, encode_float, Dir, F16 as F16_FMT, F32 as F32_FMT};
use super::lanes::blend;
use super::memory::{Access, FaultKind, LaneFault, Memory};
use super::{WarpRegs, WARP_SIZE};
use crate::inst::{
    wmma_distinct_regs, wmma_element, wmma_per_reg, Mem, Mma, MmaShape, MmaType, Operand, RegId,
    WmmaFrag, WmmaMem, WmmaStride,
};
use crate::target::Target;

/// Fragment register `k` of `m`'s list: `d` (a load) or `vals` (a store)
/// for 0-3, `hi` after.
fn frag_reg(m: &Mem, w: &WmmaMem, k: usize) -> Option<RegId> {
    if k >= 4 {
        return Some(w.hi[k - 4]);
    }
    if w.is_store() {
        match m.vals[k] {
            Operand::Reg(r) => Some(r),
            Operand::Imm(_) | Operand::Special(_) => None,
        }
    } else {
        Some(m.d[k])
    }
}

/// Lane `l`'s stride in elements.
fn stride(w: &WmmaMem, regs: &WarpRegs, l: usize) -> u64 {
    match w.stride {
        WmmaStride::Default => u64::from(w.default_stride()),
        WmmaStride::Imm(s) => u64::from(s),
        WmmaStride::Reg(r) => regs.get(r)[l] & 0xffff_ffff,
    }
}

/// Byte offset of lane `l`'s element `j` of fragment register `k` (of
/// the byte holding it, for 4-bit elements).
fn offset(w: &WmmaMem, k: usize, l: usize, j: usize, s: u64) -> u64 {
    let (row, col) = wmma_element(w.shape, w.frag, w.ty, k, l, j);
    let (row, col) = (row as u64, col as u64);
    let e = if w.col { col * s + row } else { row * s + col };
    e * w.elem_bits() / 8
}

/// Runs a `wmma.load`/`wmma.store` with each lane's address in `addrs`,
/// for the lanes of `exec`.
pub(super) fn access(
    m: &Mem,
    w: &WmmaMem,
    regs: &mut WarpRegs,
    exec: u32,
    mem: &mut dyn Memory,
    addrs: &[u64; WARP_SIZE],
) -> Result<(), LaneFault> {
    for (l, &a) in addrs.iter().enumerate() {
        if exec >> l & 1 == 1 && a % 4 != 0 {
            return Err(LaneFault {
                kind: FaultKind::Misaligned,
                addr: a,
                lane: l as u32,
            });
        }
    }
    // 4-bit elements: a register's eight are one word in memory (`a` is
    // always `.row` and `b` `.col`, so they lie in order), moved whole.
    let (per, eb) = if w.elem_bits() < 8 {
        (1, 4)
    } else {
        (wmma_per_reg(w.ty), w.elem_bits() as u32 / 8)
    };
    let strides: [u64; WARP_SIZE] = std::array::from_fn(|l| stride(w, regs, l));
    for k in 0..w.regs() {
        let Some(reg) = frag_reg(m, w, k) else {
            continue;
        };
        let mut vals = *regs.get(reg);
        for (l, v) in vals.iter_mut().enumerate() {
            if exec >> l & 1 == 0 {
                continue;
            }
            let lane = l as u32;
            let mut word = 0;
            for j in 0..per {
                let addr = addrs[l].wrapping_add(offset(w, k, l, j, strides[l]));
                let err = |kind| LaneFault { kind, addr, lane };
                let shift = 8 * eb as usize * j;
                if w.is_store() {
                    let e = *v >> shift & super::width_mask(8 * eb);
                    mem.store(Access::new(m.space, lane, addr, eb), e)
                        .map_err(err)?;
                } else {
                    word |= mem
                        .load(Access::new(m.space, lane, addr, eb))
                        .map_err(err)?
                        << shift;
                }
            }
            *v = word;
        }
        if !w.is_store() {
            blend(regs.get_mut(reg), exec, &vals);
        }
    }
    Ok(())
}

/// Bytes of a lane's share of the matrix (the repeated registers of
/// `.f16` `a` and `b` aside), for a timing model's accesses.
pub(super) fn lane_bytes(w: &WmmaMem) -> u32 {
    let regs = wmma_distinct_regs(w.shape, w.frag, w.ty);
    (regs * wmma_per_reg(w.ty)) as u32 * w.elem_bits() as u32 / 8
}

/// The largest WMMA matrix side (m32n8k16's m, m8n32k16's n).
const SIDE: usize = 32;

/// A whole fragment matrix, `[row][col]`.
type Matrix = [[u64; SIDE]; SIDE];

/// Matrix `frag` of `shape` with elements of `ty`, gathered from every
/// lane's registers `regs`.
fn gather(w: &WarpRegs, regs: &[RegId], shape: MmaShape, frag: WmmaFrag, ty: MmaType) -> Matrix {
    let mut out = [[0u64; SIDE]; SIDE];
    let per = wmma_per_reg(ty);
    let bits = ty.bits();
    for (k, &r) in regs.iter().enumerate() {
        let vals = w.get(r);
        for (l, &v) in vals.iter().enumerate() {
            for j in 0..per {
                let (row, col) = wmma_element(shape, frag, ty, k, l, j);
                out[row][col] = v >> (bits as usize * j) & super::width_mask(bits);
            }
        }
    }
    out
}

/// Writes matrix `d` of `m` (`dt` elements) to its fragment registers.
fn scatter(m: &Mma, d: &Matrix, regs: &mut WarpRegs, exec: u32) {
    let dt = m.types[0];
    let nd = m.used_counts()[0];
    let per = wmma_per_reg(dt);
    for (k, &r) in m.d[..nd].iter().enumerate() {
        let mut vals = [0u64; WARP_SIZE];
        for (l, v) in vals.iter_mut().enumerate() {
            for j in 0..per {
                let (row, col) = wmma_element(m.shape, WmmaFrag::D, dt, k, l, j);
                *v |= d[row][col] << (dt.bits() as usize * j);
            }
        }
        blend(regs.get_mut(r), exec, &vals);
    }
}

/// `.m8n8k128.b1`: each lane's one register of `a` (row `g`) and `b`
/// (column `g`) holds 32 of the 128 bits, bit `j` element `32t + j`.
fn mma_b1(m: &Mma, target: Target, regs: &mut WarpRegs, exec: u32) {
    let mut rows = [0u128; 8];
    let mut cols = [0u128; 8];
    let (a, b) = (regs.get(m.a[0]), regs.get(m.b[0]));
    for l in 0..WARP_SIZE {
        let (g, t) = (l >> 2, l & 3);
        rows[g] |= u128::from(a[l] as u32) << (32 * t);
        cols[g] |= u128::from(b[l] as u32) << (32 * t);
    }
    let nc = m.used_counts()[3];
    let c = gather(regs, &m.c[..nc], m.shape, WmmaFrag::C, MmaType::S32);
    let bits = |v: u128| -> [u64; 128] { std::array::from_fn(|k| (v >> k) as u64 & 1) };
    let model = super::mma::MmaModel::of(target);
    let mut d = [[0u64; SIDE]; SIDE];
    for (i, row) in d.iter_mut().enumerate().take(8) {
        for (j, out) in row.iter_mut().enumerate().take(8) {
            *out = super::mma::dot(m, model, &bits(rows[i]), &bits(cols[j]), c[i][j]);
        }
    }
    scatter(m, &d, regs, exec);
}

/// `wmma.mma.sync.aligned`: the module doc.
pub(super) fn mma(m: &Mma, target: Target, regs: &mut WarpRegs, exec: u32) {
    use MmaType::{F16, F32, F64, S32};
    if m.types[1] == MmaType::B1 {
        return mma_b1(m, target, regs, exec);
    }
    let model = super::mma::MmaModel::of(target);
    let [_, na, nb, nc] = m.used_counts();
    let [dt, at, bt, ct] = m.types;
    let a = gather(regs, &m.a[..na], m.shape, WmmaFrag::A, at);
    let b = gather(regs, &m.b[..nb], m.shape, WmmaFrag::B, bt);
    let c = gather(regs, &m.c[..nc], m.shape, WmmaFrag::C, ct);
    // Each element as `mma.m16n8k16`: an f16 accumulator when both `c`
    // and `d` are f16, s32 for the integers, else f32.
    let both_f16 = ct == F16 && dt == F16;
    let acc = if both_f16 {
        F16
    } else if matches!(dt, S32 | F64) {
        dt
    } else {
        F32
    };
    // ptxas emulates the 4-bit forms on sm_90 with two `IMMA.8816` on
    // bytes; with `.satfinite` the sum's add to `c` is checked on the signs
    // (`PLOP3` of `.SIGN`s, `SEL` of `0x7fffffff`/`0x80000000`): it clamps
    // like the 8-bit forms (the SASS oracle, `tests/it/wmma_sass.rs`).
    let one = Mma {
        shape: MmaShape::M16n8k16,
        types: [acc, at, bt, acc],
        ..*m
    };
    let (rows, cols, depth) = m.shape.mnk();
    let mut d = [[0u64; SIDE]; SIDE];
    for (i, row) in d.iter_mut().enumerate().take(rows) {
        for (j, out) in row.iter_mut().enumerate().take(cols) {
            let col: [u64; SIDE] = std::array::from_fn(|x| b[x][j]);
            let cij = if ct == F16 && acc == F32 {
                let x = decode_float(F16_FMT, c[i][j], false);
                encode_float(F32_FMT, x, Dir::Nearest, false, false, false)
            } else {
                c[i][j]
            };
            let r = if at == MmaType::Tf32 {
                // Two `HMMA.1684` steps, `k` 0-3 then 4-7, each rounded.
                let first = super::mma::dot(&one, model, &a[i][..4], &col[..4], cij);
                super::mma::dot(&one, model, &a[i][4..depth], &col[4..depth], first)
            } else {
                super::mma::dot(&one, model, &a[i][..depth], &col[..depth], cij)
            };
            *out = if dt == F16 && acc == F32 {
                let x = decode_float(F32_FMT, r, false);
                encode_float(F16_FMT, x, Dir::Nearest, false, false, false)
            } else {
                r
            };
        }
    }
    scatter(m, &d, regs, exec);
}
