//! Reading nvdisasm's text: operands, one instruction per line, and the
//! listing's functions.

use super::logic::fcmp;
use super::{PT, RZ};
use anyhow::{bail, Context, Result};

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
    /// A shared-window address with a uniform part: `[R8+UR4+0x10]`,
    /// `[UR4]` (register, RZ when absent; uniform register; offset).
    MemUr(u8, u8, i64),
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
    /// A branch's label as written (`.L_x_0`).
    pub label: Option<String>,
    /// A branch's target: the index of the instruction after its label in
    /// the function, which [`parse_listing`] resolves (`None`: a branch
    /// parsed alone, or a label no instruction follows).
    pub target: Option<usize>,
}

impl SInst {
    /// The boolean-combine modifier (`AND`/`OR`/`XOR`) of a compare.
    pub(super) fn bool_mod(&self) -> Result<&String> {
        self.mods
            .iter()
            .find(|m| matches!(m.as_str(), "AND" | "OR" | "XOR"))
            .with_context(|| format!("{} boolean op", self.op))
    }

    /// The float-comparison modifier of `FSET`/`HSET2`/`HSETP2`.
    pub(super) fn fcmp_mod(&self) -> Result<&String> {
        self.mods
            .iter()
            .find(|m| fcmp(m, 0.0, 0.0).is_ok())
            .with_context(|| format!("{} comparison", self.op))
    }

    pub(super) fn has(&self, m: &str) -> bool {
        self.mods.iter().any(|x| x == m)
    }

    /// Fails, naming the form, if the instruction carries modifier `m`.
    pub(super) fn refuse(&self, m: &str) -> Result<()> {
        if self.has(m) {
            bail!("{}.{m} not modelled", self.op)
        }
        Ok(())
    }

    /// Fails unless the instruction has at least `k` operands.
    pub(super) fn need(&self, k: usize) -> Result<()> {
        if self.ops.len() < k {
            bail!("{} needs {k} operands", self.op)
        }
        Ok(())
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
            // IMMA names its fragments' layouts (`R8.ROW`, `R6.COL`).
            "reuse" | "64" | "U32" | "ROW" | "COL" => {}
            "H0_H0" => halves = Some((0, 0)),
            "H1_H1" => halves = Some((1, 1)),
            "H1_H0" => halves = Some((1, 0)),
            "H0_H1" => halves = Some((0, 1)),
            // A 16-bit source (`MUFU.EX2.F16 R5, R0.H1`): that half.
            "H0" => halves = Some((0, 0)),
            "H1" => halves = Some((1, 1)),
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
    if let Some(inner) = s
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .filter(|x| x.contains("UR"))
    {
        return parse_mem_ur(inner);
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
    // `SR_TID.X`, `DEPBAR`'s scoreboard `SB0`, `RPCMOV`'s `Rpc.HI`.
    if s.starts_with("SR_") || s.starts_with("SB") || s.starts_with("Rpc.") {
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

/// `R8+UR4+0x10`, `UR4`, `R8+UR4`: each `+`/`-` separated part a
/// register, a uniform register or an offset.
fn parse_mem_ur(inner: &str) -> Result<Opnd> {
    let (mut r, mut ur, mut off) = (RZ, RZ, 0i64);
    let mut rest = inner;
    while !rest.is_empty() {
        let end = rest[1..].find(['+', '-']).map_or(rest.len(), |i| i + 1);
        let part = rest[..end].trim_start_matches('+');
        rest = &rest[end..];
        if part.is_empty() {
            // `+-0x8`: the sign comes with the next part.
            continue;
        }
        if part == "URZ" {
            ur = RZ;
        } else if let Some(n) = part.strip_prefix("UR").and_then(|n| n.parse().ok()) {
            ur = n;
        } else if let Some((reg, _)) = parse_reg(part) {
            r = reg;
        } else {
            off = off.wrapping_add(parse_num(part).context("memory offset")? as i64);
        }
    }
    Ok(Opnd::MemUr(r, ur, off))
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
    let label = if op == "BRA" {
        let l = operands
            .trim()
            .trim_start_matches('`')
            .trim_start_matches('(');
        Some(l.trim_end_matches(')').trim().to_string()).filter(|l| !l.is_empty())
    } else {
        None
    };
    Ok(Some(SInst {
        guard,
        op,
        mods,
        ops,
        text: body.to_string(),
        label,
        target: None,
    }))
}

/// Splits nvdisasm output into `(function name, instructions)`, each
/// branch's target resolved to an instruction index within its function.
pub fn parse_listing(text: &str) -> Result<Vec<(String, Vec<SInst>)>> {
    let mut out: Vec<(String, Vec<SInst>)> = Vec::new();
    let mut labels: Vec<std::collections::HashMap<String, usize>> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix(".text.").and_then(|n| n.strip_suffix(':')) {
            out.push((name.to_string(), Vec::new()));
            labels.push(Default::default());
            continue;
        }
        if let (Some(l), Some(last), Some(map)) = (
            t.strip_suffix(':').filter(|l| l.starts_with(".L")),
            out.last(),
            labels.last_mut(),
        ) {
            map.insert(l.to_string(), last.1.len());
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
                label: None,
                target: None,
            }),
        };
        if let (Some(i), Some(last)) = (inst, out.last_mut()) {
            last.1.push(i);
        }
    }
    for ((_, insts), map) in out.iter_mut().zip(&labels) {
        let n = insts.len();
        for i in insts.iter_mut() {
            i.target = i
                .label
                .as_ref()
                .and_then(|l| map.get(l))
                .filter(|&&t| t < n)
                .copied();
        }
    }
    Ok(out)
}
