//! A small interpreter of the sm_90 machine code (SASS, as nvdisasm prints it)
//! that ptxas emits for the instructions sim-isa models (part 2).
//!
//! It runs a whole kernel of the shape `values.rs` generates: parameter loads
//! (`LDC`), global loads and stores (`LDG`/`STG`) against two byte buffers, and
//! the integer/compare/permute opcodes between them. Anything it does not know
//! is an error naming the opcode, never a guess.

use anyhow::{bail, Context, Result};

/// Fake device address of the input buffer (parameter 0).
pub const IN_BASE: u64 = 0x1000_0000;
/// Fake device address of the output buffer (parameter 1).
pub const OUT_BASE: u64 = 0x2000_0000;
const RZ: u8 = 255;
const PT: u8 = 7;

/// One operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Opnd {
    /// `R5`, `-R5`, `|R5|`, `~R5`, `R0.H1_H1` (RZ is 255).
    Reg {
        /// Register number.
        r: u8,
        /// `-` (integer or float negation, by opcode).
        neg: bool,
        /// `~` (bitwise not).
        not: bool,
        /// `|..|`.
        abs: bool,
        /// Half swizzle: `None` = H1_H0; `Some((hi, lo))` picks halves.
        halves: Option<(u8, u8)>,
    },
    /// `P0`, `!PT` (PT is 7).
    Pred {
        /// Predicate number.
        p: u8,
        /// `!`.
        not: bool,
    },
    /// A hexadecimal or integer immediate, raw bits.
    Imm(u64),
    /// A floating-point literal (`1`, `-2.5`, `+INF`, `QNAN` in float opcodes).
    FImm(f64),
    /// `c[bank][offset]`.
    Const(u32, u32),
    /// `[R6.64+0x20]` or `desc[UR4][R6.64+0x20]`.
    Mem(u8, i64),
    /// A uniform register `UR6` / `-UR6` (URZ is 255).
    UReg(u8, bool),
    /// A special register (`SR_TID.X`).
    Special(String),
}

/// One machine instruction.
#[derive(Clone, Debug)]
pub struct SInst {
    /// Guard predicate `@P0` / `@!P0`.
    pub guard: Option<(u8, bool)>,
    /// Opcode (`IMAD`).
    pub op: String,
    /// Modifiers (`["MOV", "U32"]`).
    pub mods: Vec<String>,
    /// Operands.
    pub ops: Vec<Opnd>,
    /// The text, for messages.
    pub text: String,
}

impl SInst {
    /// The boolean-combine modifier (`AND`/`OR`/`XOR`) of a compare.
    fn bool_mod(&self) -> Result<&String> {
        self.mods
            .iter()
            .find(|m| matches!(m.as_str(), "AND" | "OR" | "XOR"))
            .with_context(|| format!("{} boolean op", self.op))
    }

    /// The float-comparison modifier of `FSET`/`HSET2`/`HSETP2`.
    fn fcmp_mod(&self) -> Result<&String> {
        self.mods
            .iter()
            .find(|m| fcmp(m, 0.0, 0.0).is_ok())
            .with_context(|| format!("{} comparison", self.op))
    }

    fn has(&self, m: &str) -> bool {
        self.mods.iter().any(|x| x == m)
    }
}

fn parse_num(s: &str) -> Option<u64> {
    let (neg, t) = match s.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(h) = t.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()?
    } else {
        t.parse::<u64>().ok()?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

fn parse_reg(s: &str) -> Option<(u8, Option<(u8, u8)>)> {
    let mut parts = s.split('.');
    let base = parts.next()?;
    let r = if base == "RZ" {
        RZ
    } else {
        base.strip_prefix('R')?.parse().ok()?
    };
    let mut halves = None;
    for m in parts {
        match m {
            "reuse" | "64" | "U32" => {}
            "H0_H0" => halves = Some((0, 0)),
            "H1_H1" => halves = Some((1, 1)),
            "H1_H0" => halves = Some((1, 0)),
            "H0_H1" => halves = Some((0, 1)),
            "F32" => {}
            _ => return None,
        }
    }
    Some((r, halves))
}

fn parse_operand(s: &str, float_op: bool) -> Result<Opnd> {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix("desc[") {
        let (ureg, mem) = rest.split_once("][").context("descriptor")?;
        let _ = ureg;
        return parse_operand(&format!("[{mem}"), float_op);
    }
    if let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        let (base, off) = match inner.find(['+', '-']) {
            Some(i) => (
                &inner[..i],
                parse_num(&inner[i..]).context("memory offset")? as i64,
            ),
            None => (inner, 0),
        };
        let (r, _) = parse_reg(base).with_context(|| format!("memory base '{base}'"))?;
        return Ok(Opnd::Mem(r, off));
    }
    if let Some(rest) = s.strip_prefix("c[") {
        let (b, o) = rest
            .trim_end_matches(']')
            .split_once("][")
            .context("constant operand")?;
        let off = if o == "RZ" {
            0
        } else {
            parse_num(o).context("offset")? as u32
        };
        return Ok(Opnd::Const(parse_num(b).context("bank")? as u32, off));
    }
    if s.starts_with("SR_") {
        return Ok(Opnd::Special(s.to_string()));
    }
    let (not_p, t) = match s.strip_prefix('!') {
        Some(t) => (true, t),
        None => (false, s),
    };
    if t == "PT" || t == "UPT" {
        return Ok(Opnd::Pred { p: PT, not: not_p });
    }
    // Uniform predicates UP0.. live after the eight ordinary ones.
    if let Some(n) = t.strip_prefix("UP").and_then(|n| n.parse::<u8>().ok()) {
        return Ok(Opnd::Pred {
            p: 8 + n,
            not: not_p,
        });
    }
    if let Some(n) = t.strip_prefix('P').and_then(|n| n.parse::<u8>().ok()) {
        return Ok(Opnd::Pred { p: n, not: not_p });
    }
    let (uneg, ut) = match t.strip_prefix('-') {
        Some(x) => (true, x),
        None => (false, t),
    };
    if ut == "URZ" {
        return Ok(Opnd::UReg(RZ, uneg));
    }
    if let Some(n) = ut.strip_prefix("UR").and_then(|n| n.parse::<u8>().ok()) {
        return Ok(Opnd::UReg(n, uneg));
    }
    let (neg, t) = match t.strip_prefix('-') {
        Some(x) if x.starts_with(['R', '|']) => (true, x),
        _ => (false, t),
    };
    let (not, t) = match t.strip_prefix('~') {
        Some(x) => (true, x),
        None => (false, t),
    };
    let (abs, t) = match t.strip_prefix('|').and_then(|x| x.split_once('|')) {
        Some((inner, rest)) => (true, format!("{inner}{rest}")),
        None => (false, t.to_string()),
    };
    if let Some((r, halves)) = parse_reg(&t) {
        return Ok(Opnd::Reg {
            r,
            neg,
            not,
            abs,
            halves,
        });
    }
    match t.as_str() {
        "+INF" | "INF" => return Ok(Opnd::FImm(f64::INFINITY)),
        "-INF" => return Ok(Opnd::FImm(f64::NEG_INFINITY)),
        "+QNAN" | "QNAN" | "NAN" => return Ok(Opnd::FImm(f64::NAN)),
        _ => {}
    }
    if float_op && !t.starts_with("0x") && !t.starts_with("-0x") {
        if let Ok(f) = t.parse::<f64>() {
            return Ok(Opnd::FImm(f));
        }
    }
    if let Some(v) = parse_num(&t) {
        return Ok(Opnd::Imm(v));
    }
    if let Ok(f) = t.parse::<f64>() {
        return Ok(Opnd::FImm(f));
    }
    bail!("cannot read operand '{s}'")
}

/// Parses one disassembly line (`/*0070*/  @!P0 PRMT R4, R0, 0x3210, R5 ;`).
/// Returns `None` for lines that are not instructions.
pub fn parse_line(line: &str) -> Result<Option<SInst>> {
    let l = line.trim();
    let Some(rest) = l.strip_prefix("/*") else {
        return Ok(None);
    };
    let Some((_, body)) = rest.split_once("*/") else {
        return Ok(None);
    };
    let body = body.trim().trim_end_matches(';').trim();
    if body.is_empty() {
        return Ok(None);
    }
    let (guard, body) = if let Some(g) = body.strip_prefix('@') {
        let (g, rest) = g.split_once(char::is_whitespace).context("guard")?;
        let (not, g) = match g.strip_prefix('!') {
            Some(x) => (true, x),
            None => (false, g),
        };
        let p = if g == "PT" {
            PT
        } else {
            g.strip_prefix('P')
                .and_then(|n| n.parse().ok())
                .context("guard predicate")?
        };
        (Some((p, not)), rest.trim())
    } else {
        (None, body)
    };
    let (opcode, operands) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    let mut parts = opcode.split('.');
    let op = parts.next().unwrap_or("").to_string();
    let mods: Vec<String> = parts.map(String::from).collect();
    let float_op = op.starts_with('F') || op.starts_with('H') || op.starts_with('D');
    let ops = if operands.trim().is_empty() || op == "BRA" {
        Vec::new()
    } else {
        operands
            .split(',')
            .map(|o| parse_operand(o, float_op))
            .collect::<Result<Vec<_>>>()
            .with_context(|| format!("in '{body}'"))?
    };
    Ok(Some(SInst {
        guard,
        op,
        mods,
        ops,
        text: body.to_string(),
    }))
}

/// Splits nvdisasm output into `(function name, instructions)`.
pub fn parse_listing(text: &str) -> Result<Vec<(String, Vec<SInst>)>> {
    let mut out: Vec<(String, Vec<SInst>)> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix(".text.").and_then(|n| n.strip_suffix(':')) {
            out.push((name.to_string(), Vec::new()));
            continue;
        }
        // An unreadable line fails only its own function, when executed.
        let inst = match parse_line(t) {
            Ok(i) => i,
            Err(e) => Some(SInst {
                guard: None,
                op: "?".into(),
                mods: vec![],
                ops: vec![],
                text: format!("{t} ({e:#})"),
            }),
        };
        if let (Some(i), Some(last)) = (inst, out.last_mut()) {
            last.1.push(i);
        }
    }
    Ok(out)
}

/// Machine state: registers, predicates and the two buffers.
#[derive(Clone, Debug)]
pub struct Machine {
    /// R0..R254 (RZ reads 0).
    pub r: [u32; 256],
    /// P0..P6 (PT is P7, always true), then UP0..UP6 from index 8.
    pub p: [bool; 16],
    /// Uniform registers UR0..UR63.
    pub ur: [u32; 64],
    /// `%tid.x`, `%ctaid.x`, `%ntid.x` and the third kernel parameter
    /// (the GPU harness's vector count), for per-thread kernels.
    pub thread: [u32; 4],
    /// Input buffer at [`IN_BASE`].
    pub input: Vec<u8>,
    /// Output buffer at [`OUT_BASE`].
    pub output: Vec<u8>,
}

fn f16_to_f64(h: u16) -> f64 {
    half::f16::from_bits(h).to_f64()
}
fn bf16_to_f64(h: u16) -> f64 {
    half::bf16::from_bits(h).to_f64()
}
fn ftz32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}
fn ftz16(x: u16) -> u16 {
    if x & 0x7c00 == 0 {
        x & 0x8000
    } else {
        x
    }
}

/// A float comparison by SASS name (`LT`, `GEU`, `NUM`, ...).
pub fn fcmp(name: &str, a: f64, b: f64) -> Result<bool> {
    let un = a.is_nan() || b.is_nan();
    Ok(match name {
        "F" => false,
        "T" => true,
        "LT" => !un && a < b,
        "EQ" => !un && a == b,
        "LE" => !un && a <= b,
        "GT" => !un && a > b,
        "NE" => !un && a != b,
        "GE" => !un && a >= b,
        "NUM" => !un,
        "NAN" => un,
        "LTU" => un || a < b,
        "EQU" => un || a == b,
        "LEU" => un || a <= b,
        "GTU" => un || a > b,
        "NEU" => un || a != b,
        "GEU" => un || a >= b,
        _ => bail!("unknown float comparison {name}"),
    })
}

fn icmp(name: &str, a: i64, b: i64) -> Result<bool> {
    Ok(match name {
        "F" => false,
        "T" => true,
        "LT" => a < b,
        "EQ" => a == b,
        "LE" => a <= b,
        "GT" => a > b,
        "NE" => a != b,
        "GE" => a >= b,
        _ => bail!("unknown integer comparison {name}"),
    })
}

fn boolop(name: &str, t: bool, c: bool) -> Result<bool> {
    Ok(match name {
        "AND" => t && c,
        "OR" => t || c,
        "XOR" => t ^ c,
        _ => bail!("unknown boolean operation {name}"),
    })
}

/// Applies a LOP3 truth table bitwise.
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut r = 0u32;
    for bit in 0..32 {
        let idx = (((a >> bit) & 1) << 2) | (((b >> bit) & 1) << 1) | ((c >> bit) & 1);
        r |= (((lut >> idx) & 1) as u32) << bit;
    }
    r
}

/// PRMT: byte `i` of the result is chosen by nibble `i` of `sel` from the
/// eight bytes `{b, a}` (a = bytes 0-3); nibble bit 3 replicates the chosen
/// byte's sign bit instead (`0x8880` sign-extends byte 0, `0x9910` half 0).
pub fn prmt(a: u32, sel: u32, b: u32) -> u32 {
    let src = ((b as u64) << 32) | a as u64;
    let mut r = 0u32;
    for i in 0..4 {
        let n = (sel >> (4 * i)) & 0xf;
        let byte = ((src >> (8 * (n & 7))) & 0xff) as u32;
        let v = if n & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        r |= v << (8 * i);
    }
    r
}

impl Machine {
    /// A machine with the given input bytes and an output buffer of `out_len` zero bytes.
    pub fn new(input: Vec<u8>, out_len: usize) -> Self {
        Machine {
            r: [0; 256],
            p: [false; 16],
            ur: [0; 64],
            thread: [0, 0, 1, 1],
            input,
            output: vec![0; out_len],
        }
    }

    fn reg(&self, r: u8) -> u32 {
        if r == RZ {
            0
        } else {
            self.r[r as usize]
        }
    }
    fn ureg(&self, r: u8) -> u32 {
        if r == RZ {
            0
        } else {
            self.ur[(r & 63) as usize]
        }
    }
    fn set(&mut self, r: u8, v: u32) {
        if r != RZ {
            self.r[r as usize] = v;
        }
    }
    fn pred(&self, o: &Opnd) -> Result<bool> {
        match o {
            Opnd::Pred { p, not } => Ok((*p == PT || self.p[*p as usize]) ^ not),
            _ => bail!("expected a predicate, got {o:?}"),
        }
    }
    fn set_pred(&mut self, o: &Opnd, v: bool) -> Result<()> {
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
    fn dst(o: &Opnd) -> Result<u8> {
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
    fn konst(&self, bank: u32, off: u32) -> Result<u32> {
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
    fn int(&self, o: &Opnd) -> Result<u32> {
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
    fn f32v(&self, o: &Opnd) -> Result<u32> {
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
    fn f64v(&self, o: &Opnd) -> Result<f64> {
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
    fn halves(&self, o: &Opnd) -> Result<[u16; 2]> {
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

    fn addr(&self, o: &Opnd) -> Result<u64> {
        match o {
            Opnd::Mem(r, off) => {
                let lo = self.reg(*r) as u64;
                let hi = self.reg(r.wrapping_add(1)) as u64;
                Ok(((hi << 32) | lo).wrapping_add(*off as u64))
            }
            _ => bail!("expected a memory operand, got {o:?}"),
        }
    }

    fn access(&mut self, addr: u64, n: usize, write: Option<u64>) -> Result<u64> {
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

    fn width(i: &SInst) -> (usize, bool) {
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

    /// Runs `prog` until `EXIT`. Returns the number of instructions executed.
    pub fn run(&mut self, prog: &[SInst]) -> Result<usize> {
        for (n, i) in prog.iter().enumerate() {
            if let Some((p, not)) = i.guard {
                if !((p == PT || self.p[p as usize]) ^ not) {
                    continue;
                }
            }
            if i.op == "EXIT" {
                return Ok(n);
            }
            self.step(i)
                .with_context(|| format!("executing '{}'", i.text))?;
        }
        bail!("program ran off its end without EXIT")
    }

    /// Executes one instruction (guard already checked).
    pub fn step(&mut self, i: &SInst) -> Result<()> {
        // Uniform-datapath twins (ULOP3, UIADD3, ...) compute the same thing on
        // uniform registers: run the vector form, then move the result over.
        if let Some(base) = i.op.strip_prefix('U') {
            if matches!(
                base,
                "LOP3"
                    | "IADD3"
                    | "IMAD"
                    | "SEL"
                    | "PRMT"
                    | "SHF"
                    | "LEA"
                    | "MOV"
                    | "ISETP"
                    | "IABS"
            ) {
                let Some(Opnd::UReg(d, false)) = i.ops.first().cloned() else {
                    bail!("uniform op without a uniform destination")
                };
                let mut j = i.clone();
                j.op = base.to_string();
                j.ops[0] = Opnd::Reg {
                    r: 254,
                    neg: false,
                    not: false,
                    abs: false,
                    halves: None,
                };
                let saved = self.r[254];
                self.step(&j)?;
                if d != RZ {
                    self.ur[(d & 63) as usize] = self.r[254];
                }
                self.r[254] = saved;
                return Ok(());
            }
        }
        let o = &i.ops;
        let need = |k: usize| -> Result<()> {
            if o.len() < k {
                bail!("{} needs {k} operands", i.op)
            }
            Ok(())
        };
        match i.op.as_str() {
            "NOP" | "BRA" | "DEPBAR" | "MEMBAR" => {}
            "UMOV" | "ULDC" => {
                need(2)?;
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
            }
            "LDC" => {
                need(2)?;
                let d = Self::dst(&o[0])?;
                let Opnd::Const(b, off) = o[1] else {
                    bail!("LDC source")
                };
                self.set(d, self.konst(b, off)?);
                if i.has("64") {
                    self.set(d + 1, self.konst(b, off + 4)?);
                }
            }
            "MOV" => {
                need(2)?;
                let v = self.int(&o[1])?;
                self.set(Self::dst(&o[0])?, v);
            }
            "LDG" | "LD" => {
                need(2)?;
                let d = Self::dst(&o[0])?;
                let (n, signed) = Self::width(i);
                let a = self.addr(&o[1])?;
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
            }
            "STG" | "ST" => {
                need(2)?;
                let a = self.addr(&o[0])?;
                let (n, _) = Self::width(i);
                let Opnd::Reg { r, .. } = o[1] else {
                    bail!("store source")
                };
                let v = match n {
                    8 => (self.reg(r + 1) as u64) << 32 | self.reg(r) as u64,
                    _ => self.reg(r) as u64,
                };
                self.access(a, n, Some(v))?;
            }
            "S2R" | "S2UR" => {
                need(2)?;
                let Opnd::Special(sr) = &o[1] else {
                    bail!("special register source")
                };
                let v = match sr.as_str() {
                    "SR_TID.X" => self.thread[0],
                    "SR_CTAID.X" => self.thread[1],
                    _ => bail!("special register {sr} not modelled"),
                };
                match o[0] {
                    Opnd::UReg(d, false) if d != RZ => self.ur[(d & 63) as usize] = v,
                    _ => self.set(Self::dst(&o[0])?, v),
                }
            }
            "IMAD" if i.has("WIDE") => {
                need(4)?;
                let (a, b) = (self.int(&o[1])?, self.int(&o[2])?);
                let c = match &o[3] {
                    Opnd::Reg {
                        r,
                        neg: false,
                        not: false,
                        abs: false,
                        ..
                    } if *r != RZ => (self.reg(r + 1) as u64) << 32 | self.reg(*r) as u64,
                    Opnd::Reg { r: RZ, .. } => 0,
                    x => bail!("IMAD.WIDE addend {x:?}"),
                };
                let prod = if i.has("U32") {
                    a as u64 * b as u64
                } else {
                    (a as i32 as i64 * b as i32 as i64) as u64
                };
                let v = prod.wrapping_add(c);
                let d = Self::dst(&o[0])?;
                self.set(d, v as u32);
                self.set(d + 1, (v >> 32) as u32);
            }
            "IMAD" => {
                if i.has("HI") || i.has("X") {
                    bail!("IMAD form {:?} not modelled", i.mods);
                }
                need(4)?;
                let v = self
                    .int(&o[1])?
                    .wrapping_mul(self.int(&o[2])?)
                    .wrapping_add(self.int(&o[3])?);
                self.set(Self::dst(&o[0])?, v);
            }
            "IADD3" => {
                if i.has("X") {
                    bail!("IADD3.X not modelled");
                }
                // Optional carry-out predicates after the destination.
                let preds = o[1..]
                    .iter()
                    .take_while(|x| matches!(x, Opnd::Pred { .. }))
                    .count();
                need(4 + preds)?;
                let (a, b, c) = (
                    self.int(&o[1 + preds])?,
                    self.int(&o[2 + preds])?,
                    self.int(&o[3 + preds])?,
                );
                let wide = a as u64 + b as u64 + c as u64;
                self.set(Self::dst(&o[0])?, wide as u32);
                if preds > 0 {
                    if [&o[1 + preds], &o[2 + preds], &o[3 + preds]]
                        .iter()
                        .any(|x| {
                            matches!(x, Opnd::Reg { neg: true, .. } | Opnd::Reg { not: true, .. })
                        })
                    {
                        bail!("IADD3 carry-out with negated inputs not modelled");
                    }
                    self.set_pred(&o[1], (wide >> 32) & 1 != 0)?;
                    if preds > 1 {
                        self.set_pred(&o[2], (wide >> 33) & 1 != 0)?;
                    }
                }
            }
            "LOP3" => {
                let preds = usize::from(matches!(o.first(), Some(Opnd::Pred { .. })));
                need(6 + preds)?;
                let lut = self.int(&o[4 + preds])? as u8;
                let v = lop3(
                    self.int(&o[1 + preds])?,
                    self.int(&o[2 + preds])?,
                    self.int(&o[3 + preds])?,
                    lut,
                );
                if !matches!(o[5 + preds], Opnd::Pred { p: PT, not: true }) {
                    bail!("LOP3 with a predicate input other than !PT");
                }
                if preds == 1 {
                    self.set_pred(&o[0], v != 0)?;
                }
                self.set(Self::dst(&o[preds])?, v);
            }
            "PLOP3" => {
                need(7)?;
                let (a, b, c) = (self.pred(&o[2])?, self.pred(&o[3])?, self.pred(&o[4])?);
                let idx = (a as u8) << 2 | (b as u8) << 1 | c as u8;
                let l1 = self.int(&o[5])? as u8;
                let l2 = self.int(&o[6])? as u8;
                self.set_pred(&o[0], (l1 >> idx) & 1 != 0)?;
                self.set_pred(&o[1], (l2 >> idx) & 1 != 0)?;
            }
            "PRMT" => {
                need(4)?;
                if i.mods.iter().any(|m| m != "reuse") {
                    bail!("PRMT mode {:?} not modelled", i.mods);
                }
                let v = prmt(self.int(&o[1])?, self.int(&o[2])?, self.int(&o[3])?);
                self.set(Self::dst(&o[0])?, v);
            }
            "SHF" => {
                need(4)?;
                let left = i.has("L");
                let (lo, sh, hi) = (self.int(&o[1])?, self.int(&o[2])?, self.int(&o[3])?);
                let is64 = i.has("U64") || i.has("S64");
                let signed = i.has("S32") || i.has("S64");
                let sh = if is64 { sh & 63 } else { sh.min(32) };
                let x = ((hi as u64) << 32) | lo as u64;
                let r = if left {
                    x << sh
                } else if signed {
                    ((x as i64) >> sh) as u64
                } else {
                    x >> sh
                };
                let v = if i.has("HI") {
                    (r >> 32) as u32
                } else {
                    r as u32
                };
                self.set(Self::dst(&o[0])?, v);
            }
            "LEA" => {
                if i.has("X") {
                    bail!("LEA.X not modelled");
                }
                let d = Self::dst(&o[0])?;
                if i.has("HI") && i.has("SX32") {
                    need(4)?;
                    let (a, b, s) = (self.int(&o[1])?, self.int(&o[2])?, self.int(&o[3])?);
                    let x = (a as i32 as i64 as u64) << (s & 63);
                    self.set(d, ((x >> 32) as u32).wrapping_add(b));
                } else if i.has("HI") {
                    need(5)?;
                    let (a, b, c, s) = (
                        self.int(&o[1])?,
                        self.int(&o[2])?,
                        self.int(&o[3])?,
                        self.int(&o[4])?,
                    );
                    let x = ((c as u64) << 32 | a as u64) << (s & 63);
                    self.set(d, ((x >> 32) as u32).wrapping_add(b));
                } else {
                    need(4)?;
                    let (a, b, s) = (self.int(&o[1])?, self.int(&o[2])?, self.int(&o[3])?);
                    self.set(d, (a << (s & 31)).wrapping_add(b));
                }
            }
            "SEL" | "FSEL" => {
                need(4)?;
                // FSEL's `-`/`|..|` are float sign operations, SEL's integer ones.
                let src = |m: &Self, x: &Opnd| if i.op == "FSEL" { m.f32v(x) } else { m.int(x) };
                let v = if self.pred(&o[3])? {
                    src(self, &o[1])?
                } else {
                    src(self, &o[2])?
                };
                self.set(Self::dst(&o[0])?, v);
            }
            "IABS" => {
                need(2)?;
                let v = (self.int(&o[1])? as i32).wrapping_abs() as u32;
                self.set(Self::dst(&o[0])?, v);
            }
            "VIMNMX" | "IMNMX" => {
                need(4)?;
                let (a, b) = (self.int(&o[1])?, self.int(&o[2])?);
                let min = self.pred(&o[3])?;
                let v = if i.has("U32") {
                    if min {
                        a.min(b)
                    } else {
                        a.max(b)
                    }
                } else if min {
                    (a as i32).min(b as i32) as u32
                } else {
                    (a as i32).max(b as i32) as u32
                };
                self.set(Self::dst(&o[0])?, v);
            }
            "I2I" => {
                need(2)?;
                let dst = i.mods.first().map(String::as_str).unwrap_or("");
                let src_signed = !i.has("U32");
                let x = self.int(&o[1])?;
                let x = if src_signed {
                    x as i32 as i64
                } else {
                    x as i64
                };
                let (lo, hi) = match dst {
                    "U8" => (0, 255),
                    "S8" => (-128, 127),
                    "U16" => (0, 65535),
                    "S16" => (-32768, 32767),
                    _ => bail!("I2I to {dst}"),
                };
                if !i.has("SAT") {
                    bail!("I2I without .SAT not modelled");
                }
                let v = x.clamp(lo, hi);
                let bits = if dst.ends_with('8') { 8 } else { 16 };
                let v = if lo < 0 {
                    ((v << (64 - bits)) >> (64 - bits)) as u32
                } else {
                    v as u32
                };
                self.set(Self::dst(&o[0])?, v);
            }
            "I2F" | "I2FP" => {
                need(2)?;
                let x = self.int(&o[1])?;
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
                self.set(Self::dst(&o[0])?, out);
            }
            "FADD" => {
                need(3)?;
                let ftz = i.has("FTZ");
                let f = |x: u32| if ftz { ftz32(x) } else { x };
                let v = f32::from_bits(f(self.f32v(&o[1])?)) + f32::from_bits(f(self.f32v(&o[2])?));
                self.set(Self::dst(&o[0])?, f(v.to_bits()));
            }
            "ISETP" => {
                need(5)?;
                let cmp = i.mods.first().context("ISETP comparison")?;
                let unsigned = i.has("U32");
                let bop = i.bool_mod()?;
                let (a, b) = (self.int(&o[2])?, self.int(&o[3])?);
                let (x, y) = if unsigned {
                    (a as i64, b as i64)
                } else {
                    (a as i32 as i64, b as i32 as i64)
                };
                let t = if i.has("EX") {
                    need(6)?;
                    let pex = self.pred(&o[5])?;
                    match cmp.as_str() {
                        "EQ" => x == y && pex,
                        "NE" => x != y || pex,
                        "LT" | "LE" => x < y || (x == y && pex),
                        "GT" | "GE" => x > y || (x == y && pex),
                        _ => bail!("ISETP.EX comparison {cmp}"),
                    }
                } else {
                    icmp(cmp, x, y)?
                };
                let c = self.pred(&o[4])?;
                let (p, q) = (boolop(bop, t, c)?, boolop(bop, !t, c)?);
                self.set_pred(&o[0], p)?;
                self.set_pred(&o[1], q)?;
            }
            "FSETP" | "DSETP" => {
                need(5)?;
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
                self.set_pred(&o[1], boolop(bop, !t, c)?)?;
            }
            "FSET" => {
                need(4)?;
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
            }
            "HSET2" | "HSETP2" => {
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
                let (ai, bi, ci) = if i.op == "HSET2" {
                    (1, 2, 3)
                } else {
                    (2, 3, 4)
                };
                need(ci + 1)?;
                let (a, b) = (self.halves(&o[ai])?, self.halves(&o[bi])?);
                let c = self.pred(&o[ci])?;
                let mut t = [false; 2];
                for k in 0..2 {
                    t[k] = boolop(bop, fcmp(cmp, conv(a[k]), conv(b[k]))?, c)?;
                }
                if i.op == "HSETP2" {
                    if i.has("H_AND") {
                        bail!("HSETP2.H_AND not modelled");
                    }
                    self.set_pred(&o[0], t[0])?;
                    self.set_pred(&o[1], t[1])?;
                } else {
                    let one: u32 = if !i.has("BF") {
                        0xffff
                    } else if bf16 {
                        0x3f80
                    } else {
                        0x3c00
                    };
                    let v = (if t[1] { one } else { 0 }) << 16 | if t[0] { one } else { 0 };
                    self.set(Self::dst(&o[0])?, v);
                }
            }
            "VABSDIFF4" => {
                // The one native video opcode: |a-b| per byte, unsigned with .U8
                // and signed without (nvdisasm prints no .S8); .ACC adds the four
                // differences to c, otherwise each lands in its byte. (From the PTX
                // definition: the only opcode whose meaning cannot be cross-checked
                // here.)
                need(4)?;
                if i.mods.iter().any(|m| !matches!(m.as_str(), "U8" | "ACC")) {
                    bail!("VABSDIFF4 form {:?} not modelled", i.mods);
                }
                let (a, b, c) = (self.int(&o[1])?, self.int(&o[2])?, self.int(&o[3])?);
                let byte = |x: u32, k: u32| -> i32 {
                    let v = (x >> (8 * k)) & 0xff;
                    if i.has("U8") {
                        v as i32
                    } else {
                        v as u8 as i8 as i32
                    }
                };
                let d: Vec<u32> = (0..4)
                    .map(|k| (byte(a, k) - byte(b, k)).unsigned_abs())
                    .collect();
                let v = if i.has("ACC") {
                    d.iter().fold(c, |s, x| s.wrapping_add(*x))
                } else {
                    d.iter()
                        .enumerate()
                        .fold(0, |s, (k, x)| s | (x & 0xff) << (8 * k))
                };
                self.set(Self::dst(&o[0])?, v);
            }
            "HFMA2" => {
                // Only the constant-materialising form `HFMA2.MMA Rd, -RZ, RZ, hi, lo`.
                need(5)?;
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
            }
            "?" => bail!("unreadable instruction"),
            other => bail!("opcode {other} not modelled"),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run1(line: &str, setup: &[(u8, u32)], preds: &[(u8, bool)]) -> Machine {
        let i = parse_line(&format!("/*0000*/ {line} ;")).unwrap().unwrap();
        let mut m = Machine::new(vec![0; 64], 64);
        for &(r, v) in setup {
            m.r[r as usize] = v;
        }
        for &(p, v) in preds {
            m.p[p as usize] = v;
        }
        if let Some((p, not)) = i.guard {
            if !((p == PT || m.p[p as usize]) ^ not) {
                return m;
            }
        }
        m.step(&i).unwrap();
        m
    }

    #[test]
    fn prmt_plain_and_sign_replicate() {
        assert_eq!(prmt(0x8899_aabb, 0x3210, 0x1122_3344), 0x8899_aabb);
        assert_eq!(prmt(0x8899_aabb, 0x7654, 0x1122_3344), 0x1122_3344);
        assert_eq!(prmt(0x0000_0080, 0x8880, 0), 0xffff_ff80);
        assert_eq!(prmt(0x0000_007f, 0x8880, 0), 0x0000_007f);
        assert_eq!(prmt(0x1234_8001, 0x9910, 0), 0xffff_8001);
        assert_eq!(prmt(0x1234_7001, 0x9910, 0), 0x0000_7001);
        assert_eq!(prmt(0xaabb_ccdd, 0x7650, 0), 0x0000_00dd);
        assert_eq!(prmt(0x0000_00ff, 0x0054, 0x0000_1234), 0xffff_1234);
        let m = run1(
            "PRMT R5, R0, 0x7214, R3",
            &[(0, 0x4433_2211), (3, 0x8877_6655)],
            &[],
        );
        assert_eq!(m.r[5], 0x8833_2255);
    }

    #[test]
    fn lop3_tables() {
        assert_eq!(lop3(0xf0f0, 0xff00, 0, 0xc0), 0xf000); // a & b
        assert_eq!(lop3(0xf0f0, 0xff00, 0x0ff0, 0x96), 0xf0f0 ^ 0xff00 ^ 0x0ff0);
        assert_eq!(lop3(0x1, 0x2, 0, 0xfc), 0x3); // a | b
        let m = run1(
            "LOP3.LUT R9, R9, 0xffff, R0, 0xf8, !PT",
            &[(9, 0x1234_0000), (0, 0xabcd_5678)],
            &[],
        );
        assert_eq!(m.r[9], 0x1234_5678); // a | (b & c)
        let m = run1("LOP3.LUT P0, RZ, R4, 0x1, RZ, 0xc0, !PT", &[(4, 3)], &[]);
        assert!(m.p[0]);
    }

    #[test]
    fn integer_adds_and_shifts() {
        let m = run1("IADD3 R5, R0, -R1, R2", &[(0, 10), (1, 3), (2, 100)], &[]);
        assert_eq!(m.r[5], 107);
        let m = run1("IMAD.IADD R5, R0, 0x1, -R1", &[(0, 1), (1, 3)], &[]);
        assert_eq!(m.r[5], (-2i32) as u32);
        let m = run1("IMAD.MOV.U32 R5, RZ, RZ, R1", &[(1, 0xdead)], &[]);
        assert_eq!(m.r[5], 0xdead);
        let m = run1("SHF.R.U32.HI R5, RZ, 0x10, R4", &[(4, 0xabcd_1234)], &[]);
        assert_eq!(m.r[5], 0xabcd);
        let m = run1("SHF.R.S32.HI R5, RZ, 0x1, R4", &[(4, 0xffff_fffd)], &[]);
        assert_eq!(m.r[5], 0xffff_fffe);
        let m = run1(
            "LEA.HI R0, R0, -R5, RZ, 0x10",
            &[(0, 0x0003_0000), (5, 1)],
            &[],
        );
        assert_eq!(m.r[0], 2);
        let m = run1(
            "LEA.HI.SX32 R9, R9, R0, 0x1f",
            &[(9, (-7i32) as u32), (0, 100)],
            &[],
        );
        assert_eq!(m.r[9], 96, "c + (a >> 1), arithmetic");
        let m = run1("LEA R0, R1, R2, 0x2", &[(1, 3), (2, 1)], &[]);
        assert_eq!(m.r[0], 13);
    }

    #[test]
    fn compares_selects_minmax() {
        let m = run1(
            "ISETP.LT.AND P0, P1, R0, R5, PT",
            &[(0, (-1i32) as u32), (5, 0)],
            &[],
        );
        assert!(m.p[0] && !m.p[1]);
        let m = run1(
            "ISETP.LT.U32.AND P0, PT, R0, R5, PT",
            &[(0, (-1i32) as u32), (5, 0)],
            &[],
        );
        assert!(!m.p[0]);
        let m = run1(
            "ISETP.LT.XOR P0, PT, R0, R5, P0",
            &[(0, 1), (5, 2)],
            &[(0, true)],
        );
        assert!(!m.p[0]);
        let m = run1(
            "ISETP.LT.AND.EX P0, PT, R1, R3, PT, P2",
            &[(1, 5), (3, 5)],
            &[(2, true)],
        );
        assert!(m.p[0]);
        let m = run1("SEL R5, RZ, 0xffffffff, !P0", &[], &[(0, false)]);
        assert_eq!(m.r[5], 0, "a when the predicate holds");
        let m = run1("SEL R5, RZ, 0xffffffff, !P0", &[], &[(0, true)]);
        assert_eq!(m.r[5], 0xffff_ffff);
        let m = run1("FSEL R3, -R2, 1, P0", &[(2, 0x3566_bc72)], &[(0, true)]);
        assert_eq!(m.r[3], 0xb566_bc72, "float negation flips the sign bit");
        let m = run1("FSEL R3, -R2, 1, P0", &[(2, 0x3566_bc72)], &[(0, false)]);
        assert_eq!(m.r[3], 0x3f80_0000);
        let m = run1(
            "VIMNMX R6, R6, R7, !PT",
            &[(6, (-5i32) as u32), (7, 3)],
            &[],
        );
        assert_eq!(m.r[6], 3);
        let m = run1(
            "VIMNMX.U32 R6, R6, R7, PT",
            &[(6, (-5i32) as u32), (7, 3)],
            &[],
        );
        assert_eq!(m.r[6], 3);
        let m = run1("VIMNMX R6, R6, R7, PT", &[(6, (-5i32) as u32), (7, 3)], &[]);
        assert_eq!(m.r[6], (-5i32) as u32);
        let m = run1("@P0 IADD3 R8, R8, 0x1, RZ", &[(8, 4)], &[(0, false)]);
        assert_eq!(m.r[8], 4);
    }

    #[test]
    fn conversions() {
        let m = run1("I2I.U8.S32.SAT R9, R9", &[(9, (-7i32) as u32)], &[]);
        assert_eq!(m.r[9], 0);
        let m = run1("I2I.S8.S32.SAT R9, R9", &[(9, 300)], &[]);
        assert_eq!(m.r[9], 127);
        let m = run1("I2I.S8.S32.SAT R9, R9", &[(9, (-300i32) as u32)], &[]);
        assert_eq!(m.r[9], (-128i32) as u32);
        let m = run1("I2I.S16.S32.SAT R4, R4", &[(4, 40000)], &[]);
        assert_eq!(m.r[4], 32767);
        let m = run1("IABS R0, R0", &[(0, (-1i32) as u32)], &[]);
        assert_eq!(m.r[0], 1);
        let m = run1("I2F.F16 R0, R0", &[(0, 1)], &[]);
        assert_eq!(m.r[0], 0x3c00);
        let m = run1("I2F.BF16 R0, R0", &[(0, 1)], &[]);
        assert_eq!(m.r[0], 0x3f80);
        let m = run1("I2FP.F32.S32 R0, R0", &[(0, 1)], &[]);
        assert_eq!(m.r[0], 0x3f80_0000);
        let m = run1("HFMA2.MMA R7, -RZ, RZ, 0, 5.9604644775390625e-08", &[], &[]);
        assert_eq!(m.r[7], 1);
        let m = run1("HFMA2.MMA R7, -RZ, RZ, 1.875, 0", &[], &[]);
        assert_eq!(m.r[7], 0x3f80_0000);
        let mut m = Machine::new(vec![], 0);
        for l in [
            "UMOV UR4, 0xffffffff",
            "ULOP3.LUT UR4, UR4, 0x1, URZ, 0xc0, !UPT",
            "IADD3 R7, R7, UR4, R2",
        ] {
            m.step(&parse_line(&format!("/*0000*/ {l} ;")).unwrap().unwrap())
                .unwrap();
        }
        assert_eq!(m.ur[4], 1);
        assert_eq!(m.r[7], 1);
        let m = run1("FADD.FTZ R0, R5, -RZ", &[(5, 0x8000_0001)], &[]);
        assert_eq!(m.r[0], 0x8000_0000);
    }

    #[test]
    fn float_compares() {
        let m = run1("FSETP.GE.AND P0, PT, R5, RZ, PT", &[(5, 0x8000_0000)], &[]);
        assert!(m.p[0], "-0 >= 0");
        let m = run1("FSETP.GE.AND P0, PT, R5, RZ, PT", &[(5, 0x7fc0_0000)], &[]);
        assert!(!m.p[0], "NaN is unordered");
        let m = run1(
            "FSETP.GT.FTZ.AND P0, PT, R0, R5, PT",
            &[(0, 1), (5, 0)],
            &[],
        );
        assert!(!m.p[0], "subnormal flushed");
        let m = run1(
            "FSET.BF.LTU.AND R5, R0, R5, PT",
            &[(0, 0x7fc0_0000), (5, 0)],
            &[],
        );
        assert_eq!(m.r[5], 0x3f80_0000);
        let mut m = Machine::new(vec![], 0);
        for l in [
            "UMOV UR6, 0x552416fb",
            "UMOV UR7, 0x16f9b56e",
            "DSETP.GTU.AND P0, PT, R2, -UR6, PT",
        ] {
            m.step(&parse_line(&format!("/*0000*/ {l} ;")).unwrap().unwrap())
                .unwrap();
        }
        assert!(m.p[0], "0 > -(positive tiny)");
        let m = run1(
            "DSETP.LT.OR P0, PT, R2, R4, !P0",
            &[(3, 0xbff0_0000), (5, 0)],
            &[(0, true)],
        );
        assert!(m.p[0]);
        let m = run1(
            "HSET2.BF.LT.AND R5, R0, R5, PT",
            &[(0, 0x3c00_bc00), (5, 0x3c00_0000)],
            &[],
        );
        assert_eq!(m.r[5], 0x0000_3c00);
        let m = run1(
            "HSET2.NUM.AND R0, R0.H0_H0, R5.H0_H0, PT",
            &[(0, 0x1), (5, 0x7e00_0000)],
            &[],
        );
        assert_eq!(m.r[0], 0xffff_ffff);
        let m = run1(
            "HSET2.BF16_V2.BF.LT.AND R5, R0, R5, PT",
            &[(0, 0xbf80_0000), (5, 0)],
            &[],
        );
        assert_eq!(m.r[5], 0x3f80_0000);
        let m = run1(
            "HSET2.BF.LT.FTZ.AND R5, R0, R5, PT",
            &[(0, 0x0000_8001), (5, 0x0000_0000)],
            &[],
        );
        assert_eq!(m.r[5], 0, "-subnormal flushed to -0, not < 0");
    }

    #[test]
    fn per_thread_prologue() {
        let text = "\
.text.k0:
        /*0000*/                   S2UR UR4, SR_CTAID.X ;
        /*0010*/                   LDC R7, c[0x0][RZ] ;
        /*0020*/                   S2R R0, SR_TID.X ;
        /*0030*/                   IMAD R7, R7, UR4, R0 ;
        /*0040*/                   ULDC UR4, c[0x0][0x220] ;
        /*0050*/                   ISETP.GE.U32.AND P0, PT, R7, UR4, PT ;
        /*0060*/               @P0 EXIT ;
        /*0070*/                   LDC.64 R4, c[0x0][0x218] ;
        /*0080*/                   IMAD.WIDE.U32 R4, R7, 0x8, R4 ;
        /*0090*/                   STG.E desc[UR4][R4.64], R7 ;
        /*00a0*/                   EXIT ;
";
        let prog = &parse_listing(text).unwrap()[0].1;
        let mut m = Machine::new(vec![], 64);
        m.thread = [3, 1, 4, 8]; // thread 1 * 4 + 3 = 7 of 8
        m.run(prog).unwrap();
        assert_eq!(m.output[56], 7);
        let mut m = Machine::new(vec![], 64);
        m.thread = [0, 2, 4, 8]; // thread 8: past the end, exits before storing
        m.run(prog).unwrap();
        assert!(m.output.iter().all(|&b| b == 0));
    }

    #[test]
    fn vabsdiff4() {
        let m = run1(
            "VABSDIFF4.U8 R5, R0, R5, R7",
            &[(0, 0x00ff_1080), (5, 0xff00_2070), (7, 0x1234)],
            &[],
        );
        assert_eq!(m.r[5], 0xffff_1010);
        let m = run1(
            "VABSDIFF4.U8.ACC R5, R0, R5, R7",
            &[(0, 0x00ff_1080), (5, 0xff00_2070), (7, 1)],
            &[],
        );
        assert_eq!(m.r[5], 1 + 255 + 255 + 16 + 16);
        // Without .U8 the bytes are signed: |0x80 - 0x7f| = |-128 - 127| = 255.
        let m = run1(
            "VABSDIFF4 R5, R0, R5, R7",
            &[(0, 0x0000_0080), (5, 0x0000_007f), (7, 0)],
            &[],
        );
        assert_eq!(m.r[5], 0xff);
        let m = run1(
            "VABSDIFF4 R5, R0, R5, R7",
            &[(0, 0x0000_00ff), (5, 0x0000_0001), (7, 0)],
            &[],
        );
        assert_eq!(m.r[5], 2, "|-1 - 1|");
    }

    #[test]
    fn memory_and_listing() {
        let text = "\
.text.k7:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   LDC.64 R4, c[0x0][0x210] ;
        /*0020*/                   ULDC.64 UR4, c[0x0][0x208] ;
        /*0030*/                   LDG.E R6, desc[UR4][R4.64+0x4] ;
        /*0040*/                   LDG.E.U16 R7, desc[UR4][R4.64+0x8] ;
        /*0050*/                   LDC.64 R2, c[0x0][0x218] ;
        /*0060*/                   IADD3 R6, R6, R7, RZ ;
        /*0070*/                   STG.E desc[UR4][R2.64+0x8], R6 ;
        /*0080*/                   EXIT ;
        /*0090*/                   BRA `(.L_x_0);
";
        let l = parse_listing(text).unwrap();
        assert_eq!(l[0].0, "k7");
        let mut input = vec![0u8; 16];
        input[4..8].copy_from_slice(&5u32.to_le_bytes());
        input[8..10].copy_from_slice(&0xfffeu16.to_le_bytes());
        let mut m = Machine::new(input, 16);
        m.run(&l[0].1).unwrap();
        assert_eq!(
            u32::from_le_bytes(m.output[8..12].try_into().unwrap()),
            5 + 0xfffe
        );
    }
}
