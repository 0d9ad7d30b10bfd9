//! An operand's typed form, as an interpreter reads it: registers with
//! their modifiers, predicates, immediates, constants, memory addresses.

/// `RZ` (and `URZ`) as a register number.
pub const RZ: u8 = 255;
/// `PT` as a predicate number.
pub const PT: u8 = 7;

/// Why an operand could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OperandError {
    /// `desc[UR4]` without its address part.
    #[error("descriptor operand '{0}' has no address")]
    Descriptor(String),
    /// A memory operand's offset is not a number.
    #[error("memory offset in '{0}'")]
    MemoryOffset(String),
    /// A memory operand's base is not a register.
    #[error("memory base '{0}'")]
    MemoryBase(String),
    /// `c[bank][offset]` malformed.
    #[error("constant operand '{0}'")]
    Constant(String),
    /// Nothing this reader knows.
    #[error("cannot read operand '{0}'")]
    Unknown(String),
}

/// One operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
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

/// Reads one operand; `float_op` (an `F`/`H`/`D` opcode) reads a plain
/// number as a float literal.
pub fn parse_operand(s: &str, float_op: bool) -> Result<Operand, OperandError> {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix("desc[") {
        let (_, mem) = rest
            .split_once("][")
            .ok_or_else(|| OperandError::Descriptor(s.into()))?;
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
                parse_num(&inner[i..]).ok_or_else(|| OperandError::MemoryOffset(s.into()))? as i64,
            ),
            None => (inner, 0),
        };
        let (r, _) = parse_reg(base).ok_or_else(|| OperandError::MemoryBase(base.into()))?;
        return Ok(Operand::Mem(r, off));
    }
    if let Some(rest) = s.strip_prefix("c[") {
        let (b, o) = rest
            .trim_end_matches(']')
            .split_once("][")
            .ok_or_else(|| OperandError::Constant(s.into()))?;
        let off = if o == "RZ" {
            0
        } else {
            parse_num(o).ok_or_else(|| OperandError::Constant(s.into()))? as u32
        };
        return Ok(Operand::Const(
            parse_num(b).ok_or_else(|| OperandError::Constant(s.into()))? as u32,
            off,
        ));
    }
    // `SR_TID.X`, `DEPBAR`'s scoreboard `SB0`, `RPCMOV`'s `Rpc.HI`.
    if s.starts_with("SR_") || s.starts_with("SB") || s.starts_with("Rpc.") {
        return Ok(Operand::Special(s.to_string()));
    }
    let (not_p, t) = match s.strip_prefix('!') {
        Some(t) => (true, t),
        None => (false, s),
    };
    if t == "PT" || t == "UPT" {
        return Ok(Operand::Pred { p: PT, not: not_p });
    }
    // Uniform predicates UP0.. live after the eight ordinary ones.
    if let Some(n) = t.strip_prefix("UP").and_then(|n| n.parse::<u8>().ok()) {
        return Ok(Operand::Pred {
            p: 8 + n,
            not: not_p,
        });
    }
    if let Some(n) = t.strip_prefix('P').and_then(|n| n.parse::<u8>().ok()) {
        return Ok(Operand::Pred { p: n, not: not_p });
    }
    let (uneg, ut) = match t.strip_prefix('-') {
        Some(x) => (true, x),
        None => (false, t),
    };
    if ut == "URZ" {
        return Ok(Operand::UReg(RZ, uneg));
    }
    if let Some(n) = ut.strip_prefix("UR").and_then(|n| n.parse::<u8>().ok()) {
        return Ok(Operand::UReg(n, uneg));
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
        return Ok(Operand::Reg {
            r,
            neg,
            not,
            abs,
            halves,
        });
    }
    match t.as_str() {
        "+INF" | "INF" => return Ok(Operand::FImm(f64::INFINITY)),
        "-INF" => return Ok(Operand::FImm(f64::NEG_INFINITY)),
        "+QNAN" | "QNAN" | "NAN" => return Ok(Operand::FImm(f64::NAN)),
        _ => {}
    }
    if float_op && !t.starts_with("0x") && !t.starts_with("-0x") {
        if let Ok(f) = t.parse::<f64>() {
            return Ok(Operand::FImm(f));
        }
    }
    if let Some(v) = parse_num(&t) {
        return Ok(Operand::Imm(v));
    }
    if let Ok(f) = t.parse::<f64>() {
        return Ok(Operand::FImm(f));
    }
    Err(OperandError::Unknown(s.into()))
}

/// `R8+UR4+0x10`, `UR4`, `R8+UR4`: each `+`/`-` separated part a
/// register, a uniform register or an offset.
fn parse_mem_ur(inner: &str) -> Result<Operand, OperandError> {
    let (mut r, mut ur, mut off) = (RZ, RZ, 0i64);
    let mut rest = inner;
    while !rest.is_empty() {
        let end = rest
            .char_indices()
            .skip(1)
            .find(|&(_, c)| c == '+' || c == '-')
            .map_or(rest.len(), |(i, _)| i);
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
            off = off.wrapping_add(
                parse_num(part).ok_or_else(|| OperandError::MemoryOffset(inner.into()))? as i64,
            );
        }
    }
    Ok(Operand::MemUr(r, ur, off))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_forms() {
        let reg = |r, neg, abs, halves| Operand::Reg {
            r,
            neg,
            not: false,
            abs,
            halves,
        };
        assert_eq!(parse_operand("-|R5|", true), Ok(reg(5, true, true, None)));
        assert_eq!(
            parse_operand("R0.H1_H1", true),
            Ok(reg(0, false, false, Some((1, 1))))
        );
        assert_eq!(parse_operand("RZ", false), Ok(reg(RZ, false, false, None)));
        assert_eq!(
            parse_operand("!PT", false),
            Ok(Operand::Pred { p: PT, not: true })
        );
        assert_eq!(
            parse_operand("UP2", false),
            Ok(Operand::Pred { p: 10, not: false })
        );
        assert_eq!(parse_operand("-UR6", false), Ok(Operand::UReg(6, true)));
        assert_eq!(
            parse_operand("0xfffffffe", false),
            Ok(Operand::Imm(0xffff_fffe))
        );
        assert_eq!(parse_operand("-2.5", true), Ok(Operand::FImm(-2.5)));
        assert_eq!(
            parse_operand("c[0x0][0x210]", false),
            Ok(Operand::Const(0, 0x210))
        );
        assert_eq!(
            parse_operand("desc[UR4][R2.64+0x8]", false),
            Ok(Operand::Mem(2, 8))
        );
        assert_eq!(
            parse_operand("[R8+UR4+-0x10]", false),
            Ok(Operand::MemUr(8, 4, -16))
        );
        assert_eq!(
            parse_operand("SR_TID.X", false),
            Ok(Operand::Special("SR_TID.X".into()))
        );
        assert_eq!(
            parse_operand("c[0x0]", false),
            Err(OperandError::Constant("c[0x0]".into()))
        );
        assert_eq!(
            parse_operand("[R2+zz]", false),
            Err(OperandError::MemoryOffset("[R2+zz]".into()))
        );
        assert_eq!(
            parse_operand("foo", false),
            Err(OperandError::Unknown("foo".into()))
        );
    }
}
