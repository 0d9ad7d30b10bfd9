//! Variable initialisers: `= 5`, `= {1, 2, {3, 4}}`, `= 0f3F800000`, `= {generic(x), y+4}`.

use crate::cursor::{parse_uint, Parser, Res};
use crate::error::ModuleErrorKind as K;
use crate::lex::Tok;
use crate::types::{Init, PtxType};

/// Most initialiser elements one variable may have.
pub const MAX_INIT_ELEMENTS: usize = 1 << 24;

/// Reads an initialiser after `=`, flattened in element order.
pub(crate) fn initialiser(p: &mut Parser<'_>, ty: PtxType) -> Res<Vec<Init>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    loop {
        if p.eat_punct(b'{') {
            depth += 1;
            if depth > 8 {
                return Err(p.err(K::NestingTooDeep { max: 8 }));
            }
            continue;
        }
        if out.len() >= MAX_INIT_ELEMENTS {
            return Err(p.err(K::Limit {
                what: "initialiser elements",
                count: out.len() as u64 + 1,
                max: MAX_INIT_ELEMENTS as u64,
            }));
        }
        out.push(element(p, ty)?);
        // Close as many braces as the text closes, then a comma continues.
        while depth > 0 && p.eat_punct(b'}') {
            depth -= 1;
        }
        if depth == 0 {
            return Ok(out);
        }
        p.expect_punct(b',', "',' or '}'")?;
    }
}

fn element(p: &mut Parser<'_>, ty: PtxType) -> Res<Init> {
    let neg = p.eat_punct(b'-');
    let Some(t) = p.peek() else {
        return Err(p.expected("an initial value"));
    };
    match t.kind {
        Tok::Num => {
            let s = p.text(t);
            let bits = number_bits(s, ty, neg).ok_or_else(|| p.err(K::BadNumber(s.to_string())))?;
            p.i += 1;
            Ok(Init::Bits(bits))
        }
        Tok::Ident if !neg => {
            let generic =
                p.text(t) == "generic" && p.peek_at(1).is_some_and(|u| u.kind == Tok::Punct(b'('));
            let symbol = if generic {
                p.i += 2;
                let (s, _) = p.ident("a symbol")?;
                p.expect_punct(b')', "')'")?;
                s
            } else {
                p.ident("a symbol")?.0
            };
            let mut offset = 0i64;
            if p.eat_punct(b'+') {
                let n = p.number("an offset")?;
                offset = i64::try_from(n).map_err(|_| p.err(K::BadNumber(n.to_string())))?;
            }
            Ok(Init::Address { symbol, offset })
        }
        _ => Err(p.expected("an initial value")),
    }
}

/// The raw bits of literal `s` stored as `ty` (`neg`: a `-` came before it).
fn number_bits(s: &str, ty: PtxType, neg: bool) -> Option<u64> {
    use PtxType::*;
    let mask = match ty.size() {
        8.. => u64::MAX,
        n => (1u64 << (8 * n)) - 1,
    };
    if let Some(h) = s.strip_prefix("0f").or_else(|| s.strip_prefix("0F")) {
        let v = u32::from_str_radix(h, 16).ok().filter(|_| h.len() == 8)?;
        return (!neg).then_some(u64::from(v));
    }
    if let Some(h) = s.strip_prefix("0d").or_else(|| s.strip_prefix("0D")) {
        let v = u64::from_str_radix(h, 16).ok().filter(|_| h.len() == 16)?;
        return (!neg).then_some(v);
    }
    let float = s.contains(['.', 'e', 'E']) && !s.starts_with("0x") && !s.starts_with("0X");
    if float {
        let v: f64 = s.parse().ok()?;
        let v = if neg { -v } else { v };
        return match ty {
            F32 => Some(u64::from((v as f32).to_bits())),
            F64 => Some(v.to_bits()),
            _ => None,
        };
    }
    let v = parse_uint(s)?;
    let v = if neg { v.wrapping_neg() } else { v };
    Some(match ty {
        F32 => u64::from((v as i64 as f32).to_bits()),
        F64 => (v as i64 as f64).to_bits(),
        _ => v & mask,
    })
}
