//! SIMD video lanes (`vadd2` ... `vset4`), PTX 9.7.18.2 as corrected by
//! ERRATA 1-11.

use crate::inst::{CmpOp, Video, VideoOp};

/// One thread's `vop2`/`vop4`: `a`, `b`, `c` are the 32-bit source registers,
/// the result is the 32-bit destination.
///
/// Each lane's inputs are exact (sign- or zero-extended per operand type,
/// errata 4); `.sat` clamps to the destination lane range (errata 5); the merge
/// places lane `i` at bit `w*i` and copies unmasked lanes raw from `c`
/// (errata 1, 2, also for `vset`); `.add` returns `c + sum(t[i])` over masked
/// lanes at full precision modulo 2^32 with no merge (errata 3).
pub fn video_lane(v: &Video, a: u32, b: u32, c: u32) -> u32 {
    let n = v.simd.lanes();
    let w = v.simd.lane_bits();
    let lane_mask = (1u32 << w) - 1;
    // Elements 0..n-1 come from a, n..2n-1 from b: one 64-bit pool indexes both.
    let pool = (u64::from(b) << 32) | u64::from(a);
    let sel_mask = (2 * n - 1) as u8;
    let elem = |sel: u8, signed: bool| -> i32 {
        let raw = ((pool >> (u32::from(sel & sel_mask) * w)) as u32) & lane_mask;
        if signed {
            // Shift up then arithmetic-shift down to sign-extend from w bits.
            ((raw << (32 - w)) as i32) >> (32 - w)
        } else {
            raw as i32
        }
    };
    let (lo, hi) = if v.dsigned {
        (-(1i32 << (w - 1)), (1i32 << (w - 1)) - 1)
    } else {
        (0, lane_mask as i32)
    };
    let mut acc = c;
    let mut merged = 0u32;
    for i in 0..n {
        let x = elem(v.asel[i], v.asigned);
        let y = elem(v.bsel[i], v.bsigned);
        let mut t = match v.op {
            VideoOp::Add => x + y,
            VideoOp::Sub => x - y,
            // Errata 7: half away from zero.
            VideoOp::Avrg => {
                let s = x + y;
                if s >= 0 {
                    (s + 1) >> 1
                } else {
                    s >> 1
                }
            }
            VideoOp::Absdiff => (x - y).abs(),
            VideoOp::Min => x.min(y),
            VideoOp::Max => x.max(y),
            // Errata 8: 1 or 0 per lane.
            VideoOp::Set(cmp) => i32::from(int_cmp(cmp, x, y)),
        };
        if v.sat {
            t = t.clamp(lo, hi);
        }
        let shift = w * i as u32;
        if v.mask >> i & 1 == 1 {
            if v.add {
                acc = acc.wrapping_add(t as u32);
            } else {
                merged |= ((t as u32) & lane_mask) << shift;
            }
        } else {
            merged |= c & (lane_mask << shift);
        }
    }
    if v.add {
        acc
    } else {
        merged
    }
}

/// `vset` comparison of two exact lane values. Only `eq ne lt le gt ge` are
/// valid; the rest get their natural integer meaning so the function is total.
fn int_cmp(cmp: CmpOp, x: i32, y: i32) -> bool {
    match cmp {
        CmpOp::Eq | CmpOp::Equ => x == y,
        CmpOp::Ne | CmpOp::Neu => x != y,
        CmpOp::Lt | CmpOp::Ltu | CmpOp::Lo => x < y,
        CmpOp::Le | CmpOp::Leu | CmpOp::Ls => x <= y,
        CmpOp::Gt | CmpOp::Gtu | CmpOp::Hi => x > y,
        CmpOp::Ge | CmpOp::Geu | CmpOp::Hs => x >= y,
        CmpOp::Num => true,
        CmpOp::Nan => false,
    }
}
