//! Device-function calls, inlined into the launched kernel before it runs.
//!
//! Why inlining and not call frames at run time: every later stage (the
//! gate, dead-statement analysis, register allocation, reordering, the
//! reconvergence of divergent branches, timing and recordings) works on one
//! body of statements; a flattened body keeps all of them as they are and
//! the engine's hot path free of frame stacks and allocations. ptxas
//! inlines small `__noinline__`-free functions itself and, for the others,
//! passes scalar arguments and results in registers around `CALL.REL`/`RET`
//! (sm_90); here the `.param` traffic of a call becomes register moves, so
//! a call costs a few `mov`s and a `bra` for each `ret`, close to ptxas's
//! argument `MOV`s and the `CALL`/`RET` pair.
//!
//! The rewrite is textual on the module's source, then parsed again, so the
//! flattened body obeys every rule of a hand-written one:
//! - a call becomes a `{ }` scope declaring one register per argument and
//!   result (`__inlN_aK`, `__inlN_rK`), moving the call's `.param`
//!   variables into them, then the callee's body (its own `{ }`, so its
//!   registers and labels shadow the caller's), then a label `__inlN_ret`
//!   that each of the callee's `ret`s branches to, then the moves of the
//!   results back; a guarded call is skipped by a branch around it;
//! - a `.param` variable declared in a body becomes a `.reg` of its type,
//!   and `ld.param`/`st.param` of it (or of the callee's parameters and
//!   return values) become `mov` (or `cvt`, where the access is narrower);
//! - a callee's other variables (`.local` stacks) are renamed per copy, so
//!   each inlined call has its own.
//!
//! An indirect call (`call (r), %rd5, (a), prototype_0;`) becomes a
//! dispatch over the functions it may reach (`Gen::indirect`): a compare of
//! the register with each candidate's address
//! ([`Module::function_address`]) and a branch to that candidate's inlined
//! body, the call itself left for lanes whose address is no candidate's
//! (the launch stops there). See docs/ptx-modules.md.
//!
//! Recursion is inlined up to [`MAX_CALL_DEPTH`] nested calls and
//! [`MAX_INLINED_STATEMENTS`] statements; a call beyond either is left in
//! place and stops the launch with an error naming it if a thread reaches it.
//! Statements keep the positions of the source they were copied from (a
//! callee's statements their lines in the callee); the moves and branches
//! written for a call take the call's position.

use crate::error::{ModuleError, Pos};
use crate::inline_param::{
    is_ident, param_access, param_parts, params_to_regs, split_guard, unsupported, Frame, PARTS,
};
use crate::parse::parse_module;
use crate::types::*;

/// Deepest chain of nested calls inlined (a recursion deeper than this stops
/// the launch when a thread makes the call).
pub const MAX_CALL_DEPTH: usize = 12;
/// Most statements a flattened kernel may have; calls past it are left in place.
pub const MAX_INLINED_STATEMENTS: usize = 1 << 15;

/// `entry`'s module with every call to a function with a body inlined into
/// `entry` (see the module documentation), or `None` when it calls none.
pub fn inline_calls(
    src: &str,
    module: &Module,
    entry: &str,
) -> Result<Option<Module>, ModuleError> {
    let Some(f) = module.function(entry) else {
        return Ok(None);
    };
    let Some(body) = &f.body else {
        return Ok(None);
    };
    // A builtin's call is not inlined, but its `.param` variables become
    // registers as an inlined call's do.
    let calls = body.statements.iter().any(|s| {
        matches!(&s.kind, StatementKind::Control(Control { op: ControlOp::Call { callee, builtin, prototype, .. }, .. })
            if builtin.is_some() || prototype.is_some() || module.function(callee).is_some())
    });
    if !calls {
        return Ok(None);
    }
    let mut g = Gen {
        src,
        module,
        out: String::with_capacity(src.len() * 2),
        segs: Vec::new(),
        next: 0,
        stmts: 0,
        taken: address_taken(module),
    };
    g.copy_raw(0, body.span.0 as usize);
    g.body(body, None, 0).map_err(|mut e| {
        e.file = module.file.clone();
        e
    })?;
    g.copy_raw(body.span.1 as usize, src.len());
    let lines = LineIndex::new(src);
    let new_lines = LineIndex::new(&g.out);
    let mut m = match parse_module(&g.out, &module.file) {
        Ok(m) => m,
        Err(mut e) => {
            e.pos = lines.pos(src, g.orig(new_lines.offset(&g.out, e.pos)));
            return Err(e);
        }
    };
    if let Some(b) = m
        .functions
        .iter_mut()
        .find(|x| x.name == entry && x.body.is_some())
        .and_then(|x| x.body.as_mut())
    {
        for s in &mut b.statements {
            s.pos = lines.pos(src, g.orig(s.span.0 as usize));
        }
    }
    Ok(Some(m))
}

struct Gen<'a> {
    src: &'a str,
    module: &'a Module,
    out: String,
    /// (offset in `out`, offset in `src`) where each copied or written piece starts.
    segs: Vec<(usize, usize)>,
    next: usize,
    stmts: usize,
    /// The `.func`s with a body whose address the module takes, in order.
    taken: Vec<&'a Function>,
}

impl Gen<'_> {
    fn orig(&self, off: usize) -> usize {
        let k = self.segs.partition_point(|s| s.0 <= off);
        match k.checked_sub(1).and_then(|k| self.segs.get(k)) {
            Some(&(n, o)) => o + (off - n).min(self.src.len().saturating_sub(o)),
            None => off.min(self.src.len()),
        }
    }

    /// The number of the next inlined copy or dispatch (its labels' and
    /// registers' `__inlN`).
    fn fresh(&mut self) -> usize {
        self.next += 1;
        self.next - 1
    }

    fn mark(&mut self, orig: usize) {
        self.segs.push((self.out.len(), orig));
    }

    /// `text` written as if at `orig` of the source (its position), and a space.
    fn put(&mut self, orig: usize, text: &str) {
        self.mark(orig);
        self.out.push_str(text);
        self.out.push(' ');
    }

    fn copy_raw(&mut self, a: usize, b: usize) {
        self.mark(a);
        self.out.push_str(self.src.get(a..b).unwrap_or(""));
    }

    /// Text between statements: declarations and labels, with `.param`
    /// declarations turned into registers and a copy's variables renamed.
    fn between(&mut self, a: usize, b: usize, body: &Body, frame: Option<&Frame>) {
        self.mark(a);
        let text = self.src.get(a..b).unwrap_or("");
        let text = params_to_regs(text, body);
        let text = match frame {
            Some(f) => rename(&text, &f.renames),
            None => text,
        };
        self.out.push_str(&text);
    }

    /// Writes `body` (braces included), rewriting calls, `ret`s and `.param` accesses.
    fn body(
        &mut self,
        body: &Body,
        frame: Option<&Frame>,
        depth: usize,
    ) -> Result<(), ModuleError> {
        for v in body
            .variables
            .iter()
            .filter(|v| v.space == StateSpace::Param)
        {
            if !PARTS.contains(&v.size) {
                return Err(unsupported(
                    v.pos,
                    format!(
                        "call parameter '{}' of {} bytes (a value of 2, 4 or 8 bytes, or an array or structure of 16 to 64 bytes in 8-byte words)",
                        v.name, v.size
                    ),
                ));
            }
        }
        let mut at = body.span.0 as usize;
        for s in &body.statements {
            let (a, b) = (s.span.0 as usize, s.span.1 as usize);
            self.between(at, a, body, frame);
            at = b;
            self.stmts += 1;
            let text = self.src.get(a..b).unwrap_or("");
            let text = match frame {
                Some(f) => rename(text, &f.renames),
                None => text.to_string(),
            };
            self.mark(a);
            match &s.kind {
                StatementKind::Control(c) => match &c.op {
                    ControlOp::Ret { uni } if frame.is_some() => {
                        let (guard, _) = split_guard(&text);
                        let label = frame.map_or("", |f| f.ret_label.as_str());
                        let uni = if *uni { ".uni" } else { "" };
                        self.out.push_str(&format!("{guard} bra{uni} {label};"));
                    }
                    ControlOp::Call {
                        callee,
                        rets,
                        args,
                        prototype,
                        builtin,
                        ..
                    } => {
                        let site = Site {
                            s,
                            text: &text,
                            callee,
                            rets,
                            args,
                            caller: body,
                            frame,
                        };
                        // Through a prototype to no function of the module: a
                        // register holds the callee.
                        if prototype.is_some()
                            && builtin.is_none()
                            && self.module.function(callee).is_none()
                        {
                            self.indirect(site, depth)?
                        } else {
                            self.call(site, depth)?
                        }
                    }
                    _ => self.out.push_str(&text),
                },
                StatementKind::Instruction(_) | StatementKind::Unimplemented(_) => {
                    let t = param_access(&text, s.pos, body, frame)
                        .map_err(|m| unsupported(s.pos, m))?;
                    self.out.push_str(t.as_deref().unwrap_or(&text));
                }
            }
        }
        self.between(at, body.span.1 as usize, body, frame);
        Ok(())
    }

    fn call(&mut self, site: Site<'_>, depth: usize) -> Result<(), ModuleError> {
        let (s, text, callee) = (site.s, site.text, site.callee);
        let (rets, args) = (site.rets, site.args);
        let module = self.module;
        let Some(f) = module
            .function(callee)
            .filter(|f| f.kind == FunctionKind::Func)
        else {
            self.out.push_str(text);
            return Ok(());
        };
        let Some(fbody) = &f.body else {
            self.out.push_str(text);
            return Ok(());
        };
        if depth >= MAX_CALL_DEPTH || self.stmts + fbody.statements.len() > MAX_INLINED_STATEMENTS {
            // Left as a call: reaching it stops the launch (recursion too deep).
            self.out.push_str(text);
            return Ok(());
        }
        if f.params.len() != args.len() || f.returns.len() != rets.len() {
            return Err(unsupported(
                s.pos,
                format!(
                    "call {callee} with {} arguments and {} results; it takes {} and returns {}",
                    args.len(),
                    rets.len(),
                    f.params.len(),
                    f.returns.len()
                ),
            ));
        }
        let n = self.fresh();
        let mut fr = Frame {
            args: Vec::new(),
            rets: Vec::new(),
            ret_label: format!("__inl{n}_ret"),
            renames: copy_renames(fbody, n),
        };
        let mut head = String::from("{ ");
        let mut tail = format!("{}: ", fr.ret_label);
        for (k, (p, a)) in f.params.iter().zip(args).enumerate() {
            let size = param_parts(p, s.pos)?;
            let reg = format!("__inl{n}_a{k}");
            let a = site.resolve(a);
            for (part, from, b) in crate::inline_param::parts(&reg, &a, size) {
                head.push_str(&format!(".reg .b{b} {part}; mov.b{b} {part}, {from}; "));
            }
            fr.args.push((p.name.clone(), reg, size));
        }
        for (k, (p, r)) in f.returns.iter().zip(rets).enumerate() {
            let size = param_parts(p, s.pos)?;
            let reg = format!("__inl{n}_r{k}");
            let r = site.resolve(r);
            for (part, to, b) in crate::inline_param::parts(&reg, &r, size) {
                head.push_str(&format!(".reg .b{b} {part}; "));
                tail.push_str(&format!("mov.b{b} {to}, {part}; "));
            }
            fr.rets.push((p.name.clone(), reg, size));
        }
        let (guard, _) = split_guard(text);
        let skip = format!("__inl{n}_end");
        if let Some(b) = skip_branch(guard, &skip) {
            self.out.push_str(&b);
            self.out.push(' ');
        }
        self.out.push_str(&head);
        self.body(fbody, Some(&fr), depth + 1)?;
        self.mark(s.span.0 as usize);
        self.out.push_str(&format!(" {tail}}}"));
        if !guard.is_empty() {
            self.out.push_str(&format!(" {skip}:"));
        }
        Ok(())
    }
}

/// A call statement being inlined: the statement, its text (renamed into
/// the caller's frame), its operands, and the body and frame it stands in.
struct Site<'b> {
    s: &'b Statement,
    text: &'b str,
    callee: &'b str,
    rets: &'b [String],
    args: &'b [String],
    caller: &'b Body,
    frame: Option<&'b Frame>,
}

/// Each variable of `fbody` other than a parameter -> its name in copy
/// `n` (`x` -> `x__inl3`).
fn copy_renames(fbody: &Body, n: usize) -> Vec<(String, String)> {
    fbody
        .variables
        .iter()
        .filter(|v| v.space != StateSpace::Param)
        .map(|v| (v.name.clone(), format!("{}__inl{n}", v.name)))
        .collect()
}

/// For a guarded call (`guard` is `@p` or `@!p`), the branch to `skip`
/// taken by the lanes whose guard is false; `None` for an unguarded one.
fn skip_branch(guard: &str, skip: &str) -> Option<String> {
    let g = guard.strip_prefix('@')?;
    let inverse = match g.strip_prefix('!') {
        Some(p) => format!("@{p}"),
        None => format!("@!{g}"),
    };
    Some(format!("{inverse} bra {skip};"))
}

impl Gen<'_> {
    /// An indirect call (`call (r), %rd5, (a, b), prototype_0;`) as a
    /// dispatch over its candidates: the `.func`s with a body whose address
    /// the module takes and whose parameters and results have the sizes of
    /// the call's. The arguments are moved once into registers; then each
    /// candidate in turn: its address compared with the callee register's
    /// value, and the lanes that hold it branch to its body, inlined as a
    /// direct call's is ([`Gen::arm`]); all meet at the end, where the
    /// results are moved back once. The lanes left (an address of no
    /// candidate) reach the call itself,
    /// kept as written, which stops the launch naming a lane, its value and
    /// the line (`KernelError::BadCallTarget` in sim-kernel), as a GPU
    /// faults at a call to a bad address. A guarded call is skipped by a
    /// branch around the whole.
    fn indirect(&mut self, site: Site<'_>, depth: usize) -> Result<(), ModuleError> {
        let Site {
            s,
            text,
            callee,
            rets,
            args,
            caller,
            ..
        } = site;
        let sizes = |names: &[String]| -> Vec<Option<u64>> {
            names
                .iter()
                .map(|n| {
                    caller
                        .variables
                        .iter()
                        .rev()
                        .find(|v| v.space == StateSpace::Param && &v.name == n && v.pos < s.pos)
                        .map(|v| v.size)
                })
                .collect()
        };
        let (arg_sizes, ret_sizes) = (sizes(args), sizes(rets));
        let fits = |ps: &[Param], want: &[Option<u64>]| {
            ps.len() == want.len()
                && ps
                    .iter()
                    .zip(want)
                    .all(|(p, w)| param_size(p, s.pos).is_ok_and(|z| w.is_none_or(|w| w == z)))
        };
        let candidates: Vec<(String, u64)> = self
            .taken
            .iter()
            .filter(|f| fits(&f.params, &arg_sizes) && fits(&f.returns, &ret_sizes))
            .filter_map(|f| Some((f.name.clone(), self.module.function_address(&f.name)?)))
            .collect();
        // The dispatch's compares count against the statement budget; past
        // it the call stays as written: a thread that reaches it stops the
        // launch (nested deeper than simcli inlines, or a bad address).
        let cost = 2 * candidates.len() + 2;
        if self.stmts + cost > MAX_INLINED_STATEMENTS {
            self.mark(s.span.0 as usize);
            self.out.push_str(text);
            return Ok(());
        }
        self.stmts += cost;
        let n = self.fresh();
        let at = s.span.0 as usize;
        let width = if self.module.address_size == Some(32) {
            32
        } else {
            64
        };
        let (guard, _) = split_guard(text);
        let end = format!("__inl{n}_end");
        let pred = format!("__inl{n}_p");
        // The arguments moved once into registers every arm reads, the
        // results once out of registers every arm writes (as ptxas moves
        // them once around its one `CALL`). Each statement written takes
        // the call's position.
        let mut head = vec![format!("{{ .reg .pred {pred};")];
        let mut tail = vec![format!("{end}:")];
        // Each operand's register, its width in bits and the caller's name.
        let moves = |names: &[String], sizes: &[Option<u64>], tag: char| {
            let bits = |size: &Option<u64>| size.unwrap_or(8) * 8;
            (names.iter().zip(sizes).enumerate())
                .map(|(k, (x, size))| (format!("__inl{n}_{tag}{k}"), bits(size), site.resolve(x)))
                .collect::<Vec<_>>()
        };
        let (arg_moves, ret_moves) = (moves(args, &arg_sizes, 'a'), moves(rets, &ret_sizes, 'r'));
        for (reg, b, a) in &arg_moves {
            head.push(format!(".reg .b{b} {reg};"));
            head.push(format!("mov.b{b} {reg}, {a};"));
        }
        for (reg, b, r) in &ret_moves {
            head.push(format!(".reg .b{b} {reg};"));
            tail.push(format!("mov.b{b} {r}, {reg};"));
        }
        let arg_regs: Vec<String> = arg_moves.into_iter().map(|m| m.0).collect();
        let ret_regs: Vec<String> = ret_moves.into_iter().map(|m| m.0).collect();
        tail.push("}".to_string());
        let skip = format!("__inl{n}_skip");
        if let Some(b) = skip_branch(guard, &skip) {
            self.put(at, &b);
        }
        for h in &head {
            self.put(at, h);
        }
        for (k, (_, addr)) in candidates.iter().enumerate() {
            self.put(at, &format!("setp.eq.u{width} {pred}, {callee}, {addr};"));
            self.put(at, &format!("@{pred} bra __inl{n}_t{k};"));
        }
        // Reached only by lanes whose address is no candidate's.
        self.put(at, text.trim());
        self.put(at, &format!("bra {end};"));
        for (k, (name, _)) in candidates.iter().enumerate() {
            self.put(at, &format!("__inl{n}_t{k}:"));
            let regs = (&arg_regs[..], &ret_regs[..], end.as_str());
            self.arm(s, name, regs, depth)?;
            self.put(at, &format!("bra {end};"));
        }
        for t in &tail {
            self.put(at, t);
        }
        if !guard.is_empty() {
            self.put(at, &format!("{skip}:"));
        }
        Ok(())
    }

    /// One candidate of an indirect call: its body inlined over the
    /// dispatch's argument and result registers, each `ret` a branch to
    /// the dispatch's end; past the depth or statement limits, a direct call
    /// left in place (reaching it stops the launch).
    fn arm(
        &mut self,
        s: &Statement,
        name: &str,
        (args, rets, end): (&[String], &[String], &str),
        depth: usize,
    ) -> Result<(), ModuleError> {
        let module = self.module;
        let Some((f, fbody)) = module
            .function(name)
            .and_then(|f| f.body.as_ref().map(|b| (f, b)))
        else {
            return Ok(());
        };
        if depth >= MAX_CALL_DEPTH || self.stmts + fbody.statements.len() > MAX_INLINED_STATEMENTS {
            // Left as a call: reaching it stops the launch (too deep).
            let (a, r) = (args.join(", "), rets.join(", "));
            self.put(s.span.0 as usize, &format!("call ({r}), {name}, ({a});"));
            return Ok(());
        }
        let n = self.fresh();
        let sized =
            |ps: &[Param], regs: &[String]| -> Result<Vec<(String, String, u64)>, ModuleError> {
                ps.iter()
                    .zip(regs)
                    .map(|(p, r)| Ok((p.name.clone(), r.clone(), param_size(p, s.pos)?)))
                    .collect()
            };
        let fr = Frame {
            args: sized(&f.params, args)?,
            rets: sized(&f.returns, rets)?,
            ret_label: end.to_string(),
            renames: copy_renames(fbody, n),
        };
        self.body(fbody, Some(&fr), depth + 1)
    }
}

/// The `.func`s with a body whose address `module` takes: named by an
/// initialiser or by an operand of a statement other than a call.
fn address_taken(module: &Module) -> Vec<&Function> {
    let mut names = std::collections::HashSet::new();
    let bodies = module.functions.iter().filter_map(|f| f.body.as_ref());
    let vars = module
        .variables
        .iter()
        .chain(bodies.clone().flat_map(|b| &b.variables));
    for e in vars.flat_map(|v| v.init.iter().flatten()) {
        if let Init::Address { symbol, .. } = e {
            names.insert(symbol.as_str());
        }
    }
    for s in bodies.flat_map(|b| &b.statements) {
        if !matches!(s.kind, StatementKind::Control(_)) {
            names.extend(idents(&s.text));
        }
    }
    module
        .functions
        .iter()
        .filter(|f| f.kind == FunctionKind::Func && f.body.is_some())
        .filter(|f| names.contains(f.name.as_str()))
        .collect()
}

/// The whole identifiers of a statement's text (not after a `.`: opcode
/// modifiers and directives are no names).
fn idents(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            if is_ident(b[i]) && (i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b'.')) {
                let start = i;
                while i < b.len() && is_ident(b[i]) {
                    i += 1;
                }
                return text.get(start..i);
            }
            i += 1;
        }
        None
    })
}

impl Site<'_> {
    /// A name the call passes: the caller copy's renamed variable, else itself.
    fn resolve(&self, name: &str) -> String {
        self.frame
            .and_then(|f| f.renames.iter().find(|r| r.0 == name))
            .map_or_else(|| name.to_string(), |r| r.1.clone())
    }
}

fn param_size(p: &Param, pos: Pos) -> Result<u64, ModuleError> {
    if p.space != StateSpace::Param || p.array.is_some() || !matches!(p.size, 2 | 4 | 8) {
        return Err(unsupported(
            pos,
            format!(
                "parameter '{}' of {} bytes (a `.reg` parameter, or an array or structure passed by value)",
                p.name, p.size
            ),
        ));
    }
    Ok(p.size)
}

/// `text` with each whole identifier of `renames` replaced.
fn rename(text: &str, renames: &[(String, String)]) -> String {
    if renames.is_empty() {
        return text.to_string();
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    while i < b.len() {
        if is_ident(b[i]) && (i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b'.')) {
            let mut j = i;
            while j < b.len() && is_ident(b[j]) {
                j += 1;
            }
            let w = &text[i..j];
            match renames.iter().find(|r| r.0 == w) {
                Some(r) => out.push_str(&r.1),
                None => out.push_str(w),
            }
            i = j;
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Line starts of a text, to turn byte offsets into positions and back.
struct LineIndex(Vec<usize>);

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut v = vec![0];
        v.extend(
            text.bytes()
                .enumerate()
                .filter(|c| c.1 == b'\n')
                .map(|c| c.0 + 1),
        );
        LineIndex(v)
    }
    fn pos(&self, text: &str, off: usize) -> Pos {
        let line = self.0.partition_point(|&s| s <= off).max(1);
        let start = self.0[line - 1];
        let col = text.get(start..off).map_or(1, |s| s.chars().count() + 1);
        Pos {
            line: line as u32,
            col: col as u32,
        }
    }
    fn offset(&self, text: &str, pos: Pos) -> usize {
        let start = self
            .0
            .get((pos.line as usize).saturating_sub(1))
            .copied()
            .unwrap_or(text.len());
        let rest = text.get(start..).unwrap_or("");
        start
            + rest
                .char_indices()
                .nth((pos.col as usize).saturating_sub(1))
                .map_or(rest.len(), |c| c.0)
    }
}
