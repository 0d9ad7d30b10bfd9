//! Half-precision arithmetic (`add sub mul fma neg abs min max` over `.f16
//! .f16x2 .bf16 .bf16x2`, PTX ISA 9.7.4): one 16-bit lane function; a
//! packed (`x2`) operand is one 32-bit register whose two halves are
//! computed independently, each by the same function.
//!
//! Exactness. Every half value is exact in `f64`, and so is every product
//! of two (at most 11 + 11 significant bits, exponents far inside f64's
//! range: f16 products lie in [2^-48, 2^32], bf16 products in [2^-266,
//! 2^256]). A sum of two such values (add, sub, or fma's product plus its
//! addend) is not always an f64, but Knuth's TwoSum gives it exactly as
//! `hi + lo` (no overflow, and nothing near f64's subnormal range). The
//! exact value is then rounded to odd at f64 precision (`hi`, stepped one
//! ulp toward `lo` when `lo` is nonzero and `hi`'s last bit is even): with
//! 53 bits against at most 11 in the result, rounding that once more to
//! the half format in any mode gives the correctly rounded result (round
//! to odd leaves the two extra bits the second rounding needs; Boldo and
//! Melquiond, "Emulation of FMA and correctly rounded sums: proved
//! algorithms using rounding to odd", IEEE TC 2008). The last rounding is
//! `cvt`'s exact one (`exec/cvt.rs`'s `encode_float`).
//!
//! What the H100 does with the special values is the SASS oracle's model
//! (xtask `sass/exec_half.rs`: HADD2, HMUL2, HFMA2, HMNMX2 and their
//! `.BF16_V2` forms, which ptxas 13.0 emits for every form here, `neg` and
//! `abs` included): a NaN result is `0x7fff`; `.ftz` flushes subnormal
//! sources, and results that are tiny after rounding in IEEE 754's sense:
//! the exact value rounded to the format's precision with an unbounded
//! exponent is below the smallest normal number (an H200 showed it for
//! `mul.ftz.f16` over the whole domain, `tools/gpu/domain`: a product in
//! [2^-14 - 2^-25, 2^-14 - 2^-26) is flushed, one closer to 2^-14 rounds
//! up to it; fma is taken to do the same, it is the same unit, and add and
//! sub are exact there); `.sat` clamps to [+0, 1], NaN to +0; `.relu`
//! makes a negative result and -0 +0 and keeps the NaN.

use super::super::cvt::{decode_float, encode_float, Dir, Exact, Fmt, BF16, F16, F64};
use super::{min_max, two_sum};
use crate::inst::{FloatArith, FloatOp, Type};

/// The NaN a half operation returns.
const NAN16: u16 = 0x7fff;

/// One lane of `x` (a half type) on the sources' bits: the low 16 bits of
/// each, or both halves of a packed type.
pub(crate) fn half_lane(x: &FloatArith, a: u64, b: u64, c: u64) -> u64 {
    let (f, packed) = match x.ty {
        Type::F16x2 => (F16, true),
        Type::Bf16x2 => (BF16, true),
        Type::Bf16 => (BF16, false),
        _ => (F16, false),
    };
    let half = |s: u32| {
        let h = |v: u64| (v >> s) as u16;
        u64::from(lane16(x, f, h(a), h(b), h(c)))
    };
    if packed {
        half(0) | half(16) << 16
    } else {
        half(0)
    }
}

/// Whether `v` (format `f`) is a NaN.
fn is_nan(f: Fmt, v: u16) -> bool {
    let exp = exp_mask(f);
    v & exp == exp && v & !exp & 0x7fff != 0
}

/// The exponent field's bits of format `f`.
fn exp_mask(f: Fmt) -> u16 {
    (((1u32 << f.ebits) - 1) << f.mbits) as u16
}

/// `v`'s value (exact).
fn value(f: Fmt, v: u16) -> f64 {
    match f.ebits {
        5 => half::f16::from_bits(v).to_f64(),
        _ => half::bf16::from_bits(v).to_f64(),
    }
}

/// `hi + lo` (exact, `|lo|` under half an ulp of `hi`) rounded once to `f`
/// in round to nearest, through round to odd at f64 precision (module
/// comment).
fn round(f: Fmt, hi: f64, lo: f64) -> u16 {
    let odd = to_odd(hi, lo);
    let exact: Exact = decode_float(F64, odd.to_bits(), false);
    encode_float(f, exact, Dir::Nearest, false, false, false) as u16
}

/// `hi + lo` rounded to odd at f64 precision: `hi`, stepped one ulp toward
/// `lo` when `lo` is nonzero and `hi`'s last bit is even.
fn to_odd(hi: f64, lo: f64) -> f64 {
    if lo != 0.0 && hi.to_bits() & 1 == 0 {
        if lo > 0.0 {
            hi.next_up()
        } else {
            hi.next_down()
        }
    } else {
        hi
    }
}

/// `v` flushed to a zero of its sign if it is subnormal and `on`.
fn flush(f: Fmt, v: u16, on: bool) -> u16 {
    if on && v & exp_mask(f) == 0 {
        v & 0x8000
    } else {
        v
    }
}

/// One 16-bit lane (module comment).
fn lane16(x: &FloatArith, f: Fmt, a: u16, b: u16, c: u16) -> u16 {
    let (a, b, c) = (flush(f, a, x.ftz), flush(f, b, x.ftz), flush(f, c, x.ftz));
    // `b` and `c` are 0 where the operation has none.
    let any_nan = is_nan(f, a) || is_nan(f, b) || is_nan(f, c);
    let (va, vb, vc) = (value(f, a), value(f, b), value(f, c));
    let (hi, lo) = match x.op {
        // ptxas computes these as `-a + -0` and `|a| + -0` (HADD2/HFMA2):
        // a NaN comes back as the canonical one.
        FloatOp::Neg | FloatOp::Abs if is_nan(f, a) => return NAN16,
        FloatOp::Neg => return a ^ 0x8000,
        FloatOp::Abs => return a & 0x7fff,
        FloatOp::Min | FloatOp::Max => {
            // The chosen source is exact in `f`, -0 included.
            return min_max(x, va, vb, f64::is_nan, |p, q| p < q, f64::is_sign_negative)
                .map_or(NAN16, |v| round(f, v, 0.0));
        }
        FloatOp::Add | FloatOp::Sub | FloatOp::Mul | FloatOp::Fma if any_nan => {
            return sat(NAN16, x)
        }
        FloatOp::Add => two_sum(va, vb),
        FloatOp::Sub => two_sum(va, -vb),
        // Exact in f64 (module comment); a zero keeps its sign.
        FloatOp::Mul => (va * vb, 0.0),
        FloatOp::Fma => two_sum(va * vb, vc),
        // `ex2.approx`: MUFU.EX2.F16/.BF16. `.ftz` (bf16's) flushes no
        // more than the unit does.
        FloatOp::Ex2 => return super::mufu::ex2_half(a, f.ebits != 5),
        // `tanh.approx` (`tanh.rs`; it takes no `.ftz`).
        FloatOp::Tanh => return super::tanh::tanh_half(a, f.ebits != 5),
        // No half forms (the parser admits none).
        FloatOp::Div
        | FloatOp::Rcp
        | FloatOp::Sqrt
        | FloatOp::Rsqrt
        | FloatOp::Lg2
        | FloatOp::Sin
        | FloatOp::Cos
        | FloatOp::Copysign => return NAN16,
    };
    let r = if hi.is_finite() && x.ftz && tiny(f, hi, lo) {
        // Flushed before rounding (module comment).
        if hi.is_sign_negative() {
            0x8000
        } else {
            0
        }
    } else if hi.is_finite() {
        round(f, hi, lo)
    } else if hi.is_nan() {
        // inf - inf, 0 * inf.
        NAN16
    } else {
        round(f, hi, 0.0)
    };
    relu(sat(flush(f, r, x.ftz), x), x)
}

/// Whether the exact nonzero `hi + lo` (`|lo|` under half an ulp of `hi`)
/// is tiny after rounding: rounded to nearest at `f`'s precision with an
/// unbounded exponent, it is below `f`'s smallest normal number in
/// magnitude. Through round to odd at f64 precision, as [`round`].
fn tiny(f: Fmt, hi: f64, lo: f64) -> bool {
    if hi == 0.0 {
        return false;
    }
    let odd = to_odd(hi, lo);
    // Half results are normal f64s: round the 52 stored bits to `mbits`.
    let shift = 52 - f.mbits;
    let bits = odd.abs().to_bits();
    let (low, half) = (bits & ((1u64 << shift) - 1), 1u64 << (shift - 1));
    let mut kept = bits & !((1u64 << shift) - 1);
    if low > half || (low == half && (kept >> shift) & 1 == 1) {
        kept += 1u64 << shift;
    }
    let min_normal = match f.ebits {
        5 => 6.103515625e-5,               // 2^-14
        _ => f64::from(f32::MIN_POSITIVE), // 2^-126
    };
    f64::from_bits(kept) < min_normal
}

/// `.relu`: a negative result or -0 to +0, a NaN kept (the SASS oracle's
/// `.RELU`, modelled as max(+0, r) with -0 below +0).
fn relu(r: u16, x: &FloatArith) -> u16 {
    if x.relu && r & 0x8000 != 0 && r != NAN16 {
        0
    } else {
        r
    }
}

/// `.sat` (f16 only): NaN and everything at or below zero to +0, above
/// one to one.
fn sat(r: u16, x: &FloatArith) -> u16 {
    if !x.sat {
        return r;
    }
    let v = value(F16, r);
    if v.is_nan() || v <= 0.0 {
        0
    } else if v > 1.0 {
        0x3c00
    } else {
        r
    }
}
