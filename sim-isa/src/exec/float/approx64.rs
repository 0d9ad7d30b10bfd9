//! The approximate `.f64` forms, `rcp.approx.ftz.f64` and
//! `rsqrt.approx{.ftz}.f64`, as ptxas 13.0.88 compiles them for sm_90: the
//! source's high word goes to `MUFU.RCP64H` / `MUFU.RSQ64H`, whose result
//! is a high word. An H200 (2026-11-30, 12,000 vectors,
//! `sim-isa/tests/data/h200-approx-f64.jsonl.gz`) shows both are the `.f32`
//! units' measured tables (`mufu_table.rs`) read at the high word's 20
//! fraction bits (the f32 mantissa's top 20, its low 3 zero) and truncated
//! back to 20: `RCP(1.f)` and `RSQ(2^p * 1.f)` with the exponent scaled as
//! for `.f32`. The truncated exact reciprocal, the model before, differed
//! in the last bit for 6% of the sources. The instructions ptxas puts
//! around `MUFU.RSQ64H` for `rsqrt.approx.f64` are IEEE operations and are
//! run as the machine code has them ([`rsqrt`]).

use super::mufu_table as tab;
use super::QUIET64;

const SIGN_HI: u64 = 0x8000_0000;
const INF_HI: u64 = 0x7ff0_0000;
/// The canonical NaN's high word, what the `.ftz` units give for a NaN.
const NAN_HI: u64 = 0x7fff_ffff;
/// What `rsqrt.approx.f64`'s slow path gives for a negative source.
const NAN_NEG: u64 = 0xfff8_0000_0000_0000;

/// The high word's biased exponent.
fn exp_hi(hi: u64) -> i32 {
    ((hi >> 20) & 0x7ff) as i32
}

/// The f32 table index of the high word's 20 fraction bits.
fn man_index(hi: u64) -> usize {
    ((hi & 0xf_ffff) << 3) as usize
}

/// A high word of the f32 table entry `t`'s top 20 fraction bits and
/// biased exponent `e`, or the zero of `sign` below the normal range
/// (`.ftz`).
fn high_word(sign: u64, t: u32, e: i32) -> u64 {
    if e < 1 {
        return sign;
    }
    sign | ((e as u64) << 20) | u64::from((t >> 3) & 0xf_ffff)
}

/// The unbiased exponent of an f32 table entry.
fn exp_f32(t: u32) -> i32 {
    ((t >> 23) & 0xff) as i32 - 127
}

/// `rcp.approx.ftz.f64`: ptxas treats the low word as free (alone in a
/// kernel it writes 0 there, `HFMA2.MMA` of zeros, `sim-core/data/
/// lowering-sass.tsv`; after a load of the high word alone it leaves that
/// register); 0 is taken here. Subnormal sources and results are zero
/// (`.ftz`); a zero gives the infinity of its sign, an infinity the zero,
/// a NaN the canonical NaN's high word.
pub(super) fn rcp64h(a: u64) -> u64 {
    let hi = a >> 32;
    let x = f64::from_bits(hi << 32);
    let sign = hi & SIGN_HI;
    let out = if x.is_nan() {
        NAN_HI
    } else if x == 0.0 || x.is_subnormal() {
        sign | INF_HI
    } else if x.is_infinite() {
        sign
    } else {
        let t = tab::rcp().get(man_index(hi));
        high_word(sign, t, exp_f32(t) - (exp_hi(hi) - 1023) + 1023)
    };
    out << 32
}

/// `MUFU.RSQ64H` of the source's high word (the result's high word, the
/// low word 0 as ptxas writes it for `rsqrt.approx.ftz.f64`). As
/// `MUFU.RSQ` for `.f32` (`mufu.rs`, `root`): a zero or subnormal gives
/// the infinity of its sign, a negative source or a NaN the canonical
/// NaN's high word, +inf the zero.
pub(super) fn rsq64h(a: u64) -> u64 {
    let hi = a >> 32;
    let x = f64::from_bits(hi << 32);
    let out = if x.is_nan() {
        NAN_HI
    } else if x == 0.0 || x.is_subnormal() {
        (hi & SIGN_HI) | INF_HI
    } else if x < 0.0 {
        NAN_HI
    } else if x == f64::INFINITY {
        0
    } else {
        let k = exp_hi(hi) - 1023;
        let p = k.rem_euclid(2);
        let t = tab::rsq().get(((p as usize) << 23) | man_index(hi));
        high_word(0, t, exp_f32(t) - (k - p) / 2 + 1023)
    };
    out << 32
}

/// `rsqrt.approx.f64` (no `.ftz`), as ptxas 13.0.88's sm_90 code runs it:
/// a positive normal source (`IADD3 R0, hi, -0x100000` below `0x7fe00000`)
/// takes `y = MUFU.RSQ64H` and one correction of third order,
/// `e = fma(x, -(y*y), 1)`, `fma(fma(e, 0.375, 0.5), y*e, y)`; anything
/// else calls `__cuda_sm20_drsqrt_f64_slowpath_v2`: a zero gives the
/// infinity of its sign, a NaN itself quieted (`DADD x, x`), a negative
/// source `0xfff8000000000000`, +inf +0, and a positive subnormal is
/// scaled by 2^54, run as above and scaled back by 2^27 (both exact).
pub(super) fn rsqrt(a: u64) -> u64 {
    let hi = a >> 32;
    if hi.wrapping_sub(0x10_0000) & 0xffff_ffff < 0x7fe0_0000 {
        return rsqrt_normal(f64::from_bits(a)).to_bits();
    }
    let x = f64::from_bits(a);
    if x == 0.0 {
        ((hi & SIGN_HI) | INF_HI) << 32
    } else if x.is_nan() {
        a | QUIET64
    } else if hi & SIGN_HI != 0 {
        NAN_NEG
    } else if x == f64::INFINITY {
        0
    } else {
        // 2^54 and 2^27.
        (rsqrt_normal(x * 18_014_398_509_481_984.0) * 134_217_728.0).to_bits()
    }
}

/// The fast path's six IEEE operations around `MUFU.RSQ64H`.
fn rsqrt_normal(x: f64) -> f64 {
    let y = f64::from_bits(rsq64h(x.to_bits()));
    let e = x.mul_add(-(y * y), 1.0);
    let h = e.mul_add(0.375, 0.5);
    h.mul_add(y * e, y)
}
