//! How an inlined call's `.param` traffic is rewritten (`inline.rs`).
//!
//! A scalar of 2, 4 or 8 bytes lives in a register: `.param` declarations
//! become `.reg`, and `ld.param`/`st.param` of them become `mov` (or `cvt`,
//! where the access is narrower). Anything else (an array or a structure
//! passed or returned by value, as libdevice's double-precision
//! `__internal_trig_reduction_slowpathd` returns a 16-byte one, or a
//! one-byte scalar) lives in per-thread memory: its declaration becomes
//! `.local` with the same alignment and size, its accesses `ld.local`/
//! `st.local` at the same offsets and widths, and a call copies such an
//! argument into a `.local` variable of its own (and a result back), as
//! the ABI passes a structure by value in a copy.

use crate::error::Pos;
use crate::types::*;

/// A callee's parameter or result as inlined: its name in the callee, what
/// holds it in this copy, its size and whether that is memory.
pub(crate) struct Slot {
    /// The callee's name for it.
    pub name: String,
    /// The register, or the `.local` variable when `mem`.
    pub target: String,
    /// Bytes.
    pub size: u64,
    /// Held in a `.local` variable, not a register.
    pub mem: bool,
}

/// Whether a `.param` of `size` bytes (an array when `array`) is held in
/// memory rather than in a register.
pub(crate) fn in_memory(size: u64, array: bool) -> bool {
    array || !matches!(size, 2 | 4 | 8)
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

/// The `.param` variable `name` declared before `pos` in `body` (of the
/// copy tagged `tag`): its size, whether it is held in memory, and its name
/// once inlined (see [`Params`]).
pub(crate) fn declared(
    body: &Body,
    tag: &str,
    name: &str,
    pos: Pos,
) -> Option<(u64, bool, String)> {
    let params = body
        .variables
        .iter()
        .filter(|v| v.space == StateSpace::Param);
    let (k, v) = params
        .enumerate()
        .filter(|(_, v)| v.name == name && v.pos < pos)
        .last()?;
    let mem = in_memory(v.size, !v.dims.is_empty());
    Some((v.size, mem, local_name(name, k, tag, mem)))
}

/// A `.param` variable's name once inlined: a register keeps it (`.reg`s
/// are scoped by braces), a `.local` (function-wide, declared once) gets
/// its place among the body's `.param` variables and the copy's tag.
fn local_name(name: &str, k: usize, tag: &str, mem: bool) -> String {
    if mem {
        format!("{name}__p{k}{tag}")
    } else {
        name.to_string()
    }
}

/// A body's `.param` variables in declaration order, as its declarations
/// are rewritten one after another ([`params_to_regs`]).
pub(crate) struct Params<'a> {
    vars: Vec<&'a Variable>,
    next: usize,
    tag: &'a str,
}

impl<'a> Params<'a> {
    pub(crate) fn new(body: &'a Body, tag: &'a str) -> Params<'a> {
        let vars = body.variables.iter();
        Params {
            vars: vars.filter(|v| v.space == StateSpace::Param).collect(),
            next: 0,
            tag,
        }
    }
}

/// `ld.param`/`st.param` of a call's `.param` variable (or of the current
/// callee's parameters and results, `slots`) as a `mov`/`cvt` between
/// registers, or as `ld.local`/`st.local` where it is held in memory;
/// `None` for any other statement.
pub(crate) fn param_access<'a>(
    text: &str,
    pos: Pos,
    (body, tag): (&Body, &str),
    slots: impl IntoIterator<Item = &'a Slot>,
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
    // A load's address is its last operand, a store's its first (a vector's
    // registers are a braced list with commas of its own).
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
    let target = declared(body, tag, name, pos)
        .map(|(size, mem, local)| (local, size, mem))
        .or_else(|| {
            slots
                .into_iter()
                .find(|a| a.name == name)
                .map(|a| (a.target.clone(), a.size, a.mem))
        });
    let Some((target, size, mem)) = target else {
        return Ok(None);
    };
    if mem {
        let op = op.replacen(".param", ".local", 1);
        return Ok(Some(if load {
            format!("{guard} {op} {reg}, [{target}+{off}];")
        } else {
            format!("{guard} {op} [{target}+{off}], {reg};")
        }));
    }
    let ty = op.rsplit('.').next().unwrap_or("");
    let width = match ty.trim_start_matches(['b', 'u', 's', 'f']) {
        "16" => 2,
        "32" => 4,
        "64" => 8,
        _ => 0,
    };
    if off != "0" || width == 0 || width > size || op.contains(".v") {
        return Err(format!(
            "`{op}` of call parameter '{name}' at offset {off} (only whole scalars of 2, 4 or 8 bytes)"
        ));
    }
    let (wb, sb) = (width * 8, size * 8);
    Ok(Some(match (load, width == size) {
        (true, true) => format!("{guard} mov.b{wb} {reg}, {target};"),
        (false, true) => format!("{guard} mov.b{wb} {target}, {reg};"),
        (true, false) => format!("{guard} cvt.u{wb}.u{sb} {reg}, {target};"),
        (false, false) => format!("{guard} cvt.u{sb}.u{wb} {target}, {reg};"),
    }))
}

/// `.param` declarations (a `.param` not preceded by a name) as `.reg`, or
/// as `.local` where the variable is held in memory (not a scalar of 2, 4
/// or 8 bytes), renamed as [`declared`] names it; `params` are the body's
/// `.param` variables, the next one first.
pub(crate) fn params_to_regs(text: &str, params: &mut Params<'_>) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if text[i..].starts_with(".param") && (i == 0 || !is_ident(b[i - 1])) {
            let k = params.next;
            params.next += 1;
            let Some(v) = params.vars.get(k) else {
                out.push_str(".reg  ");
                i += 6;
                continue;
            };
            if !in_memory(v.size, !v.dims.is_empty()) {
                out.push_str(".reg  ");
                i += 6;
                continue;
            }
            // `.param .align 8 .b8 retval0[16]` -> `.local .align 8 .b8 retval0__p3[16]`.
            let end = text[i..].find(';').map_or(text.len(), |e| i + e);
            let decl = &text[i + 6..end];
            let head = decl.split('[').next().unwrap_or(decl).trim_end();
            let at = head.rfind(|c: char| c.is_whitespace()).map_or(0, |p| p + 1);
            let local = local_name(&v.name, k, params.tag, true);
            out.push_str(".local");
            out.push_str(&head[..at]);
            out.push_str(&local);
            out.push_str(&decl[head.len()..]);
            i = end;
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The statements that copy `size` bytes between two holders of a `.param`
/// value (`from`, `to`: a name and whether it is a `.local` variable, else
/// a register or an immediate), through the scratch register `tmp_base`
/// (declared here as needed), in the widest pieces `align` allows.
pub(crate) fn copy(
    from: (&str, bool),
    to: (&str, bool),
    size: u64,
    align: u64,
    tmp_base: &str,
) -> String {
    let unit = [8u64, 4, 2, 1]
        .into_iter()
        .find(|&u| u <= align.max(1) && size.is_multiple_of(u))
        .unwrap_or(1);
    match (from.1, to.1) {
        // Both registers: a plain move (not used for memory slots).
        (false, false) => format!("mov.b{b} {}, {};", to.0, from.0, b = size * 8),
        // A register or immediate argument for a parameter held in memory.
        (false, true) => format!("st.local.b{b} [{}], {};", to.0, from.0, b = size * 8),
        // A result held in memory for a register the caller reads.
        (true, false) => format!("ld.local.b{b} {}, [{}];", to.0, from.0, b = size * 8),
        (true, true) => {
            let bits = unit * 8;
            // `.b8` registers do not exist: a byte moves through a `.b16`.
            let (reg_bits, suffix) = if unit == 1 { (16, "u8") } else { (bits, "") };
            let ty = if unit == 1 {
                suffix.to_string()
            } else {
                format!("b{bits}")
            };
            let tmp = format!("{tmp_base}_t");
            let mut s = format!("{{ .reg .b{reg_bits} {tmp}; ");
            for k in 0..size / unit {
                let o = k * unit;
                s.push_str(&format!(
                    "ld.local.{ty} {tmp}, [{}+{o}]; st.local.{ty} [{}+{o}], {tmp}; ",
                    from.0, to.0
                ));
            }
            s.push('}');
            s
        }
    }
}
