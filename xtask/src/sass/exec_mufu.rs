//! `MUFU.EX2` and its 16-bit forms `MUFU.EX2.F16` / `MUFU.EX2.BF16`, which
//! ptxas 13.0 emits alone for `ex2.approx.ftz.f32`, `ex2.approx.f16` and
//! `ex2.approx.ftz.bf16` (and twice, on `R.H0` and `R.H1`, joined by a
//! `PRMT`, for the `x2` forms).
//!
//! The f32 operation is the unit's measured table: no independent model of
//! it exists, so it is sim-isa's (`ex2.approx.ftz.f32`, which is
//! `MUFU.EX2` alone, checked on 3.6 million H100 values and an H200's
//! whole-domain checksums; `tools/mufu/README.md`). What this file models
//! on its own is the 16-bit wrapping: the source widened to f32, the
//! result truncated toward zero to the half format by exact `f64`
//! arithmetic, f16 overflow (2^16 and above) to infinity, NaN to `0x7fff`.
//! An H200 gave exactly that over both whole 16-bit domains
//! (`xtask/tests/data/domain-h200-approx.bin`).

use super::decode::SInst;
use super::logic::{bf16_to_f64, f16_to_f64};
use super::Machine;
use anyhow::{bail, Context, Result};
use sim_isa::exec::float_lane;
use sim_isa::{Op, Symbols};

/// `MUFU.EX2` on f32 bits: `ex2.approx.ftz.f32`'s lane (one MUFU).
fn ex2_f32(x: u32) -> Result<u32> {
    let inst =
        sim_isa::parse::parse_instruction("ex2.approx.ftz.f32 %f1, %f2;", &mut Symbols::new())
            .context("ex2.approx.ftz.f32")?;
    let Op::Float(f) = inst.op else {
        bail!("ex2.approx.ftz.f32 is not a float instruction")
    };
    Ok(float_lane(&f, u64::from(x), 0, 0) as u32)
}

/// `v` truncated toward zero to f16 (`bf16`: false) or bf16 (true): the
/// largest magnitude of the format's grid not above `|v|`, with `v`'s sign;
/// f16 magnitudes of 2^16 and above are infinity.
fn truncate(v: f64, bf16: bool) -> u16 {
    if v.is_nan() {
        return 0x7fff;
    }
    let sign: u16 = if v.is_sign_negative() { 0x8000 } else { 0 };
    let a = v.abs();
    let (mbits, emin, inf_at, inf): (i32, i32, f64, u16) = if bf16 {
        (7, -126, f64::INFINITY, 0x7f80)
    } else {
        (10, -14, 65_536.0, 0x7c00)
    };
    if a >= inf_at {
        return sign | inf;
    }
    if a == 0.0 {
        return sign;
    }
    // The grid step at `a`: 2^(e - mbits), e = max(floor(log2 a), emin).
    let e = (a.log2().floor() as i32).max(emin);
    let step = 2f64.powi(e - mbits);
    let t = (a / step).floor() * step;
    let bits = if bf16 {
        half::bf16::from_f64(t).to_bits()
    } else {
        half::f16::from_f64(t).to_bits()
    };
    sign | bits
}

impl Machine {
    /// `MUFU.EX2[.F16|.BF16] d, a`: the 16-bit forms read `a`'s low half
    /// (`R.H1`: its high half) and write the low half of `d`, its high half
    /// zero.
    pub(super) fn mufu(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        if i.mods.first().map(String::as_str) != Some("EX2") {
            bail!("MUFU.{} not modelled", i.mods.join("."));
        }
        let d = Self::dst(&i.ops[0])?;
        let (f16, bf16) = (i.has("F16"), i.has("BF16"));
        if !f16 && !bf16 {
            let r = ex2_f32(self.f32v(&i.ops[1])?)?;
            self.set(d, r);
            return Ok(());
        }
        let h = self.halves(&i.ops[1])?[0];
        let x = if bf16 { bf16_to_f64(h) } else { f16_to_f64(h) } as f32;
        let r = f32::from_bits(ex2_f32(x.to_bits())?);
        self.set(d, u32::from(truncate(f64::from(r), bf16)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::truncate;

    #[test]
    fn truncation_to_the_half_formats() {
        // 1 + 2^-11 + 2^-20 is between f16's 1 and 1 + 2^-10: down to 1.
        assert_eq!(
            truncate(1.0 + 2f64.powi(-11) + 2f64.powi(-20), false),
            0x3c00
        );
        assert_eq!(truncate(-(1.0 + 2f64.powi(-10)), false), 0xbc01);
        // Below 2^16 the largest finite f16; from 2^16 infinity.
        assert_eq!(truncate(65_535.9, false), 0x7bff);
        assert_eq!(truncate(65_536.0, false), 0x7c00);
        // f16 subnormals: 3.9 units of 2^-24 are 3.
        assert_eq!(truncate(3.9 * 2f64.powi(-24), false), 0x0003);
        assert_eq!(truncate(f64::NAN, true), 0x7fff);
        // bf16: 1 + 2^-7 - tiny truncates to 1.
        assert_eq!(truncate(1.0 + 2f64.powi(-7) - 2f64.powi(-30), true), 0x3f80);
        assert_eq!(truncate(f64::INFINITY, true), 0x7f80);
    }
}
