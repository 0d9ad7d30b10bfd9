//! Float compares and selects-by-compare, int-to-float conversion, packed
//! half compares, and the few other float and video opcodes ptxas emits here.

use super::decode::{Opnd, SInst};
use super::logic::{bf16_to_f64, boolop, f16_to_f64, fcmp, ftz16, ftz32};
use super::{Machine, RZ};
use anyhow::{bail, Context, Result};

impl Machine {
    /// `I2F`/`I2FP`: a 32-bit (or `.S16`) integer to f32, f16 or bf16.
    pub(super) fn i2f(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let x = self.int(&i.ops[1])?;
        let unsigned = i.mods.iter().any(|m| m == "U32");
        let s16 = i.mods.iter().any(|m| m == "S16");
        let v: f64 = if unsigned {
            x as f64
        } else if s16 {
            x as u16 as i16 as f64
        } else {
            x as i32 as f64
        };
        let out = if i.has("F16") {
            half::f16::from_f64(v).to_bits() as u32
        } else if i.has("BF16") {
            half::bf16::from_f64(v).to_bits() as u32
        } else if i.has("F64") {
            bail!("I2F.F64 not modelled")
        } else {
            (v as f32).to_bits()
        };
        self.set(Self::dst(&i.ops[0])?, out);
        Ok(())
    }

    /// `FADD[.FTZ]`.
    pub(super) fn fadd(&mut self, i: &SInst) -> Result<()> {
        i.need(3)?;
        let o = &i.ops;
        let ftz = i.has("FTZ");
        let f = |x: u32| if ftz { ftz32(x) } else { x };
        let v = f32::from_bits(f(self.f32v(&o[1])?)) + f32::from_bits(f(self.f32v(&o[2])?));
        self.set(Self::dst(&o[0])?, f(v.to_bits()));
        Ok(())
    }

    /// `FSETP`/`DSETP`: a float compare combined with a predicate into `p`,
    /// its complement's combination into `q`.
    pub(super) fn fsetp(&mut self, i: &SInst) -> Result<()> {
        i.need(5)?;
        let o = &i.ops;
        let cmp = i.mods.first().context("comparison")?;
        let bop = i.bool_mod()?;
        let ftz = i.has("FTZ");
        let (a, b) = if i.op == "DSETP" {
            (self.f64v(&o[2])?, self.f64v(&o[3])?)
        } else {
            let f = |x: u32| f32::from_bits(if ftz { ftz32(x) } else { x }) as f64;
            (f(self.f32v(&o[2])?), f(self.f32v(&o[3])?))
        };
        let t = fcmp(cmp, a, b)?;
        let c = self.pred(&o[4])?;
        self.set_pred(&o[0], boolop(bop, t, c)?)?;
        self.set_pred(&o[1], boolop(bop, !t, c)?)
    }

    /// `FSET[.BF]`: an f32 compare as all ones, or (`.BF`) 1.0f.
    pub(super) fn fset(&mut self, i: &SInst) -> Result<()> {
        i.need(4)?;
        let o = &i.ops;
        let bf = i.has("BF");
        let cmp = i.fcmp_mod()?;
        let bop = i.bool_mod()?;
        let ftz = i.has("FTZ");
        let f = |x: u32| f32::from_bits(if ftz { ftz32(x) } else { x }) as f64;
        let t = fcmp(cmp, f(self.f32v(&o[1])?), f(self.f32v(&o[2])?))?;
        let r = boolop(bop, t, self.pred(&o[3])?)?;
        let v = match (r, bf) {
            (false, _) => 0,
            (true, true) => 0x3f80_0000,
            (true, false) => 0xffff_ffff,
        };
        self.set(Self::dst(&o[0])?, v);
        Ok(())
    }

    /// `HSET2`/`HSETP2`: per-half f16 (or `.BF16_V2`) compares, into two
    /// predicates or a packed register of all ones / 1.0 per half.
    pub(super) fn hset2(&mut self, i: &SInst) -> Result<()> {
        let bf16 = i.has("BF16_V2");
        let ftz = i.has("FTZ");
        let cmp = i.fcmp_mod()?;
        let bop = i.bool_mod()?;
        let conv = |h: u16| {
            if bf16 {
                bf16_to_f64(h)
            } else {
                f16_to_f64(if ftz { ftz16(h) } else { h })
            }
        };
        let is_setp = i.op == "HSETP2";
        let (ai, bi, ci) = if is_setp { (2, 3, 4) } else { (1, 2, 3) };
        i.need(ci + 1)?;
        let o = &i.ops;
        let (a, b) = (self.halves(&o[ai])?, self.halves(&o[bi])?);
        let c = self.pred(&o[ci])?;
        let mut t = [false; 2];
        for k in 0..2 {
            t[k] = boolop(bop, fcmp(cmp, conv(a[k]), conv(b[k]))?, c)?;
        }
        if is_setp {
            i.refuse("H_AND")?;
            self.set_pred(&o[0], t[0])?;
            return self.set_pred(&o[1], t[1]);
        }
        let one: u32 = if !i.has("BF") {
            0xffff
        } else if bf16 {
            0x3f80
        } else {
            0x3c00
        };
        let v = (if t[1] { one } else { 0 }) << 16 | if t[0] { one } else { 0 };
        self.set(Self::dst(&o[0])?, v);
        Ok(())
    }

    /// `VABSDIFF4`, the one native video opcode: |a-b| per byte, unsigned with
    /// .U8 and signed without (nvdisasm prints no .S8); .ACC adds the four
    /// differences to c, otherwise each lands in its byte. (From the PTX
    /// definition: the only opcode whose meaning cannot be cross-checked here.)
    pub(super) fn vabsdiff4(&mut self, i: &SInst) -> Result<()> {
        i.need(4)?;
        if i.mods.iter().any(|m| !matches!(m.as_str(), "U8" | "ACC")) {
            bail!("VABSDIFF4 form {:?} not modelled", i.mods);
        }
        let o = &i.ops;
        let (a, b, c) = (self.int(&o[1])?, self.int(&o[2])?, self.int(&o[3])?);
        let byte = |x: u32, k: u32| -> i32 {
            let v = (x >> (8 * k)) & 0xff;
            if i.has("U8") {
                v as i32
            } else {
                v as u8 as i8 as i32
            }
        };
        let d = (0..4).map(|k| (byte(a, k) - byte(b, k)).unsigned_abs());
        let v = if i.has("ACC") {
            d.fold(c, |s, x| s.wrapping_add(x))
        } else {
            d.enumerate().fold(0, |s, (k, x)| s | (x & 0xff) << (8 * k))
        };
        self.set(Self::dst(&o[0])?, v);
        Ok(())
    }

    /// `HFMA2.MMA Rd, -RZ, RZ, hi, lo`: only the constant-materialising form.
    pub(super) fn hfma2(&mut self, i: &SInst) -> Result<()> {
        i.need(5)?;
        let o = &i.ops;
        let zero = |x: &Opnd| {
            matches!(
                x,
                Opnd::Reg {
                    r: RZ,
                    abs: false,
                    not: false,
                    ..
                }
            )
        };
        if !(zero(&o[1]) && zero(&o[2])) {
            bail!("HFMA2 with register inputs not modelled");
        }
        let h = |x: &Opnd| -> Result<u32> {
            Ok(match x {
                Opnd::FImm(f) => half::f16::from_f64(*f).to_bits() as u32,
                Opnd::Imm(v) => half::f16::from_f64(*v as f64).to_bits() as u32,
                _ => bail!("HFMA2 constant operand {x:?}"),
            })
        };
        let v = h(&o[3])? << 16 | h(&o[4])?;
        self.set(Self::dst(&o[0])?, v);
        Ok(())
    }
}
