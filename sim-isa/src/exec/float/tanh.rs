//! `tanh.approx` (`MUFU.TANH`, PTX ISA 9.7.4.9) on `.f32` and, per 16-bit
//! half, `.f16 .f16x2 .bf16 .bf16x2`.
//!
//! No model of the unit's own approximation reproduces it yet, so this is
//! the simplest rule found against an H200's whole tables
//! (`xtask/tests/data/domain-h200-approx.bin`, from `tools/gpu/domain/run.py`
//! with `forms-approx.txt`, the driver JIT-compiling `.target sm_90`:
//! `tools/gpu/domain/README.md`; `tools/gpu/domain/tanh_rules.py` prints
//! the comparison): the source itself below 2^-8 in magnitude, +-1 from 8,
//! the NaN `0x7fff`/`0x7fffffff`, and between them the exact tanh truncated
//! toward zero (the half formats) or rounded to nearest (`.f32`). The unit's
//! relative error is near 2^-17.6, so where it crosses a grid point the
//! rule is one unit in the last place off: for the half formats those
//! inputs are [`F16_MEASURED`] and [`BF16_MEASURED`], which makes `.f16`
//! and `.bf16` equal to the H200 on all 65,536 sources each. For `.f32` the
//! rule is a model, not the machine: 60 of the 64 sampled high halves of
//! the same run agree (docs/validation.md, "H200 run").

/// f16 sources (magnitudes) where the H200's `tanh.approx.f16` is not the
/// rule's value, and its value: 24 magnitudes, 48 of the 65,536 entries
/// (the negative source gives the same bits with the sign set, as every
/// other entry does). Sorted by source.
const F16_MEASURED: [(u16, u16); 24] = [
    (0x29c6, 0x29c5),
    (0x2c95, 0x2c93),
    (0x2c96, 0x2c94),
    (0x2d3f, 0x2d3b),
    (0x2e39, 0x2e34),
    (0x2e9d, 0x2e97),
    (0x3064, 0x305d),
    (0x323f, 0x322b),
    (0x32ff, 0x32e3),
    (0x355b, 0x352a),
    (0x372d, 0x36bb),
    (0x3824, 0x379d),
    (0x399a, 0x38d6),
    (0x39f8, 0x390f),
    (0x3c8e, 0x3a82),
    (0x3c9d, 0x3a8c),
    (0x3cc9, 0x3aa9),
    (0x3db8, 0x3b21),
    (0x3de3, 0x3b33),
    (0x3e23, 0x3b49),
    (0x3eab, 0x3b72),
    (0x3ed6, 0x3b7e),
    (0x4080, 0x3bd3),
    (0x4429, 0x3bfe),
];

/// The same for `tanh.approx.bf16`: one magnitude (0.746: the rule gives
/// 0x3f22), two of the 65,536 entries.
const BF16_MEASURED: [(u16, u16); 1] = [(0x3f3f, 0x3f21)];

/// The magnitude `2^-8` below which (f16: up to `2^-8 (1 + 7/1024)`,
/// bf16: up to `2^-8` itself) the source is the result, as bits.
const F16_TINY_MAX: u16 = 0x1c07;
const BF16_TINY_MAX: u16 = 0x3b80;
/// 8, from which the result is +-1.
const F16_EIGHT: u16 = 0x4800;
const BF16_EIGHT: u16 = 0x4100;

/// `tanh.approx.f16` (`bf16`: false) or `.bf16` (true) of `h` (module
/// comment).
pub(super) fn tanh_half(h: u16, bf16: bool) -> u16 {
    let (sign, mag) = (h & 0x8000, h & 0x7fff);
    let (tiny_max, eight, inf, one) = if bf16 {
        (BF16_TINY_MAX, BF16_EIGHT, 0x7f80, 0x3f80)
    } else {
        (F16_TINY_MAX, F16_EIGHT, 0x7c00, 0x3c00)
    };
    if mag > inf {
        return 0x7fff;
    }
    if mag <= tiny_max {
        return h;
    }
    if mag >= eight {
        return sign | one;
    }
    let table: &[(u16, u16)] = if bf16 { &BF16_MEASURED } else { &F16_MEASURED };
    if let Ok(i) = table.binary_search_by_key(&mag, |e| e.0) {
        return sign | table[i].1;
    }
    let x = if bf16 {
        f64::from(f32::from_bits(u32::from(mag) << 16))
    } else {
        f64::from(half::f16::from_bits(mag))
    };
    // tanh(x) lies in [2^-8, 1): a normal number of either format, so
    // truncation keeps the top 7 (bf16) or 10 (f16) fraction bits.
    let t = x.tanh().to_bits();
    let e = ((t >> 52) & 0x7ff) as i64 - 1023;
    let fbits = if bf16 { 7 } else { 10 };
    let bias = if bf16 { 127 } else { 15 };
    let frac = ((t >> (52 - fbits)) & ((1 << fbits) - 1)) as u16;
    sign | (((e + bias) as u16) << fbits) | frac
}

/// `tanh.approx.f32` of the bits `x`: the rule (module comment), a model
/// that agrees with 60 of the H200's 64 sampled high halves.
pub(super) fn tanh_f32(x: u32) -> u32 {
    let (sign, mag) = (x & 0x8000_0000, x & 0x7fff_ffff);
    if mag > 0x7f80_0000 {
        return 0x7fff_ffff;
    }
    // Below 2^-8: the source; from 8: +-1.
    if mag < 0x3b80_0000 {
        return x;
    }
    if mag >= 0x4100_0000 {
        return sign | 0x3f80_0000;
    }
    // tanh of an f32 rounded once from f64's (within an ulp of f64: a
    // double rounding only at a near-tie, rarer than the rule's own misses).
    (f64::from(f32::from_bits(x)).tanh() as f32).to_bits()
}
