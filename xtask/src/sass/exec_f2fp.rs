//! `F2FP`: ptxas's sm_90 conversion into and out of packed 16- and 8-bit
//! floats (`cvt` to f16/bf16 with `.relu`/`.satfinite`, to and from fp8).
//!
//! Written apart from sim-isa's bit-level rounding on purpose: each result
//! is the nearest of the target format's values, found in a table of every
//! code's value (f64), ties to the even code.

use super::decode::SInst;
use super::{Machine, RZ};
use anyhow::{bail, Context, Result};

/// A packed target format.
#[derive(Clone, Copy, PartialEq)]
enum Fmt {
    F16,
    Bf16,
    E4m3,
    E5m2,
}

impl Fmt {
    fn from_mod(m: &str) -> Option<Fmt> {
        match m {
            "F16" => Some(Fmt::F16),
            "BF16" => Some(Fmt::Bf16),
            "E4M3" => Some(Fmt::E4m3),
            "E5M2" => Some(Fmt::E5m2),
            _ => None,
        }
    }
    /// (exponent bits, mantissa bits).
    fn bits(self) -> (u32, u32) {
        match self {
            Fmt::F16 => (5, 10),
            Fmt::Bf16 => (8, 7),
            Fmt::E4m3 => (4, 3),
            Fmt::E5m2 => (5, 2),
        }
    }
    fn sign(self) -> u32 {
        let (e, m) = self.bits();
        1 << (e + m)
    }
    /// The canonical NaN (cuda_fp8.hpp's and the f16 conversions').
    fn nan(self) -> u32 {
        self.sign() - 1
    }
    /// The value of a non-negative code, `None` for NaN; the all-ones
    /// exponent of e4m3 holds normal values but for all ones.
    fn value(self, code: u32) -> Option<f64> {
        let (eb, mb) = self.bits();
        let (e, m) = (code >> mb, code & ((1 << mb) - 1));
        let bias = (1i32 << (eb - 1)) - 1;
        let top = (1 << eb) - 1;
        if self == Fmt::E4m3 && code == self.nan() {
            return None;
        }
        if e == top && self != Fmt::E4m3 {
            return if m == 0 { Some(f64::INFINITY) } else { None };
        }
        let frac = f64::from(m) / f64::from(1u32 << mb);
        Some(if e == 0 {
            frac * 2f64.powi(1 - bias)
        } else {
            (1.0 + frac) * 2f64.powi(e as i32 - bias)
        })
    }
    /// The largest finite code.
    fn max_code(self) -> u32 {
        match self {
            Fmt::E4m3 => 0x7e,
            Fmt::F16 | Fmt::Bf16 | Fmt::E5m2 => {
                let (_, mb) = self.bits();
                self.nan() - (1 << mb) + 1 - 1
            }
        }
    }
}

/// `x` into `f`: to nearest, ties to the even code (`rz`: toward zero);
/// `satfinite` keeps overflow and infinity finite; `relu` gives +0 for
/// negatives.
fn encode(f: Fmt, x: f64, rz: bool, satfinite: bool, relu: bool) -> u32 {
    if x.is_nan() {
        return f.nan();
    }
    if relu && (x < 0.0 || x.is_sign_negative()) {
        return 0;
    }
    let sign = if x.is_sign_negative() { f.sign() } else { 0 };
    let a = x.abs();
    let max = f.max_code();
    let maxv = f.value(max).unwrap_or(0.0);
    // The step past the largest value: infinity's place, or e4m3's NaN.
    let next = maxv + (maxv - f.value(max - 1).unwrap_or(0.0));
    let code = if a.is_infinite() {
        max + 1
    } else if a >= next {
        if rz {
            max
        } else {
            max + 1
        }
    } else {
        let mut lo = 0;
        while lo < max && f.value(lo + 1).unwrap_or(f64::MAX) <= a {
            lo += 1;
        }
        let lv = f.value(lo).unwrap_or(0.0);
        let hv = if lo == max {
            next
        } else {
            f.value(lo + 1).unwrap_or(next)
        };
        if rz || a - lv < hv - a || (a - lv == hv - a && lo % 2 == 0) {
            lo
        } else {
            lo + 1
        }
    };
    if code > max {
        return if satfinite {
            sign | max
        } else if f == Fmt::E4m3 {
            f.nan()
        } else {
            sign | (max + 1)
        };
    }
    sign | code
}

/// The value of code `c` of `f` (with its sign), `None` for NaN.
fn decode(f: Fmt, c: u32) -> Option<f64> {
    let v = f.value(c & (f.sign() - 1))?;
    Some(if c & f.sign() != 0 { -v } else { v })
}

impl Machine {
    /// `F2FP.{SATFINITE}.{RELU}.DST.SRC.{PACK_AB|MERGE_C|UNPACK_B...}{.RZ}`.
    pub(super) fn f2fp(&mut self, i: &SInst) -> Result<()> {
        let fmts: Vec<Fmt> = i.mods.iter().filter_map(|m| Fmt::from_mod(m)).collect();
        let d = *fmts.first().context("F2FP destination format")?;
        let s = if i.has("F32") {
            None
        } else {
            Some(*fmts.get(1).context("F2FP source format")?)
        };
        let (sat, relu, rz) = (i.has("SATFINITE"), i.has("RELU"), i.has("RZ"));
        let layout = i
            .mods
            .iter()
            .find(|m| m.contains("PACK") || m.contains("MERGE"))
            .context("F2FP layout")?
            .clone();
        i.need(2)?;
        let o = &i.ops;
        // A merged upper half from anything but RZ is not modelled.
        if layout.ends_with("MERGE_C") {
            match o.last() {
                Some(super::decode::Opnd::Reg { r: RZ, .. }) => {}
                other => bail!("F2FP merging from {other:?} not modelled"),
            }
        }
        let enc = |x: f64| encode(d, x, rz, sat, relu);
        let f32_of = |v: u32| f64::from(f32::from_bits(v));
        let out = match (s, layout.as_str()) {
            (None, "PACK_AB" | "PACK_AB_MERGE_C") => {
                i.need(3)?;
                let (a, b) = (f32_of(self.f32v(&o[1])?), f32_of(self.f32v(&o[2])?));
                let w = if matches!(d, Fmt::F16 | Fmt::Bf16) {
                    16
                } else {
                    8
                };
                enc(a) << w | enc(b)
            }
            (None, "MERGE_C") => enc(f32_of(self.f32v(&o[1])?)),
            (Some(Fmt::F16), "UNPACK_B_MERGE_C") => {
                let h = self.halves(&o[1])?;
                let x = |k: usize| half::f16::from_bits(h[k]).to_f64();
                enc(x(1)) << 8 | enc(x(0))
            }
            (Some(f @ (Fmt::E4m3 | Fmt::E5m2)), "UNPACK_B") => {
                let v = self.int(&o[1])?;
                let one = |c: u32| match decode(f, c & 0xff) {
                    None => d.nan(),
                    Some(x) => encode(d, x, false, false, relu),
                };
                one(v >> 8) << 16 | one(v)
            }
            _ => bail!("F2FP layout {layout} not modelled"),
        };
        self.set(Self::dst(&o[0])?, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_have_their_textbook_extremes() {
        assert_eq!(Fmt::E4m3.value(0x7e), Some(448.0));
        assert_eq!(Fmt::E5m2.value(0x7b), Some(57344.0));
        assert_eq!(Fmt::F16.max_code(), 0x7bff);
        assert_eq!(Fmt::Bf16.max_code(), 0x7f7f);
        assert_eq!(encode(Fmt::F16, 65520.0, false, false, false), 0x7c00);
        assert_eq!(encode(Fmt::F16, 65520.0, true, false, false), 0x7bff);
        assert_eq!(encode(Fmt::E4m3, 464.0, false, true, false), 0x7e);
        assert_eq!(encode(Fmt::E4m3, -2f64.powi(-10), false, true, false), 0x80);
    }
}
