//! Selection: `selp` and `slct` (PTX 9.7.6), one lane ([`selp_lane`],
//! [`slct_lane`], the definition) and over a warp (branch-free selects on
//! lane masks).

// Index loops over fixed 32-lane arrays read as what they are (one lane per
// step, several arrays in step) and vectorise without bounds checks.
#![allow(clippy::needless_range_loop)]

use super::cmp::{flush_subnormal, flushes};
use super::lanes::{low32, src, width_mask, Lanes, WarpRegs};
use super::{ExecCtx, WARP_SIZE};
use crate::inst::{Operand, PredSrc, RegId, Selp, Slct, Type};
use crate::target::Target;

/// One lane of `selp`: `c ? a : b`, bits unchanged (errata 16).
pub fn selp_lane(a: u64, b: u64, c: bool) -> u64 {
    if c {
        a
    } else {
        b
    }
}

/// One lane of `slct`: `c >= 0 ? a : b`, bits unchanged (errata 16). An f32
/// `c` of -0.0 selects `a`, NaN selects `b`; with `.ftz` (or on sm_1x) a
/// subnormal `c` is flushed first, so a negative subnormal selects `a`
/// (errata 14, 15).
pub fn slct_lane(s: &Slct, target: Target, a: u64, b: u64, c: u32) -> u64 {
    let take_a = if s.ctype == Type::F32 {
        let c = if flushes(s.ftz, Type::F32, target) {
            flush_subnormal(Type::F32, c.into()) as u32
        } else {
            c
        };
        f32::from_bits(c) >= 0.0
    } else {
        c as i32 >= 0
    };
    let m = width_mask(s.dtype.bits());
    if take_a {
        a & m
    } else {
        b & m
    }
}

/// `selp` over a warp: `c ? a : b` at the type width.
#[inline]
pub(super) fn selp(s: &Selp, ctx: &ExecCtx, regs: &WarpRegs) -> Lanes {
    // From the instruction's fields: building a `SelpPlan` per call cost
    // more than these reads.
    src!(a, s.a, ctx, regs);
    src!(b, s.b, ctx, regs);
    selp_lanes(width_mask(s.ty.bits()), a, b, s.c, regs)
}

/// A `selp` decoded once: the type's width mask and the operands.
/// [`selp`] builds one per call; a prepared instruction keeps one.
#[derive(Clone, Copy, Debug)]
pub(super) struct SelpPlan {
    m: u64,
    pub(super) d: RegId,
    a: Operand,
    b: Operand,
    c: PredSrc,
}

impl SelpPlan {
    /// `s`, decoded.
    #[inline(always)]
    pub(super) fn new(s: &Selp) -> Self {
        SelpPlan {
            m: width_mask(s.ty.bits()),
            d: s.d,
            a: s.a,
            b: s.b,
            c: s.c,
        }
    }
}

/// A decoded `selp` over a warp.
#[inline(always)]
pub(super) fn selp_run(p: &SelpPlan, ctx: &ExecCtx, regs: &WarpRegs) -> Lanes {
    src!(a, p.a, ctx, regs);
    src!(b, p.b, ctx, regs);
    selp_lanes(p.m, a, b, p.c, regs)
}

/// `c ? a : b` per lane, masked by `m` (the type's width mask).
#[inline(always)]
fn selp_lanes(m: u64, a: &Lanes, b: &Lanes, c: PredSrc, regs: &WarpRegs) -> Lanes {
    // The predicate's bit 0 per lane, `!` applied as `n`: read as 64-bit
    // lanes straight from its register (no packing to 32 bits and back).
    const ONES: Lanes = [1; WARP_SIZE];
    let (c, n) = match c {
        PredSrc::Reg { reg, negate } => (regs.get(reg), u64::from(negate)),
        PredSrc::Imm(v) => (&ONES, u64::from(!v)),
    };
    let mut o = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        let s = 0u64.wrapping_sub((c[l] & 1) ^ n);
        o[l] = ((a[l] & s) | (b[l] & !s)) & m;
    }
    o
}

/// `slct` over a warp: `c >= 0 ? a : b` at the destination width.
#[inline]
pub(super) fn slct(s: &Slct, ctx: &ExecCtx, regs: &WarpRegs) -> Lanes {
    // From the instruction's fields: building a `SlctPlan` per call cost
    // more than these reads.
    src!(a, s.a, ctx, regs);
    src!(b, s.b, ctx, regs);
    src!(c, s.c, ctx, regs);
    let m = width_mask(s.dtype.bits());
    slct_lanes(m, f32_lim(s, ctx.target), a, b, c)
}

/// For an f32 `c`, the magnitude from which a negative `c` counts (`c >=
/// 0.0`: not NaN, and not negative unless it is, or flushes to, zero);
/// `None` for an s32 `c`.
#[inline(always)]
fn f32_lim(s: &Slct, target: Target) -> Option<i32> {
    (s.ctype == Type::F32).then(|| {
        if flushes(s.ftz, Type::F32, target) {
            0x0080_0000
        } else {
            1
        }
    })
}

/// A `slct` decoded once: the destination's width mask and, for an f32
/// `c`, the magnitude from which a negative `c` counts (the flush decision
/// for the target). [`slct`] builds one per call; a prepared instruction
/// keeps one.
#[derive(Clone, Copy, Debug)]
pub(super) struct SlctPlan {
    m: u64,
    pub(super) d: RegId,
    f32_lim: Option<i32>,
    a: Operand,
    b: Operand,
    c: Operand,
}

impl SlctPlan {
    /// `s` on `target`.
    #[inline(always)]
    pub(super) fn new(s: &Slct, target: Target) -> Self {
        SlctPlan {
            m: width_mask(s.dtype.bits()),
            d: s.d,
            f32_lim: f32_lim(s, target),
            a: s.a,
            b: s.b,
            c: s.c,
        }
    }
}

/// A decoded `slct` over a warp.
#[inline(always)]
pub(super) fn slct_run(p: &SlctPlan, ctx: &ExecCtx, regs: &WarpRegs) -> Lanes {
    src!(a, p.a, ctx, regs);
    src!(b, p.b, ctx, regs);
    src!(c, p.c, ctx, regs);
    slct_lanes(p.m, p.f32_lim, a, b, c)
}

/// `c >= 0 ? a : b` per lane, masked by `m` (the destination's width
/// mask); `f32_lim` as [`f32_lim`] gives it.
#[inline(always)]
fn slct_lanes(m: u64, f32_lim: Option<i32>, a: &Lanes, b: &Lanes, c: &Lanes) -> Lanes {
    let mut o = [0u64; WARP_SIZE];
    if let Some(lim) = f32_lim {
        // All ones where b is taken: computed on 32-bit lanes, then widened.
        let c = low32(c);
        let mut take_b = [0u32; WARP_SIZE];
        for l in 0..WARP_SIZE {
            let abs = (c[l] & 0x7FFF_FFFF) as i32;
            let neg = (c[l] as i32) < 0;
            take_b[l] = 0u32.wrapping_sub(u32::from((abs > 0x7F80_0000) | (neg & (abs >= lim))));
        }
        for l in 0..WARP_SIZE {
            let s = take_b[l] as i32 as i64 as u64;
            o[l] = ((a[l] & !s) | (b[l] & s)) & m;
        }
    } else {
        // c < 0 as s32 (its bit 31) spread over the lane: computed on the
        // 64-bit lanes as they are (no packing to 32 bits and back).
        for l in 0..WARP_SIZE {
            let s = ((c[l] << 32) as i64 >> 63) as u64;
            o[l] = ((a[l] & !s) | (b[l] & s)) & m;
        }
    }
    o
}
