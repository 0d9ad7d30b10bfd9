//! The f16/bf16 dot product of `HMMA` on sm_90, as MMA-Sim models Hopper's
//! tensor cores (Microsoft, github.com/microsoft/MMA-Sim, refining Fasi,
//! Higham, Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor
//! cores", PeerJ CS 2021). The PTX manual leaves this open; the model is
//! written here from its description, apart from sim-isa's `exec/mma.rs`:
//!
//! - every product `a_i b_i` is exact;
//! - the products and `c` are added in one step: each nonzero term is
//!   truncated toward zero to a multiple of `2^(E - 25)`, `E` the largest
//!   *nominal* exponent among them (a value's is `floor(log2 |x|)`, at
//!   least its format's smallest normal exponent; a product's is the sum
//!   of its factors'), and the truncated terms are added exactly;
//! - the sum is rounded toward zero to an f32 accumulator (past f32's range
//!   it is an infinity), or to nearest even to an f16 one;
//! - a NaN source, `inf * 0`, or infinities of both signs give the
//!   canonical NaN (`0x7fffffff`, `0x7fff`); other infinities pass through.

/// A floating-point element format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Elem {
    F16,
    Bf16,
    F32,
}

impl Elem {
    /// (exponent bits, fraction bits).
    fn bits(self) -> (u32, u32) {
        match self {
            Elem::F16 => (5, 10),
            Elem::Bf16 => (8, 7),
            Elem::F32 => (8, 23),
        }
    }
    fn bias(self) -> i32 {
        (1 << (self.bits().0 - 1)) - 1
    }
}

/// A decoded value: NaN, an infinity (negative?), or `(-1)^neg * mag * 2^exp`
/// with its nominal exponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Nan,
    Inf(bool),
    Num {
        neg: bool,
        mag: u128,
        exp: i32,
        nominal: i32,
    },
}

fn decode(f: Elem, bits: u64) -> Val {
    let (eb, fb) = f.bits();
    let neg = bits >> (eb + fb) & 1 == 1;
    let e = (bits >> fb) as i32 & ((1 << eb) - 1);
    let frac = u128::from(bits & ((1 << fb) - 1));
    let emin = 1 - f.bias();
    if e == (1 << eb) - 1 {
        return if frac == 0 { Val::Inf(neg) } else { Val::Nan };
    }
    let (mag, unbiased) = if e == 0 {
        (frac, emin)
    } else {
        (frac | 1 << fb, e - f.bias())
    };
    Val::Num {
        neg,
        mag,
        exp: unbiased - fb as i32,
        nominal: unbiased,
    }
}

/// `mag * 2^q` (with sign `neg`) rounded to `f`: toward zero (`nearest`
/// false, an overflow still infinity) or to nearest even.
fn encode(f: Elem, neg: bool, mag: u128, q: i32, nearest: bool) -> u64 {
    let (eb, fb) = f.bits();
    let sign = u64::from(neg) << (eb + fb);
    if mag == 0 {
        return sign;
    }
    let inf = sign | ((1u64 << eb) - 1) << fb;
    let top = q + 127 - mag.leading_zeros() as i32;
    let emin = 1 - f.bias();
    // The unit of the last place kept: normal numbers keep fb fraction
    // bits below `top`; subnormals have the fixed unit 2^(emin - fb).
    let unit = top.max(emin) - fb as i32;
    let shift = unit - q;
    let mut m = if shift <= 0 {
        mag << (-shift).min(100)
    } else {
        let kept = mag.checked_shr(shift as u32).unwrap_or(0);
        let rem = mag - kept.checked_shl(shift as u32).unwrap_or(0);
        let half = 1u128.checked_shl(shift as u32 - 1).unwrap_or(u128::MAX);
        let up = nearest && (rem > half || (rem == half && kept & 1 == 1));
        kept + u128::from(up)
    };
    let mut e = unit + fb as i32;
    if m >> (fb + 1) != 0 {
        // Rounding carried into a new binade.
        m >>= 1;
        e += 1;
    }
    if e > f.bias() {
        return inf;
    }
    let biased = if m >> fb == 0 { 0 } else { e + f.bias() };
    sign | (biased as u64) << fb | (m as u64 & ((1 << fb) - 1))
}

/// `a . b + c` for `src` elements and an `acc` accumulator, on raw bits.
pub(super) fn half_dot(src: Elem, acc: Elem, a: &[u64], b: &[u64], c: u64) -> u64 {
    let nan = if acc == Elem::F16 {
        0x7fff
    } else {
        0x7fff_ffff
    };
    // (negative, magnitude, exponent, nominal exponent) of each nonzero term.
    let mut terms: Vec<(bool, u128, i32, i32)> = Vec::with_capacity(a.len() + 1);
    let (mut pinf, mut ninf, mut bad) = (false, false, false);
    let mut inf = |neg: bool| {
        if neg {
            ninf = true
        } else {
            pinf = true
        }
    };
    match decode(acc, c) {
        Val::Nan => bad = true,
        Val::Inf(n) => inf(n),
        Val::Num { mag: 0, .. } => {}
        Val::Num {
            neg,
            mag,
            exp,
            nominal,
        } => terms.push((neg, mag, exp, nominal)),
    }
    for (&x, &y) in a.iter().zip(b) {
        let (u, v) = (decode(src, x), decode(src, y));
        let zero = |w: Val| matches!(w, Val::Num { mag: 0, .. });
        match (u, v) {
            (Val::Nan, _) | (_, Val::Nan) => bad = true,
            (Val::Inf(_), w) | (w, Val::Inf(_)) if zero(w) => bad = true,
            (Val::Inf(s), Val::Inf(t)) => inf(s != t),
            (Val::Inf(s), Val::Num { neg, .. }) | (Val::Num { neg, .. }, Val::Inf(s)) => {
                inf(s != neg)
            }
            _ if zero(u) || zero(v) => {}
            (
                Val::Num {
                    neg: s,
                    mag: m1,
                    exp: e1,
                    nominal: n1,
                },
                Val::Num {
                    neg: t,
                    mag: m2,
                    exp: e2,
                    nominal: n2,
                },
            ) => terms.push((s != t, m1 * m2, e1 + e2, n1 + n2)),
        }
    }
    if bad || (pinf && ninf) {
        return nan;
    }
    if pinf || ninf {
        return encode(acc, ninf, 1, 10_000, false);
    }
    let Some(top) = terms.iter().map(|t| t.3).max() else {
        return 0;
    };
    let q = top - 25;
    let mut sum: i128 = 0;
    for &(neg, mag, exp, _) in &terms {
        let v = if exp >= q {
            (mag << (exp - q)) as i128
        } else {
            mag.checked_shr((q - exp) as u32).unwrap_or(0) as i128
        };
        sum += if neg { -v } else { v };
    }
    encode(acc, sum < 0, sum.unsigned_abs(), q, acc == Elem::F16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_rounds_and_saturates() {
        // 1 + 2^-11 ties to even (1.0) in f16; 1 + 3*2^-12 rounds up.
        assert_eq!(encode(Elem::F16, false, (1 << 11) + 1, -11, true), 0x3c00);
        assert_eq!(encode(Elem::F16, false, (1 << 12) + 3, -12, true), 0x3c01);
        // f16 65520 rounds to infinity; toward zero f32 keeps 24 bits.
        assert_eq!(encode(Elem::F16, false, 65520, 0, true), 0x7c00);
        assert_eq!(
            encode(Elem::F32, true, (1 << 25) - 1, 0, false),
            0xcbff_ffff
        );
        // Subnormals: 2^-24 is f16's smallest; 2^-150 truncates to 0 in f32.
        assert_eq!(encode(Elem::F16, false, 1, -24, true), 0x0001);
        assert_eq!(encode(Elem::F32, false, 1, -150, false), 0);
        assert_eq!(encode(Elem::F32, false, 3, -150, false), 1);
        // Past f32's range is infinity even toward zero (the model's rule).
        assert_eq!(encode(Elem::F32, false, 1, 128, false), 0x7f80_0000);
    }

    #[test]
    fn dot_products() {
        let one = 0x3c00u64;
        // 16 ones . ones + 0.5 = 16.5 exactly.
        let a = [one; 16];
        assert_eq!(
            half_dot(Elem::F16, Elem::F32, &a, &a, 0x3f00_0000),
            0x4184_0000
        );
        // A product of 2^-28 beside a 1.0 term is truncated away (2^(0-25)
        // is the unit); beside 2^-5 it is kept (one f32 ulp).
        let t = [0x0400u64, 0, 0, 0]; // f16 2^-14
        assert_eq!(
            half_dot(Elem::F16, Elem::F32, &t, &t, 0x3f80_0000),
            0x3f80_0000
        );
        assert_eq!(
            half_dot(Elem::F16, Elem::F32, &t, &t, 0x3d00_0000),
            0x3d00_0001
        );
        // inf * 0 is NaN; +inf and -inf are NaN; inf alone passes.
        assert_eq!(
            half_dot(Elem::F16, Elem::F32, &[0x7c00], &[0], 0),
            0x7fff_ffff
        );
        assert_eq!(
            half_dot(Elem::F16, Elem::F16, &[0x7c00, 0xfc00], &[one, one], 0),
            0x7fff
        );
        assert_eq!(
            half_dot(Elem::Bf16, Elem::F32, &[0xff80], &[0x3f80], 0),
            0xff80_0000
        );
        // bf16 2^127 * 2^127 overflows f32: infinity.
        assert_eq!(
            half_dot(Elem::Bf16, Elem::F32, &[0x7f00], &[0x7f00], 0),
            0x7f80_0000
        );
    }
}
