//! SIMD video lanes (`vadd2` ... `vset4`), PTX 9.7.18.2 as corrected by
//! ERRATA 1-11.

use super::cmp::int_cmp_kind;
use crate::inst::{RegId, Simd, Video, VideoOp};

impl Video {
    /// `d = op(a, b)` (merged with `c`) over `simd` elements as a statement
    /// naming no selector, mask or modifier has it: the default selectors
    /// ([`crate::db::default_sels`]), every element written, unsigned
    /// types, no `.sat` or `.add`. (For building instructions by hand.)
    pub fn plain(op: VideoOp, simd: Simd, d: RegId, a: RegId, b: RegId, c: RegId) -> Video {
        let (asel, bsel) = crate::db::default_sels(simd);
        Video {
            op,
            simd,
            dsigned: false,
            asigned: false,
            bsigned: false,
            sat: false,
            add: false,
            mask: ((1u32 << simd.lanes()) - 1) as u8,
            mask_explicit: false,
            asel,
            bsel,
            asel_explicit: false,
            bsel_explicit: false,
            sat_first: false,
            d,
            a,
            b,
            c,
        }
    }
}

/// One thread's `vop2`/`vop4`: `a`, `b`, `c` are the 32-bit source registers,
/// the result is the 32-bit destination.
///
/// Each lane's inputs are exact (sign- or zero-extended per operand type,
/// errata 4); `.sat` clamps to the destination lane range (errata 5); the merge
/// places lane `i` at bit `w*i` and copies unmasked lanes raw from `c`
/// (errata 1, 2, also for `vset`); `.add` returns `c + sum(t[i])` over masked
/// lanes at full precision modulo 2^32 with no merge (errata 3).
pub fn video_lane(v: &Video, a: u32, b: u32, c: u32) -> u32 {
    VideoPlan::new(v).lane(a, b, c)
}

/// A video instruction decoded once per warp: per-lane element shifts, the
/// clamp range and the merge masks, so the 32-lane loop only does arithmetic.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VideoPlan {
    op: VideoOp,
    n: usize,
    /// `32 - w`: shifting an element to the top and back extends it.
    ext: u32,
    /// Bit offset of each lane's `a` and `b` element in the 64-bit pool `b:a`.
    ashift: [u32; 4],
    bshift: [u32; 4],
    asigned: bool,
    bsigned: bool,
    /// Clamp range, or `None` without `.sat`.
    clamp: Option<(i32, i32)>,
    add: bool,
    /// Lanes written (bit i = lane i).
    mask: u8,
    /// Bits of `d` that come from `c` in a merge.
    keep_c: u32,
    lane_mask: u32,
    w: u32,
}

impl VideoPlan {
    pub(crate) fn new(v: &Video) -> Self {
        let n = v.simd.lanes();
        let w = v.simd.lane_bits();
        let lane_mask = (1u32 << w) - 1;
        let sel_mask = (2 * n - 1) as u8;
        let mut ashift = [0; 4];
        let mut bshift = [0; 4];
        let mut keep_c = 0u32;
        let mask = v.mask & ((1 << n) - 1);
        for i in 0..n {
            ashift[i] = u32::from(v.asel[i] & sel_mask) * w;
            bshift[i] = u32::from(v.bsel[i] & sel_mask) * w;
            if mask >> i & 1 == 0 {
                keep_c |= lane_mask << (w * i as u32);
            }
        }
        let range = if v.dsigned {
            (-(1i32 << (w - 1)), (1i32 << (w - 1)) - 1)
        } else {
            (0, lane_mask as i32)
        };
        VideoPlan {
            op: v.op,
            n,
            ext: 32 - w,
            ashift,
            bshift,
            asigned: v.asigned,
            bsigned: v.bsigned,
            clamp: v.sat.then_some(range),
            add: v.add,
            mask,
            keep_c,
            lane_mask,
            w,
        }
    }

    #[inline]
    fn elem(&self, pool: u64, shift: u32, signed: bool) -> i32 {
        let top = ((pool >> shift) as u32) << self.ext;
        if signed {
            (top as i32) >> self.ext
        } else {
            (top >> self.ext) as i32
        }
    }

    /// The instruction on one thread's registers.
    #[inline]
    pub(crate) fn lane(&self, a: u32, b: u32, c: u32) -> u32 {
        // Elements 0..n-1 come from a, n..2n-1 from b: one 64-bit pool indexes both.
        let pool = (u64::from(b) << 32) | u64::from(a);
        let mut acc = c;
        let mut merged = c & self.keep_c;
        for i in 0..self.n {
            if self.mask >> i & 1 == 0 {
                continue;
            }
            let x = self.elem(pool, self.ashift[i], self.asigned);
            let y = self.elem(pool, self.bshift[i], self.bsigned);
            let mut t = match self.op {
                VideoOp::Add => x + y,
                VideoOp::Sub => x - y,
                // Errata 7: half away from zero.
                VideoOp::Avrg => {
                    let s = x + y;
                    (s + i32::from(s >= 0)) >> 1
                }
                VideoOp::Absdiff => (x - y).abs(),
                VideoOp::Min => x.min(y),
                VideoOp::Max => x.max(y),
                // Errata 8: 1 or 0 per lane.
                // Only `eq ne lt le gt ge` are valid; the rest read as on
                // integers so the function is total.
                VideoOp::Set(cmp) => i32::from(int_cmp_kind(cmp).holds(x.cmp(&y))),
            };
            if let Some((lo, hi)) = self.clamp {
                t = t.clamp(lo, hi);
            }
            if self.add {
                acc = acc.wrapping_add(t as u32);
            } else {
                merged |= ((t as u32) & self.lane_mask) << (self.w * i as u32);
            }
        }
        if self.add {
            acc
        } else {
            merged
        }
    }
}
