//! Conversions (`cvt`, PTX ISA 9.7.9.21) among the integer types, f16, bf16,
//! f32, f64 and the fp8 pairs (`.e4m3x2`, `.e5m2x2`): the source decoded to an exact value (sign, integer
//! magnitude, power of two), then rounded once into the destination's
//! format with the instruction's rounding mode. [`cvt_lane`] is the scalar
//! definition; the warp form runs it per lane with the plan decoded once.

use super::lanes::{read_operand, width_mask, Lanes};
use super::{ExecCtx, WarpRegs, WARP_SIZE};
use crate::inst::{Cvt, CvtRnd, CvtType};

/// A value exactly: NaN, a signed infinity, or `(-1)^neg * m * 2^e`.
#[derive(Clone, Copy, Debug)]
pub(super) enum Exact {
    Nan,
    Inf(bool),
    Fin { neg: bool, m: u128, e: i32 },
}

/// Rounding direction.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Dir {
    Nearest,
    Zero,
    Down,
    Up,
}

/// A binary floating-point format: exponent and stored-mantissa bits, and
/// whether it is finite-only (e4m3: no infinities, the all-ones exponent
/// holds normal values and all ones alone is NaN).
#[derive(Clone, Copy)]
pub(super) struct Fmt {
    pub(super) ebits: u32,
    pub(super) mbits: u32,
    pub(super) finite_only: bool,
}

pub(super) const F16: Fmt = Fmt {
    ebits: 5,
    mbits: 10,
    finite_only: false,
};
pub(super) const BF16: Fmt = Fmt {
    ebits: 8,
    mbits: 7,
    finite_only: false,
};
pub(super) const F32: Fmt = Fmt {
    ebits: 8,
    mbits: 23,
    finite_only: false,
};
pub(super) const F64: Fmt = Fmt {
    ebits: 11,
    mbits: 52,
    finite_only: false,
};
const E4M3: Fmt = Fmt {
    ebits: 4,
    mbits: 3,
    finite_only: true,
};
const E5M2: Fmt = Fmt {
    ebits: 5,
    mbits: 2,
    finite_only: false,
};

/// How a type's bits are read and written.
#[derive(Clone, Copy)]
enum Kind {
    Int { bits: u32, signed: bool },
    Float(Fmt),
}

const fn kind(t: CvtType) -> Kind {
    const fn int(bits: u32, signed: bool) -> Kind {
        Kind::Int { bits, signed }
    }
    match t {
        CvtType::U8 => int(8, false),
        CvtType::U16 => int(16, false),
        CvtType::U32 => int(32, false),
        CvtType::U64 => int(64, false),
        CvtType::S8 => int(8, true),
        CvtType::S16 => int(16, true),
        CvtType::S32 => int(32, true),
        CvtType::S64 => int(64, true),
        CvtType::F16 | CvtType::F16x2 => Kind::Float(F16),
        CvtType::Bf16 | CvtType::Bf16x2 => Kind::Float(BF16),
        CvtType::F32 => Kind::Float(F32),
        CvtType::F64 => Kind::Float(F64),
        CvtType::E4m3x2 => Kind::Float(E4M3),
        CvtType::E5m2x2 => Kind::Float(E5M2),
    }
}

/// `m` shifted right by `s` (left when negative), rounded in direction
/// `dir` for a value of sign `neg`.
fn shr_round(m: u128, s: i32, neg: bool, dir: Dir) -> u128 {
    if s <= 0 {
        return m << (-s).min(127);
    }
    let (q, rem, half) = if s >= 128 {
        (0, m, None)
    } else {
        (m >> s, m & ((1u128 << s) - 1), Some(1u128 << (s - 1)))
    };
    if rem == 0 {
        return q;
    }
    let up = match dir {
        Dir::Zero => false,
        Dir::Down => neg,
        Dir::Up => !neg,
        Dir::Nearest => half.is_some_and(|h| rem > h || (rem == h && q & 1 == 1)),
    };
    q + u128::from(up)
}

/// `bits` (the format's width) read as an exact value; `ftz` flushes
/// subnormals to signed zero.
pub(super) fn decode_float(f: Fmt, bits: u64, ftz: bool) -> Exact {
    let neg = bits >> (f.ebits + f.mbits) & 1 == 1;
    let exp = (bits >> f.mbits) & width_mask(f.ebits);
    let man = bits & width_mask(f.mbits);
    let bias = (1i32 << (f.ebits - 1)) - 1;
    if exp == width_mask(f.ebits) && !(f.finite_only && man != width_mask(f.mbits)) {
        return if man == 0 && !f.finite_only {
            Exact::Inf(neg)
        } else {
            Exact::Nan
        };
    }
    if exp == 0 {
        let m = if ftz { 0 } else { u128::from(man) };
        return Exact::Fin {
            neg,
            m,
            e: 1 - bias - f.mbits as i32,
        };
    }
    Exact::Fin {
        neg,
        m: u128::from(man | 1 << f.mbits),
        e: exp as i32 - bias - f.mbits as i32,
    }
}

/// The format's largest finite value's bits (with sign).
fn max_finite(f: Fmt, neg: bool) -> u64 {
    let sign = u64::from(neg) << (f.ebits + f.mbits);
    if f.finite_only {
        // All ones is NaN: the largest value has the mantissa one below.
        return sign | width_mask(f.ebits) << f.mbits | (width_mask(f.mbits) - 1);
    }
    sign | (width_mask(f.ebits) - 1) << f.mbits | width_mask(f.mbits)
}

/// Where a value too large for `f` goes: the largest finite value with
/// `.satfinite`, else infinity (NaN in a format without one).
fn overflow(f: Fmt, neg: bool, satfinite: bool) -> u64 {
    if satfinite {
        max_finite(f, neg)
    } else if f.finite_only {
        nan(f, false)
    } else {
        inf(f, neg)
    }
}

fn inf(f: Fmt, neg: bool) -> u64 {
    u64::from(neg) << (f.ebits + f.mbits) | width_mask(f.ebits) << f.mbits
}

/// The NaN a conversion writes: the H100 gives the standard quiet NaN
/// (`0x7fc00000`, `0x7ff8000000000000`) converting between f64 and another
/// format, else all ones but the sign (`0x7fffffff`, `0x7fff`: from f16 and
/// bf16, into them from f32, rounding f32 to an integral f32; recorded
/// vectors). Pairs the vectors lack follow the same split by the native
/// instruction ptxas picks (`F2F` to or from f64, `FRND`, `F2F.F16`).
fn nan(f: Fmt, quiet: bool) -> u64 {
    if quiet {
        width_mask(f.ebits + 1) << (f.mbits - 1)
    } else {
        width_mask(f.ebits + f.mbits)
    }
}

/// `x` rounded into format `f`; `ftz` flushes a subnormal result; `quiet`
/// picks the NaN ([`nan`]); `satfinite` keeps overflow finite.
pub(super) fn encode_float(
    f: Fmt,
    x: Exact,
    dir: Dir,
    ftz: bool,
    quiet: bool,
    satfinite: bool,
) -> u64 {
    let (neg, m, e) = match x {
        Exact::Nan => return nan(f, quiet),
        Exact::Inf(neg) => return overflow(f, neg, satfinite),
        Exact::Fin { neg, m, e } => (neg, m, e),
    };
    let sign = u64::from(neg) << (f.ebits + f.mbits);
    if m == 0 {
        return sign;
    }
    let bias = (1i32 << (f.ebits - 1)) - 1;
    let (mb, emin) = (f.mbits as i32, 1 - bias);
    // Exponent of the leading bit, then of the last kept bit. With `.ftz`
    // the H100 rounds to full precision as if the exponent were unbounded
    // and flushes what is then below the normal range (a value just under
    // 2^-126 that would round up to it at subnormal precision becomes 0:
    // observed, sim-isa/tests/data/h100-ftz-boundary.jsonl).
    let top = e + (127 - m.leading_zeros() as i32);
    let mut q = if ftz {
        top - mb
    } else {
        (top - mb).max(emin - mb)
    };
    let mut n = shr_round(m, q - e, neg, dir);
    if n >> (f.mbits + 1) != 0 {
        // Rounding carried into a new leading bit.
        n >>= 1;
        q += 1;
    }
    if n == 0 || (ftz && q + mb < emin) {
        return sign;
    }
    if n >> f.mbits == 0 {
        // Subnormal (q is the minimum).
        return if ftz { sign } else { sign | n as u64 };
    }
    let field = q + mb + bias;
    let all_ones = (1 << f.ebits) - 1;
    let too_big = if f.finite_only {
        field > all_ones
            || (field == all_ones && n as u64 & width_mask(f.mbits) == width_mask(f.mbits))
    } else {
        field >= all_ones
    };
    if too_big {
        let to_inf = match dir {
            Dir::Nearest => true,
            Dir::Zero => false,
            Dir::Down => neg,
            Dir::Up => !neg,
        };
        return if to_inf {
            overflow(f, neg, satfinite)
        } else {
            max_finite(f, neg)
        };
    }
    sign | (field as u64) << f.mbits | (n as u64 & width_mask(f.mbits))
}

/// `x` rounded to an integral value in direction `dir` (as an exact value).
fn integral(x: Exact, dir: Dir) -> Exact {
    match x {
        Exact::Fin { neg, m, e } if e < 0 => Exact::Fin {
            neg,
            m: shr_round(m, -e, neg, dir),
            e: 0,
        },
        Exact::Fin { .. } | Exact::Nan | Exact::Inf(_) => x,
    }
}

/// `x` rounded to an integer and clamped to `bits`-bit (un)signed range;
/// NaN converts to `nan_bits`.
fn to_int(x: Exact, dir: Dir, bits: u32, signed: bool, nan_bits: u64) -> u64 {
    let (lo, hi): (i128, i128) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let v = match integral(x, dir) {
        Exact::Nan => return nan_bits,
        Exact::Inf(neg) => {
            if neg {
                lo
            } else {
                hi
            }
        }
        Exact::Fin { neg, m, e } => {
            // `integral` left e >= 0. Anything at or past 2^70 is out of
            // every range.
            let len = 128 - m.leading_zeros() as i32;
            let mag = if m == 0 {
                0
            } else if len + e > 70 {
                1i128 << 70
            } else {
                (m << e) as i128
            };
            if neg {
                -mag
            } else {
                mag
            }
        }
    };
    v.clamp(lo, hi) as u64 & width_mask(bits)
}

/// The integer `v` (its low `bits` bits) as an exact value.
fn decode_int(v: u64, bits: u32, signed: bool) -> (i128, Exact) {
    let v = v & width_mask(bits);
    let i = if signed {
        let sh = 64 - bits;
        i128::from(((v << sh) as i64) >> sh)
    } else {
        i128::from(v)
    };
    (
        i,
        Exact::Fin {
            neg: i < 0,
            m: i.unsigned_abs(),
            e: 0,
        },
    )
}

fn dir_of(r: Option<CvtRnd>) -> Dir {
    match r {
        Some(CvtRnd::Rn | CvtRnd::Rni) | None => Dir::Nearest,
        Some(CvtRnd::Rz | CvtRnd::Rzi) => Dir::Zero,
        Some(CvtRnd::Rm | CvtRnd::Rmi) => Dir::Down,
        Some(CvtRnd::Rp | CvtRnd::Rpi) => Dir::Up,
    }
}

/// Whether `.ftz` applies to values of format `f` (f32 only).
fn ftz_applies(x: &Cvt, f: Fmt) -> bool {
    x.ftz && f.mbits == F32.mbits && f.ebits == F32.ebits
}

/// `.sat` on a float result: `[0.0, 1.0]`, NaN to +0.0.
fn sat_float(x: Exact) -> Exact {
    match x {
        Exact::Nan | Exact::Inf(true) => Exact::Fin {
            neg: false,
            m: 0,
            e: 0,
        },
        Exact::Inf(false) => Exact::Fin {
            neg: false,
            m: 1,
            e: 0,
        },
        Exact::Fin { neg: true, .. } => Exact::Fin {
            neg: false,
            m: 0,
            e: 0,
        },
        Exact::Fin { neg: false, m, e } => {
            // m * 2^e > 1: for e >= 0 any nonzero m but 1 * 2^0; for e < 0,
            // m > 2^-e.
            let above = if e >= 0 {
                m != 0 && !(m == 1 && e == 0)
            } else {
                -e < 128 && m > 1u128 << -e
            };
            if above {
                Exact::Fin {
                    neg: false,
                    m: 1,
                    e: 0,
                }
            } else {
                x
            }
        }
    }
}

fn src_is_nan(x: &Exact) -> bool {
    matches!(x, Exact::Nan)
}

/// `.relu` on a float value: negatives (and -0) to +0; NaN stays NaN (and
/// is written canonical).
fn relu(x: Exact) -> Exact {
    match x {
        Exact::Inf(true) | Exact::Fin { neg: true, .. } => Exact::Fin {
            neg: false,
            m: 0,
            e: 0,
        },
        Exact::Nan | Exact::Inf(false) | Exact::Fin { neg: false, .. } => x,
    }
}

/// One conversion of `a` (the bits of one `atype` value or element) to
/// `dtype`'s bits (one element of a packed type), without the packing or
/// register-width extension.
fn convert(x: &Cvt, dtype: CvtType, atype: CvtType, a: u64) -> u64 {
    let dir = dir_of(x.rnd);
    let (int_src, src) = match kind(atype) {
        Kind::Int { bits, signed } => {
            let (i, e) = decode_int(a, bits, signed);
            (Some(i), e)
        }
        // Into f16, `.ftz` leaves an f32 source's subnormal as it is: an
        // H200 gave `cvt.rp.ftz.f16.f32` of a positive f32 subnormal 0x0001
        // and `.rm` of a negative one 0x8001 (every f32 input, tools/gpu/
        // domain; xtask/tests/data/domain-h200.bin). Into bf16 it flushes.
        Kind::Float(f) => (
            None,
            decode_float(
                f,
                a & width_mask(f.ebits + f.mbits + 1),
                ftz_applies(x, f) && dtype != CvtType::F16,
            ),
        ),
    };
    match kind(dtype) {
        Kind::Int { bits, signed } => match int_src {
            // Integer to integer: wrap, or clamp with `.sat`.
            Some(i) if !x.sat => i as u64 & width_mask(bits),
            Some(_) | None => {
                // The manual: NaN converts to 0. The H100 writes 0 from f32
                // and narrower into 32 bits or fewer, and the sign bit alone
                // from f64 or into 64 bits (recorded vectors).
                let wide = bits == 64 || atype == CvtType::F64;
                let nan_bits = if wide { 1 << (bits - 1) } else { 0 };
                to_int(src, dir, bits, signed, nan_bits)
            }
        },
        // f16 to f64 keeps a NaN's sign and payload and sets the quiet bit
        // (observed on the H100: 0xfd5c -> 0xfffd700000000000,
        // tests/data/h100-cvt-boundary.jsonl); other NaNs become canonical.
        Kind::Float(_) if atype == CvtType::F16 && dtype == CvtType::F64 && src_is_nan(&src) => {
            let h = a & 0xffff;
            (h >> 15) << 63 | 0x7ff << 52 | 1 << 51 | (h & 0x3ff) << 42
        }
        // bf16 to f32 without `.ftz` is the bits moved up, a NaN's too (its
        // payload and quiet bit kept: 0x7f81 -> 0x7f810000 on an H200, every
        // bf16 input); with `.ftz` a NaN becomes the canonical one.
        Kind::Float(_)
            if atype == CvtType::Bf16
                && dtype == CvtType::F32
                && !x.ftz
                && !x.sat
                && !x.relu
                && src_is_nan(&src) =>
        {
            (a & 0xffff) << 16
        }
        Kind::Float(f) => {
            let v = match x.rnd {
                Some(CvtRnd::Rni | CvtRnd::Rzi | CvtRnd::Rmi | CvtRnd::Rpi) => integral(src, dir),
                Some(CvtRnd::Rn | CvtRnd::Rz | CvtRnd::Rm | CvtRnd::Rp) | None => src,
            };
            let v = if x.sat { sat_float(v) } else { v };
            let v = if x.relu { relu(v) } else { v };
            let quiet = atype != dtype && (atype == CvtType::F64 || dtype == CvtType::F64);
            encode_float(f, v, dir, ftz_applies(x, f), quiet, x.satfinite)
        }
    }
}

/// One lane of `x`: `a` (and `b` for a packed destination) as the source
/// registers' bits; the result at the destination register's width, an
/// 8-bit result sign- or zero-extended into it.
///
/// Float-to-integer conversions round as the modifier says and always
/// clamp to the destination's range (NaN gives 0); integer-to-integer
/// ones wrap unless `.sat`. Float results round once from the exact source
/// value; overflow gives infinity or the largest finite value as the
/// direction says; NaN gives the canonical NaN (all ones but the sign),
/// except f16 to f64, which keeps the payload as the H100 does.
///
/// fp8 (`.e4m3x2`, `.e5m2x2`): a packed source converts element by element
/// into the same place of the destination (the upper element from the
/// upper half); two f32 sources give the upper element from `a`. Rounding
/// is to nearest even from the exact source; `.satfinite` turns overflow
/// and infinity into the largest finite value of the sign; NaN gives the
/// canonical NaN (`0x7f`, `0x7fff`: cuda_fp8.hpp's; not yet checked on an
/// H100); `.relu` gives +0 for negatives.
pub fn cvt_lane(x: &Cvt, a: u64, b: u64) -> u64 {
    cvt_lane_c(x, a, b, 0)
}

/// [`cvt_lane`] with `cvt.pack`'s third source `c`: `a` and `b` (`.s32`)
/// clamped to the element type's range and packed, `b` in the low
/// element, `a` above it, and for the 8-bit types `c`'s low 16 bits above
/// both (the manual's definition, which ptxas's `I2IP` computes).
pub fn cvt_lane_c(x: &Cvt, a: u64, b: u64, c: u64) -> u64 {
    let (d, t) = (x.dtype, x.atype);
    if x.pack {
        let bits = match d {
            CvtType::U8 | CvtType::S8 => 8,
            _ => 16,
        };
        let (lo, hi) = match d {
            CvtType::S8 | CvtType::S16 => (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1),
            _ => (0, (1i64 << bits) - 1),
        };
        let el = |v: u64| (i64::from(v as u32 as i32).clamp(lo, hi) as u64) & width_mask(bits);
        let packed = el(a) << bits | el(b);
        return (packed | c << (2 * bits)) & 0xffff_ffff;
    }
    match (d.packed(), t.packed()) {
        (Some(dw), Some(aw)) => {
            let hi = convert(x, d, t, a >> aw & width_mask(aw));
            hi << dw | convert(x, d, t, a & width_mask(aw))
        }
        (Some(dw), None) => convert(x, d, t, a) << dw | convert(x, d, t, b),
        (None, _) if d == CvtType::S8 => (convert(x, d, t, a) as u8 as i8 as i16 as u16).into(),
        (None, _) => convert(x, d, t, a),
    }
}

/// `x`'s sources at the source register's width (`b` is 0 unless packed,
/// `c` unless an 8-bit `cvt.pack`).
pub(super) fn cvt_sources(x: &Cvt, ctx: &ExecCtx, regs: &WarpRegs) -> (Lanes, Lanes, Lanes) {
    let bits = x.atype.reg_type().bits();
    let read = |o: Option<crate::inst::Operand>| {
        o.map_or([0; WARP_SIZE], |o| read_operand(o, bits, ctx, regs))
    };
    (read_operand(x.a, bits, ctx, regs), read(x.b), read(x.c))
}

/// [`cvt_lane_c`] over a warp.
pub(crate) fn cvt_warp(x: &Cvt, a: &Lanes, b: &Lanes, c: &Lanes) -> Lanes {
    let mut o = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = cvt_lane_c(x, a[l], b[l], c[l]);
    }
    o
}
