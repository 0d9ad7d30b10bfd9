//! `mma.sync.aligned` (PTX ISA 9.7.14.5): the warp's fragments gathered
//! into whole matrices, multiplied, and scattered back.
//!
//! Fragments (the manual's "Matrix Fragments for mma.m16n8k*"; `g` is a
//! lane's `laneid >> 2`, `t` its `laneid % 4`, `p` elements to a 32-bit
//! register: 2 for f16/bf16, 4 for s8/u8):
//! - `A` (m16, row-major): register `r` holds row `g + 8 * (r & 1)`,
//!   columns `t * p + 4p * (r >> 1)` onwards, element `j` in bits `j * 32/p`;
//! - `B` (n8, column-major): register `r` holds column `g`, rows
//!   `t * p + 4p * r` onwards;
//! - `C`/`D`, 32-bit elements: register `i` holds row `g + 8 * (i >> 1)`,
//!   column `2t + (i & 1)`; f16 elements two to a register, register `r`
//!   row `g + 8r`, columns `2t`, `2t + 1`;
//! - `m8n8k4.f64`: `A` row `g` column `t`; `B` row `t` column `g`; `C`/`D`
//!   register `i` row `g` column `2t + i`.
//!
//! Values:
//! - integers (`.s8`/`.u8` into `.s32`): exact; the sum wraps at 32 bits,
//!   or with `.satfinite` clamps to the s32 range.
//! - `.f64`: a chain of IEEE fused multiply-adds from `c` in `k` order,
//!   rounded to nearest even (the manual's `.rn`).
//! - f16/bf16 sources: the manual leaves the order and rounding of the sum
//!   open. The model is MMA-Sim's (Microsoft, github.com/microsoft/MMA-Sim,
//!   `mmasim/simulator/nv.py` and `functions.py`: a bit-accurate model
//!   fitted to each architecture's tensor cores, which refines Fasi,
//!   Higham, Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor
//!   cores", PeerJ CS 7:e330, 2021), written here from its description:
//!   the products are exact; with `c` they are added in one fused step,
//!   each term's value truncated (toward zero) to a multiple of `2^(E -
//!   F)`, where `E` is the largest nominal exponent among the nonzero
//!   terms (a product's is the sum of its factors' exponents, each
//!   `floor(log2 |x|)` but at least the format's minimum normal exponent)
//!   and `F` the accumulator's fraction bits ([`MmaModel`]: 25 on Hopper,
//!   24 on Turing and Ampere/Ada, which also add `m16n8k16`'s two halves
//!   of `k` as two steps); the exact sum of the truncated terms is then
//!   rounded toward zero to f32 (an f32 overflow is infinity), or to
//!   nearest even to an f16 accumulator. A NaN anywhere, or infinities of
//!   both signs, give `0x7fffffff` (`0x7fff`); other infinities pass
//!   through. *Model, not measured on a GPU here*: sums of small integers
//!   and powers of two are exact under any order and are what the tests
//!   and workloads check as truth; the cases pinning the truncation are
//!   marked as the model's.

use super::cvt::{decode_float, encode_float, Dir, Exact, Fmt, BF16, F16, F32, F64};
use super::lanes::blend;
use super::{WarpRegs, WARP_SIZE};
use crate::inst::{B1Op, Mma, MmaShape, MmaType, RegId, Rnd};
use crate::target::Target;

/// How a target's tensor cores add an f16/bf16 dot product (the module
/// doc; MMA-Sim's `arch_accum_fractional_bits` and `is_split_k`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaModel {
    /// Fraction bits kept below the largest term's exponent.
    pub frac_bits: i32,
    /// Whether `m16n8k16` adds its two halves of `k` as two fused steps.
    pub split_k16: bool,
}

impl MmaModel {
    /// The model of `target`'s tensor cores: Hopper and later 25 bits in
    /// one step; Ampere and Ada 24 and `k16` in two; Turing 24.
    pub const fn of(target: Target) -> MmaModel {
        MmaModel {
            frac_bits: if target.sm >= 90 { 25 } else { 24 },
            split_k16: target.sm >= 80 && target.sm < 90,
        }
    }
}

/// The largest fragment: `m16 x k32` (A), `k32 x n8` (B), `m16 x n8` (C, D).
const M: usize = 16;
const N: usize = 8;
const K: usize = 32;

/// Each lane's value of fragment register `regs[r]`, for every `r`.
fn gather(w: &WarpRegs, regs: &[RegId]) -> [[u64; WARP_SIZE]; 4] {
    let mut out = [[0; WARP_SIZE]; 4];
    for (o, &r) in out.iter_mut().zip(regs) {
        *o = *w.get(r);
    }
    out
}

/// Runs `m` on the lanes of `exec`: every lane's fragments are read (the
/// instruction is `.aligned`: a warp executes it whole), the lanes of
/// `exec` written.
pub(super) fn mma(m: &Mma, target: Target, regs: &mut WarpRegs, exec: u32) {
    let model = MmaModel::of(target);
    let [nd, na, nb, nc] = m.counts();
    let (rows, cols, k) = m.shape.mnk();
    let ra = gather(regs, &m.a[..na]);
    let rb = gather(regs, &m.b[..nb]);
    let rc = gather(regs, &m.c[..nc]);
    let mut a = [[0u64; K]; M];
    let mut b = [[0u64; N]; K];
    let mut c = [[0u64; N]; M];
    let (ebits, p) = match m.types[1].bits() {
        8 => (8, 4),
        16 => (16, 2),
        _ => (64, 1),
    };
    for l in 0..WARP_SIZE {
        let (g, t) = (l >> 2, l & 3);
        if m.shape == MmaShape::M8n8k4 {
            a[g][t] = ra[0][l];
            b[t][g] = rb[0][l];
            c[g][2 * t] = rc[0][l];
            c[g][2 * t + 1] = rc[1][l];
            continue;
        }
        for (r, reg) in ra.iter().enumerate().take(na) {
            for j in 0..p {
                let v = reg[l] >> (j * ebits) & super::width_mask(ebits as u32);
                a[g + 8 * (r & 1)][t * p + 4 * p * (r >> 1) + j] = v;
            }
        }
        for (r, reg) in rb.iter().enumerate().take(nb) {
            for j in 0..p {
                let v = reg[l] >> (j * ebits) & super::width_mask(ebits as u32);
                b[t * p + 4 * p * r + j][g] = v;
            }
        }
        if m.types[3] == MmaType::F16 {
            for (r, reg) in rc.iter().enumerate().take(nc) {
                c[g + 8 * r][2 * t] = reg[l] & 0xffff;
                c[g + 8 * r][2 * t + 1] = reg[l] >> 16 & 0xffff;
            }
        } else {
            for (i, reg) in rc.iter().enumerate().take(nc) {
                c[g + 8 * (i >> 1)][2 * t + (i & 1)] = reg[l] & 0xffff_ffff;
            }
        }
    }
    let mut d = [[0u64; N]; M];
    for (i, row) in d.iter_mut().enumerate().take(rows) {
        for (j, out) in row.iter_mut().enumerate().take(cols) {
            let col: [u64; K] = std::array::from_fn(|x| b[x][j]);
            *out = dot(m, model, &a[i][..k], &col[..k], c[i][j]);
        }
    }
    let mut out = [[0u64; WARP_SIZE]; 4];
    for l in 0..WARP_SIZE {
        let (g, t) = (l >> 2, l & 3);
        if m.shape == MmaShape::M8n8k4 {
            out[0][l] = d[g][2 * t];
            out[1][l] = d[g][2 * t + 1];
        } else if m.types[0] == MmaType::F16 {
            for (r, o) in out.iter_mut().enumerate().take(nd) {
                o[l] = d[g + 8 * r][2 * t] | d[g + 8 * r][2 * t + 1] << 16;
            }
        } else {
            for (i, o) in out.iter_mut().enumerate().take(nd) {
                o[l] = d[g + 8 * (i >> 1)][2 * t + (i & 1)];
            }
        }
    }
    for (r, o) in m.d[..nd].iter().zip(&out) {
        blend(regs.get_mut(*r), exec, o);
    }
}

/// One element of `D`: `a . b + c` on the elements' bits, by the form's
/// rule and `model` (the module doc).
pub fn dot(m: &Mma, model: MmaModel, a: &[u64], b: &[u64], c: u64) -> u64 {
    match m.types[1] {
        MmaType::S8 | MmaType::U8 | MmaType::S4 | MmaType::U4 => {
            let int = |t: MmaType, v: u64| match t {
                MmaType::S8 => i64::from(v as u8 as i8),
                // `wmma.m8n8k32`'s 4-bit elements, sign-extended.
                MmaType::S4 => i64::from(((v as u8) << 4) as i8 >> 4),
                MmaType::U4 => (v & 0xf) as i64,
                _ => (v & 0xff) as i64,
            };
            let sum = a
                .iter()
                .zip(b)
                .fold(i64::from(c as u32 as i32), |s, (&x, &y)| {
                    s + int(m.types[1], x) * int(m.types[2], y)
                });
            let r = if m.satfinite {
                sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
            } else {
                sum as i32
            };
            u64::from(r as u32)
        }
        // `.b1`: `c` plus the count of ones of each pair's AND or XOR,
        // wrapping (`BMMA.88128.AND.POPC` adds with `IADD3`).
        MmaType::B1 => {
            let and = m.bop == Some(B1Op::And);
            let ones = a
                .iter()
                .zip(b)
                .map(|(&x, &y)| (if and { x & y } else { x ^ y }) as u32 & 1)
                .fold(0u32, u32::wrapping_add);
            u64::from((c as u32).wrapping_add(ones))
        }
        MmaType::F64 => {
            let rnd = m.rnd.unwrap_or(Rnd::Rn);
            a.iter().zip(b).fold(c, |d, (&x, &y)| fma64(x, y, d, rnd))
        }
        MmaType::F16 | MmaType::Bf16 | MmaType::F32 | MmaType::S32 | MmaType::Tf32 => {
            let half = m.shape == MmaShape::M16n8k16 && model.split_k16 && a.len() == 16;
            if half {
                let first = half_dot(m, model, &a[..8], &b[..8], c);
                half_dot(m, model, &a[8..], &b[8..], first)
            } else {
                half_dot(m, model, a, b, c)
            }
        }
    }
}

/// A nonzero term: its sign, exact magnitude `m * 2^e`, and its nominal
/// exponent (the module doc).
type Term = (bool, u128, i32, i32);

/// The nominal exponent of `m * 2^e` in format `f`: `floor(log2)`, at
/// least the format's minimum normal exponent.
fn nominal(f: Fmt, m: u128, e: i32) -> i32 {
    let emin = 2 - (1i32 << (f.ebits - 1));
    (e + 127 - m.leading_zeros() as i32).max(emin)
}

/// The f16/bf16 model (the module doc): exact products, one truncated
/// fused sum with `c`, then the accumulator's rounding.
fn half_dot(m: &Mma, model: MmaModel, a: &[u64], b: &[u64], c: u64) -> u64 {
    // tf32: f32's layout, of which `HMMA.1684.F32.TF32` reads the top 19
    // bits (no instruction rounds or clears the rest: docs/wmma.md).
    let (fin, keep) = match m.types[1] {
        MmaType::Bf16 => (BF16, u64::MAX),
        MmaType::Tf32 => (F32, 0xffff_e000),
        MmaType::F16
        | MmaType::F32
        | MmaType::F64
        | MmaType::S8
        | MmaType::U8
        | MmaType::S32
        | MmaType::S4
        | MmaType::U4
        | MmaType::B1 => (F16, u64::MAX),
    };
    let cf = if m.types[3] == MmaType::F16 { F16 } else { F32 };
    let mut terms: [Term; K + 1] = [(false, 0, 0, 0); K + 1];
    let (mut nan, mut pos_inf, mut neg_inf) = (false, false, false);
    let mut n = 0;
    match decode_float(cf, c, false) {
        Exact::Nan => nan = true,
        Exact::Inf(neg) => {
            pos_inf |= !neg;
            neg_inf |= neg;
        }
        Exact::Fin { m: 0, .. } => {}
        Exact::Fin { neg, m, e } => {
            terms[0] = (neg, m, e, nominal(cf, m, e));
            n = 1;
        }
    }
    for (&x, &y) in a.iter().zip(b) {
        match (
            decode_float(fin, x & keep, false),
            decode_float(fin, y & keep, false),
        ) {
            (Exact::Nan, _) | (_, Exact::Nan) => nan = true,
            (Exact::Inf(_), Exact::Fin { m: 0, .. }) | (Exact::Fin { m: 0, .. }, Exact::Inf(_)) => {
                nan = true
            }
            (Exact::Inf(s), Exact::Inf(t))
            | (Exact::Inf(s), Exact::Fin { neg: t, .. })
            | (Exact::Fin { neg: s, .. }, Exact::Inf(t)) => {
                pos_inf |= s == t;
                neg_inf |= s != t;
            }
            (Exact::Fin { m: 0, .. }, _) | (_, Exact::Fin { m: 0, .. }) => {}
            (Exact::Fin { neg: s, m: p, e }, Exact::Fin { neg: t, m: q, e: f }) => {
                terms[n] = (
                    s != t,
                    p * q,
                    e + f,
                    nominal(fin, p, e) + nominal(fin, q, f),
                );
                n += 1;
            }
        }
    }
    let to_f16 = m.types[0] == MmaType::F16;
    if nan || (pos_inf && neg_inf) {
        return if to_f16 { 0x7fff } else { 0x7fff_ffff };
    }
    if pos_inf || neg_inf {
        let x = Exact::Inf(neg_inf);
        let f = if to_f16 { F16 } else { F32 };
        return encode_float(f, x, Dir::Nearest, false, false, false);
    }
    let sum = truncated_sum(&terms[..n], model.frac_bits);
    if to_f16 {
        return encode_float(F16, sum, Dir::Nearest, false, false, false);
    }
    // Toward zero, but past f32's range to infinity.
    if let Exact::Fin { neg, m, e } = sum {
        if m != 0 && e + 127 - m.leading_zeros() as i32 >= 128 {
            return encode_float(F32, Exact::Inf(neg), Dir::Zero, false, false, false);
        }
    }
    encode_float(F32, sum, Dir::Zero, false, false, false)
}

/// The terms truncated toward zero to multiples of `2^(E - frac)` (`E` the
/// largest nominal exponent), added exactly.
fn truncated_sum(terms: &[Term], frac: i32) -> Exact {
    let Some(top) = terms.iter().map(|t| t.3).max() else {
        return Exact::Fin {
            neg: false,
            m: 0,
            e: 0,
        };
    };
    let q = top - frac;
    let mut sum: i128 = 0;
    for &(neg, m, e, _) in terms {
        // `e - q` is at most `frac` plus a product significand's extra
        // bit: the shift stays far inside 128 bits.
        let v = if e >= q {
            (m << (e - q).min(64)) as i128
        } else {
            m.checked_shr((q - e) as u32).unwrap_or(0) as i128
        };
        sum += if neg { -v } else { v };
    }
    Exact::Fin {
        neg: sum < 0,
        m: sum.unsigned_abs(),
        e: q,
    }
}

/// `fma(a, b, c)` on f64 bits rounded once in `rnd` (`DMMA`'s `.rz`,
/// `.rm`, `.rp`; `.rn` is `mul_add`): the exact `a * b + c` rounded by
/// `cvt.rs`'s encoder. A NaN or infinite operand gives `mul_add`'s result,
/// which no rounding direction changes.
pub fn fma64(a: u64, b: u64, c: u64, rnd: Rnd) -> u64 {
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    let rn = x.mul_add(y, z);
    let dir = match rnd {
        Rnd::Rn => return rn.to_bits(),
        Rnd::Rz => Dir::Zero,
        Rnd::Rm => Dir::Down,
        Rnd::Rp => Dir::Up,
    };
    if !(x.is_finite() && y.is_finite() && z.is_finite()) {
        return rn.to_bits();
    }
    let fin = |v: u64| match decode_float(F64, v, false) {
        Exact::Fin { neg, m, e } => (neg, m, e),
        // Finite operands decode finite.
        Exact::Nan | Exact::Inf(_) => (false, 0, 0),
    };
    let ((sa, ma, ea), (sb, mb, eb), (sc, mc, ec)) = (fin(a), fin(b), fin(c));
    let (sp, mp, ep) = (sa != sb, ma * mb, ea + eb);
    if mp == 0 || mc == 0 {
        // One term alone (exact), or two zeros: IEEE's sum of zeros, -0
        // toward minus infinity when the signs differ.
        let (neg, m, e) = match (mp == 0, mc == 0) {
            (true, true) => (if sp == sc { sp } else { rnd == Rnd::Rm }, 0, 0),
            (true, false) => (sc, mc, ec),
            (false, _) => (sp, mp, ep),
        };
        return encode_float(F64, Exact::Fin { neg, m, e }, dir, false, false, false);
    }
    // Both in units of 2^q, `q` 123 bits below the larger term's top. A
    // term with bits below 2^(q + 1) (then at least 2^16 times smaller than
    // the other: a product has 106 bits) keeps its multiples of 2^(q + 1)
    // and one odd unit for any bits dropped: the sum then lies strictly
    // between the same multiples of 2^(q + 1) as the exact one, and no
    // rounding boundary of the result (a multiple of 2^(q + 60) at least)
    // separates them.
    let top = |m: u128, e: i32| e + 128 - m.leading_zeros() as i32;
    let q = top(mp, ep).max(top(mc, ec)) - 123;
    let on_grid = |neg: bool, m: u128, e: i32| -> i128 {
        let v = if e > q {
            m << (e - q)
        } else {
            let sh = (q + 1 - e) as u32;
            let kept = m.checked_shr(sh).unwrap_or(0);
            let lost = kept.checked_shl(sh).unwrap_or(0) != m;
            kept << 1 | u128::from(lost)
        };
        if neg {
            -(v as i128)
        } else {
            v as i128
        }
    };
    let sum = on_grid(sp, mp, ep) + on_grid(sc, mc, ec);
    if sum == 0 {
        return encode_float(
            F64,
            Exact::Fin {
                neg: rnd == Rnd::Rm,
                m: 0,
                e: 0,
            },
            dir,
            false,
            false,
            false,
        );
    }
    let x = Exact::Fin {
        neg: sum < 0,
        m: sum.unsigned_abs(),
        e: q,
    };
    encode_float(F64, x, dir, false, false, false)
}

#[cfg(test)]
mod tests {
    use super::fma64;
    use crate::inst::Rnd;

    fn f(a: f64, b: f64, c: f64, r: Rnd) -> f64 {
        f64::from_bits(fma64(a.to_bits(), b.to_bits(), c.to_bits(), r))
    }

    /// IEEE 754's fused multiply-add in each direction, on cases whose
    /// results follow from the definition: a product far below `c` (the
    /// sticky bit), exact sums, zeros' signs, overflow.
    #[test]
    fn directed_fma_cases() {
        let tiny = 1e-300;
        assert_eq!(f(1.0, tiny, 1.0, Rnd::Rz), 1.0);
        assert_eq!(f(1.0, tiny, 1.0, Rnd::Rm), 1.0);
        assert_eq!(f(1.0, tiny, 1.0, Rnd::Rp), 1.0f64.next_up());
        assert_eq!(f(-1.0, tiny, 1.0, Rnd::Rz), 1.0f64.next_down());
        assert_eq!(f(-1.0, tiny, 1.0, Rnd::Rp), 1.0);
        // `c` far below the product.
        assert_eq!(f(1e300, 1.0, -tiny, Rnd::Rz), 1e300f64.next_down());
        assert_eq!(f(1e300, 1.0, -tiny, Rnd::Rp), 1e300);
        // An exact product that no f64 holds: (1 + 2^-52)^2.
        let x = 1.0f64.next_up();
        assert_eq!(f(x, x, 0.0, Rnd::Rz), 1.0 + 2.0 * f64::EPSILON);
        assert_eq!(f(x, x, 0.0, Rnd::Rp), (1.0 + 2.0 * f64::EPSILON).next_up());
        // 2^-51 + 2^-104, rounded down.
        assert_eq!(f(x, x, -1.0, Rnd::Rm), 2.0 * f64::EPSILON);
        assert_eq!(f(x, x, -1.0, Rnd::Rp), (2.0 * f64::EPSILON).next_up());
        // Zeros: exact cancellation is -0 only toward minus infinity.
        assert_eq!(f(1.0, 1.0, -1.0, Rnd::Rm).to_bits(), (-0.0f64).to_bits());
        assert_eq!(f(1.0, 1.0, -1.0, Rnd::Rz).to_bits(), 0);
        assert_eq!(f(-0.0, 1.0, -0.0, Rnd::Rz).to_bits(), (-0.0f64).to_bits());
        assert_eq!(f(0.0, 1.0, -0.0, Rnd::Rp).to_bits(), 0);
        assert_eq!(f(0.0, 1.0, -0.0, Rnd::Rm).to_bits(), (-0.0f64).to_bits());
        // Overflow: infinity only away from zero in the mode's direction.
        assert_eq!(f(f64::MAX, 2.0, 0.0, Rnd::Rz), f64::MAX);
        assert_eq!(f(f64::MAX, 2.0, 0.0, Rnd::Rp), f64::INFINITY);
        assert_eq!(f(-f64::MAX, 2.0, 0.0, Rnd::Rp), -f64::MAX);
        // Subnormal results.
        let min = f64::from_bits(1);
        assert_eq!(f(min, 0.5, 0.0, Rnd::Rp), min);
        assert_eq!(f(min, 0.5, 0.0, Rnd::Rz), 0.0);
    }
}
