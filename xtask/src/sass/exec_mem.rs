//! Moves, constant and special-register reads, global loads and stores.

use super::decode::{Opnd, SInst};
use super::{Machine, RZ};
use anyhow::{bail, Result};

impl Machine {
    /// `UMOV`/`ULDC`: a constant (or, `.64`, a pair) or a value into a uniform register.
    pub(super) fn uniform_move(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let o = &i.ops;
        let Opnd::UReg(d, false) = o[0] else {
            bail!("uniform destination")
        };
        if d != RZ {
            if let Opnd::Const(b, off) = o[1] {
                self.ur[(d & 63) as usize] = self.konst(b, off)?;
                if i.has("64") {
                    self.ur[((d + 1) & 63) as usize] = self.konst(b, off + 4)?;
                }
            } else {
                self.ur[(d & 63) as usize] = self.int(&o[1])?;
            }
        }
        Ok(())
    }

    /// `LDC`: a constant-bank word (or, `.64`, a pair).
    pub(super) fn ldc(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let o = &i.ops;
        let d = Self::dst(&o[0])?;
        let Opnd::Const(b, off) = o[1] else {
            bail!("LDC source")
        };
        self.set(d, self.konst(b, off)?);
        if i.has("64") {
            self.set(d + 1, self.konst(b, off + 4)?);
        }
        Ok(())
    }

    /// `MOV`.
    pub(super) fn mov(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let v = self.int(&i.ops[1])?;
        self.set(Self::dst(&i.ops[0])?, v);
        Ok(())
    }

    /// `LDG`/`LD`: 1, 2 (zero- or sign-extended), 4 or 8 bytes.
    pub(super) fn load(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let d = Self::dst(&i.ops[0])?;
        let (n, signed) = Self::width(i);
        let a = self.addr(&i.ops[1])?;
        let v = self.access(a, n, None)?;
        match n {
            1 | 2 => {
                let bits = 8 * n as u32;
                let v = if signed {
                    (((v as i64) << (64 - bits)) >> (64 - bits)) as u64
                } else {
                    v
                };
                self.set(d, v as u32);
            }
            4 => self.set(d, v as u32),
            8 => {
                self.set(d, v as u32);
                self.set(d + 1, (v >> 32) as u32);
            }
            _ => bail!("load width {n}"),
        }
        Ok(())
    }

    /// `STG`/`ST`: the low `n` bytes of a register (8: a pair).
    pub(super) fn store(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let a = self.addr(&i.ops[0])?;
        let (n, _) = Self::width(i);
        let Opnd::Reg { r, .. } = i.ops[1] else {
            bail!("store source")
        };
        let v = match n {
            8 => (self.reg(r + 1) as u64) << 32 | self.reg(r) as u64,
            _ => self.reg(r) as u64,
        };
        self.access(a, n, Some(v))?;
        Ok(())
    }

    /// `S2R`/`S2UR`: the thread and block index.
    pub(super) fn s2r(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let Opnd::Special(sr) = &i.ops[1] else {
            bail!("special register source")
        };
        let v = match sr.as_str() {
            "SR_TID.X" => self.thread[0],
            "SR_CTAID.X" => self.thread[1],
            // The block's rank in its cluster (one-block clusters): the
            // high byte of a shared address.
            "SR_CgaCtaId" => 0,
            // The lanes below this thread's: one thread, lane `tid % 32`.
            "SR_LTMASK" => (1u32 << (self.thread[0] & 31)) - 1,
            _ => bail!("special register {sr} not modelled"),
        };
        match i.ops[0] {
            Opnd::UReg(d, false) if d != RZ => self.ur[(d & 63) as usize] = v,
            _ => self.set(Self::dst(&i.ops[0])?, v),
        }
        Ok(())
    }
}
