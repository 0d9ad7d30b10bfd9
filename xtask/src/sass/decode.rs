//! nvdisasm's text as the interpreter runs it: `sim_sass` (the one listing
//! reader) reads the listing and each operand; this module keeps the
//! interpreter's view of an instruction ([`SInst`]).

use super::logic::fcmp;
use super::PT;
use anyhow::{bail, Context, Result};

/// One operand: `sim_sass`'s typed form (RZ is 255, PT 7, UP0.. from 8).
pub type Opnd = sim_sass::Operand;

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

/// The interpreter's form of one instruction `sim_sass` read.
fn from_inst(i: &sim_sass::Inst) -> Result<SInst> {
    let guard = match &i.guard {
        Some(g) => {
            let p = if g.pred == "PT" {
                PT
            } else {
                g.pred
                    .strip_prefix('P')
                    .and_then(|n| n.parse().ok())
                    .context("guard predicate")?
            };
            Some((p, g.negated))
        }
        None => None,
    };
    // The text without its guard, for messages.
    let body = match i.guard {
        Some(_) => i
            .text
            .split_once(char::is_whitespace)
            .map_or("", |(_, b)| b.trim()),
        None => i.text.as_str(),
    };
    let op = i.base().to_string();
    let float_op = op.starts_with('F') || op.starts_with('H') || op.starts_with('D');
    // A branch's or call's operand is its label.
    let ops = if op == "BRA" || op == "CALL" {
        Vec::new()
    } else {
        i.operands
            .iter()
            // `RET.REL.NODEC R2 `(k)`: the register only. `PLOP3`'s
            // `R5.SIGN` is read as the register (warp.rs takes its sign).
            .map(|o| match op.as_str() {
                "RET" => o.split_whitespace().next().unwrap_or(""),
                "PLOP3" => o.strip_suffix(".SIGN").unwrap_or(o),
                _ => o,
            })
            .map(|o| sim_sass::operand::parse_operand(o, float_op))
            .collect::<Result<Vec<_>, _>>()
            .with_context(|| format!("in '{body}'"))?
    };
    let label = if op == "BRA" || op == "CALL" {
        let raw = i.operands.join(", ");
        let l = raw.trim().trim_start_matches('`').trim_start_matches('(');
        Some(l.trim_end_matches(')').trim().to_string()).filter(|l| !l.is_empty())
    } else {
        None
    };
    Ok(SInst {
        guard,
        op,
        mods: i.modifiers().map(String::from).collect(),
        ops,
        text: body.to_string(),
        label,
        target: None,
    })
}

/// Parses one disassembly line (`/*0070*/  @!P0 PRMT R4, R0, 0x3210, R5 ;`).
/// Returns `None` for lines that are not instructions (the opcode tests' reader).
#[cfg(test)]
pub fn parse_line(line: &str) -> Result<Option<SInst>> {
    let listing = sim_sass::Listing::parse(line);
    match listing.functions.first().and_then(|f| f.items.first()) {
        Some(sim_sass::Item::Inst(i)) => from_inst(i).map(Some),
        Some(sim_sass::Item::Bad(e)) => Err(e.clone().into()),
        _ => Ok(None),
    }
}

/// An instruction that could not be read: it fails only its own function,
/// when executed.
fn unreadable(text: String) -> SInst {
    SInst {
        guard: None,
        op: "?".into(),
        mods: vec![],
        ops: vec![],
        text,
        label: None,
        target: None,
    }
}

/// Splits nvdisasm output into `(function name, instructions)`, each
/// branch's target resolved to an instruction index within its function
/// (lines before the first function are left out).
pub fn parse_listing(text: &str) -> Result<Vec<(String, Vec<SInst>)>> {
    let mut out: Vec<(String, Vec<SInst>)> = Vec::new();
    for f in sim_sass::Listing::parse(text).functions {
        if f.name.is_empty() {
            continue;
        }
        let mut labels: std::collections::HashMap<&str, usize> = Default::default();
        let mut insts = Vec::new();
        for item in &f.items {
            match item {
                // Branch labels and the subroutines ptxas appends (`$__internal_...`).
                sim_sass::Item::Label(l) if l.name.starts_with(".L") || l.name.starts_with('$') => {
                    labels.insert(&l.name, insts.len());
                }
                sim_sass::Item::Label(_) => {}
                sim_sass::Item::Inst(i) => insts.push(
                    from_inst(i).unwrap_or_else(|e| unreadable(format!("{} ({e:#})", i.text))),
                ),
                sim_sass::Item::Bad(e) => insts.push(unreadable(e.to_string())),
            }
        }
        let n = insts.len();
        for i in insts.iter_mut() {
            i.target = i
                .label
                .as_ref()
                .and_then(|l| labels.get(l.as_str()))
                .filter(|&&t| t < n)
                .copied();
        }
        out.push((f.name, insts));
    }
    Ok(out)
}
