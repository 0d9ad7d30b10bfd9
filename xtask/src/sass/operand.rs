//! The machine's register files, constant bank and buffers, as the opcodes
//! read and write them: each operand form with its modifiers applied.

use super::decode::{Opnd, SInst};
use super::{Machine, IN_BASE, OUT_BASE, PT, RZ};
use anyhow::{bail, Context, Result};

impl Machine {
    pub(super) fn reg(&self, r: u8) -> u32 {
        if r == RZ {
            0
        } else {
            self.r[r as usize]
        }
    }
    pub(super) fn ureg(&self, r: u8) -> u32 {
        if r == RZ {
            0
        } else {
            self.ur[(r & 63) as usize]
        }
    }
    pub(super) fn set(&mut self, r: u8, v: u32) {
        if r != RZ {
            self.r[r as usize] = v;
        }
    }
    pub(super) fn pred(&self, o: &Opnd) -> Result<bool> {
        match o {
            Opnd::Pred { p, not } => Ok((*p == PT || self.p[*p as usize]) ^ not),
            _ => bail!("expected a predicate, got {o:?}"),
        }
    }
    pub(super) fn set_pred(&mut self, o: &Opnd, v: bool) -> Result<()> {
        match o {
            Opnd::Pred { p, not: false } => {
                if *p != PT {
                    self.p[*p as usize] = v;
                }
                Ok(())
            }
            _ => bail!("expected a predicate destination, got {o:?}"),
        }
    }
    pub(super) fn dst(o: &Opnd) -> Result<u8> {
        match o {
            Opnd::Reg {
                r,
                neg: false,
                not: false,
                abs: false,
                ..
            } => Ok(*r),
            // Uniform destinations are numbered from 256 upwards in `set`.
            Opnd::UReg(r, false) => Ok(*r),
            _ => bail!("expected a register destination, got {o:?}"),
        }
    }
    pub(super) fn konst(&self, bank: u32, off: u32) -> Result<u32> {
        if bank != 0 {
            bail!("constant bank {bank}");
        }
        Ok(match off {
            0x0 => self.thread[2],
            0x220 => self.thread[3],
            0x210 => IN_BASE as u32,
            0x214 => (IN_BASE >> 32) as u32,
            0x218 => OUT_BASE as u32,
            0x21c => (OUT_BASE >> 32) as u32,
            _ => 0,
        })
    }

    /// Raw 32 bits of a source, with integer `-`/`~`/`|..|` applied.
    pub(super) fn int(&self, o: &Opnd) -> Result<u32> {
        Ok(match o {
            Opnd::Reg {
                r, neg, not, abs, ..
            } => {
                let mut v = self.reg(*r);
                if *abs {
                    v = (v as i32).unsigned_abs();
                }
                if *neg {
                    v = v.wrapping_neg();
                }
                if *not {
                    v = !v;
                }
                v
            }
            Opnd::Imm(v) => *v as u32,
            // nvdisasm prints FSEL/FSET immediates as decimals; the bits are f32.
            // A NaN is printed without its payload, so it cannot be rebuilt.
            Opnd::FImm(f) if f.is_nan() => bail!("NaN immediate printed without its payload"),
            Opnd::FImm(f) => (*f as f32).to_bits(),
            Opnd::Const(b, off) => self.konst(*b, *off)?,
            Opnd::UReg(r, neg) => {
                let v = self.ureg(*r);
                if *neg {
                    v.wrapping_neg()
                } else {
                    v
                }
            }
            _ => bail!("expected an integer source, got {o:?}"),
        })
    }

    /// An f32 source with float `-` and `|..|`.
    pub(super) fn f32v(&self, o: &Opnd) -> Result<u32> {
        Ok(match o {
            Opnd::Reg { r, neg, abs, .. } => {
                let mut v = self.reg(*r);
                if *abs {
                    v &= 0x7fff_ffff;
                }
                if *neg {
                    v ^= 0x8000_0000;
                }
                v
            }
            Opnd::FImm(f) if f.is_nan() => bail!("NaN immediate printed without its payload"),
            Opnd::FImm(f) => (*f as f32).to_bits(),
            Opnd::Imm(v) => *v as u32,
            Opnd::UReg(r, neg) => self.ureg(*r) ^ if *neg { 0x8000_0000 } else { 0 },
            _ => bail!("expected an f32 source, got {o:?}"),
        })
    }

    /// An f64 source (register pair).
    pub(super) fn f64v(&self, o: &Opnd) -> Result<f64> {
        Ok(match o {
            Opnd::Reg { r, neg, abs, .. } => {
                let lo = self.reg(*r) as u64;
                let hi = if *r == RZ { 0 } else { self.reg(r + 1) as u64 };
                let mut v = f64::from_bits(hi << 32 | lo);
                if *abs {
                    v = v.abs();
                }
                if *neg {
                    v = -v;
                }
                v
            }
            Opnd::FImm(f) => *f,
            Opnd::Imm(v) => f64::from_bits(*v << 32),
            Opnd::UReg(r, neg) => {
                let hi = if *r == RZ { 0 } else { self.ureg(r + 1) as u64 };
                let v = f64::from_bits(hi << 32 | self.ureg(*r) as u64);
                if *neg {
                    -v
                } else {
                    v
                }
            }
            _ => bail!("expected an f64 source, got {o:?}"),
        })
    }

    /// The two 16-bit halves `[lo, hi]` of a packed source, after its swizzle and
    /// float `-`/`|..|` per half.
    pub(super) fn halves(&self, o: &Opnd) -> Result<[u16; 2]> {
        match o {
            Opnd::Reg {
                r,
                neg,
                abs,
                halves,
                ..
            } => {
                let v = self.reg(*r);
                let h = [v as u16, (v >> 16) as u16];
                let (hi, lo) = halves.unwrap_or((1, 0));
                let mut out = [h[lo as usize], h[hi as usize]];
                for x in &mut out {
                    if *abs {
                        *x &= 0x7fff;
                    }
                    if *neg {
                        *x ^= 0x8000;
                    }
                }
                Ok(out)
            }
            Opnd::Imm(v) => Ok([*v as u16, (*v >> 16) as u16]),
            _ => bail!("expected a packed half source, got {o:?}"),
        }
    }

    pub(super) fn addr(&self, o: &Opnd) -> Result<u64> {
        match o {
            Opnd::Mem(r, off) => {
                let lo = self.reg(*r) as u64;
                let hi = self.reg(r.wrapping_add(1)) as u64;
                Ok(((hi << 32) | lo).wrapping_add(*off as u64))
            }
            _ => bail!("expected a memory operand, got {o:?}"),
        }
    }

    pub(super) fn access(&mut self, addr: u64, n: usize, write: Option<u64>) -> Result<u64> {
        let (buf, base) = if addr >= OUT_BASE {
            (&mut self.output, OUT_BASE)
        } else {
            (&mut self.input, IN_BASE)
        };
        let off = addr.checked_sub(base).context("address below buffer")? as usize;
        if off + n > buf.len() {
            bail!("access of {n} bytes at {addr:#x} is outside the buffer");
        }
        if let Some(v) = write {
            for i in 0..n {
                buf[off + i] = (v >> (8 * i)) as u8;
            }
            return Ok(0);
        }
        Ok((0..n).fold(0u64, |acc, i| acc | (buf[off + i] as u64) << (8 * i)))
    }

    pub(super) fn width(i: &SInst) -> (usize, bool) {
        for m in &i.mods {
            match m.as_str() {
                "U8" => return (1, false),
                "S8" => return (1, true),
                "U16" => return (2, false),
                "S16" => return (2, true),
                "64" => return (8, false),
                "128" => return (16, false),
                _ => {}
            }
        }
        (4, false)
    }
}
