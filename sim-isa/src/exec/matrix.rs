//! The 8x8 matrices of 16-bit elements that `ldmatrix`, `stmatrix` and
//! `movmatrix` move (PTX ISA 9.7.14.5.15-17). A matrix's fragment: lane
//! `l` holds row `l / 4`, columns `2 (l % 4)` (low half) and `2 (l % 4) +
//! 1` (high half) in one 32-bit register. `ldmatrix`/`stmatrix` name each
//! matrix `j`'s rows by address: lane `8j + r` gives row `r`'s (16 bytes,
//! 16-byte aligned); with `.trans` the fragment is of the transpose (lane
//! `l`'s half `h` is the element at row `2 (l % 4) + h`, column `l / 4`).

use super::lanes::blend;
use super::mem::{FaultKind, LaneFault, Memory};
use super::{WarpRegs, WARP_SIZE};
use crate::inst::{Mem, MemOp};

/// For lane `l`'s half `h` of matrix `j`'s fragment: the lane whose row
/// address holds the element, and the element's byte offset in that row.
pub fn matrix_element(j: usize, l: usize, h: usize, trans: bool) -> (usize, u64) {
    let (row, col) = (l / 4, 2 * (l % 4) + h);
    if trans {
        (8 * j + col, 2 * row as u64)
    } else {
        (8 * j + row, 2 * col as u64)
    }
}

/// The lanes whose addresses an `ldmatrix`/`stmatrix` of `n` matrices reads.
pub fn row_lanes(n: u8) -> u32 {
    match n {
        1 => 0xff,
        2 => 0xffff,
        _ => u32::MAX,
    }
}

/// `ldmatrix`/`stmatrix` with each lane's row address in `addrs` (every
/// lane's, whether it executes or not: the instruction is `.aligned`),
/// writing or storing the fragments of the lanes of `exec`. A row address
/// that is not 16-byte aligned faults, as the lane giving it.
pub(super) fn ldst(
    m: &Mem,
    regs: &mut WarpRegs,
    exec: u32,
    mem: &mut dyn Memory,
    addrs: &[u64; WARP_SIZE],
) -> Result<(), LaneFault> {
    let n = usize::from(m.vec);
    let rows = row_lanes(m.vec);
    for (l, &a) in addrs.iter().enumerate() {
        if rows >> l & 1 == 1 && a % 16 != 0 {
            return Err(LaneFault {
                kind: FaultKind::Misaligned,
                addr: a,
                lane: l as u32,
            });
        }
    }
    let (trans, load) = match m.op {
        MemOp::Ldmatrix { trans } => (trans, true),
        MemOp::Stmatrix { trans } => (trans, false),
        MemOp::Ld
        | MemOp::Ldu
        | MemOp::St
        | MemOp::Atom(_)
        | MemOp::Red(_)
        | MemOp::Cvta { .. }
        | MemOp::MovAddr
        | MemOp::Pack
        | MemOp::Unpack => return Ok(()),
    };
    for j in 0..n {
        if load {
            let mut out = [0u64; WARP_SIZE];
            for (l, o) in out.iter_mut().enumerate() {
                if exec >> l & 1 == 0 {
                    continue;
                }
                for h in 0..2 {
                    let (src, off) = matrix_element(j, l, h, trans);
                    let addr = addrs[src].wrapping_add(off);
                    let lane = src as u32;
                    let v = mem.load(m.space, lane, addr, 2).map_err(|kind| LaneFault {
                        kind,
                        addr,
                        lane,
                    })?;
                    *o |= (v & 0xffff) << (16 * h);
                }
            }
            blend(regs.get_mut(m.d[j]), exec, &out);
        } else {
            let crate::inst::Operand::Reg(r) = m.vals[j] else {
                continue;
            };
            let vals = *regs.get(r);
            for (l, &v) in vals.iter().enumerate() {
                if exec >> l & 1 == 0 {
                    continue;
                }
                for h in 0..2 {
                    let (dst, off) = matrix_element(j, l, h, trans);
                    let addr = addrs[dst].wrapping_add(off);
                    let lane = dst as u32;
                    mem.store(m.space, lane, addr, 2, v >> (16 * h) & 0xffff)
                        .map_err(|kind| LaneFault { kind, addr, lane })?;
                }
            }
        }
    }
    Ok(())
}

/// `movmatrix.sync.aligned.m8n8.trans.b16`: the fragments in `a` of the
/// matrix, transposed (lane `l`'s half `h` is the element at row `2 (l %
/// 4) + h`, column `l / 4`, which lane `4 (2 (l % 4) + h) + l / 8` holds in
/// half `(l / 4) % 2`).
pub fn movmatrix(a: &[u64; WARP_SIZE]) -> [u64; WARP_SIZE] {
    let mut out = [0u64; WARP_SIZE];
    for (l, o) in out.iter_mut().enumerate() {
        for h in 0..2 {
            let (row, col) = (2 * (l % 4) + h, l / 4);
            let v = a[4 * row + col / 2] >> (16 * (col % 2)) & 0xffff;
            *o |= v << (16 * h);
        }
    }
    out
}
