//! The `.param` traffic of an inlined call as registers (`inline.rs`):
//! declarations of `.param` variables become `.reg`s, `ld.param`/`st.param`
//! become moves.
//!
//! A value of 2, 4 or 8 bytes is one register. An array or structure passed
//! by value (`.param .align 8 .b8 retval0[16]`, as nvcc passes the
//! `{double, int}` that libdevice's `__internal_trig_reduction_slowpathd`
//! returns to every double `sin`/`cos`/`tan`) of 16 to 64 bytes, a
//! multiple of 8, is held in 8-byte parts `NAME__pK` (`.b64`), the part
//! of byte offset `8K`; an access of up to 8 bytes within one part reads
//! it shifted (`shr`) or writes it with `bfi`, so the other bytes of the
//! part keep their values; a vector access (`ld.param.v2.b32`) is its
//! elements'. An access across parts and a size off that grid are refused
//! as unsupported.

use crate::error::{ModuleError, ModuleErrorKind as K, Pos};
use crate::types::*;

/// The sizes a call parameter may have: a scalar's, or 8-byte parts.
pub(crate) const PARTS: [u64; 10] = [2, 4, 8, 16, 24, 32, 40, 48, 56, 64];

/// A direct callee's parameter or result size (see [`PARTS`]).
pub(crate) fn param_parts(p: &Param, pos: Pos) -> Result<u64, ModuleError> {
    if p.space != StateSpace::Param || !PARTS.contains(&p.size) {
        return Err(unsupported(
            pos,
            format!(
                "parameter '{}' of {} bytes (a `.reg` parameter, or a value of other than 2, 4 or 8 bytes or 16 to 64 bytes in 8-byte words)",
                p.name, p.size
            ),
        ));
    }
    Ok(p.size)
}

/// The registers holding a value of `size` bytes named `to` and `from`,
/// part by part, with each part's width in bits.
pub(crate) fn parts(to: &str, from: &str, size: u64) -> Vec<(String, String, u64)> {
    if size <= 8 {
        return vec![(to.to_string(), from.to_string(), size * 8)];
    }
    (0..size / 8)
        .map(|k| (format!("{to}__p{k}"), format!("{from}__p{k}"), 64))
        .collect()
}

/// `.param` declarations (a `.param` not preceded by a name) as `.reg`,
/// padded to the same length; one of an array or structure (`body`'s
/// variable of more than 8 bytes) as its 8-byte parts, one of 8 bytes or
/// less declared as an array as one register of its size.
pub(crate) fn params_to_regs(text: &str, body: &Body) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if text[i..].starts_with(".param") && (i == 0 || !is_ident(b[i - 1])) {
            let decl_end = text[i..].find(';').map_or(text.len(), |e| i + e);
            let decl = &text[i..decl_end];
            if let Some(regs) = array_decl(decl, body) {
                out.push_str(&regs);
                i = decl_end;
                continue;
            }
            out.push_str(".reg  ");
            i += 6;
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The `.reg` declaration of an array `.param` declaration `decl` (up to
/// its `;`): its parts, or one register of its size.
fn array_decl(decl: &str, body: &Body) -> Option<String> {
    let open = decl.find('[')?;
    let name_start = decl[..open].rfind(|c: char| c.is_whitespace())? + 1;
    let name = decl[name_start..open].trim();
    let v = body
        .variables
        .iter()
        .find(|v| v.space == StateSpace::Param && v.name == name)?;
    let regs: Vec<String> = parts(name, name, v.size)
        .into_iter()
        .map(|(p, _, _)| p)
        .collect();
    let bits = if v.size <= 8 { v.size * 8 } else { 64 };
    Some(format!(".reg .b{bits} {}", regs.join(", ")))
}

/// `ld.param`/`st.param` of a call's `.param` variable (or of the current
/// callee's parameters and results) as moves between registers; `None`
/// for any other statement.
pub(crate) fn param_access(
    text: &str,
    pos: Pos,
    body: &Body,
    frame: Option<&Frame>,
) -> Result<Option<String>, String> {
    let (guard, rest) = split_guard(text);
    let rest = rest.trim_end().trim_end_matches(';');
    let Some((op, operands)) = rest.split_once(char::is_whitespace) else {
        return Ok(None);
    };
    let load = op.starts_with("ld.param");
    if !load && !op.starts_with("st.param") {
        return Ok(None);
    }
    // A load's address is its last operand, a store's its first (a vector
    // of registers `{a, b}` has commas of its own).
    let split = if load {
        operands.rsplit_once(',')
    } else {
        operands.split_once(',')
    };
    let Some((x, y)) = split else {
        return Ok(None);
    };
    let (addr, reg) = if load {
        (y.trim(), x.trim())
    } else {
        (x.trim(), y.trim())
    };
    let Some(inner) = addr.strip_prefix('[').and_then(|a| a.strip_suffix(']')) else {
        return Ok(None);
    };
    let (name, off) = match inner.split_once('+') {
        Some((n, o)) => (n.trim(), o.trim()),
        None => (inner.trim(), "0"),
    };
    let target = body
        .variables
        .iter()
        .rfind(|v| v.space == StateSpace::Param && v.name == name && v.pos < pos)
        .map(|v| (name.to_string(), v.size))
        .or_else(|| {
            frame.and_then(|f| {
                f.args
                    .iter()
                    .chain(&f.rets)
                    .find(|a| a.0 == name)
                    .map(|a| (a.1.clone(), a.2))
            })
        });
    let Some((target, size)) = target else {
        return Ok(None);
    };
    let ty = op.rsplit('.').next().unwrap_or("");
    let width = match ty.trim_start_matches(['b', 'u', 's', 'f']) {
        "16" => 2,
        "32" => 4,
        "64" => 8,
        _ => 0,
    };
    let refuse = || {
        format!(
            "`{op}` of call parameter '{name}' at offset {off} (only scalars and vector elements of 2, 4 or 8 bytes within one 8-byte word)"
        )
    };
    let off: u64 = off.parse().map_err(|_| refuse())?;
    // A vector (`.v2`, `.v4`) is its elements, each at its own offset.
    let regs: Vec<&str> = match reg.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        Some(list) => list.split(',').map(str::trim).collect(),
        None => vec![reg],
    };
    let count = if op.contains(".v4") {
        4
    } else if op.contains(".v2") {
        2
    } else {
        1
    };
    if width == 0 || regs.len() != count {
        return Err(refuse());
    }
    if size <= 8 {
        if off != 0 || width > size || count > 1 {
            return Err(refuse());
        }
        return Ok(Some(scalar_move(guard, load, reg, &target, width, size)));
    }
    let mut out = Vec::with_capacity(count);
    for (j, r) in (0u64..).zip(&regs) {
        let at = off + j * width;
        let (k, sub) = (at / 8, at % 8);
        if k >= size / 8 || sub + width > 8 {
            return Err(refuse());
        }
        // A load's sink `_` receives nothing.
        if !(load && *r == "_") {
            let part = format!("{target}__p{k}");
            out.push(part_move(guard, load, r, &part, width, sub));
        }
    }
    Ok(Some(out.join(" ")))
}

/// A whole scalar parameter's access: a move, or a `cvt` where narrower.
fn scalar_move(guard: &str, load: bool, reg: &str, target: &str, width: u64, size: u64) -> String {
    let (wb, sb) = (width * 8, size * 8);
    match (load, width == size) {
        (true, true) => format!("{guard} mov.b{wb} {reg}, {target};"),
        (false, true) => format!("{guard} mov.b{wb} {target}, {reg};"),
        (true, false) => format!("{guard} cvt.u{wb}.u{sb} {reg}, {target};"),
        (false, false) => format!("{guard} cvt.u{sb}.u{wb} {target}, {reg};"),
    }
}

/// An access of `width` bytes at byte `sub` of an 8-byte part: the other
/// bytes of the part keep their values on a store.
fn part_move(guard: &str, load: bool, reg: &str, part: &str, width: u64, sub: u64) -> String {
    let (wb, shift) = (width * 8, sub * 8);
    match (load, width == 8) {
        (true, true) => format!("{guard} mov.b64 {reg}, {part};"),
        (false, true) => format!("{guard} mov.b64 {part}, {reg};"),
        (true, false) => format!(
            "{{ .reg .b64 __pt; .reg .b{wb} __pv; {guard} shr.b64 __pt, {part}, {shift}; \
             {guard} cvt.u{wb}.u64 __pv, __pt; {guard} mov.b{wb} {reg}, __pv; }}"
        ),
        (false, false) => format!(
            "{{ .reg .b64 __pt; .reg .b{wb} __pv; {guard} mov.b{wb} __pv, {reg}; \
             {guard} cvt.u64.u{wb} __pt, __pv; {guard} bfi.b64 {part}, __pt, {part}, {shift}, {wb}; }}"
        ),
    }
}

/// What a callee's body needs to know of its call.
pub(crate) struct Frame {
    /// Callee parameter name -> register holding the argument, and its
    /// size (one larger than 8 bytes is held in 8-byte parts:
    /// `inline_param::parts`).
    pub(crate) args: Vec<(String, String, u64)>,
    /// Callee return name -> register receiving the result, and its size.
    pub(crate) rets: Vec<(String, String, u64)>,
    /// The label each `ret` branches to.
    pub(crate) ret_label: String,
    /// Callee variable -> its name in this copy.
    pub(crate) renames: Vec<(String, String)>,
}

pub(crate) fn unsupported(pos: Pos, what: String) -> ModuleError {
    ModuleError {
        file: String::new(),
        pos,
        kind: K::NotSupported(what),
    }
}

/// (`@p` or `@!p` or "", the rest).
pub(crate) fn split_guard(text: &str) -> (&str, &str) {
    let t = text.trim_start();
    if t.starts_with('@') {
        let end = t.find(char::is_whitespace).unwrap_or(t.len());
        (&t[..end], t[end..].trim_start())
    } else {
        ("", t)
    }
}

pub(crate) fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'%')
}
