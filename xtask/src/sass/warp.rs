//! A warp of 32 [`Machine`]s run in lockstep, for the warp-wide opcodes
//! (`HMMA IMMA DMMA LDSM STSM MOVM`) and the shared memory they read and
//! write (`LDS`, `STS`, `BAR`).
//!
//! Every other opcode runs on each active lane's own machine, which shares
//! the global output buffer with the others (it is handed to each lane in
//! turn). The kernels `values --family mma` makes are straight-line code:
//! a branch the active lanes do not all take the same way is an error, not
//! a guess at reconvergence.
//!
//! Shared memory is one byte array addressed as the machine code does
//! (`SR_CgaCtaId` reads 0, so a window address is an offset into it).
//!
//! Lane and matrix layouts (PTX ISA, "Warp-level matrix load instruction:
//! ldmatrix", "stmatrix", "movmatrix"; the 8x8 matrix of 16-bit elements):
//! lanes `8i..8i+7` give the row addresses of matrix `i`; lane `l` holds, in
//! its register `i`, row `l / 4`, columns `2 (l % 4)` and `+1` of matrix
//! `i` (low half first), or of its transpose with `.MT88`.

use super::decode::{Opnd, SInst};
use super::{Machine, PT, RZ};
use anyhow::{bail, Context, Result};

/// Lanes in a warp.
pub const LANES: usize = 32;
/// Bytes of shared memory a warp machine has.
pub const SHARED_BYTES: usize = 64 * 1024;

/// A warp: its lanes, the global output buffer and the block's shared memory.
#[derive(Clone, Debug)]
pub struct Warp {
    /// Lane `l` is thread `l` of a one-warp block.
    pub lanes: Vec<Machine>,
    /// The output buffer the lanes' stores write (global memory at `OUT_BASE`).
    pub output: Vec<u8>,
    /// Shared memory, addressed from 0.
    pub shared: Vec<u8>,
}

impl Warp {
    /// A warp whose lanes read `input` and write an `out_len`-byte output.
    pub fn new(input: Vec<u8>, out_len: usize) -> Self {
        let lanes = (0..LANES)
            .map(|l| {
                let mut m = Machine::new(input.clone(), 0);
                m.thread = [l as u32, 0, LANES as u32, LANES as u32];
                m
            })
            .collect();
        Warp {
            lanes,
            output: vec![0; out_len],
            shared: vec![0; SHARED_BYTES],
        }
    }

    /// Runs `prog` until every lane has exited. Returns the instructions
    /// executed; [`super::MAX_STEPS`] of them is an error.
    pub fn run(&mut self, prog: &[SInst]) -> Result<usize> {
        let mut live = u32::MAX;
        let mut pc = 0;
        for n in 0..super::MAX_STEPS {
            let Some(i) = prog.get(pc) else {
                bail!("program ran off its end without EXIT")
            };
            pc += 1;
            let on = live & self.guard_mask(i);
            match (i.op.as_str(), i.target) {
                ("EXIT", _) => {
                    live &= !on;
                    if live == 0 {
                        return Ok(n);
                    }
                }
                ("BRA" | "CALL", Some(t)) if on == live => pc = t,
                ("BRA" | "CALL", Some(_)) if on != 0 => bail!("divergent branch '{}'", i.text),
                ("RET", _) if on == live => pc = self.return_to(i, on)?,
                ("RET", _) if on != 0 => bail!("divergent return '{}'", i.text),
                _ if on == 0 => {}
                _ => self
                    .step(i, on)
                    .with_context(|| format!("executing '{}'", i.text))?,
            }
        }
        bail!("program ran {} instructions without EXIT", super::MAX_STEPS)
    }

    /// The lanes whose guard holds.
    fn guard_mask(&self, i: &SInst) -> u32 {
        let Some((p, not)) = i.guard else {
            return u32::MAX;
        };
        (0..LANES).fold(0, |m, l| {
            let v = p == PT || self.lanes[l].p[p as usize];
            m | (u32::from(v ^ not) << l)
        })
    }

    /// Executes one instruction on the lanes of `on`.
    pub fn step(&mut self, i: &SInst, on: u32) -> Result<()> {
        let whole = |what: &str| {
            if on != u32::MAX {
                bail!("{what} with lanes {on:#010x} only: .aligned needs the whole warp")
            }
            Ok(())
        };
        match i.op.as_str() {
            "BAR" => Ok(()),
            // The lane's number (WMMA's address arithmetic reads it).
            "S2R" if matches!(&i.ops.get(1), Some(Opnd::Special(s)) if s == "SR_LANEID") => {
                let d = Machine::dst(&i.ops[0])?;
                for (l, m) in self.lanes.iter_mut().enumerate() {
                    if on >> l & 1 == 1 {
                        m.set(d, l as u32);
                    }
                }
                Ok(())
            }
            "S2R" | "S2UR" if matches!(&i.ops.get(1), Some(Opnd::Special(s)) if s == "SR_CgaCtaId") => {
                self.each(on, |m| {
                    match i.ops[0] {
                        Opnd::UReg(d, false) if d != RZ => m.ur[(d & 63) as usize] = 0,
                        _ => m.set(Machine::dst(&i.ops[0])?, 0),
                    }
                    Ok(())
                })
            }
            "LDS" => self.lds(i, on),
            "STS" => self.sts(i, on),
            "LDSM" => whole("LDSM").and_then(|()| self.ldsm(i)),
            "STSM" => whole("STSM").and_then(|()| self.stsm(i)),
            "MOVM" => whole("MOVM").and_then(|()| self.movm(i)),
            "HMMA" | "IMMA" | "BMMA" | "DMMA" => whole(&i.op).and_then(|()| self.mma(i)),
            "HADD2" if i.has("F32") => self.each(on, |m| hadd2_f32(m, i)),
            "IADD3" if i.has("X") => self.each(on, |m| iadd3_x(m, i)),
            "LEA" if i.has("X") || matches!(i.ops.get(1), Some(Opnd::Pred { .. })) => {
                self.each(on, |m| lea_carry(m, i))
            }
            "PLOP3" if i.ops.iter().any(|o| matches!(o, Opnd::Reg { .. })) => {
                self.each(on, |m| plop3_sign(m, i))
            }
            "LDG" | "LD" | "STG" | "ST" if Machine::width(i).0 == 16 => {
                self.per_lane(on, |m| access128(m, i))
            }
            _ => self.per_lane(on, |m| m.step(i)),
        }
    }

    /// Runs `f` on each lane of `on` with the warp's output buffer.
    fn per_lane(&mut self, on: u32, mut f: impl FnMut(&mut Machine) -> Result<()>) -> Result<()> {
        for l in 0..LANES {
            if on >> l & 1 == 1 {
                let m = &mut self.lanes[l];
                std::mem::swap(&mut m.output, &mut self.output);
                let r = f(m);
                std::mem::swap(&mut m.output, &mut self.output);
                r?;
            }
        }
        Ok(())
    }

    /// `RET.REL.NODEC Rn`: the caller put the return address, a byte
    /// offset from the function's start, in `Rn` (`MOV Rn, 0xd0` before
    /// `CALL.REL.NOINC`); instructions are 16 bytes. The lanes must agree.
    fn return_to(&self, i: &SInst, on: u32) -> Result<usize> {
        let Some(Opnd::Reg { r, .. }) = i.ops.first() else {
            bail!("RET without a return-address register")
        };
        let mut at = (0..LANES)
            .filter(|l| on >> l & 1 == 1)
            .map(|l| self.lanes[l].reg(*r));
        let first = at.next().context("RET with no lane")?;
        if at.any(|a| a != first) || first % 16 != 0 {
            bail!("return address {first:#x} not one 16-byte instruction for all lanes")
        }
        Ok(first as usize / 16)
    }

    fn each(&mut self, on: u32, mut f: impl FnMut(&mut Machine) -> Result<()>) -> Result<()> {
        for (l, m) in self.lanes.iter_mut().enumerate() {
            if on >> l & 1 == 1 {
                f(m)?;
            }
        }
        Ok(())
    }

    /// Lane `l`'s shared address: a 32-bit register, a uniform register and
    /// an offset.
    pub(super) fn shared_addr(&self, l: usize, o: &Opnd) -> Result<usize> {
        let m = &self.lanes[l];
        let a = match *o {
            Opnd::Mem(r, off) => (m.reg(r) as i64).wrapping_add(off),
            Opnd::MemUr(r, ur, off) => (m.reg(r) as i64 + m.ureg(ur) as i64).wrapping_add(off),
            _ => bail!("expected a shared address, got {o:?}"),
        };
        usize::try_from(a).context("negative shared address")
    }

    /// `n` bytes of shared memory at `a`, little-endian.
    pub(super) fn sload(&self, a: usize, n: usize) -> Result<u64> {
        let s = self
            .shared
            .get(a..a + n)
            .with_context(|| format!("shared access of {n} bytes at {a:#x} out of range"))?;
        Ok(s.iter().rev().fold(0, |v, &b| v << 8 | u64::from(b)))
    }

    pub(super) fn sstore(&mut self, a: usize, n: usize, v: u64) -> Result<()> {
        let s = self
            .shared
            .get_mut(a..a + n)
            .with_context(|| format!("shared access of {n} bytes at {a:#x} out of range"))?;
        for (k, b) in s.iter_mut().enumerate() {
            *b = (v >> (8 * k)) as u8;
        }
        Ok(())
    }

    /// `LDS`: 1, 2 (extended), 4, 8 or 16 bytes into consecutive registers.
    fn lds(&mut self, i: &SInst, on: u32) -> Result<()> {
        i.need(2)?;
        let d = Machine::dst(&i.ops[0])?;
        let (n, signed) = Machine::width(i);
        for l in (0..LANES).filter(|l| on >> l & 1 == 1) {
            let a = self.shared_addr(l, &i.ops[1])?;
            let words = n.div_ceil(4);
            for w in 0..words {
                let v = self.sload(a + 4 * w, n.min(4))?;
                let v = match (n, signed) {
                    (1, true) => v as u8 as i8 as i32 as u32,
                    (2, true) => v as u16 as i16 as i32 as u32,
                    _ => v as u32,
                };
                self.lanes[l].set(d.wrapping_add(w as u8), v);
            }
        }
        Ok(())
    }

    /// `STS`: the low `n` bytes of consecutive registers.
    fn sts(&mut self, i: &SInst, on: u32) -> Result<()> {
        i.need(2)?;
        let Opnd::Reg { r, .. } = i.ops[1] else {
            bail!("STS source")
        };
        let (n, _) = Machine::width(i);
        for l in (0..LANES).filter(|l| on >> l & 1 == 1) {
            let a = self.shared_addr(l, &i.ops[0])?;
            for w in 0..n.div_ceil(4) {
                let reg = if r == RZ { RZ } else { r + w as u8 };
                let v = self.lanes[l].reg(reg);
                self.sstore(a + 4 * w, n.min(4), u64::from(v))?;
            }
        }
        Ok(())
    }

    /// The matrix count (`.2`, `.4`; one without) and `.MT88` of LDSM/STSM.
    fn matrices(i: &SInst) -> Result<(usize, bool)> {
        if !i.has("16") {
            bail!("{} without .16 not modelled", i.op)
        }
        let count = if i.has("4") {
            4
        } else if i.has("2") {
            2
        } else {
            1
        };
        let trans = i.has("MT88");
        if !trans && !i.has("M88") {
            bail!("{}: neither M88 nor MT88", i.op)
        }
        Ok((count, trans))
    }

    /// The shared address of row `row` of matrix `k` (given by lane `8k + row`)
    /// and the byte offset of element `(row, col)` in it.
    fn element(&self, i: &SInst, addr: usize, k: usize, row: usize, col: usize) -> Result<usize> {
        Ok(self.shared_addr(8 * k + row, &i.ops[addr])? + 2 * col)
    }

    /// Where lane `l`'s half `h` of matrix `k` lives: `(row, col)` of the
    /// stored matrix.
    fn place(l: usize, h: usize, trans: bool) -> (usize, usize) {
        let (r, c) = (l / 4, 2 * (l % 4) + h);
        if trans {
            (c, r)
        } else {
            (r, c)
        }
    }

    /// `LDSM.16.{M88,MT88}{,.2,.4} Rd, [addr]`.
    fn ldsm(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let (count, trans) = Self::matrices(i)?;
        let d = Machine::dst(&i.ops[0])?;
        let mut out = [[0u32; 4]; LANES];
        for (l, o) in out.iter_mut().enumerate() {
            for (k, reg) in o.iter_mut().enumerate().take(count) {
                for h in 0..2 {
                    let (row, col) = Self::place(l, h, trans);
                    let a = self.element(i, 1, k, row, col)?;
                    *reg |= (self.sload(a, 2)? as u32) << (16 * h);
                }
            }
        }
        for (l, o) in out.iter().enumerate() {
            for (k, &v) in o.iter().enumerate().take(count) {
                if d != RZ {
                    self.lanes[l].set(d + k as u8, v);
                }
            }
        }
        Ok(())
    }

    /// `STSM.16.{M88,MT88}{,.2,.4} [addr], Rs`.
    fn stsm(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let (count, trans) = Self::matrices(i)?;
        let Opnd::Reg { r, .. } = i.ops[1] else {
            bail!("STSM source")
        };
        for l in 0..LANES {
            for k in 0..count {
                let reg = if r == RZ { RZ } else { r + k as u8 };
                let v = self.lanes[l].reg(reg);
                for h in 0..2 {
                    let (row, col) = Self::place(l, h, trans);
                    let a = self.element(i, 0, k, row, col)?;
                    self.sstore(a, 2, u64::from(v >> (16 * h) & 0xffff))?;
                }
            }
        }
        Ok(())
    }

    /// `MOVM.16.MT88 Rd, Rs`: the warp's 8x8 matrix (element `(r, c)` in
    /// lane `4r + c/2`, half `c % 2`) transposed.
    fn movm(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        if !(i.has("16") && i.has("MT88")) {
            bail!("MOVM other than .16.MT88 not modelled")
        }
        let d = Machine::dst(&i.ops[0])?;
        let Opnd::Reg { r: s, .. } = i.ops[1] else {
            bail!("MOVM source")
        };
        let src: Vec<u32> = self.lanes.iter().map(|m| m.reg(s)).collect();
        let half = |r: usize, c: usize| src[4 * r + c / 2] >> (16 * (c % 2)) & 0xffff;
        for (l, m) in self.lanes.iter_mut().enumerate() {
            // Lane l receives row l/4 of the transpose: column l/4 of the source.
            let (r, c) = (l / 4, 2 * (l % 4));
            m.set(d, half(c, r) | half(c + 1, r) << 16);
        }
        Ok(())
    }
}

/// `HADD2.F32 Rd, a, b`: the low halves of `a` and `b` (after their
/// `.H0_H0`/`.H1_H1` selection and negation), as f16 values, added in f32
/// (`wmma.mma` with f16 `c` and f32 `d` widens `c` with `-RZ + c`). The
/// exact sum of two f16 values has fewer than 53 bits, so f64 holds it and
/// one cast rounds it to nearest even. A NaN gives `0x7fffffff` (the f32
/// opcodes' NaN).
fn hadd2_f32(m: &mut Machine, i: &SInst) -> Result<()> {
    i.need(3)?;
    if i.mods.iter().any(|x| x != "F32") {
        bail!("HADD2.F32 with other modifiers not modelled")
    }
    let x = |o: &Opnd| -> Result<f64> { Ok(f64::from(half::f16::from_bits(m.halves(o)?[0]))) };
    let sum = x(&i.ops[1])? + x(&i.ops[2])?;
    let v = if sum.is_nan() {
        0x7fff_ffff
    } else {
        (sum as f32).to_bits()
    };
    m.set(Machine::dst(&i.ops[0])?, v);
    Ok(())
}

/// `IADD3.X Rd, a, b, c, Pa, Pb`: the high word of a 64-bit add, `a + b + c`
/// plus the two carries in (`!PT` is none). Carries out (`IADD3.X Rd, P0,
/// ...`) and negated sources are not modelled.
fn iadd3_x(m: &mut Machine, i: &SInst) -> Result<()> {
    i.need(6)?;
    let o = &i.ops;
    if matches!(o[1], Opnd::Pred { .. }) {
        bail!("IADD3.X with carries out not modelled")
    }
    let mut sum = 0u32;
    for x in &o[1..4] {
        let v = match *x {
            Opnd::Reg { neg: true, .. } => bail!("IADD3.X with a negated source not modelled"),
            Opnd::Reg { r, not: true, .. } => !m.reg(r),
            _ => m.int(x)?,
        };
        sum = sum.wrapping_add(v);
    }
    for p in &o[4..6] {
        sum = sum.wrapping_add(u32::from(m.pred(p)?));
    }
    m.set(Machine::dst(&o[0])?, sum);
    Ok(())
}

/// `PLOP3.LUT Pd, Pe, a, b, c, lut, lut2` with register sources written
/// `R5.SIGN`: such a source is the register's sign bit, a predicate source
/// its value. `Pd` is entry `4a + 2b + c` of `lut` (as `LOP3`), `Pe` of
/// `lut2`.
fn plop3_sign(m: &mut Machine, i: &SInst) -> Result<()> {
    i.need(7)?;
    let o = &i.ops;
    let bit = |x: &Opnd| -> Result<u8> {
        Ok(match *x {
            Opnd::Reg {
                r,
                neg: false,
                not: false,
                abs: false,
                halves: None,
            } => (m.reg(r) >> 31) as u8,
            Opnd::Reg { .. } => bail!("PLOP3 with a modified register source"),
            _ => u8::from(m.pred(x)?),
        })
    };
    let idx = bit(&o[2])? << 2 | bit(&o[3])? << 1 | bit(&o[4])?;
    let (l1, l2) = (m.int(&o[5])?, m.int(&o[6])?);
    m.set_pred(&o[0], l1 >> idx & 1 != 0)?;
    m.set_pred(&o[1], l2 >> idx & 1 != 0)
}

/// The 64-bit `LEA` pair: `LEA Rd, P, a, b, s` is the low word of
/// `(a << s) + b` with its carry out in `P`; `LEA.HI.X Rd, a, b, c, s, P`
/// the high word: `c:a << s`'s high word plus `b` and the carry `P`.
fn lea_carry(m: &mut Machine, i: &SInst) -> Result<()> {
    let o = &i.ops;
    let extra = i.mods.iter().any(|x| !matches!(x.as_str(), "HI" | "X"));
    if i.has("HI") && i.has("X") && !extra {
        i.need(6)?;
        let (a, b, c, s) = (
            m.int(&o[1])?,
            m.int(&o[2])?,
            m.int(&o[3])?,
            m.int(&o[4])? & 63,
        );
        let hi = ((u64::from(c) << 32 | u64::from(a)) << s >> 32) as u32;
        let v = hi.wrapping_add(b).wrapping_add(u32::from(m.pred(&o[5])?));
        m.set(Machine::dst(&o[0])?, v);
    } else if i.mods.is_empty() {
        i.need(5)?;
        let (a, b, s) = (m.int(&o[2])?, m.int(&o[3])?, m.int(&o[4])? & 31);
        let sum = u64::from(a << s) + u64::from(b);
        m.set(Machine::dst(&o[0])?, sum as u32);
        m.set_pred(&o[1], sum >> 32 != 0)?;
    } else {
        bail!("LEA.{} with a carry not modelled", i.mods.join("."));
    }
    Ok(())
}

/// `LDG.E.128`/`STG.E.128` (and `LD`/`ST`): four consecutive registers
/// from or to 16 bytes, as two 8-byte halves.
fn access128(m: &mut Machine, i: &SInst) -> Result<()> {
    i.need(2)?;
    let load = matches!(i.op.as_str(), "LDG" | "LD");
    let (mem, reg) = if load {
        (&i.ops[1], &i.ops[0])
    } else {
        (&i.ops[0], &i.ops[1])
    };
    let a = m.addr(mem)?;
    let Opnd::Reg { r, .. } = *reg else {
        bail!("{} register operand", i.op)
    };
    let at = |k: u8| if r == RZ { RZ } else { r + k };
    for h in 0..2u8 {
        if load {
            let v = m.access(a + 8 * u64::from(h), 8, None)?;
            if r != RZ {
                m.set(r + 2 * h, v as u32);
                m.set(r + 2 * h + 1, (v >> 32) as u32);
            }
        } else {
            let v = u64::from(m.reg(at(2 * h + 1))) << 32 | u64::from(m.reg(at(2 * h)));
            m.access(a + 8 * u64::from(h), 8, Some(v))?;
        }
    }
    Ok(())
}
