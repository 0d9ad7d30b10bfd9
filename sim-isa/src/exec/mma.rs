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
//! - `.f64`: the manual's `.rn`, taken as a chain of IEEE fused
//!   multiply-adds from `c` in `k` order (Hopper's DMMA, as described by
//!   Khattak and Mikaitis, "Accurate Models of NVIDIA Tensor Cores",
//!   arXiv:2512.07004, 2025: IEEE-754 sequential FMA with round to nearest
//!   even). Not measured on a GPU here.
//! - f16/bf16 into f32: the manual leaves the order and rounding of the
//!   sum open. The model here is Fasi, Higham, Mikaitis and Pranesh,
//!   "Numerical behavior of NVIDIA tensor cores", PeerJ CS 7:e330 (2021),
//!   as this code reads it: the products are exact; the instruction's `k`
//!   products and `c` are added in one step, their significands aligned to
//!   the largest exponent among them with [`ALIGN_BITS`] bits kept below
//!   its leading bit and the rest truncated, and the exact sum of the
//!   aligned values normalised to f32 by truncation (round toward zero).
//!   f16 accumulators: `c` widened exactly, the f32 result rounded to
//!   nearest f16. A NaN anywhere, or infinities of both signs, give the
//!   canonical NaN `0x7fffffff` (`0x7fff`). *Model, not measured on a
//!   GPU*: sums of small integers and powers of two are exact under any
//!   order and are what the tests check as truth; the cases pinning the
//!   truncation are marked as the model's.

use super::cvt::{decode_float, encode_float, Dir, Exact, BF16, F16, F32};
use super::lanes::blend;
use super::{WarpRegs, WARP_SIZE};
use crate::inst::{Mma, MmaShape, MmaType, RegId};

/// Bits kept below the largest term's leading bit when the terms of a
/// fused f16/bf16 sum are aligned (f32's 23 and 3 more: Fasi et al.).
pub const ALIGN_BITS: i32 = 26;

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
pub(super) fn mma(m: &Mma, regs: &mut WarpRegs, exec: u32) {
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
            *out = dot(m, &a[i][..k], &col[..k], c[i][j]);
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
/// rule (the module doc).
pub fn dot(m: &Mma, a: &[u64], b: &[u64], c: u64) -> u64 {
    match m.types[1] {
        MmaType::S8 | MmaType::U8 => {
            let int = |t: MmaType, v: u64| match t {
                MmaType::S8 => i64::from(v as u8 as i8),
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
        MmaType::F64 => {
            let d = a.iter().zip(b).fold(f64::from_bits(c), |d, (&x, &y)| {
                f64::from_bits(x).mul_add(f64::from_bits(y), d)
            });
            d.to_bits()
        }
        MmaType::F16 | MmaType::Bf16 | MmaType::F32 | MmaType::S32 => half_dot(m, a, b, c),
    }
}

/// The f16/bf16 model (the module doc): exact products, one aligned and
/// truncated sum with `c`, normalised toward zero.
fn half_dot(m: &Mma, a: &[u64], b: &[u64], c: u64) -> u64 {
    let fin = if m.types[1] == MmaType::Bf16 {
        BF16
    } else {
        F16
    };
    let cf = if m.types[3] == MmaType::F16 { F16 } else { F32 };
    // Terms as (negative, magnitude, exponent); at most k + 1 of them.
    let mut terms = [(false, 0u128, 0i32); K + 1];
    let (mut nan, mut pos_inf, mut neg_inf) = (false, false, false);
    let mut n = 0;
    let mut note = |x: Exact, terms: &mut [(bool, u128, i32); K + 1]| match x {
        Exact::Nan => nan = true,
        Exact::Inf(neg) => {
            pos_inf |= !neg;
            neg_inf |= neg;
        }
        Exact::Fin { neg, m, e } => {
            if m != 0 {
                terms[n] = (neg, m, e);
                n += 1;
            }
        }
    };
    note(decode_float(cf, c, false), &mut terms);
    for (&x, &y) in a.iter().zip(b) {
        let p = match (decode_float(fin, x, false), decode_float(fin, y, false)) {
            (Exact::Nan, _) | (_, Exact::Nan) => Exact::Nan,
            (Exact::Inf(_), Exact::Fin { m: 0, .. }) | (Exact::Fin { m: 0, .. }, Exact::Inf(_)) => {
                Exact::Nan
            }
            (Exact::Inf(s), Exact::Inf(t))
            | (Exact::Inf(s), Exact::Fin { neg: t, .. })
            | (Exact::Fin { neg: s, .. }, Exact::Inf(t)) => Exact::Inf(s != t),
            (Exact::Fin { neg: s, m: p, e }, Exact::Fin { neg: t, m: q, e: f }) => Exact::Fin {
                neg: s != t,
                m: p * q,
                e: e + f,
            },
        };
        note(p, &mut terms);
    }
    let sum = if nan || (pos_inf && neg_inf) {
        Exact::Nan
    } else if pos_inf || neg_inf {
        Exact::Inf(neg_inf)
    } else {
        aligned_sum(&terms[..n])
    };
    let f32_bits = encode_float(F32, sum, Dir::Zero, false, false, false);
    if m.types[0] == MmaType::F16 {
        let x = decode_float(F32, f32_bits, false);
        encode_float(F16, x, Dir::Nearest, false, false, false)
    } else {
        f32_bits
    }
}

/// The terms aligned to the largest one's leading bit, [`ALIGN_BITS`] kept
/// below it and the rest truncated toward zero, then added exactly.
fn aligned_sum(terms: &[(bool, u128, i32)]) -> Exact {
    let lead = |&(_, m, e): &(bool, u128, i32)| e + (127 - m.leading_zeros() as i32);
    let Some(top) = terms.iter().map(lead).max() else {
        return Exact::Fin {
            neg: false,
            m: 0,
            e: 0,
        };
    };
    let q = top - ALIGN_BITS;
    let mut sum: i128 = 0;
    for &(neg, m, e) in terms {
        let v = if e >= q {
            (m << (e - q).min(100)) as i128
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
