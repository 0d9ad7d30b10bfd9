//! Function bodies: scopes, register declarations, labels and statements.

use crate::cursor::{at, Parser, Res};
use crate::error::{ModuleErrorKind as K, Pos};
use crate::lex::{Tok, Token};
use crate::names::{is_ptx_opcode, is_special_register};
use crate::types::*;
use sim_isa::{Guard, Symbols};
use std::borrow::Cow;
use std::rc::Rc;
// FxHash, not SipHash: the two maps below are asked once or twice per
// declared register (a `.reg .f32 %f<321>` is 321 declarations) and are
// never iterated, so their order never shows.
use rustc_hash::FxHashMap as HashMap;

/// Deepest `{ }` nesting accepted inside a body.
pub const MAX_SCOPE_DEPTH: usize = 64;
/// Most registers one function may declare (the sum of its `<N>` ranges and names).
pub const MAX_REGISTERS: u64 = 1 << 20;

/// Parser state while reading one body.
struct State {
    body: Body,
    /// Open scopes, innermost last, each with the registers it declares
    /// (name -> index). The names are shared with `first`: one copy of a
    /// declared name serves both maps.
    open: Vec<(u32, HashMap<Rc<str>, usize>)>,
    /// Names that are neither registers nor body variables when used: labels,
    /// parameters, module variables or functions, checked once all are known.
    pending: Vec<(String, Pos)>,
    reg_count: u64,
    /// The first register of each name and type (what a declaration in a
    /// later scope reuses): looked up, not scanned, so that a body of n
    /// declarations reads in O(n). By type, then name, so that a name is
    /// looked up as the `&str` it is, without a key built per lookup.
    first: HashMap<PtxType, HashMap<Rc<str>, usize>>,
    /// `.callprototype` and `.branchtargets` names: an indirect call's
    /// operand, declared in the body but no label of a statement.
    declared: Vec<String>,
    /// Whether some register so far has a symbol name other than its own
    /// (`fresh_symbol`): until one has, a statement's text goes to sim-isa
    /// as written, without a lookup per identifier.
    renamed: bool,
}

/// Reads a body after its `{`, up to the matching `}`. `regs` are a `.func`'s
/// `.reg` parameters, registers of the body's outer scope.
pub(crate) fn body(p: &mut Parser<'_>, regs: &[&Param]) -> Res<Body> {
    let open_at = p.lx.toks[p.i - 1].start;
    let open_pos = p.lx.pos(p.src, open_at);
    let mut st = State {
        body: Body {
            statements: Vec::new(),
            labels: Vec::new(),
            registers: Vec::new(),
            symbols: Symbols::new(),
            variables: Vec::new(),
            scopes: vec![Scope {
                parent: None,
                pos: open_pos,
            }],
            pragmas: Vec::new(),
            span: (open_at, open_at),
            pending: Vec::new(),
        },
        open: vec![(0, HashMap::default())],
        pending: Vec::new(),
        reg_count: 0,
        first: HashMap::default(),
        declared: Vec::new(),
        renamed: false,
    };
    for q in regs {
        count(p, &mut st, 1, q.pos)?;
        declare(p, &mut st, q.name.clone(), q.ty, q.pos)?;
    }
    while !st.open.is_empty() {
        let Some(t) = p.peek() else {
            return Err(p.expected("'}'"));
        };
        match t.kind {
            Tok::Punct(b'{') => {
                if st.open.len() >= MAX_SCOPE_DEPTH {
                    return Err(p.err(K::NestingTooDeep {
                        max: MAX_SCOPE_DEPTH,
                    }));
                }
                p.i += 1;
                let id = st.body.scopes.len() as u32;
                st.body.scopes.push(Scope {
                    parent: st.open.last().map(|s| s.0),
                    pos: p.pos(t),
                });
                st.open.push((id, HashMap::default()));
            }
            Tok::Punct(b'}') => {
                p.i += 1;
                st.open.pop();
            }
            Tok::Dot => directive(p, &mut st, t)?,
            Tok::Ident if p.peek_at(1).is_some_and(|u| u.kind == Tok::Punct(b':')) => {
                label(p, &mut st, t)?;
            }
            Tok::Ident | Tok::Punct(b'@') => statement(p, &mut st)?,
            _ => return Err(p.expected("a statement, declaration or label")),
        }
    }
    resolve_branches(p, &mut st)?;
    st.body.span.1 = p.lx.toks[p.i - 1].start + 1;
    st.body.pending = st.pending;
    Ok(st.body)
}

fn scope(st: &State) -> u32 {
    st.open.last().map_or(0, |s| s.0)
}

fn label(p: &mut Parser<'_>, st: &mut State, t: Token) -> Res<()> {
    let name = p.text(t).to_string();
    let pos = p.pos(t);
    p.i += 2;
    let sc = scope(st);
    if st
        .body
        .labels
        .iter()
        .any(|l| l.scope == sc && l.name == name)
    {
        return Err(p.duplicate(pos, "label", name));
    }
    st.body.labels.push(Label {
        name,
        target: st.body.statements.len(),
        scope: sc,
        pos,
    });
    // `proto: .callprototype ...;` and `tbl: .branchtargets ...;` declare, not execute.
    if p.is_dot("callprototype") || p.is_dot("branchtargets") {
        if let Some(l) = st.body.labels.pop() {
            st.declared.push(l.name);
        }
        p.skip_statement();
    }
    Ok(())
}

fn directive(p: &mut Parser<'_>, st: &mut State, t: Token) -> Res<()> {
    let w = &p.text(t)[1..];
    match w {
        "reg" => {
            p.i += 1;
            registers(p, st)
        }
        "loc" | "file" => {
            p.skip_line();
            Ok(())
        }
        "pragma" => {
            p.i += 1;
            while let Some(s) = p.peek().filter(|s| s.kind == Tok::Str) {
                let s = p.text(s);
                st.body.pragmas.push(s[1..s.len() - 1].to_string());
                p.i += 1;
                if !p.eat_punct(b',') {
                    break;
                }
            }
            p.expect_punct(b';', "';'")
        }
        _ => {
            let external = p.eat_dot("extern");
            let Some(space) = p
                .peek()
                .filter(|t| t.kind == Tok::Dot)
                .and_then(|t| StateSpace::from_name(&p.text(t)[1..]))
            else {
                return Err(p.err(K::UnknownDirective(p.text(p.peek().unwrap_or(t)).into())));
            };
            p.i += 1;
            let linkage = if external {
                Linkage::Extern
            } else {
                Linkage::Internal
            };
            let v = p.variable(space, linkage)?;
            // nvcc declares each call's `.param` arguments (`param0`,
            // `retval0`) again, maybe with another type, in every call's
            // `{ }`: each is kept (a statement's is the last one declared
            // before it); calls run only inlined, where they become registers.
            if space == StateSpace::Param && scope(st) != 0 {
                st.body.variables.push(v);
                return Ok(());
            }
            p.push_variable(&mut st.body.variables, v)
        }
    }
}

/// `.reg .type a, b<N>, c;` after `.reg`.
fn registers(p: &mut Parser<'_>, st: &mut State) -> Res<()> {
    if p.is_dot("v2") || p.is_dot("v4") || p.is_dot("v8") {
        return Err(p.err(K::NotSupported("vector registers".into())));
    }
    let ty = p.ptx_type()?;
    loop {
        let (name, pos) = p.ident("a register name")?;
        if p.eat_punct(b'<') {
            let at = p.peek();
            let n = p.number("a register count")?;
            p.expect_punct(b'>', "'>'")?;
            count(p, st, n, at.map_or(pos, |t| p.pos(t)))?;
            // At most `MAX_REGISTERS` in all (`count`): the tables grow
            // once for the range, not once per doubling.
            let more = n as usize;
            st.body.symbols.reserve(more);
            st.body.registers.reserve(more);
            st.first.entry(ty).or_default().reserve(more);
            if let Some(s) = st.open.last_mut() {
                s.1.reserve(more);
            }
            for k in 0..n {
                declare(p, st, numbered(&name, k), ty, pos)?;
            }
        } else {
            count(p, st, 1, pos)?;
            declare(p, st, name, ty, pos)?;
        }
        if p.eat_punct(b';') {
            return Ok(());
        }
        p.expect_punct(b',', "',' or ';'")?;
    }
}

/// `name` followed by `k` in decimal (`%f` and 12: `%f12`), as
/// `format!` writes it, without the formatter's machinery (a `<N>`
/// declaration makes N of them).
fn numbered(name: &str, k: u64) -> String {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut v = k;
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let mut s = String::with_capacity(name.len() + digits.len() - at);
    s.push_str(name);
    s.extend(digits[at..].iter().map(|&d| char::from(d)));
    s
}

fn count(p: &Parser<'_>, st: &mut State, n: u64, pos: Pos) -> Res<()> {
    st.reg_count = st.reg_count.saturating_add(n);
    if st.reg_count > MAX_REGISTERS {
        return Err(p.err_at(
            pos,
            K::Limit {
                what: "registers in one function",
                count: st.reg_count,
                max: MAX_REGISTERS,
            },
        ));
    }
    Ok(())
}

/// Declares one register in the innermost scope. A name used again in a later
/// sibling scope with the same type shares the register (its value cannot
/// outlive its scope); a name that shadows a visible register, or comes back
/// with another type, gets a register of its own under a fresh symbol name.
fn declare(p: &Parser<'_>, st: &mut State, name: String, ty: PtxType, pos: Pos) -> Res<()> {
    let (inner, outer) = st
        .open
        .split_last()
        .map_or((None, &[][..]), |(l, o)| (Some(l), o));
    if inner.is_some_and(|s| s.1.contains_key(name.as_str())) {
        return Err(p.duplicate(pos, "register", name));
    }
    // The innermost scope was asked just above: the outer ones are left.
    let shadowing = outer.iter().any(|s| s.1.contains_key(name.as_str()));
    let reuse = if shadowing {
        None
    } else {
        st.first
            .get(&ty)
            .and_then(|m| m.get(name.as_str()))
            .copied()
    };
    // The one copy of the name both maps keep (the register keeps `name`).
    let key: Rc<str> = Rc::from(name.as_str());
    let idx = match reuse {
        Some(i) => i,
        None => {
            let symbol = fresh_symbol(&st.body.symbols, &name);
            st.renamed |= *symbol != *name;
            let id = match ty.isa_type() {
                Some(it) => st.body.symbols.declare(&symbol, it),
                None => None,
            }
            .unwrap_or_else(|| st.body.symbols.intern(&symbol));
            let scope = scope(st);
            st.body.registers.push(Register {
                name,
                id,
                ty,
                scope,
                pos,
            });
            let idx = st.body.registers.len() - 1;
            st.first
                .entry(ty)
                .or_default()
                .entry(Rc::clone(&key))
                .or_insert(idx);
            idx
        }
    };
    if let Some(s) = st.open.last_mut() {
        s.1.insert(key, idx);
    }
    Ok(())
}

/// `name` if the symbol table does not have it yet, else `name$1`, `name$2`, ...
/// (borrowed in the first, usual case: no copy made per register).
fn fresh_symbol<'n>(syms: &Symbols, name: &'n str) -> Cow<'n, str> {
    if syms.get(name).is_none() {
        return Cow::Borrowed(name);
    }
    Cow::Owned(
        (1u64..)
            .map(|k| format!("{name}${k}"))
            .find(|s| syms.get(s).is_none())
            .unwrap_or_default(),
    )
}

/// `text` (the statement from byte `start`) with every register renamed by
/// [`fresh_symbol`] written under its symbol name, for sim-isa.
fn symbol_text<'t>(
    p: &Parser<'_>,
    st: &State,
    toks: &[Token],
    start: u32,
    text: &'t str,
) -> Cow<'t, str> {
    let mut out = Cow::Borrowed(text);
    if !st.renamed {
        return out;
    }
    for t in toks.iter().rev().filter(|t| t.kind == Tok::Ident) {
        let Some(r) = visible_register(st, p.text(*t)) else {
            continue;
        };
        let symbol = st.body.symbols.name(r.id);
        if symbol != r.name {
            let a = (t.start - start) as usize;
            out.to_mut().replace_range(a..a + r.name.len(), symbol);
        }
    }
    out
}

fn visible_register<'s>(st: &'s State, name: &str) -> Option<&'s Register> {
    st.open
        .iter()
        .rev()
        .find_map(|s| s.1.get(name))
        .map(|&i| &st.body.registers[i])
}

/// The statement's text from `a` to `b` (bytes) with comments and line breaks blanked.
fn blanked(p: &Parser<'_>, a: u32, b: u32) -> String {
    let mut bytes = p.src.as_bytes()[a as usize..b as usize].to_vec();
    let first = p.lx.comments.partition_point(|c| c.1 <= a);
    for &(cs, ce) in p.lx.comments[first..].iter().take_while(|c| c.0 < b) {
        for k in cs.max(a)..ce.min(b) {
            bytes[(k - a) as usize] = b' ';
        }
    }
    for c in bytes.iter_mut() {
        if matches!(c, b'\n' | b'\r' | b'\t' | 0x0b | 0x0c) || !c.is_ascii() {
            *c = b' ';
        }
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// An executable statement up to its `;`.
fn statement(p: &mut Parser<'_>, st: &mut State) -> Res<()> {
    let first = p.i;
    // Braces inside a statement hold a vector operand (`{%r1, %r2}`), one
    // level deep; a `;` inside them, or a `}` without its `{`, is an error.
    let mut open = false;
    while open || !p.is_punct(b';') {
        match p.peek() {
            None => return Err(p.expected(if open { "'}'" } else { "';'" })),
            Some(t) if t.kind == Tok::Punct(b'{') && !open && p.i > first => {
                open = true;
                p.i += 1;
            }
            Some(t) if t.kind == Tok::Punct(b'}') && open => {
                open = false;
                p.i += 1;
            }
            Some(t) if matches!(t.kind, Tok::Punct(b'{' | b'}')) => return Err(p.expected("';'")),
            Some(t) if open && t.kind == Tok::Punct(b';') => return Err(p.expected("'}'")),
            Some(_) => p.i += 1,
        }
    }
    let toks = &p.lx.toks[first..p.i];
    let semi = p.lx.toks[p.i];
    p.i += 1;
    let start = toks[0].start;
    let pos = p.pos(toks[0]);
    // Trimmed in place: a second copy per statement cost as much again.
    let mut text = blanked(p, start, semi.start);
    text.truncate(text.trim_end().len());
    let mut k = 0;
    let guard = if toks[0].kind == Tok::Punct(b'@') {
        let negate = toks.get(1).is_some_and(|t| t.kind == Tok::Punct(b'!'));
        k = 1 + usize::from(negate);
        let Some(g) = toks.get(k).filter(|t| t.kind == Tok::Ident) else {
            return Err(at(
                p,
                toks.get(k).copied().unwrap_or(semi),
                "a guard predicate",
            ));
        };
        k += 1;
        match visible_register(st, p.text(*g)) {
            Some(r) if r.ty == PtxType::Pred => Some(Guard { reg: r.id, negate }),
            Some(_) => return Err(at(p, *g, "a predicate register")),
            None => return Err(p.err_at(p.pos(*g), K::Undeclared(p.text(*g).into()))),
        }
    } else {
        None
    };
    let Some(op) = toks.get(k).filter(|t| t.kind == Tok::Ident).copied() else {
        return Err(at(
            p,
            toks.get(k).copied().unwrap_or(semi),
            "an instruction",
        ));
    };
    let word = p.text(op);
    let mut m = k + 1;
    while toks.get(m).is_some_and(|t| t.kind == Tok::Dot) {
        m += 1;
    }
    let mods = &toks[k + 1..m];
    let operands = &toks[m..];
    let symbolic = check_identifiers(p, st, operands, word == "bra");
    let kind = match word {
        "bra" | "ret" | "exit" | "call" | "trap" | "brkpt" => {
            let mut c = crate::control::control(p, word, mods, operands, semi, guard)?;
            builtin_registers(st, &mut c);
            if let ControlOp::Call {
                callee,
                address,
                prototype: Some(_),
                ..
            } = &mut c.op
            {
                *address = visible_register(st, callee).map(|r| r.id);
            }
            StatementKind::Control(c)
        }
        _ if !is_ptx_opcode(word) => {
            return Err(p.err_at(p.pos(op), K::UnknownInstruction(word.into())))
        }
        _ => {
            let isa_text = symbol_text(p, st, toks, start, &text);
            crate::control::instruction(p, &mut st.body.symbols, &isa_text, op, mods, symbolic)?
        }
    };
    st.body.statements.push(Statement {
        pos,
        scope: scope(st),
        text,
        span: (start, semi.start + 1),
        kind,
    });
    Ok(())
}

/// A builtin call's registers, when all its operands are registers (see
/// [`Builtin`]).
fn builtin_registers(st: &State, c: &mut Control) {
    let ControlOp::Call {
        rets,
        args,
        builtin: Some(b),
        ..
    } = &mut c.op
    else {
        return;
    };
    let regs = |names: &[String]| -> Option<Vec<sim_isa::RegId>> {
        names
            .iter()
            .map(|n| visible_register(st, n).map(|r| r.id))
            .collect()
    };
    if let (Some(a), Some(r)) = (regs(args), regs(rets)) {
        b.args = a;
        b.rets = r;
    }
}

/// Every identifier operand must be a visible register, a special register,
/// the sink `_`, a body variable, or (checked later) a label, parameter, module variable or function.
/// Returns whether any operand names memory or code rather than a register.
fn check_identifiers(p: &Parser<'_>, st: &mut State, operands: &[Token], bra: bool) -> bool {
    let mut symbolic = false;
    for t in operands.iter().filter(|t| t.kind == Tok::Ident) {
        let name = p.text(*t);
        // `_` is the sink operand (`elect.sync _|%p1, -1`), no name.
        if name == "_" || visible_register(st, name).is_some() || is_special_register(name) {
            continue;
        }
        symbolic = true;
        // Branch targets are checked against the labels.
        if !bra && !st.body.variables.iter().any(|v| v.name == name) {
            st.pending.push((name.to_string(), p.pos(*t)));
        }
    }
    symbolic
}

/// Points every `bra` at its label: the nearest one visible from the branch's scope.
fn resolve_branches(p: &Parser<'_>, st: &mut State) -> Res<()> {
    let scopes = &st.body.scopes;
    let labels = &st.body.labels;
    for s in st.body.statements.iter_mut() {
        let StatementKind::Control(Control {
            op: ControlOp::Bra { target, label, .. },
            ..
        }) = &mut s.kind
        else {
            continue;
        };
        let mut sc = Some(s.scope);
        let mut found = None;
        while let (Some(c), None) = (sc, found) {
            found = labels
                .iter()
                .position(|l| l.scope == c && &l.name == target);
            sc = scopes[c as usize].parent;
        }
        *label = found.ok_or_else(|| p.err_at(s.pos, K::UnknownLabel(target.clone())))?;
    }
    // Labels used as plain operands (indirect calls, tables) are fine anywhere in the body.
    let declared = &st.declared;
    st.pending
        .retain(|(n, _)| !labels.iter().any(|l| &l.name == n) && !declared.contains(n));
    Ok(())
}

/// Checks the names bodies left open against the whole module.
pub(crate) fn resolve_module(m: &mut Module, p: &Parser<'_>) -> Res<()> {
    let globals: Vec<&str> = m
        .variables
        .iter()
        .map(|v| v.name.as_str())
        .chain(m.functions.iter().map(|f| f.name.as_str()))
        .collect();
    for f in &m.functions {
        let Some(b) = &f.body else { continue };
        for (name, pos) in &b.pending {
            let known = globals.contains(&name.as_str())
                || f.params.iter().chain(&f.returns).any(|q| &q.name == name);
            if !known {
                return Err(p.err_at(*pos, K::Undeclared(name.clone())));
            }
        }
    }
    // A call is a builtin's only where the module declares it (a module
    // may define a function of the same name: then it is that one).
    let declared: Vec<BuiltinKind> = m
        .functions
        .iter()
        .filter_map(|f| BuiltinKind::from_name(&f.name).filter(|k| k.declared_by(f)))
        .filter(|k| m.function(k.name()).is_none())
        .collect();
    for f in &mut m.functions {
        if let Some(b) = &mut f.body {
            b.pending = Vec::new();
            for s in &mut b.statements {
                if let StatementKind::Control(Control {
                    op: ControlOp::Call { builtin, .. },
                    ..
                }) = &mut s.kind
                {
                    if builtin
                        .as_ref()
                        .is_some_and(|x| !declared.contains(&x.kind))
                    {
                        *builtin = None;
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::numbered;

    /// The names a `<N>` declaration makes are `format!`'s.
    #[test]
    fn numbered_names_are_formats() {
        for k in [0u64, 1, 9, 10, 99, 100, 320, 65_535, 1 << 20, u64::MAX] {
            assert_eq!(numbered("%rd", k), format!("%rd{k}"));
        }
        assert_eq!(numbered("%f", 12), "%f12");
    }
}
