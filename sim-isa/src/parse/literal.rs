//! Literals, identifiers and special-register names: the lexical facts a
//! token carries once the statement's shape is known.

use super::lex::Token;
use crate::inst::SpecialReg;

/// The special register `name` names, if the simulator has a value for it.
pub(super) fn special(name: &str) -> Option<SpecialReg> {
    SpecialReg::from_name(name)
}

/// A numeric literal's value class.
#[derive(Clone, Copy, Debug)]
pub(super) enum Lit {
    /// Integer (any radix), as u64.
    Int(u64),
    /// `0f` bit pattern.
    F32(f32),
    /// `0d` bit pattern.
    F64(f64),
    /// Decimal floating point (`1.5`, `1e3`).
    Dec(f64),
}

pub(super) fn literal(s: &str) -> Option<Lit> {
    let b = s.as_bytes();
    let hexbits = |digits: &str, n: usize| {
        (digits.len() == n && digits.bytes().all(|c| c.is_ascii_hexdigit()))
            .then(|| u64::from_str_radix(digits, 16).ok())
            .flatten()
    };
    if b.len() > 2 && b[0] == b'0' {
        let rest = s.get(2..)?;
        match b[1] {
            b'f' | b'F' => return hexbits(rest, 8).map(|v| Lit::F32(f32::from_bits(v as u32))),
            b'd' | b'D' => return hexbits(rest, 16).map(|v| Lit::F64(f64::from_bits(v))),
            b'x' | b'X' => return int_digits(rest, 16).map(Lit::Int),
            b'b' | b'B' => return int_digits(rest, 2).map(Lit::Int),
            _ => {}
        }
    }
    if s.contains(['.', 'e', 'E']) {
        // Rust's float grammar is a superset of the one we allow; refuse "inf"/"nan".
        if !s
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            return None;
        }
        return s.parse::<f64>().ok().map(Lit::Dec);
    }
    if b.len() > 1 && b[0] == b'0' && s != "0U" {
        return int_digits(s.get(1..)?, 8).map(Lit::Int);
    }
    int_digits(s, 10).map(Lit::Int)
}

/// Digits with an optional `U` suffix; `None` on bad digits or overflow.
fn int_digits(s: &str, radix: u32) -> Option<u64> {
    let s = s.strip_suffix('U').unwrap_or(s);
    if s.is_empty() || !s.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(s, radix).ok()
}

/// Applies unary `-`, `~`, `!` (innermost last in `prefix`) to an integer.
pub(super) fn int_prefix(v: u64, prefix: &[Token<'_>]) -> u64 {
    prefix.iter().rev().fold(v, |v, p| match p.text {
        "-" => v.wrapping_neg(),
        "~" => !v,
        _ => u64::from(v == 0),
    })
}

/// PTX identifier (the lexer has already limited the characters).
pub(super) fn valid_ident(s: &str) -> bool {
    crate::symbols::is_ptx_identifier(s)
}

/// PTX special registers without a value here (`%pm0`,
/// `%clusterid`): valid PTX, but this simulator has no value for them.
pub(super) fn other_special(name: &str) -> bool {
    crate::symbols::is_special_register(name) && !simulated_special(name)
}

/// Whether `name` (without a component) is a special register with a value
/// here: `%tid` for `%tid.x`.
pub(super) fn simulated_special(name: &str) -> bool {
    // `name` or `name.` and a component (no split per entry: the parser
    // asks this of every register a statement names). A name whose second
    // character starts no special register's (`%r1`, `%f7`, `%rd3`: most
    // of them) is none, decided by one table read instead of the search
    // (2,200 host instructions a register operand).
    let second = name.as_bytes().get(1).copied();
    if !second.is_some_and(|c| SPECIAL_SECOND[c as usize]) {
        return false;
    }
    !name.contains('.')
        && (SpecialReg::NAMED.iter().any(|n| {
            n.0.strip_prefix(name)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        }) || SpecialReg::ENVREG.contains(&name))
}

/// Whether some special register with a value here has this byte as its
/// second character (after `%`): built from the tables themselves, so a
/// register added to them is never filtered out.
const SPECIAL_SECOND: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < SpecialReg::NAMED.len() {
        t[SpecialReg::NAMED[i].0.as_bytes()[1] as usize] = true;
        i += 1;
    }
    let mut i = 0;
    while i < SpecialReg::ENVREG.len() {
        t[SpecialReg::ENVREG[i].as_bytes()[1] as usize] = true;
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::simulated_special;
    use crate::inst::SpecialReg;

    /// The second-character table lets through every special register the
    /// tables name (`%tid` for `%tid.x`) and stops ordinary registers.
    #[test]
    fn simulated_special_past_the_table() {
        for (n, _) in SpecialReg::NAMED {
            let base = n.split('.').next().unwrap_or(n);
            assert!(simulated_special(base), "{base}");
        }
        for n in SpecialReg::ENVREG {
            assert!(simulated_special(n), "{n}");
        }
        for n in [
            "%r1", "%f7", "%rd3", "%p1", "%fd2", "%tid.x", "%", "", "%t", "%lane",
        ] {
            assert!(!simulated_special(n), "{n}");
        }
    }
}
