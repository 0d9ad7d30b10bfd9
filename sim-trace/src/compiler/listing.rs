//! The listing half of `--lowering compiler`: a disassembly's instruction
//! texts, decoded, walked along the path the region runs, and read as
//! dataflow (which machine instruction computes from which).

use sim_core::sass_table::SassArch;
use std::collections::{HashMap, HashSet};

/// The instruction texts of a disassembly listing (nvdisasm `-c` or
/// `cuobjdump -sass`), with branch targets kept as `name:` lines.
pub fn listing_instructions(listing: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in listing.lines() {
        let l = line.trim();
        // `/*0040*/  LDG.E R7, desc[UR4][R2.64+0x8] ;` (cuobjdump adds `/* 0x... */`).
        if let Some(rest) = l.strip_prefix("/*") {
            let Some((addr, body)) = rest.split_once("*/") else {
                continue;
            };
            if addr.len() < 4 || !addr.bytes().all(|b| b.is_ascii_hexdigit()) {
                continue;
            }
            let body = body.split(';').next().unwrap_or("").trim();
            let body = body.trim_start_matches('{').trim_end_matches('}').trim();
            if !body.is_empty() {
                out.push(body.to_string());
            }
        } else if let Some(name) = l.strip_suffix(':') {
            // A branch or call target (`.L_x_0:`), not a section or entry name.
            if name.starts_with(".L") {
                out.push(l.to_string());
            }
        }
    }
    out
}

/// Splits operands at top-level commas.
pub(super) fn split_ops(rest: &str) -> Vec<String> {
    let (mut ops, mut depth, mut cur) = (Vec::new(), 0i32, String::new());
    for ch in rest.chars() {
        match ch {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            ops.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    if !cur.trim().is_empty() {
        ops.push(cur.trim().to_string());
    }
    ops
}

/// Registers an operand names (`R4`, `UR6`, `P0`, `UP1`; `RZ`, `PT` are constants).
pub(super) fn regs(op: &str) -> Vec<String> {
    let b = op.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let boundary = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if boundary {
            let mut j = i;
            if b[j] == b'U' {
                j += 1;
            }
            if j < b.len() && (b[j] == b'R' || b[j] == b'P') {
                let k = j + 1;
                let mut e = k;
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                let ends = e == b.len() || !(b[e].is_ascii_alphanumeric() || b[e] == b'_');
                if e > k && ends {
                    out.push(op[i..e].to_string());
                    i = e;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// A 64-bit operand's registers: `R4` is R4:R5 (a uniform `UR6` UR6:UR7).
pub(super) fn pair(r: &str) -> Vec<String> {
    let digits = r.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let prefix = &r[..r.len() - digits.len()];
    match digits.parse::<u32>() {
        Ok(n) if prefix.ends_with('R') => vec![r.to_string(), format!("{prefix}{}", n + 1)],
        _ => vec![r.to_string()],
    }
}

pub(super) fn is_type(p: &str) -> bool {
    matches!(
        p,
        "F16"
            | "F32"
            | "F64"
            | "BF16"
            | "S8"
            | "S16"
            | "S32"
            | "S64"
            | "U8"
            | "U16"
            | "U32"
            | "U64"
    )
}

/// (64-bit destination, 64-bit source) of a conversion (see derive_sass.py).
pub(super) fn cvt_widths(base: &str, parts: &[&str]) -> (bool, bool) {
    let ts: Vec<&str> = parts
        .iter()
        .skip(1)
        .copied()
        .filter(|p| is_type(p))
        .collect();
    if base == "F2I" || base == "I2F" {
        let (floats, ints): (Vec<&str>, Vec<&str>) = ts
            .iter()
            .partition(|t| t.starts_with('F') || t.starts_with("BF"));
        let (dest, src) = if base == "F2I" {
            (ints, floats)
        } else {
            (floats, ints)
        };
        return (
            dest.iter().any(|t| t.ends_with("64")),
            src.iter().any(|t| t.ends_with("64")),
        );
    }
    (
        ts.first().is_some_and(|t| t.ends_with("64")),
        ts.get(1).is_some_and(|t| t.ends_with("64")),
    )
}

/// One decoded machine instruction.
pub(super) struct Decoded {
    /// `OPCODE.MODIFIERS` as printed.
    pub(super) opcode: String,
    pub(super) base: String,
    pub(super) dests: Vec<String>,
    pub(super) srcs: Vec<String>,
    pub(super) ops: Vec<String>,
}

/// Decodes one instruction text, register pairs expanded (derive_sass.py's `decode`).
pub(super) fn decode(inst: &str, arch: SassArch) -> Decoded {
    let mut inst = inst.trim();
    let mut guard = None;
    if let Some(rest) = inst.strip_prefix('@') {
        let (g, body) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        guard = Some(g.trim_start_matches('!').to_string());
        inst = body.trim();
    }
    let (opcode, rest) = inst.split_once(char::is_whitespace).unwrap_or((inst, ""));
    let ops = split_ops(rest);
    let parts: Vec<&str> = opcode.split('.').collect();
    let base = parts[0];
    let is_pred = |o: &str| {
        let o = o.trim_start_matches('!');
        let o = o.strip_prefix('U').unwrap_or(o);
        o.strip_prefix('P')
            .is_some_and(|d| d == "T" || (!d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())))
    };
    let nd = if matches!(
        base,
        "ISETP" | "FSETP" | "DSETP" | "HSETP2" | "PSETP" | "PLOP3"
    ) {
        2
    } else {
        let mut nd = 1;
        while nd < ops.len() && is_pred(&ops[nd]) {
            nd += 1;
        }
        nd
    };
    let (mut wide_dest, mut wide_src) = (false, false);
    let mut wide_srcs: HashSet<usize> = HashSet::new();
    if matches!(base, "DADD" | "DMUL" | "DFMA" | "DSETP" | "DSET" | "DMNMX") {
        wide_dest = !matches!(base, "DSETP" | "DSET");
        wide_src = true;
    } else if matches!(base, "F2F" | "F2I" | "I2F" | "I2I") {
        (wide_dest, wide_src) = cvt_widths(base, &parts);
    } else if base == "FRND" && parts.contains(&"F64") {
        (wide_dest, wide_src) = (true, true);
    } else if base == "IMAD" && parts.contains(&"WIDE") {
        wide_dest = true;
        wide_srcs.insert(nd + 2);
    } else if base == "IMAD" && parts.contains(&"HI") && arch == SassArch::Sm90 {
        wide_srcs.insert(nd + 2);
    }
    let (mut dests, mut srcs) = (Vec::new(), Vec::new());
    // Kepler/Maxwell carry through the condition code: `.CC` writes it,
    // `.X` forms and CSETP read it.
    if ops.iter().take(nd).any(|o| o.ends_with(".CC")) {
        dests.push("CC".to_string());
    }
    if parts.iter().skip(1).any(|p| *p == "X") || ops.iter().skip(nd).any(|o| o == "CC") {
        srcs.push("CC".to_string());
    }
    for (i, o) in ops.iter().enumerate() {
        for r in regs(o) {
            if i < nd {
                if wide_dest {
                    dests.extend(pair(&r));
                } else {
                    dests.push(r);
                }
            } else if wide_src || wide_srcs.contains(&i) {
                srcs.extend(pair(&r));
            } else {
                srcs.push(r);
            }
        }
    }
    if let Some(g) = guard {
        // A predicated write keeps the old value otherwise.
        srcs.push(g);
        srcs.extend(dests.iter().cloned());
    }
    Decoded {
        opcode: opcode.to_string(),
        base: base.to_string(),
        dests,
        srcs,
        ops,
    }
}

/// The instructions one thread runs from the entry to the last store, along
/// the fast path (derive_sass.py's `walk`: a call runs its subroutine, a
/// conditional forward branch over a call, return or outward branch is taken,
/// other conditional branches and returns are not).
pub(super) fn walk(insts: &[String]) -> Vec<String> {
    let labels: HashMap<&str, usize> = insts
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.strip_suffix(':').map(|l| (l, i)))
        .collect();
    let target = |body: &str| -> Option<usize> {
        let s = body.find("`(")?;
        let rest = &body[s + 2..];
        let e = rest.find(')')?;
        labels.get(&rest[..e]).copied()
    };
    let mut path = Vec::new();
    fn split(text: &str) -> (bool, String, String) {
        let (cond, body) = match text.strip_prefix('@') {
            Some(r) => {
                let (_, b) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
                (true, b.trim())
            }
            None => (false, text),
        };
        let (op, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
        (
            cond,
            op.split('.').next().unwrap_or("").to_string(),
            rest.to_string(),
        )
    }
    fn run(
        insts: &[String],
        pc0: usize,
        depth: usize,
        path: &mut Vec<String>,
        target: &dyn Fn(&str) -> Option<usize>,
    ) -> bool {
        let mut pc = pc0;
        while pc < insts.len() && path.len() < 100_000 {
            let text = &insts[pc];
            if text.ends_with(':') {
                pc += 1;
                continue;
            }
            let (cond, base, rest) = split(text);
            match base.as_str() {
                "BRA" => {
                    let to = target(text);
                    let cond = cond || rest.contains(',');
                    let leaves = to.is_some_and(|to| {
                        insts.get(pc + 1..to).is_some_and(|between| {
                            between.iter().any(|t| {
                                let (_, b, _) = split(t);
                                matches!(b.as_str(), "CAL" | "CALL" | "JCAL" | "RET" | "EXIT")
                                    || (b == "BRA" && target(t).unwrap_or(0) > to)
                            })
                        })
                    });
                    if let Some(to) = to.filter(|&to| to > pc && (!cond || leaves)) {
                        pc = to;
                        continue;
                    }
                    if !cond {
                        return true;
                    }
                }
                "CAL" | "CALL" | "JCAL" => {
                    if let Some(to) = target(text).filter(|_| !cond && depth < 4) {
                        if run(insts, to, depth + 1, path, target) {
                            return true;
                        }
                    }
                }
                "RET" | "EXIT" => {
                    if !cond {
                        return false;
                    }
                }
                _ => path.push(text.clone()),
            }
            pc += 1;
        }
        true
    }
    run(insts, 0, 0, &mut path, &target);
    path
}

/// Where a machine register's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Def {
    /// Byte `offset` of the input area (a load).
    Load(u64),
    /// Machine instruction `k` of the decoded list.
    Mach(usize),
}

/// The byte offset of a `[R2.64+0x18]` address (0 without one).
pub(super) fn offset(op: &str) -> u64 {
    op.rfind('+')
        .and_then(|p| {
            let s = op[p + 1..].trim_end_matches(']').trim();
            u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
        })
        .unwrap_or(0)
}

/// Registers a load or store moves: 1, 2 or 4 from its width modifier.
pub(super) fn width(opcode: &str) -> u32 {
    let parts: Vec<&str> = opcode.split('.').collect();
    if parts.contains(&"128") {
        4
    } else if parts.contains(&"64") {
        2
    } else {
        1
    }
}

pub(super) fn reg_number(r: &str) -> Option<(String, u32)> {
    let digits = r.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let prefix = &r[..r.len() - digits.len()];
    digits.parse().ok().map(|n| (prefix.to_string(), n))
}

/// Machine instructions: each opcode with its sources and the definitions
/// they read.
pub(super) type MachInsts = Vec<(String, Vec<(String, Def)>)>;

/// The machine instructions of a listing that compute (each with its
/// sources and the definitions they read; loads, stores and control left
/// out), and per stored byte offset the definitions of the registers stored.
pub(super) fn dataflow(
    listing: &str,
    arch: SassArch,
    pred_inputs: &HashSet<u64>,
) -> (MachInsts, HashMap<u64, Vec<Def>>) {
    let mut writer: HashMap<String, Def> = HashMap::new();
    // Machine instructions: (opcode, its sources with the register read).
    let mut mach: Vec<(String, Vec<(String, Def)>)> = Vec::new();
    // Per output slot: the definitions of the stored registers.
    let mut stored: HashMap<u64, Vec<Def>> = HashMap::new();
    for text in walk(&listing_instructions(listing)) {
        let d = decode(&text, arch);
        match d.base.as_str() {
            "LDG" | "LD" => {
                let o = d.ops.last().map_or(0, |a| offset(a));
                if let Some((prefix, first)) = d.dests.first().and_then(|r| reg_number(r)) {
                    for k in 0..width(&d.opcode) {
                        writer.insert(
                            format!("{prefix}{}", first + k),
                            Def::Load(o + 4 * u64::from(k)),
                        );
                    }
                }
            }
            "STG" | "ST" => {
                let addr = d.ops.first().map_or(0, |a| offset(a));
                let data = d.ops.last().map(|o| regs(o)).unwrap_or_default();
                let Some(first) = data.first() else { continue };
                let regs: Vec<String> = if width(&d.opcode) >= 2 {
                    pair(first)
                } else {
                    vec![first.clone()]
                };
                let defs = regs.iter().filter_map(|r| writer.get(r).copied()).collect();
                stored.insert(addr, defs);
            }
            "EXIT" | "RET" | "BRA" | "NOP" | "DEPBAR" | "MEMBAR" | "BAR" => {}
            _ => {
                let deps: Vec<(String, Def)> = d
                    .srcs
                    .iter()
                    .filter_map(|s| writer.get(s).map(|w| (s.clone(), *w)))
                    .collect();
                // The compare that makes an input predicate from its word is
                // the kernel's, not the region's: its result reads as the input.
                let from_pred_input = !deps.is_empty()
                    && d.dests.iter().all(|r| r.contains('P'))
                    && deps.iter().all(
                        |(_, w)| matches!(w, Def::Load(o) if pred_inputs.contains(&(o - o % 8))),
                    );
                if from_pred_input {
                    if let Some((_, w)) = deps.first() {
                        for r in &d.dests {
                            writer.insert(r.clone(), *w);
                        }
                    }
                    continue;
                }
                mach.push((d.opcode.clone(), deps));
                for r in &d.dests {
                    writer.insert(r.clone(), Def::Mach(mach.len() - 1));
                }
            }
        }
    }
    (mach, stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_registers_and_listing_lines() {
        assert_eq!(regs("desc[UR4][R2.64+0x8]"), ["UR4", "R2"]);
        assert_eq!(regs("R6.reuse"), ["R6"]);
        assert_eq!(regs("!PT"), Vec::<String>::new());
        assert_eq!(regs("RZ"), Vec::<String>::new());
        assert_eq!(regs("SR_LANEID"), Vec::<String>::new());
        assert_eq!(pair("R4"), ["R4", "R5"]);
        let l = "        /*0030*/                   LDG.E R0, desc[UR4][R2.64] ;\n\
                 /*0040*/ IADD3 R1, R2, R3, RZ ; /* 0x000fe20007ffe0ff */\n.L_x_0:\n";
        assert_eq!(
            listing_instructions(l),
            [
                "LDG.E R0, desc[UR4][R2.64]",
                "IADD3 R1, R2, R3, RZ",
                ".L_x_0:"
            ]
        );
        assert_eq!(offset("desc[UR4][R2.64+0x18]"), 0x18);
        let d = decode("ISETP.GE.U32.AND P0, PT, R3, R5, PT", SassArch::Sm90);
        assert_eq!(d.dests, ["P0"]);
        assert_eq!(d.srcs, ["R3", "R5"]);
    }
}
