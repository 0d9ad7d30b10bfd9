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
//!
//! tf32 sources (`HMMA.1684.F32.TF32`) are f32 words of which the model
//! reads the top 19 bits (8 exponent, 10 fraction bits), the rest dropped.
//! [`fma_f64`] is one step of `DMMA` in a directed rounding: IEEE 754's
//! fused multiply-add, rounded once.

/// A floating-point element format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Elem {
    F16,
    Bf16,
    /// f32's top 19 bits, given shifted down (`bits >> 13`).
    Tf32,
    F32,
    F64,
}

/// How [`encode`] rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Round {
    /// To nearest, ties to even.
    Nearest,
    /// Toward zero, but past the range an infinity (the tensor-core model).
    ModelZero,
    /// IEEE 754's directed roundings: past the range the largest finite
    /// number unless rounding toward that infinity.
    Zero,
    Down,
    Up,
}

impl Elem {
    /// (exponent bits, fraction bits).
    fn bits(self) -> (u32, u32) {
        match self {
            Elem::F16 => (5, 10),
            Elem::Bf16 => (8, 7),
            Elem::Tf32 => (8, 10),
            Elem::F32 => (8, 23),
            Elem::F64 => (11, 52),
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

/// `mag * 2^q` (with sign `neg`) rounded to `f` as `mode` says.
fn encode(f: Elem, neg: bool, mag: u128, q: i32, mode: Round) -> u64 {
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
        let up = match mode {
            Round::Nearest => rem > half || (rem == half && kept & 1 == 1),
            Round::ModelZero | Round::Zero => false,
            Round::Down => neg && rem > 0,
            Round::Up => !neg && rem > 0,
        };
        kept + u128::from(up)
    };
    let mut e = unit + fb as i32;
    if m >> (fb + 1) != 0 {
        // Rounding carried into a new binade.
        m >>= 1;
        e += 1;
    }
    if e > f.bias() {
        let to_inf = match mode {
            Round::Nearest | Round::ModelZero => true,
            Round::Zero => false,
            Round::Down => neg,
            Round::Up => !neg,
        };
        // The largest finite number: all ones below the infinity's pattern.
        return if to_inf { inf } else { inf - 1 };
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
        return encode(acc, ninf, 1, 10_000, Round::ModelZero);
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
    let mode = if acc == Elem::F16 {
        Round::Nearest
    } else {
        Round::ModelZero
    };
    encode(acc, sum < 0, sum.unsigned_abs(), q, mode)
}

/// `a * b + c` on f64 bits, the exact value rounded once in `mode` (a
/// directed one: `.RN` is the host's `mul_add`). A NaN or infinite operand
/// gives the host's `mul_add`, which no rounding changes.
pub(super) fn fma_f64(a: u64, b: u64, c: u64, mode: Round) -> u64 {
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    if !(x.is_finite() && y.is_finite() && z.is_finite()) || mode == Round::Nearest {
        return x.mul_add(y, z).to_bits();
    }
    let num = |v: u64| match decode(Elem::F64, v) {
        Val::Num { neg, mag, exp, .. } => (neg, mag, exp),
        Val::Nan | Val::Inf(_) => (false, 0, 0),
    };
    let ((sa, ma, ea), (sb, mb, eb), (sc, mc, ec)) = (num(a), num(b), num(c));
    let p = (sa != sb, ma * mb, ea + eb);
    let c = (sc, mc, ec);
    if p.1 == 0 && c.1 == 0 {
        // IEEE 754 6.3: zeros of one sign keep it; else +0, or -0 rounding down.
        let neg = if p.0 == c.0 { p.0 } else { mode == Round::Down };
        return u64::from(neg) << 63;
    }
    // Sum on a grid 120 bits below the larger term's top bit. The larger
    // term (106 bits at most) is exact there. A smaller one with bits below
    // the grid (then over 2^13 times smaller) is cut to an even number of
    // units, plus one if anything was cut: it stays strictly between the
    // same two multiples of two units as the exact value, and so does the
    // sum, whose last place (and every rounding boundary) lies far above.
    let top = |(_, m, e): (bool, u128, i32)| {
        if m == 0 {
            i32::MIN
        } else {
            e + 127 - m.leading_zeros() as i32
        }
    };
    let q = top(p).max(top(c)) - 120;
    let on_grid = |(neg, m, e): (bool, u128, i32)| -> i128 {
        let v = if m == 0 {
            0
        } else if e >= q {
            m << (e - q)
        } else {
            let sh = (q - e) as u32;
            let kept = m.checked_shr(sh).unwrap_or(0) & !1;
            let lost = kept.checked_shl(sh).unwrap_or(0) != m;
            kept | u128::from(lost)
        };
        if neg {
            -(v as i128)
        } else {
            v as i128
        }
    };
    let sum = on_grid(p) + on_grid(c);
    if sum == 0 {
        // Exact cancellation: +0, or -0 rounding down (IEEE 754 6.3).
        return u64::from(mode == Round::Down) << 63;
    }
    encode(Elem::F64, sum < 0, sum.unsigned_abs(), q, mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_rounds_and_saturates() {
        // 1 + 2^-11 ties to even (1.0) in f16; 1 + 3*2^-12 rounds up.
        assert_eq!(
            encode(Elem::F16, false, (1 << 11) + 1, -11, Round::Nearest),
            0x3c00
        );
        assert_eq!(
            encode(Elem::F16, false, (1 << 12) + 3, -12, Round::Nearest),
            0x3c01
        );
        // f16 65520 rounds to infinity; toward zero f32 keeps 24 bits.
        assert_eq!(encode(Elem::F16, false, 65520, 0, Round::Nearest), 0x7c00);
        assert_eq!(
            encode(Elem::F32, true, (1 << 25) - 1, 0, Round::ModelZero),
            0xcbff_ffff
        );
        // Subnormals: 2^-24 is f16's smallest; 2^-150 truncates to 0 in f32.
        assert_eq!(encode(Elem::F16, false, 1, -24, Round::Nearest), 0x0001);
        assert_eq!(encode(Elem::F32, false, 1, -150, Round::ModelZero), 0);
        assert_eq!(encode(Elem::F32, false, 3, -150, Round::ModelZero), 1);
        // Past f32's range is infinity even toward zero (the model's rule).
        assert_eq!(
            encode(Elem::F32, false, 1, 128, Round::ModelZero),
            0x7f80_0000
        );
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

    /// IEEE 754's directed fma, cases worked by hand: the sticky of a far
    /// smaller addend, overflow to the largest finite or infinity, exact
    /// zeros' signs, subnormal results.
    #[test]
    fn directed_fma_f64() {
        let f = |a: f64, b: f64, c: f64, m: Round| {
            f64::from_bits(fma_f64(a.to_bits(), b.to_bits(), c.to_bits(), m))
        };
        let t = 2f64.powi(-60);
        // 1 + 2^-120 (as 2^-60 * 2^-60): up rounds to 1 + 2^-52.
        assert_eq!(f(t, t, 1.0, Round::Up), 1.0 + f64::EPSILON);
        assert_eq!(f(t, t, 1.0, Round::Down), 1.0);
        assert_eq!(f(t, t, 1.0, Round::Zero), 1.0);
        // 1 - 2^-120: below 1 the step is 2^-53.
        assert_eq!(f(-t, t, 1.0, Round::Down), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(f(-t, t, 1.0, Round::Zero), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(f(-t, t, 1.0, Round::Up), 1.0);
        // A product far above c: c is only a sticky.
        assert_eq!(f(3.0, 1.0, -t * t, Round::Zero), 3.0 - 2.0 * f64::EPSILON);
        assert_eq!(f(3.0, 1.0, -t * t, Round::Up), 3.0);
        // Overflow: the largest finite toward zero, infinity only away.
        let big = f64::MAX;
        assert_eq!(f(big, 2.0, 0.0, Round::Zero), big);
        assert_eq!(f(big, 2.0, 0.0, Round::Down), big);
        assert_eq!(f(big, 2.0, 0.0, Round::Up), f64::INFINITY);
        assert_eq!(f(-big, 2.0, 0.0, Round::Down), f64::NEG_INFINITY);
        assert_eq!(f(-big, 2.0, 0.0, Round::Up), -big);
        // Exact zeros: -0 only rounding down when the signs differ.
        let sign = |v: f64| v.to_bits() >> 63;
        assert_eq!(sign(f(1.0, 1.0, -1.0, Round::Down)), 1);
        assert_eq!(sign(f(1.0, 1.0, -1.0, Round::Zero)), 0);
        assert_eq!(sign(f(0.0, -1.0, 0.0, Round::Up)), 0);
        assert_eq!(sign(f(0.0, -1.0, 0.0, Round::Down)), 1);
        assert_eq!(sign(f(0.0, -1.0, -0.0, Round::Up)), 1);
        // Subnormal: 2^-1074 * 0.75 is 0 toward zero or down, 2^-1074 up.
        let tiny = f64::from_bits(1);
        assert_eq!(f(tiny, 0.75, 0.0, Round::Zero), 0.0);
        assert_eq!(f(tiny, 0.75, 0.0, Round::Up), tiny);
        assert_eq!(f(-tiny, 0.75, 0.0, Round::Down), -tiny);
        // NaN and infinities: the host's fma (no rounding applies).
        assert!(f(f64::NAN, 1.0, 1.0, Round::Zero).is_nan());
        assert_eq!(f(f64::INFINITY, 1.0, 1.0, Round::Down), f64::INFINITY);
    }

    /// tf32: the f32 word's top 19 bits, so `1 + 2^-11` (bit 12) is 1.
    #[test]
    fn tf32_dot() {
        let one = 0x3f80_0000u64 >> 13;
        let almost = (0x3f80_0000u64 | 1 << 12) >> 13;
        assert_eq!(almost, one);
        assert_eq!(
            half_dot(Elem::Tf32, Elem::F32, &[one; 4], &[one; 4], 0),
            0x4080_0000
        );
    }
}
