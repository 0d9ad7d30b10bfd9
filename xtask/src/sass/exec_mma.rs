//! The tensor-core opcodes on a [`Warp`]: `HMMA.16816`/`HMMA.1688` (f16 or
//! `.BF16` sources, `.F32` or `.F16` accumulators), `HMMA.1684.F32.TF32`,
//! `IMMA.16832`/`IMMA.16816`/`IMMA.8816` (`S8`/`U8` sources, `.SAT`),
//! `BMMA.88128.AND.POPC` (and `.XOR.POPC`) and `DMMA.8x8x4` (`.RZ`, `.RM`,
//! `.RP`).
//!
//! `D = A B + C` on the warp's fragments (PTX ISA, "Matrix Fragments for
//! mma.m16n8k*", "mma.m8n8k16", "mma.m8n8k128", "mma.m16n8k4" (tf32),
//! written out in [`Shape`]; the same as CUTLASS CuTe's `MMA_Traits`
//! layouts for `SM80_16x8x{4,8,16,32}`, `SM80_8x8x16` and
//! `SM80_8x8x4_F64`). Values:
//! - integers: exact, the s32 sum wrapping, or clamped with `.SAT`;
//! - bits: `c` plus the count of ones of `a AND b` (`XOR`) over `k`, wrapping;
//! - f64: a chain of fused multiply-adds from `c` in `k` order, each
//!   rounded to nearest even (the manual's `.rn`; no finer rule is
//!   published), or in `.RZ`/`.RM`/`.RP`'s direction ([`fma_f64`]);
//! - f16/bf16/tf32 sources: [`super::mma_round`], MMA-Sim's Hopper model
//!   (tf32: the top 19 bits of each f32 source).

use super::decode::{Opnd, SInst};
use super::mma_round::{fma_f64, half_dot, Elem, Round};
use super::warp::{Warp, LANES};
use super::{Machine, RZ};
use anyhow::{bail, Result};

/// Element kinds of the sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    F16,
    Bf16,
    S8,
    U8,
    F64,
    Tf32,
    B1,
}

/// One form: its shape, source types (A, B), accumulator and registers.
#[derive(Clone, Copy, Debug)]
struct Shape {
    m: usize,
    k: usize,
    a: Src,
    b: Src,
    /// An f16 accumulator (C and D two halves to a register).
    acc16: bool,
    sat: bool,
    /// f64's rounding of each step.
    rnd: Round,
    /// BMMA: XOR (else AND) before the count.
    xor: bool,
}

impl Shape {
    /// Reads the opcode's modifiers; anything not listed is refused.
    fn of(i: &SInst) -> Result<Shape> {
        let mut s = Shape {
            m: 16,
            k: 0,
            a: Src::F16,
            b: Src::F16,
            acc16: false,
            sat: false,
            rnd: Round::Nearest,
            xor: false,
        };
        let mut popc = false;
        let mut ints = Vec::new();
        let mut acc = None;
        for m in &i.mods {
            match (i.op.as_str(), m.as_str()) {
                ("HMMA", "16816") | ("IMMA", "16816") => s.k = 16,
                ("HMMA", "1688") => s.k = 8,
                ("HMMA", "1684") => s.k = 4,
                ("HMMA", "TF32") => (s.a, s.b) = (Src::Tf32, Src::Tf32),
                ("IMMA", "8816") => (s.m, s.k) = (8, 16),
                ("BMMA", "88128") => (s.m, s.k) = (8, 128),
                ("BMMA", "AND") => s.xor = false,
                ("BMMA", "XOR") => s.xor = true,
                ("BMMA", "POPC") => popc = true,
                ("DMMA", "RZ") => s.rnd = Round::Zero,
                ("DMMA", "RM") => s.rnd = Round::Down,
                ("DMMA", "RP") => s.rnd = Round::Up,
                ("IMMA", "16832") => s.k = 32,
                ("DMMA", "8x8x4") => (s.m, s.k) = (8, 4),
                ("HMMA", "F32") => acc = Some(false),
                ("HMMA", "F16") => acc = Some(true),
                ("HMMA", "BF16") => (s.a, s.b) = (Src::Bf16, Src::Bf16),
                ("IMMA", "S8") => ints.push(Src::S8),
                ("IMMA", "U8") => ints.push(Src::U8),
                ("IMMA", "SAT") => s.sat = true,
                _ => bail!("{}.{m} not modelled", i.op),
            }
        }
        match i.op.as_str() {
            "HMMA" => match acc {
                // tf32 only on k4 into f32; k4 takes nothing else.
                Some(a)
                    if (s.k == 4) == (s.a == Src::Tf32) && s.k > 0 && !(a && s.a != Src::F16) =>
                {
                    s.acc16 = a
                }
                _ => bail!("HMMA form not modelled"),
            },
            "BMMA" if s.k == 128 && popc && i.has("AND") != i.has("XOR") => {
                (s.a, s.b) = (Src::B1, Src::B1)
            }
            "BMMA" => bail!("BMMA form not modelled"),
            "IMMA" => match ints[..] {
                [a, b] if s.k > 0 => (s.a, s.b) = (a, b),
                _ => bail!("IMMA form not modelled"),
            },
            _ if s.k == 4 => (s.a, s.b) = (Src::F64, Src::F64),
            _ => bail!("DMMA form not modelled"),
        }
        Ok(s)
    }

    /// Elements of A or B in one 32-bit register (f64: half of one).
    fn per_reg(&self) -> usize {
        match self.a {
            Src::B1 => 32,
            Src::S8 | Src::U8 => 4,
            Src::F16 | Src::Bf16 => 2,
            Src::F64 | Src::Tf32 => 1,
        }
    }

    /// Registers of A, B and C/D.
    fn regs(&self) -> [usize; 3] {
        if self.a == Src::F64 {
            return [2, 2, 4];
        }
        let elems = |n: usize| n / LANES / self.per_reg();
        [
            elems(self.m * self.k),
            elems(self.k * 8),
            self.m * 8 / LANES / if self.acc16 { 2 } else { 1 },
        ]
    }

    /// `(row, col)` of A's element `j` of register `r` in lane `l`.
    fn a_at(&self, l: usize, r: usize, j: usize) -> (usize, usize) {
        let (g, t, p) = (l / 4, l % 4, self.per_reg());
        if self.a == Src::F64 {
            return (g, t);
        }
        (g + 8 * (r % 2), t * p + j + 4 * p * (r / 2))
    }

    /// `(row, col)` of B's element `j` of register `r` in lane `l`.
    fn b_at(&self, l: usize, r: usize, j: usize) -> (usize, usize) {
        let (g, t, p) = (l / 4, l % 4, self.per_reg());
        if self.a == Src::F64 {
            return (t, g);
        }
        (t * p + j + 4 * p * r, g)
    }

    /// `(row, col)` of C/D's element `j` of register `r` in lane `l` (for
    /// f64, `r` counts register pairs).
    fn c_at(&self, l: usize, r: usize, j: usize) -> (usize, usize) {
        let (g, t) = (l / 4, l % 4);
        if self.a == Src::F64 {
            (g, 2 * t + r)
        } else if self.acc16 {
            (g + 8 * r, 2 * t + j)
        } else {
            (g + 8 * (r / 2), 2 * t + r % 2)
        }
    }
}

/// The largest matrices: A 16 x 32 (8 x 128 bits), B 32 x 8 (128 x 8
/// bits), C 16 x 8.
type MatA = [[u64; 128]; 16];
type MatB = [[u64; 8]; 128];
type MatC = [[u64; 8]; 16];

impl Warp {
    /// The register number of operand `k` (`RZ` reads zeros).
    fn base(i: &SInst, k: usize) -> Result<u8> {
        match i.ops.get(k) {
            Some(Opnd::Reg { r, .. }) => Ok(*r),
            o => bail!("{} operand {k}: expected a register, got {o:?}", i.op),
        }
    }

    /// Register `base + off` of lane `l` (RZ stays RZ).
    fn lane_reg(&self, l: usize, base: u8, off: usize) -> u32 {
        let r = if base == RZ { RZ } else { base + off as u8 };
        self.lanes[l].reg(r)
    }

    /// `HMMA`, `IMMA`, `BMMA`, `DMMA`: gather, multiply, scatter.
    pub(super) fn mma(&mut self, i: &SInst) -> Result<()> {
        i.need(4)?;
        let s = Shape::of(i)?;
        let [na, nb, nc] = s.regs();
        let (rd, ra, rb, rc) = (
            Machine::dst(&i.ops[0])?,
            Self::base(i, 1)?,
            Self::base(i, 2)?,
            Self::base(i, 3)?,
        );
        let mut a: MatA = [[0; 128]; 16];
        let mut b: MatB = [[0; 8]; 128];
        let mut c: MatC = [[0; 8]; 16];
        for l in 0..LANES {
            if s.a == Src::F64 {
                let pair = |base: u8, k: usize| {
                    u64::from(self.lane_reg(l, base, 2 * k + 1)) << 32
                        | u64::from(self.lane_reg(l, base, 2 * k))
                };
                let (ar, ac) = s.a_at(l, 0, 0);
                a[ar][ac] = pair(ra, 0);
                let (br, bc) = s.b_at(l, 0, 0);
                b[br][bc] = pair(rb, 0);
                for r in 0..2 {
                    let (cr, cc) = s.c_at(l, r, 0);
                    c[cr][cc] = pair(rc, r);
                }
                continue;
            }
            let p = s.per_reg();
            let bits = 32 / p;
            let mask = u64::MAX >> (64 - bits);
            for r in 0..na {
                let v = u64::from(self.lane_reg(l, ra, r));
                for j in 0..p {
                    let (x, y) = s.a_at(l, r, j);
                    a[x][y] = v >> (bits * j) & mask;
                }
            }
            for r in 0..nb {
                let v = u64::from(self.lane_reg(l, rb, r));
                for j in 0..p {
                    let (x, y) = s.b_at(l, r, j);
                    b[x][y] = v >> (bits * j) & mask;
                }
            }
            for r in 0..nc {
                let v = u64::from(self.lane_reg(l, rc, r));
                let halves = if s.acc16 { 2 } else { 1 };
                for j in 0..halves {
                    let (x, y) = s.c_at(l, r, j);
                    c[x][y] = if s.acc16 { v >> (16 * j) & 0xffff } else { v };
                }
            }
        }
        let mut d: MatC = [[0; 8]; 16];
        for (x, row) in d.iter_mut().enumerate().take(s.m) {
            for (y, out) in row.iter_mut().enumerate() {
                let col: Vec<u64> = (0..s.k).map(|z| b[z][y]).collect();
                *out = dot(&s, &a[x][..s.k], &col, c[x][y]);
            }
        }
        self.scatter(&s, rd, nc, &d);
        Ok(())
    }

    /// Writes `d` back through the C/D fragment layout.
    fn scatter(&mut self, s: &Shape, rd: u8, nd: usize, d: &MatC) {
        if rd == RZ {
            return;
        }
        for l in 0..LANES {
            let m = &mut self.lanes[l];
            if s.a == Src::F64 {
                for r in 0..2 {
                    let (x, y) = s.c_at(l, r, 0);
                    m.set(rd + 2 * r as u8, d[x][y] as u32);
                    m.set(rd + 2 * r as u8 + 1, (d[x][y] >> 32) as u32);
                }
            } else if s.acc16 {
                for r in 0..nd {
                    let (x0, y0) = s.c_at(l, r, 0);
                    let (x1, y1) = s.c_at(l, r, 1);
                    m.set(rd + r as u8, (d[x0][y0] | d[x1][y1] << 16) as u32);
                }
            } else {
                for r in 0..nd {
                    let (x, y) = s.c_at(l, r, 0);
                    m.set(rd + r as u8, d[x][y] as u32);
                }
            }
        }
    }
}

/// One element of D from row `a`, column `b` and `c` (their raw bits).
fn dot(s: &Shape, a: &[u64], b: &[u64], c: u64) -> u64 {
    match s.a {
        Src::S8 | Src::U8 => {
            let val = |t: Src, v: u64| -> i64 {
                if t == Src::S8 {
                    i64::from(v as u8 as i8)
                } else {
                    (v & 0xff) as i64
                }
            };
            let mut sum = i64::from(c as u32 as i32);
            for (&x, &y) in a.iter().zip(b) {
                sum += val(s.a, x) * val(s.b, y);
            }
            let r = if s.sat {
                sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
            } else {
                sum
            };
            u64::from(r as i32 as u32)
        }
        Src::F64 => a
            .iter()
            .zip(b)
            .fold(c, |acc, (&x, &y)| fma_f64(x, y, acc, s.rnd)),
        Src::B1 => {
            let ones: u32 = a
                .iter()
                .zip(b)
                .map(|(&x, &y)| if s.xor { x ^ y } else { x & y } as u32 & 1)
                .sum();
            u64::from((c as u32).wrapping_add(ones))
        }
        Src::Tf32 => {
            let top =
                |v: &[u64]| -> Vec<u64> { v.iter().map(|x| (x & 0xffff_ffff) >> 13).collect() };
            half_dot(Elem::Tf32, Elem::F32, &top(a), &top(b), c)
        }
        Src::F16 | Src::Bf16 => {
            let src = if s.a == Src::F16 {
                Elem::F16
            } else {
                Elem::Bf16
            };
            let acc = if s.acc16 { Elem::F16 } else { Elem::F32 };
            half_dot(src, acc, a, b, c)
        }
    }
}
