//! `wmma.load`, `wmma.store` and `wmma.mma` (PTX ISA 9.7.14.4) with the
//! fragments of ptxas 13.0.88 for sm_90 (`wmma_inst.rs`, docs/wmma.md).
//!
//! - Loads and stores: every lane moves its own fragment's elements, at
//!   its own address `p` plus the element's offset, `row * stride + col`
//!   (`.row`) or `col * stride + row` (`.col`) elements, `stride` the
//!   lane's own operand (16 when none is written). The machine moves
//!   4-byte words (`LDG`/`STG`, `LDSM`/`STSM` for shared memory), so a lane
//!   whose `p` is not a multiple of 4 faults as misaligned. (The CUDA
//!   guide asks for a 32-byte aligned `p` and a stride of a multiple of 16
//!   bytes; ptxas's address arithmetic agrees with the formula above for
//!   those, the only strides the tests use.)
//! - `wmma.mma`: ptxas emits two `HMMA.16816`, one per eight columns of
//!   `d`, each `mma.m16n8k16` on `a`'s registers 0-3, `b`'s registers 0-1
//!   (columns 0-7) or 2-3 (8-15) and the matching half of `c`; so each
//!   element of `d` is `exec/mma.rs`'s [`super::mma::dot`] of a row of `a`
//!   and a column of `b` with the element of `c`, under sm_90's model. An
//!   `.f16` `c` with an `.f32` `d` is first widened exactly (`HADD2.F32`);
//!   an `.f32` `c` with an `.f16` `d` is summed in f32 and then rounded to
//!   nearest even (`F2FP.F16.F32.PACK_AB`), two roundings.

use super::cvt::{decode_float, encode_float, Dir, F16, F32};
use super::lanes::blend;
use super::memory::{FaultKind, LaneFault, Memory};
use super::{WarpRegs, WARP_SIZE};
use crate::inst::{
    wmma_element, Mem, Mma, MmaShape, MmaType, Operand, RegId, WmmaFrag, WmmaMem, WmmaStride,
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
        WmmaStride::Default => 16,
        WmmaStride::Imm(s) => u64::from(s),
        WmmaStride::Reg(r) => regs.get(r)[l] & 0xffff_ffff,
    }
}

/// Byte offset of lane `l`'s element `h` of fragment register `k`.
fn offset(w: &WmmaMem, k: usize, l: usize, h: usize, s: u64) -> u64 {
    let (row, col) = wmma_element(w.frag, w.f32, k, l, h);
    let (row, col) = (row as u64, col as u64);
    let e = if w.col { col * s + row } else { row * s + col };
    e * w.elem_bytes()
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
    let halves = if w.f32 { 1 } else { 2 };
    let eb = w.elem_bytes() as u32;
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
            for h in 0..halves {
                let addr = addrs[l].wrapping_add(offset(w, k, l, h, strides[l]));
                let err = |kind| LaneFault { kind, addr, lane };
                let shift = 16 * h;
                if w.is_store() {
                    let e = *v >> shift & super::width_mask(8 * eb);
                    mem.store(m.space, lane, addr, eb, e).map_err(err)?;
                } else {
                    word |= mem.load(m.space, lane, addr, eb).map_err(err)? << shift;
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

/// Bytes of a lane's fragment (eight elements: the repeated registers of
/// `a` and `b` aside), for a timing model's accesses.
pub(super) fn lane_bytes(w: &WmmaMem) -> u32 {
    8 * w.elem_bytes() as u32
}

/// Element `(row, col)` of a 16 x 16 fragment matrix, gathered from
/// every lane's registers `regs` (`frag`, `f32`: the layout).
fn gather(w: &WarpRegs, regs: &[RegId], frag: WmmaFrag, f32: bool) -> [[u64; 16]; 16] {
    let mut out = [[0u64; 16]; 16];
    let halves = if f32 { 1 } else { 2 };
    for (k, &r) in regs.iter().enumerate() {
        let vals = w.get(r);
        for (l, &v) in vals.iter().enumerate() {
            for h in 0..halves {
                let (row, col) = wmma_element(frag, f32, k, l, h);
                out[row][col] = if f32 {
                    v & 0xffff_ffff
                } else {
                    v >> (16 * h) & 0xffff
                };
            }
        }
    }
    out
}

/// `wmma.mma.sync.aligned.m16n16k16`: the module doc.
pub(super) fn mma(m: &Mma, target: Target, regs: &mut WarpRegs, exec: u32) {
    let model = super::mma::MmaModel::of(target);
    let [nd, _, _, nc] = m.counts();
    let c_f32 = m.types[3] == MmaType::F32;
    let d_f32 = m.types[0] == MmaType::F32;
    // Registers 0-3 of `a` and `b` (what the `HMMA`s read).
    let a = gather(regs, &m.a[..4], WmmaFrag::A, false);
    let b = gather(regs, &m.b[..4], WmmaFrag::B, false);
    let c = gather(regs, &m.c[..nc], WmmaFrag::C, c_f32);
    // Each element as `mma.m16n8k16` with an f32 accumulator, or an f16
    // one when both `c` and `d` are f16.
    let both_f16 = !c_f32 && !d_f32;
    let acc = if both_f16 { MmaType::F16 } else { MmaType::F32 };
    let one = Mma {
        shape: MmaShape::M16n8k16,
        types: [acc, MmaType::F16, MmaType::F16, acc],
        ..*m
    };
    let mut d = [[0u64; 16]; 16];
    for (i, row) in d.iter_mut().enumerate() {
        for (j, out) in row.iter_mut().enumerate() {
            let col: [u64; 16] = std::array::from_fn(|x| b[x][j]);
            let cij = if both_f16 || c_f32 {
                c[i][j]
            } else {
                let x = decode_float(F16, c[i][j], false);
                encode_float(F32, x, Dir::Nearest, false, false, false)
            };
            let r = super::mma::dot(&one, model, &a[i], &col, cij);
            *out = if d_f32 || both_f16 {
                r
            } else {
                let x = decode_float(F32, r, false);
                encode_float(F16, x, Dir::Nearest, false, false, false)
            };
        }
    }
    for (k, &r) in m.d[..nd].iter().enumerate() {
        let mut vals = [0u64; WARP_SIZE];
        for (l, v) in vals.iter_mut().enumerate() {
            if d_f32 {
                let (row, col) = wmma_element(WmmaFrag::D, true, k, l, 0);
                *v = d[row][col];
            } else {
                for h in 0..2 {
                    let (row, col) = wmma_element(WmmaFrag::D, false, k, l, h);
                    *v |= d[row][col] << (16 * h);
                }
            }
        }
        blend(regs.get_mut(r), exec, &vals);
    }
}
