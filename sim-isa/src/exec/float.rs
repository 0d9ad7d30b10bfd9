//! Float arithmetic (`add sub mul fma min max abs neg div rcp sqrt` over
//! `.f32`/`.f64`, PTX ISA 9.7.3, and the approximate `.f32` forms `rcp rsqrt
//! sqrt ex2 lg2 sin cos .approx`, `div.approx`, `div.full` of 9.7.3-4, which
//! `float/mufu.rs` models as the H100 runs them): one scalar lane function,
//! the reference, and its warp form.
//!
//! Rust's float operations round to nearest only. The `.f32` forms are
//! therefore computed exactly in `f64` (a product of two `f32` is exact
//! there; a sum is exact as the pair `hi + lo` of `two_sum`), and the exact
//! value is rounded once to `f32` in the instruction's mode
//! ([`round_f32`]); a quotient or root, from the f64 result and the sign
//! of its exact remainder. `.f64` sums round from the f64 sum and its exact
//! error; the other `.f64` forms round to nearest, all the database admits
//! for them. The half types are `float/half.rs`'s; `copysign` is a bit
//! operation.

mod approx64;
mod fast;
mod half;
mod mufu;
mod mufu_table;
mod tanh;

pub(crate) use fast::{Fast32Kernel, Fast32Plan};

use super::lanes::Lanes;
use super::WARP_SIZE;
use crate::inst::float::float_ops;
use crate::inst::{FloatArith, FloatOp, Rnd, Type};

/// The NaN every `.f32` operation returns for a NaN result (sm_90).
const NAN32: u32 = 0x7FFF_FFFF;
/// The NaN a `.f64` operation returns for a NaN result without a NaN
/// source (a NaN source propagates, quieted: [`lane64`]).
const NAN64: u64 = 0x7FFF_FFFF_FFFF_FFFF;
/// The NaN `div`/`rcp`/`sqrt.rn.f64` return for an invalid operation.
const NAN64_SUBROUTINE: u64 = 0xFFF8_0000_0000_0000;
/// The quiet bit of an `f64` NaN.
const QUIET64: u64 = 1 << 51;

/// `x` with a subnormal flushed to zero of the same sign (`.ftz`).
fn ftz32(x: f32, on: bool) -> f32 {
    if on && x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// `s + e == a + b` exactly, `s` the rounded sum (Knuth's TwoSum; exact
/// for finite `a`, `b` without overflow).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// The next `f32` above (`up`) or below `r`.
fn step(r: f32, up: bool) -> f32 {
    if up {
        r.next_up()
    } else {
        r.next_down()
    }
}

/// The exact value `hi + lo` (`|lo|` at most half an ulp of `hi`, both
/// finite) rounded once to `f32` in `mode`.
pub(crate) fn round_f32(hi: f64, lo: f64, mode: Rnd) -> f32 {
    let r = hi as f32;
    if r.is_infinite() {
        // Beyond the largest finite value: the directed modes stop there.
        let pos = r > 0.0;
        return match (mode, pos) {
            (Rnd::Rn, _) | (Rnd::Rp, true) | (Rnd::Rm, false) => r,
            (Rnd::Rz | Rnd::Rm, true) => f32::MAX,
            (Rnd::Rz | Rnd::Rp, false) => -f32::MAX,
        };
    }
    // Sign (and, near a tie, size) of the exact value minus `r`: `hi - r`
    // is exact (r is within an f32 ulp of hi).
    let t = (hi - f64::from(r)) + lo;
    if t == 0.0 {
        return r;
    }
    let toward = step(r, t > 0.0);
    let picked = match mode {
        Rnd::Rn => {
            // |exact - r| against half the gap to `toward`, by the sign of
            // `g`: comparing `|t|` instead lost `lo` when it is far below
            // an ulp of `hi - r` (an fma's tiny addend against a product
            // one f64 rounding short of a tie), as in `fma.rn.f32 -3,
            // 1+2^-23, 2^-149`. `s * (hi - r) - half` is exact (both on
            // hi's grid, a few f32 ulps at most), or, where its operands
            // differ by more than 2^53, far larger than `lo`; one rounding
            // of the sum keeps its sign.
            let half = ((f64::from(toward) - f64::from(r)) / 2.0).abs();
            let s = if t > 0.0 { 1.0 } else { -1.0 };
            let g = (s * (hi - f64::from(r)) - half) + s * lo;
            if g > 0.0 || (g == 0.0 && r.to_bits() & 1 == 1) {
                toward
            } else {
                r
            }
        }
        // Past r away from zero: r is the truncation; else step toward zero.
        Rnd::Rz => {
            if (t > 0.0) == (hi > 0.0) {
                r
            } else {
                toward
            }
        }
        Rnd::Rm => {
            if t < 0.0 {
                toward
            } else {
                r
            }
        }
        Rnd::Rp => {
            if t > 0.0 {
                toward
            } else {
                r
            }
        }
    };
    // Rounding to zero keeps the exact value's sign.
    if picked == 0.0 {
        f32::from_bits(if hi < 0.0 { 0x8000_0000 } else { 0 })
    } else {
        picked
    }
}

/// `.f32` add/sub/fma of the exact addends `p + q`, rounded in `mode`.
fn sum32(p: f64, q: f64, mode: Rnd) -> f32 {
    let (hi, lo) = two_sum(p, q);
    if !hi.is_finite() {
        return hi as f32;
    }
    if hi == 0.0 && lo == 0.0 {
        // An exact zero sum is +0 except toward minus infinity, where it
        // is -0, unless both addends are zeros of one sign (IEEE 754 6.3).
        let same_zero = p == 0.0 && q == 0.0 && p.is_sign_negative() == q.is_sign_negative();
        return match (mode, same_zero) {
            (_, true) => p as f32,
            (Rnd::Rm, false) => -0.0,
            (Rnd::Rn | Rnd::Rz | Rnd::Rp, false) => 0.0,
        };
    }
    round_f32(hi, lo, mode)
}

/// `a / b` (f32 values) rounded once in `mode`: the f64 quotient and the
/// sign of the exact remainder `a - q*b` (exact in f64) fix the rounding.
fn quotient32(a: f64, b: f64, mode: Rnd) -> f32 {
    let q = a / b;
    let res = if q.is_finite() {
        (-q).mul_add(b, a)
    } else {
        0.0
    };
    round_rest(q, if b < 0.0 { -res } else { res }, mode)
}

/// `hi` rounded to f32 in `mode`, where the exact value differs from `hi`
/// by a tiny amount of the sign of `res` (0: `hi` is exact).
fn round_rest(hi: f64, res: f64, mode: Rnd) -> f32 {
    if !hi.is_finite() || hi == 0.0 {
        return hi as f32;
    }
    // Far below half an f64 ulp of hi, so only its sign counts.
    let lo = if res == 0.0 {
        0.0
    } else {
        hi.abs() * f64::EPSILON * 0.125 * res.signum()
    };
    round_f32(hi, lo, mode)
}

/// `min`/`max` of `a`, `b` (by `lt`, -0 below +0): `None` for the
/// canonical NaN (both NaN, or one with `.NaN`), else the non-NaN source.
fn min_max<F: PartialEq + Copy>(
    x: &FloatArith,
    a: F,
    b: F,
    nan: fn(F) -> bool,
    lt: fn(F, F) -> bool,
    neg: fn(F) -> bool,
) -> Option<F> {
    let min = x.op == FloatOp::Min;
    match (nan(a), nan(b)) {
        (true, true) => None,
        (true, false) | (false, true) if x.nan => None,
        (true, false) => Some(b),
        (false, true) => Some(a),
        (false, false) => {
            let a_first = if a == b {
                neg(a) == min || neg(b) != min
            } else {
                lt(a, b) == min
            };
            Some(if a_first { a } else { b })
        }
    }
}

/// One `.f32` lane (bits in the low 32 bits of each source).
fn lane32(x: &FloatArith, a: u64, b: u64, c: u64) -> u32 {
    if x.op == FloatOp::Copysign {
        // `b` with `a`'s sign bit, NaNs untouched (ptxas emits a LOP3).
        return (b as u32 & 0x7fff_ffff) | (a as u32 & 0x8000_0000);
    }
    if x.approx.is_some() {
        // The H100's machine code for the approximate forms (`mufu.rs`).
        return mufu::approx_lane(x, a as u32, b as u32);
    }
    let f = |v: u64| ftz32(f32::from_bits(v as u32), x.ftz);
    let (a, b, c) = (f(a), f(b), f(c));
    let mode = x.rnd.unwrap_or(Rnd::Rn);
    // `b` and `c` are 0 where the operation has none.
    let any_nan = a.is_nan() || b.is_nan() || c.is_nan();
    let r = match x.op {
        FloatOp::Abs | FloatOp::Neg if a.is_nan() => return NAN32,
        FloatOp::Abs => return a.abs().to_bits(),
        FloatOp::Neg => return (-a).to_bits(),
        FloatOp::Min | FloatOp::Max => {
            return min_max(x, a, b, f32::is_nan, |p, q| p < q, f32::is_sign_negative)
                .map_or(NAN32, f32::to_bits);
        }
        FloatOp::Add | FloatOp::Sub | FloatOp::Mul | FloatOp::Fma if any_nan => f32::NAN,
        FloatOp::Add => sum32(f64::from(a), f64::from(b), mode),
        FloatOp::Sub => sum32(f64::from(a), -f64::from(b), mode),
        FloatOp::Mul => {
            let p = f64::from(a) * f64::from(b);
            if p.is_finite() {
                // Exact in f64 (24 + 24 bits); a zero keeps its sign.
                if p == 0.0 {
                    p as f32
                } else {
                    round_f32(p, 0.0, mode)
                }
            } else {
                p as f32
            }
        }
        FloatOp::Fma => sum32(f64::from(a) * f64::from(b), f64::from(c), mode),
        FloatOp::Div | FloatOp::Rcp | FloatOp::Sqrt if any_nan => f32::NAN,
        FloatOp::Div => quotient32(f64::from(a), f64::from(b), mode),
        // Only `.approx` forms (above); the parser admits no other.
        // `copysign` returned above. Named by group, as `approx_only` names
        // them, not `_`: the match stays exhaustive, so a new op must be placed.
        float_ops!(approx) | FloatOp::Copysign => f32::NAN,
        FloatOp::Rcp => quotient32(1.0, f64::from(a), mode),
        FloatOp::Sqrt => {
            let (a, s) = (f64::from(a), f64::from(a).sqrt());
            // a - s*s is exact: the exact root lies on its side of s.
            let res = if s.is_finite() {
                (-s).mul_add(s, a)
            } else {
                0.0
            };
            round_rest(s, res, mode)
        }
    };
    let r = ftz32(r, x.ftz);
    let r = if x.sat {
        // NaN to +0, then clamp to [0, 1] (-0 to +0).
        if r.is_nan() || r <= 0.0 {
            0.0
        } else {
            r.min(1.0)
        }
    } else {
        r
    };
    if r.is_nan() {
        NAN32
    } else {
        r.to_bits()
    }
}

/// `p + q` (f64) rounded in `mode`: the round-to-nearest sum and its
/// exact error (`two_sum`; sums are exact when the result is subnormal)
/// decide the directed roundings.
fn sum64(p: f64, q: f64, mode: Rnd) -> f64 {
    let (s, e) = two_sum(p, q);
    if s.is_infinite() && p.is_finite() && q.is_finite() {
        // Overflow: the directed modes stop at the largest finite value.
        let pos = s > 0.0;
        return match (mode, pos) {
            (Rnd::Rn, _) | (Rnd::Rp, true) | (Rnd::Rm, false) => s,
            (Rnd::Rz | Rnd::Rm, true) => f64::MAX,
            (Rnd::Rz | Rnd::Rp, false) => -f64::MAX,
        };
    }
    if !s.is_finite() {
        return s;
    }
    if s == 0.0 && e == 0.0 {
        // As in `sum32`: +0, or -0 toward minus infinity, unless both
        // addends are zeros of one sign.
        let same_zero = p == 0.0 && q == 0.0 && p.is_sign_negative() == q.is_sign_negative();
        return match (mode, same_zero) {
            (_, true) => p,
            (Rnd::Rm, false) => -0.0,
            (Rnd::Rn | Rnd::Rz | Rnd::Rp, false) => 0.0,
        };
    }
    match mode {
        Rnd::Rn => s,
        Rnd::Rz if e != 0.0 && (e > 0.0) != (s > 0.0) => {
            if s > 0.0 {
                s.next_down()
            } else {
                s.next_up()
            }
        }
        Rnd::Rm if e < 0.0 => s.next_down(),
        Rnd::Rp if e > 0.0 => s.next_up(),
        Rnd::Rz | Rnd::Rm | Rnd::Rp => s,
    }
}

/// The quiet bit if `v` is a NaN.
fn quiet(v: f64) -> u64 {
    if v.is_nan() {
        QUIET64
    } else {
        0
    }
}

/// One `.f64` lane (round to nearest).
fn lane64(x: &FloatArith, a: u64, b: u64, c: u64) -> u64 {
    if x.op == FloatOp::Copysign {
        // As `lane32`: a bit operation on the high words.
        return (b & !(1 << 63)) | (a & (1 << 63));
    }
    // The approximate forms: `MUFU.RCP64H` / `MUFU.RSQ64H` models and the
    // code around them (`float/approx64.rs`).
    if x.approx.is_some() && x.op == FloatOp::Rcp {
        return approx64::rcp64h(a);
    }
    if x.approx.is_some() && x.op == FloatOp::Rsqrt {
        return if x.ftz {
            approx64::rsq64h(a)
        } else {
            approx64::rsqrt(a)
        };
    }
    let (a, b, c) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    let r = match x.op {
        // `DADD -0, |a|` / `DADD -0, -a` on the H100: a NaN comes back
        // quieted, its sign as the modifier leaves it.
        FloatOp::Abs => return a.abs().to_bits() | quiet(a),
        FloatOp::Neg => return (-a).to_bits() | quiet(a),
        FloatOp::Min | FloatOp::Max => {
            return min_max(x, a, b, f64::is_nan, |p, q| p < q, f64::is_sign_negative)
                .map_or(NAN64, f64::to_bits);
        }
        // The first NaN source, quieted (as the H100's DADD/DMUL/DFMA).
        float_ops!(rounded) if a.is_nan() || b.is_nan() || c.is_nan() => {
            let first = [a, b, c].into_iter().find(|v| v.is_nan()).unwrap_or(a);
            return first.to_bits() | QUIET64;
        }
        FloatOp::Add => sum64(a, b, x.rnd.unwrap_or(Rnd::Rn)),
        FloatOp::Sub => sum64(a, -b, x.rnd.unwrap_or(Rnd::Rn)),
        FloatOp::Mul => a * b,
        FloatOp::Fma => a.mul_add(b, c),
        FloatOp::Div => a / b,
        FloatOp::Rcp => 1.0 / a,
        FloatOp::Sqrt => a.sqrt(),
        // `rsqrt` has only `.approx` forms (returned above); the others
        // have no `.f64` form (`copysign` returned above). Named, not `_`
        // (as above).
        float_ops!(approx) | FloatOp::Copysign => f64::NAN,
    };
    match (r.is_nan(), x.op) {
        (false, _) => r.to_bits(),
        // The H100's div/rcp/sqrt.rn.f64 subroutines return this NaN for
        // an invalid operation (0/0, inf/inf, sqrt of a negative).
        (true, FloatOp::Div | FloatOp::Rcp | FloatOp::Sqrt) => NAN64_SUBROUTINE,
        // Each other operation named, not `_` (as above).
        (
            true,
            float_ops!(approx)
            | float_ops!(exact)
            | FloatOp::Add
            | FloatOp::Sub
            | FloatOp::Mul
            | FloatOp::Fma,
        ) => NAN64,
    }
}

/// One lane of `x`'s operation on the sources' bits (`c`: `fma`'s addend).
///
/// - `add sub mul fma` round once in the instruction's mode (`.rn` when it
///   has none); a NaN result is the canonical NaN (`0x7fffffff`) for
///   `.f32`, the first NaN source quieted (else `0x7fffffffffffffff`) for
///   `.f64`; `.ftz` flushes subnormal sources and results to zero of the
///   same sign; `.sat` clamps the result to [+0, 1], NaN to +0.
/// - `min`/`max` return the non-NaN source when one is NaN (`.NaN`: the
///   canonical NaN), and order -0 below +0.
/// - `abs`/`neg` change the sign bit (after `.ftz`); a NaN source gives the
///   canonical NaN for `.f32` (the H100 computes them with FADD), the
///   source quieted with its sign changed for `.f64` (DADD).
/// - The half types: `float/half.rs` ([`half::half_lane`]).
/// - `copysign`: `b` with the sign bit of `a`.
pub fn float_lane(x: &FloatArith, a: u64, b: u64, c: u64) -> u64 {
    match x.ty {
        Type::F64 => lane64(x, a, b, c),
        Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2 => half::half_lane(x, a, b, c),
        _ => u64::from(lane32(x, a, b, c)),
    }
}

/// [`float_lane`] over a warp: sources already read at their widths.
pub(crate) fn float_warp(x: &FloatArith, a: &Lanes, b: &Lanes, c: &Lanes) -> Lanes {
    let mut o = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = float_lane(x, a[l], b[l], c[l]);
    }
    o
}
