//! The registers an instruction reads and writes, as the dataflow users
//! (sim-trace's `--lowering compiler`, `tools/lowering/derive_sass.py`)
//! count them.

#[cfg(test)]
use crate::listing::split_ops;
use crate::listing::Inst;

/// An instruction's registers, 64-bit operands as their two halves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Registers {
    /// Written (`CC` for Kepler/Maxwell's condition code).
    pub dests: Vec<String>,
    /// Read, in operand order; a guarded instruction's guard and its
    /// destinations come last (a predicated write keeps the old value).
    pub srcs: Vec<String>,
}

/// Opcodes whose first two operands are destinations (two predicates).
const PRED_DEST: [&str; 6] = ["ISETP", "FSETP", "DSETP", "HSETP2", "PSETP", "PLOP3"];

/// Registers an operand names (`R4`, `UR6`, `P0`, `UP1`; `RZ`, `PT` are constants).
pub fn regs(op: &str) -> Vec<String> {
    let b = op.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if i == 0 || !word(b[i - 1]) {
            let j = if b[i] == b'U' { i + 1 } else { i };
            if j < b.len() && (b[j] == b'R' || b[j] == b'P') {
                let k = j + 1;
                let mut e = k;
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                if e > k && (e == b.len() || !word(b[e])) {
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
pub fn pair(r: &str) -> Vec<String> {
    let digits = r.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let prefix = &r[..r.len() - digits.len()];
    match digits.parse::<u32>() {
        Ok(n) if prefix.ends_with('R') => {
            vec![r.to_string(), format!("{prefix}{}", n.saturating_add(1))]
        }
        _ => vec![r.to_string()],
    }
}

/// Whether a modifier is a conversion's type.
pub fn is_type(p: &str) -> bool {
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

/// (64-bit destination, 64-bit source) of a conversion. The listing prints
/// the types it does not default: F2I's integer type is the destination
/// (S32 if absent) and its float type the source (F32), I2F the other way
/// round; F2F and I2I print both, destination first.
pub fn cvt_widths(base: &str, mods: &[&str]) -> (bool, bool) {
    let ts: Vec<&str> = mods.iter().copied().filter(|p| is_type(p)).collect();
    if base == "F2I" || base == "I2F" {
        let (floats, ints): (Vec<&str>, Vec<&str>) = ts
            .iter()
            .partition(|t| t.starts_with('F') || t.starts_with("BF"));
        let (dest, src) = if base == "F2I" {
            (ints, floats)
        } else {
            (floats, ints)
        };
        let wide = |v: &[&str]| v.iter().any(|t| t.ends_with("64"));
        return (wide(&dest), wide(&src));
    }
    (
        ts.first().is_some_and(|t| t.ends_with("64")),
        ts.get(1).is_some_and(|t| t.ends_with("64")),
    )
}

/// The byte offset of a memory operand (`desc[UR4][R2.64+0x18]`: 0x18),
/// `None` without one.
pub fn mem_offset(op: &str) -> Option<u64> {
    let p = op.rfind('+')?;
    let s = op[p + 1..].trim_end_matches(']').trim();
    u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

fn is_pred(o: &str) -> bool {
    let o = o.trim_start_matches('!');
    let o = o.strip_prefix('U').unwrap_or(o);
    o.strip_prefix('P')
        .is_some_and(|d| d == "T" || (!d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())))
}

/// Which operands are register pairs: (all destinations, all sources,
/// these source operand positions).
fn widths(base: &str, mods: &[&str], nd: usize, sm: u32) -> (bool, bool, Option<usize>) {
    match base {
        "DADD" | "DMUL" | "DFMA" | "DMNMX" => (true, true, None),
        "DSETP" | "DSET" => (false, true, None),
        "F2F" | "F2I" | "I2F" | "I2I" => {
            let (d, s) = cvt_widths(base, mods);
            (d, s, None)
        }
        "FRND" if mods.contains(&"F64") => (true, true, None),
        "IMAD" if mods.contains(&"WIDE") => (true, false, Some(nd + 2)),
        // Volta and later add a register pair: hi(a * b + (c_hi:c_lo)).
        "IMAD" if mods.contains(&"HI") && sm >= 70 => (false, false, Some(nd + 2)),
        _ => (false, false, None),
    }
}

impl Inst {
    /// The registers read and written on `sm` (`90`: the architecture
    /// number decides whether IMAD.HI adds a pair).
    pub fn registers(&self, sm: u32) -> Registers {
        let base = self.base();
        let mods: Vec<&str> = self.modifiers().collect();
        let ops = &self.operands;
        let nd = if PRED_DEST.contains(&base) {
            2
        } else {
            let mut nd = 1;
            while nd < ops.len() && is_pred(&ops[nd]) {
                nd += 1;
            }
            nd
        };
        let (wide_dest, wide_src, wide_at) = widths(base, &mods, nd, sm);
        let mut r = Registers::default();
        // Kepler/Maxwell carry through the condition code: `.CC` writes
        // it, `.X` forms and CSETP read it.
        if ops.iter().take(nd).any(|o| o.ends_with(".CC")) {
            r.dests.push("CC".to_string());
        }
        if mods.contains(&"X") || ops.iter().skip(nd).any(|o| o == "CC") {
            r.srcs.push("CC".to_string());
        }
        for (i, o) in ops.iter().enumerate() {
            for reg in regs(o) {
                if i < nd {
                    if wide_dest {
                        r.dests.extend(pair(&reg));
                    } else {
                        r.dests.push(reg);
                    }
                } else if wide_src || wide_at == Some(i) {
                    r.srcs.extend(pair(&reg));
                } else {
                    r.srcs.push(reg);
                }
            }
        }
        if let Some(g) = &self.guard {
            r.srcs.push(g.pred.clone());
            r.srcs.extend(r.dests.clone());
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Listing;

    fn one(text: &str) -> Inst {
        let l = Listing::parse(&format!("/*0000*/ {text} ;"));
        let i = l.functions[0].insts().next().cloned().unwrap();
        i
    }

    #[test]
    fn operand_registers() {
        assert_eq!(regs("desc[UR4][R2.64+0x8]"), ["UR4", "R2"]);
        assert_eq!(regs("R6.reuse"), ["R6"]);
        assert_eq!(regs("!PT"), Vec::<String>::new());
        assert_eq!(regs("RZ"), Vec::<String>::new());
        assert_eq!(regs("SR_LANEID"), Vec::<String>::new());
        assert_eq!(pair("R4"), ["R4", "R5"]);
        assert_eq!(pair("UR6"), ["UR6", "UR7"]);
        assert_eq!(pair("P0"), ["P0"]);
        assert_eq!(mem_offset("desc[UR4][R2.64+0x18]"), Some(0x18));
        assert_eq!(mem_offset("desc[UR4][R2.64]"), None);
        assert_eq!(
            split_ops(" R2, desc[UR4][R2.64+0x8], P0"),
            ["R2", "desc[UR4][R2.64+0x8]", "P0"]
        );
        assert_eq!(cvt_widths("I2F", &["S64"]), (false, true));
        assert_eq!(cvt_widths("F2I", &["F64", "TRUNC"]), (false, true));
        assert_eq!(cvt_widths("F2I", &["U64", "TRUNC"]), (true, false));
        assert_eq!(cvt_widths("F2F", &["F64", "F32"]), (true, false));
    }

    #[test]
    fn destinations_and_sources() {
        let r = one("ISETP.GE.U32.AND P0, PT, R3, R5, PT").registers(90);
        assert_eq!(
            (r.dests, r.srcs),
            (vec!["P0".into()], vec!["R3".into(), "R5".into()])
        );
        let r = one("IMAD.WIDE.U32 R2, R4, R5, RZ").registers(90);
        assert_eq!(r.dests, ["R2", "R3"]);
        assert_eq!(r.srcs, ["R4", "R5"]);
        let r = one("IMAD.HI.U32 R3, R3, R5, R2").registers(90);
        assert_eq!(r.srcs, ["R3", "R5", "R2", "R3"]);
        assert_eq!(
            one("IMAD.HI.U32 R3, R3, R5, R2").registers(53).srcs,
            ["R3", "R5", "R2"]
        );
        let r = one("@P1 IADD3 R6, R6, 0x1, RZ").registers(90);
        assert_eq!(r.dests, ["R6"]);
        assert_eq!(r.srcs, ["R6", "P1", "R6"]);
        assert_eq!(one("IADD R4.CC, R2, R3").registers(35).dests[0], "CC");
        assert_eq!(one("IADD.X R5, R2, R3").registers(35).srcs[0], "CC");
        let r = one("DADD R4, R2, R6").registers(90);
        assert_eq!(r.dests, ["R4", "R5"]);
        assert_eq!(r.srcs, ["R2", "R3", "R6", "R7"]);
        let r = one("IADD3 R7, P1, RZ, -R4.reuse, RZ").registers(90);
        assert_eq!(r.dests, ["R7", "P1"]);
    }
}
