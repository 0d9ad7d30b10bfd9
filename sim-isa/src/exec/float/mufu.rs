//! The approximate `.f32` forms (`rcp rsqrt sqrt ex2 lg2 sin cos .approx`,
//! `div.approx`, `div.full`) as the H100 runs them: the machine code ptxas
//! 13.0 emits for each (sm_90), step by step, over a model of the MUFU unit.
//!
//! MUFU (measured on an H100 over whole input domains, `tools/mufu/`):
//!
//! - `RCP`, `RSQ`, `SQRT` depend only on the mantissa (and, for the roots,
//!   the exponent's parity): one table over `[1, 2)` (`[1, 4)`) gives every
//!   result, the exponent adjusted exactly. Zero and subnormal sources are
//!   zeros; a result below the normal range is a zero.
//! - `EX2` reads its source as sign and magnitude in fixed point with 23
//!   fraction bits (truncated): `2^i * T[f]`, `T` one table for positive
//!   and one for negative sources.
//! - `LG2` adds the exponent to a fixed-point logarithm of the mantissa and
//!   truncates the sum toward zero: the tables for exponents 0 and -1 hold
//!   what the others need (see [`lg2`]).
//! - `SIN`/`COS` read the source (in revolutions) in fixed point with 25
//!   fraction bits; one quarter-period table and its symmetries give both.
//!
//! The sequences around MUFU (pre- and post-scaling of subnormal or huge
//! sources, `FMUL.RZ` by 1/(2 pi) for sin/cos) are in [`approx_lane`].

use super::mufu_table as tab;
use super::NAN32;
use crate::inst::float::float_ops;
use crate::inst::{Approx, FloatArith, FloatOp};

const SIGN: u32 = 0x8000_0000;
const INF: u32 = 0x7f80_0000;
/// The smallest normal, 2^-126.
const MIN_NORMAL: f32 = f32::MIN_POSITIVE;
/// 2^126.
const BIG: f32 = 8.507_059e37;
/// 2^24.
const TWO24: f32 = 16_777_216.0;
/// The f32 nearest 1/(2 pi), the constant of `sin/cos.approx`'s `FMUL.RZ`.
const INV_2PI: u32 = 0x3e22_f983;

fn exp_of(x: u32) -> i32 {
    ((x >> 23) & 0xff) as i32
}

fn man_of(x: u32) -> u32 {
    x & 0x7f_ffff
}

/// `t`'s mantissa with exponent field `e` (a zero below the normal range).
fn with_exp(t: u32, e: i32) -> u32 {
    if e >= 1 {
        ((e as u32) << 23) | man_of(t)
    } else {
        0
    }
}

/// `MUFU.RCP`.
pub(super) fn rcp(x: u32) -> u32 {
    let (s, e) = (x & SIGN, exp_of(x));
    match e {
        255 if man_of(x) != 0 => NAN32,
        255 => s,
        0 => s | INF,
        _ => {
            let t = tab::rcp().get(man_of(x) as usize);
            s | with_exp(t, exp_of(t) - (e - 127))
        }
    }
}

/// `MUFU.RSQ` (`root`: false) or `MUFU.SQRT` (true).
fn root(x: u32, sqrt: bool) -> u32 {
    let (neg, e, m) = (x & SIGN != 0, exp_of(x), man_of(x));
    if e == 255 && m != 0 {
        return NAN32;
    }
    if e == 0 {
        // Zeros and subnormals, of either sign.
        return if sqrt { x & SIGN } else { (x & SIGN) | INF };
    }
    if neg {
        return NAN32;
    }
    if e == 255 {
        return if sqrt { INF } else { 0 };
    }
    let k = e - 127;
    let p = k.rem_euclid(2);
    let half = (k - p) / 2;
    let table = if sqrt { tab::sqrt() } else { tab::rsq() };
    let t = table.get(((p as usize) << 23) | m as usize);
    with_exp(t, exp_of(t) + if sqrt { half } else { -half })
}

/// `|x|` in fixed point with `frac` fraction bits, truncated (`None`
/// beyond `2^limit`).
fn fixed(x: u32, frac: i32, limit: i32) -> Option<u64> {
    let e = exp_of(x);
    if e == 0 {
        return Some(0);
    }
    let sh = e - 127 - 23 + frac;
    let m = u64::from(man_of(x) | 0x80_0000);
    if e - 127 >= limit {
        None
    } else if sh >= 0 {
        Some(m << sh)
    } else {
        Some(m >> (-sh).min(63))
    }
}

/// `MUFU.EX2`.
pub(super) fn ex2(x: u32) -> u32 {
    let neg = x & SIGN != 0;
    if exp_of(x) == 255 && man_of(x) != 0 {
        return NAN32;
    }
    // Beyond 2^7 (2^8 for negative sources) the result is inf (0).
    let Some(q) = fixed(x, 23, if neg { 8 } else { 7 }) else {
        return if neg { 0 } else { INF };
    };
    let (i, f) = ((q >> 23) as i32, (q & 0x7f_ffff) as usize);
    let (t, e) = if neg {
        let t = tab::ex2_neg().get(f);
        (t, exp_of(t) - i)
    } else {
        let t = tab::ex2_pos().get(f);
        (t, exp_of(t) + i)
    };
    if e >= 255 {
        INF
    } else {
        with_exp(t, e)
    }
}

/// `MUFU.EX2.F16` (`bf16`: false) or `MUFU.EX2.BF16` (true) of the half
/// `h`: the source widened to f32 exactly, `MUFU.EX2` as for `.f32`, the
/// result truncated to the half format (round toward zero), a magnitude
/// of 2^16 or more becoming infinity in f16 (the exponent does not fit;
/// bf16's is f32's), the NaN `0x7fff`. An H200 gave exactly these values
/// for every one of the 65,536 sources of `ex2.approx.f16` and of
/// `ex2.approx.ftz.bf16` (`xtask/tests/data/domain-h200-approx.bin`);
/// rounding to nearest instead misses 19,415 and 3,496 of them.
pub(super) fn ex2_half(h: u16, bf16: bool) -> u16 {
    let x = if bf16 {
        u32::from(h) << 16
    } else {
        f32::from(half::f16::from_bits(h)).to_bits()
    };
    let r = ex2(x);
    if exp_of(r) == 255 && man_of(r) != 0 {
        return 0x7fff;
    }
    if bf16 {
        return (r >> 16) as u16;
    }
    let s = ((r >> 16) & 0x8000) as u16;
    let e = exp_of(r) - 127;
    if e >= 16 {
        return s | 0x7c00;
    }
    let m = man_of(r) | 0x80_0000;
    s | if e >= -14 {
        // Normal: 10 fraction bits kept (24 - 10 - 1 = 13 dropped).
        (((e + 15) as u16) << 10) | ((m >> 13) & 0x3ff) as u16
    } else {
        // Subnormal (units of 2^-24) or zero; a zero `r` has `m` = 2^23
        // and `e` = -127: shifted out entirely.
        let sh = 13 + (-14 - e);
        if sh >= 32 {
            0
        } else {
            (m >> sh) as u16
        }
    }
}

/// `MUFU.LG2`. The unit adds the exponent `e` to a fixed-point `L(m)` of
/// the mantissa and truncates toward zero. For `e` in {0, -1} the tables
/// hold the results. For `e >= 1` the result is `e + L` truncated to its
/// grid, which the exponent-0 result (`L` truncated to a finer grid)
/// gives; for `e <= -2` it is `-(|e| - L)` truncated in magnitude, i.e.
/// `L` rounded up to the grid: `L` is never on the exponent-0 result's grid
/// (measured), so that is the exponent-0 result rounded down, plus one step.
pub(super) fn lg2(x: u32) -> u32 {
    let (e, m) = (exp_of(x), man_of(x) as usize);
    if e == 255 && m != 0 {
        return NAN32;
    }
    if e == 0 {
        return SIGN | INF;
    }
    if x & SIGN != 0 {
        return NAN32;
    }
    if e == 255 {
        return INF;
    }
    let k = e - 127;
    match k {
        0 => return tab::lg2_one().get(m),
        -1 => return tab::lg2_half().get(m),
        _ => {}
    }
    // L truncated, exactly (a float in [0, 1)).
    let l = f64::from(f32::from_bits(tab::lg2_one().get(m)));
    let step = |b: i32| f64::from(2.0f32.powi(b - 23));
    let floor_to = |g: f64| (l / g).floor() * g;
    let r = if k >= 1 {
        // The result's binade is that of k (k + L < k + 1 <= 2^(b + 1)).
        let b = 31 - (k as u32).leading_zeros() as i32;
        f64::from(k) + floor_to(step(b))
    } else {
        // The magnitude |k| - L lies in (|k| - 1, |k|): find its binade.
        let mut r = 0.0;
        for b in 0..8 {
            let g = step(b);
            let mag = f64::from(-k) - (floor_to(g) + g);
            if mag >= f64::from(2.0f32.powi(b)) && mag < f64::from(2.0f32.powi(b + 1)) {
                r = -mag;
            }
        }
        r
    };
    (r as f32).to_bits()
}

/// The quarter-period table extended to the period (25 fraction bits).
fn sin_rev(q: u32) -> u32 {
    const Q: u32 = 1 << 23;
    let j = (q & (Q - 1)) as usize;
    let v = if (q >> 23) & 1 == 1 {
        tab::sin_quarter().get(Q as usize - 1 - j)
    } else {
        tab::sin_quarter().get(j)
    };
    if q >> 24 & 1 == 1 {
        v ^ SIGN
    } else {
        v
    }
}

/// `MUFU.SIN` (`cos`: false) or `MUFU.COS` of `t` revolutions.
pub(super) fn sin_cos(t: u32, cos: bool) -> u32 {
    if exp_of(t) == 255 {
        return NAN32;
    }
    // Whole revolutions drop out (fixed point modulo 1).
    let q = fixed(t, 25, 25).map_or(0, |q| (q & ((1 << 25) - 1)) as u32);
    if cos {
        sin_rev((q + (1 << 23)) & ((1 << 25) - 1))
    } else if t & SIGN != 0 {
        sin_rev(q) ^ SIGN
    } else {
        sin_rev(q)
    }
}

/// `FMUL` (round to nearest; `.FTZ` flushes subnormal sources, and results
/// that are below 2^-126 once rounded to 24 bits with an unbounded
/// exponent). A NaN result is the canonical NaN.
pub(super) fn fmul(a: u32, b: u32, ftz: bool) -> u32 {
    let flush = |v: u32| if ftz && exp_of(v) == 0 { v & SIGN } else { v };
    let (a, b) = (f32::from_bits(flush(a)), f32::from_bits(flush(b)));
    let r = a * b;
    if r.is_nan() {
        return NAN32;
    }
    let p = f64::from(a) * f64::from(b); // exact
    if ftz && p != 0.0 && p.abs() < 2.0 * f64::from(MIN_NORMAL) {
        const K: f64 = 1.606_938_044_258_990_3e60; // 2^200
        let r24 = f64::from((p * K) as f32) / K;
        if r24.abs() < f64::from(MIN_NORMAL) {
            return r.to_bits() & SIGN;
        }
    }
    r.to_bits()
}

/// `FMUL.RZ` (round toward zero, subnormals kept).
fn fmul_rz(a: u32, b: u32) -> u32 {
    let p = f64::from(f32::from_bits(a)) * f64::from(f32::from_bits(b));
    if p.is_nan() {
        return NAN32;
    }
    let r = p as f32;
    if p.is_finite() && f64::from(r).abs() > p.abs() {
        // Rounded away from zero: one step back.
        r.to_bits() - 1
    } else {
        r.to_bits()
    }
}

/// `FADD` (round to nearest).
fn fadd(a: u32, b: u32) -> u32 {
    let r = f32::from_bits(a) + f32::from_bits(b);
    if r.is_nan() {
        NAN32
    } else {
        r.to_bits()
    }
}

fn abs(x: u32) -> f32 {
    f32::from_bits(x & !SIGN)
}

/// `FSETP.GEU |x|, 2^-126`: true for NaN.
fn not_tiny(x: u32) -> bool {
    abs(x) >= MIN_NORMAL || abs(x).is_nan()
}

/// One lane of an approximate `.f32` form: `a`, `b` the sources' bits.
pub(super) fn approx_lane(x: &FloatArith, a: u32, b: u32) -> u32 {
    let c = |v: f32| v.to_bits();
    let ftz = x.ftz;
    match x.op {
        // MUFU alone with `.ftz`; else scaled into and out of its range.
        FloatOp::Rcp if ftz => rcp(a),
        FloatOp::Rcp => {
            let s = if abs(a) > BIG {
                0.25
            } else if not_tiny(a) {
                1.0
            } else {
                TWO24
            };
            fmul(c(s), rcp(fmul(a, c(s), false)), false)
        }
        FloatOp::Rsqrt | FloatOp::Sqrt => {
            let sqrt = x.op == FloatOp::Sqrt;
            if ftz || not_tiny(a) {
                root(a, sqrt)
            } else {
                let r = root(fmul(a, c(TWO24), false), sqrt);
                fmul(r, c(if sqrt { 1.0 / 4096.0 } else { 4096.0 }), false)
            }
        }
        FloatOp::Ex2 => {
            // Below -126: 2^(a/2), squared.
            let a_f = f32::from_bits(a);
            if ftz || a_f >= -126.0 || a_f.is_nan() {
                ex2(a)
            } else {
                let r = ex2(fmul(a, c(0.5), false));
                fmul(r, r, false)
            }
        }
        FloatOp::Lg2 => {
            if ftz || not_tiny(a) {
                lg2(a)
            } else {
                fadd(lg2(fmul(a, c(TWO24), false)), c(-24.0))
            }
        }
        FloatOp::Sin | FloatOp::Cos => sin_cos(fmul_rz(a, INV_2PI), x.op == FloatOp::Cos),
        // A rule fitted to an H200, not the unit's mechanism (`tanh.rs`).
        FloatOp::Tanh => super::tanh::tanh_f32(a),
        FloatOp::Div => div(x.approx == Some(Approx::Full), ftz, a, b),
        // Each other operation named: exhaustive, no wildcard (a new one must be placed).
        FloatOp::Add | FloatOp::Sub | FloatOp::Mul | FloatOp::Fma | float_ops!(exact) => NAN32,
    }
}

/// `div.approx` / `div.full` (`full`): `a * RCP(b)` with both scaled when
/// `b` is subnormal (by 2^24) or, for `.full`, above 2^126 (by 1/4).
fn div(full: bool, ftz: bool, a: u32, b: u32) -> u32 {
    let (mut a, mut b) = (a, b);
    if full {
        let bf = if ftz && exp_of(b) == 0 { b & SIGN } else { b };
        if abs(bf) > BIG {
            b = fmul(b, c32(0.25), ftz);
            a = fmul(a, c32(0.25), ftz);
        }
    }
    if !ftz && !not_tiny(b) {
        b = fmul(b, c32(TWO24), false);
        a = fmul(a, c32(TWO24), false);
    }
    if ftz {
        fmul(a, rcp(b), true)
    } else {
        fmul(rcp(b), a, false)
    }
}

fn c32(v: f32) -> u32 {
    v.to_bits()
}
