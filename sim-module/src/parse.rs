//! Module-level grammar: directives, variables, function headers and parameters.
//! Bodies are read by `body.rs`.

use crate::error::{ModuleError, ModuleErrorKind as K, Pos};
use crate::lex::{lex, Lexed, Tok, Token};
use crate::types::*;
use sim_isa::PtxVersion;

/// Largest module accepted, in bytes.
pub const MAX_MODULE_BYTES: usize = 16 << 20;
/// Deepest `{ }` nesting accepted inside a body.
pub const MAX_SCOPE_DEPTH: usize = 64;
/// Most registers one function may declare (the sum of its `<N>` ranges and names).
pub const MAX_REGISTERS: u64 = 1 << 20;
/// Largest variable or parameter accepted, in bytes.
pub const MAX_VARIABLE_BYTES: u64 = 1 << 32;
/// Most parameters a function may declare.
pub const MAX_PARAMS: u64 = 4096;

pub(crate) type Res<T> = Result<T, ModuleError>;

/// Parses `src` (named `file` in errors) as a PTX module.
pub fn parse_module(src: &str, file: &str) -> Result<Module, ModuleError> {
    if src.len() > MAX_MODULE_BYTES {
        return Err(ModuleError {
            file: file.to_string(),
            pos: Pos { line: 1, col: 1 },
            kind: K::TooLarge {
                len: src.len(),
                max: MAX_MODULE_BYTES,
            },
        });
    }
    let lexed = lex(src).map_err(|(off, kind)| {
        // Positions need the line table, which a failed lex lacks: count directly.
        let before = &src[..src.floor_char_boundary_compat(off as usize)];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ModuleError {
            file: file.to_string(),
            pos: Pos {
                line: line as u32,
                col: col as u32,
            },
            kind,
        }
    })?;
    let mut p = Parser {
        src,
        file,
        lx: &lexed,
        i: 0,
    };
    let mut m = Module {
        file: file.to_string(),
        version: None,
        target: None,
        address_size: None,
        variables: Vec::new(),
        functions: Vec::new(),
    };
    p.module(&mut m)?;
    crate::body::resolve_module(&mut m, &p)?;
    Ok(m)
}

trait FloorBoundary {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}
impl FloorBoundary for str {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        i = i.min(self.len());
        while !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

pub(crate) struct Parser<'a> {
    pub src: &'a str,
    pub file: &'a str,
    pub lx: &'a Lexed,
    pub i: usize,
}

impl<'a> Parser<'a> {
    pub fn peek(&self) -> Option<Token> {
        self.lx.toks.get(self.i).copied()
    }
    pub fn peek_at(&self, k: usize) -> Option<Token> {
        self.lx.toks.get(self.i + k).copied()
    }
    pub fn text(&self, t: Token) -> &'a str {
        &self.src[t.start as usize..t.end as usize]
    }
    pub fn pos(&self, t: Token) -> Pos {
        self.lx.pos(self.src, t.start)
    }
    pub fn err_at(&self, pos: Pos, kind: K) -> ModuleError {
        ModuleError {
            file: self.file.to_string(),
            pos,
            kind,
        }
    }
    /// Error at the current token (or the end of the file).
    pub fn err(&self, kind: K) -> ModuleError {
        let pos = match self.peek() {
            Some(t) => self.pos(t),
            None => self.lx.pos(self.src, self.src.len() as u32),
        };
        self.err_at(pos, kind)
    }
    /// `what 'name' declared twice` at `pos`.
    pub fn duplicate(&self, pos: Pos, what: &'static str, name: impl Into<String>) -> ModuleError {
        self.err_at(
            pos,
            K::Duplicate {
                what,
                name: name.into(),
            },
        )
    }
    /// Adds `v` to `vars`, refusing a second variable of the same name.
    pub fn push_variable(&self, vars: &mut Vec<Variable>, v: Variable) -> Res<()> {
        if vars.iter().any(|x| x.name == v.name) {
            return Err(self.duplicate(v.pos, "variable", v.name));
        }
        vars.push(v);
        Ok(())
    }
    pub fn expected(&self, expected: &'static str) -> ModuleError {
        let found = match self.peek() {
            Some(t) => format!("'{}'", self.text(t)),
            None => "end of file".to_string(),
        };
        self.err(K::Expected { expected, found })
    }
    pub fn is_punct(&self, c: u8) -> bool {
        self.peek().is_some_and(|t| t.kind == Tok::Punct(c))
    }
    pub fn eat_punct(&mut self, c: u8) -> bool {
        let hit = self.is_punct(c);
        if hit {
            self.i += 1;
        }
        hit
    }
    pub fn expect_punct(&mut self, c: u8, what: &'static str) -> Res<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }
    /// The current token if it is the dot-word `.w`.
    pub fn is_dot(&self, w: &str) -> bool {
        self.peek()
            .is_some_and(|t| t.kind == Tok::Dot && &self.text(t)[1..] == w)
    }
    pub fn eat_dot(&mut self, w: &str) -> bool {
        let hit = self.is_dot(w);
        if hit {
            self.i += 1;
        }
        hit
    }
    pub fn ident(&mut self, what: &'static str) -> Res<(String, Pos)> {
        match self.peek() {
            Some(t) if t.kind == Tok::Ident => {
                self.i += 1;
                Ok((self.text(t).to_string(), self.pos(t)))
            }
            _ => Err(self.expected(what)),
        }
    }
    pub fn number(&mut self, what: &'static str) -> Res<u64> {
        match self.peek() {
            Some(t) if t.kind == Tok::Num => {
                let s = self.text(t);
                let v = parse_uint(s).ok_or_else(|| self.err(K::BadNumber(s.to_string())))?;
                self.i += 1;
                Ok(v)
            }
            _ => Err(self.expected(what)),
        }
    }
    /// Skips the tokens on the current token's line (`.loc`, `.file`).
    pub fn skip_line(&mut self) {
        let Some(t) = self.peek() else { return };
        let line = self.lx.line(t.start);
        while self.peek().is_some_and(|u| self.lx.line(u.start) == line) {
            self.i += 1;
        }
    }
    /// Skips to just after the next `;` (or the end).
    pub fn skip_statement(&mut self) {
        while let Some(t) = self.peek() {
            self.i += 1;
            if t.kind == Tok::Punct(b';') {
                break;
            }
        }
    }
    /// A type dot-word (`.u32`).
    pub fn ptx_type(&mut self) -> Res<PtxType> {
        match self.peek() {
            Some(t) if t.kind == Tok::Dot => {
                let w = &self.text(t)[1..];
                let ty = PtxType::from_name(w).ok_or_else(|| self.err(K::UnknownType(w.into())))?;
                self.i += 1;
                Ok(ty)
            }
            _ => Err(self.expected("a type")),
        }
    }
    /// `.align N`, if present; N must be a power of two.
    pub fn align(&mut self) -> Res<Option<u32>> {
        if !self.eat_dot("align") {
            return Ok(None);
        }
        let at = self.peek();
        let n = self.number("an alignment")?;
        if !n.is_power_of_two() || n > 1 << 16 {
            let s = at.map_or("", |t| self.text(t));
            return Err(self.err_at(
                at.map_or(Pos::default(), |t| self.pos(t)),
                K::BadNumber(s.to_string()),
            ));
        }
        Ok(Some(n as u32))
    }

    fn module(&mut self, m: &mut Module) -> Res<()> {
        while let Some(t) = self.peek() {
            if t.kind != Tok::Dot {
                return Err(self.expected("a directive"));
            }
            let pos = self.pos(t);
            let w = &self.text(t)[1..];
            match w {
                "version" => {
                    self.i += 1;
                    let at = self.peek();
                    let v = at
                        .filter(|t| t.kind == Tok::Num)
                        .and_then(|t| PtxVersion::parse(self.text(t)))
                        .ok_or_else(|| self.expected("a version 'X.Y'"))?;
                    self.i += 1;
                    once(self, &mut m.version, v, "version", pos)?;
                }
                "target" => {
                    self.i += 1;
                    let (arch, _) = self.ident("a target (sm_90)")?;
                    let mut options = Vec::new();
                    while self.eat_punct(b',') {
                        options.push(self.ident("a target option")?.0);
                    }
                    let td = TargetDirective { arch, options };
                    once(self, &mut m.target, td, "target", pos)?;
                }
                "address_size" => {
                    self.i += 1;
                    let n = self.number("32 or 64")?;
                    if n != 32 && n != 64 {
                        return Err(self.err_at(pos, K::NotSupported(format!("address size {n}"))));
                    }
                    once(self, &mut m.address_size, n as u32, "address_size", pos)?;
                }
                "file" | "loc" => self.skip_line(),
                "pragma" => self.skip_statement(),
                "section" => self.skip_section()?,
                _ => self.declaration(m)?,
            }
        }
        Ok(())
    }

    /// `.section name { ... }` (debug information): skipped, braces balanced.
    fn skip_section(&mut self) -> Res<()> {
        self.i += 1;
        while !self.is_punct(b'{') {
            if self.peek().is_none() {
                return Err(self.expected("'{'"));
            }
            self.i += 1;
        }
        let mut depth = 0usize;
        while let Some(t) = self.peek() {
            self.i += 1;
            match t.kind {
                Tok::Punct(b'{') => depth += 1,
                Tok::Punct(b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
        Err(self.expected("'}'"))
    }

    /// A variable or function at module scope, after optional linkage.
    fn declaration(&mut self, m: &mut Module) -> Res<()> {
        let mut linkage = Linkage::Internal;
        loop {
            linkage = match () {
                _ if self.eat_dot("visible") => Linkage::Visible,
                _ if self.eat_dot("extern") => Linkage::Extern,
                _ if self.eat_dot("weak") || self.eat_dot("common") => Linkage::Weak,
                _ => break,
            };
        }
        if self.is_dot("entry") || self.is_dot("func") {
            let f = self.function(linkage)?;
            if f.body.is_some() && m.function(&f.name).is_some() {
                return Err(self.duplicate(f.pos, "function", f.name));
            }
            m.functions.push(f);
            return Ok(());
        }
        let Some(t) = self.peek() else {
            return Err(self.expected("a declaration"));
        };
        let w = &self.text(t)[1.min(self.text(t).len())..];
        let Some(space) = StateSpace::from_name(w).filter(|s| *s != StateSpace::Param) else {
            return Err(self.err(K::UnknownDirective(self.text(t).to_string())));
        };
        self.i += 1;
        let v = self.variable(space, linkage)?;
        self.push_variable(&mut m.variables, v)
    }

    /// After the state space: `.align N .type name[dims] = init;`.
    pub fn variable(&mut self, space: StateSpace, linkage: Linkage) -> Res<Variable> {
        let mut align = self.align()?;
        if self.is_dot("v2") || self.is_dot("v4") || self.is_dot("v8") {
            return Err(self.err(K::NotSupported("vector variables".into())));
        }
        let ty = self.ptx_type()?;
        if align.is_none() {
            align = self.align()?;
        }
        let (name, pos) = self.ident("a variable name")?;
        let dims = self.dims()?;
        let init = if self.eat_punct(b'=') {
            Some(crate::init::initialiser(self, ty)?)
        } else {
            None
        };
        self.expect_punct(b';', "';'")?;
        let mut elems: u64 = 1;
        for (k, d) in dims.iter().enumerate() {
            let n = match (d, k, &init) {
                (Some(n), _, _) => *n,
                (None, 0, Some(vals)) => {
                    let inner: u64 = dims[1..].iter().map(|d| d.unwrap_or(1)).product();
                    (vals.len() as u64).div_ceil(inner.max(1))
                }
                (None, _, _) => 0,
            };
            elems = elems.saturating_mul(n);
        }
        let size = elems.saturating_mul(ty.size());
        if size > MAX_VARIABLE_BYTES {
            return Err(self.err_at(
                pos,
                K::Limit {
                    what: "variable size in bytes",
                    count: size,
                    max: MAX_VARIABLE_BYTES,
                },
            ));
        }
        if let Some(vals) = &init {
            if vals.len() as u64 > elems {
                return Err(self.err_at(
                    pos,
                    K::NotSupported("more initialisers than elements".into()),
                ));
            }
        }
        Ok(Variable {
            name,
            space,
            ty,
            align,
            dims,
            size,
            external: linkage == Linkage::Extern,
            visible: linkage == Linkage::Visible,
            init,
            pos,
        })
    }

    /// `[N][M]` / `[]` after a name.
    fn dims(&mut self) -> Res<Vec<Option<u64>>> {
        let mut dims = Vec::new();
        while self.eat_punct(b'[') {
            if dims.len() >= 8 {
                return Err(self.err(K::NotSupported("more than 8 array dimensions".into())));
            }
            if self.eat_punct(b']') {
                dims.push(None);
                continue;
            }
            let at = self.peek();
            let n = self.number("an array length")?;
            if n > MAX_VARIABLE_BYTES {
                let s = at.map_or("", |t| self.text(t)).to_string();
                return Err(
                    self.err_at(at.map_or(Pos::default(), |t| self.pos(t)), K::BadNumber(s))
                );
            }
            dims.push(Some(n));
            self.expect_punct(b']', "']'")?;
        }
        Ok(dims)
    }

    fn function(&mut self, linkage: Linkage) -> Res<Function> {
        let kind = if self.eat_dot("entry") {
            FunctionKind::Entry
        } else {
            self.i += 1;
            FunctionKind::Func
        };
        let returns = if kind == FunctionKind::Func && self.is_punct(b'(') {
            self.param_list()?
        } else {
            Vec::new()
        };
        let (name, pos) = self.ident("a function name")?;
        let params = if self.is_punct(b'(') {
            self.param_list()?
        } else {
            Vec::new()
        };
        let mut directives = Vec::new();
        while let Some(t) = self.peek().filter(|t| t.kind == Tok::Dot) {
            let w = &self.text(t)[1..];
            if !PERF_DIRECTIVES.contains(&w) {
                return Err(self.err(K::UnknownDirective(self.text(t).to_string())));
            }
            self.i += 1;
            let mut values = Vec::new();
            if self.peek().is_some_and(|t| t.kind == Tok::Num) {
                values.push(self.number("a number")?);
                while self.eat_punct(b',') {
                    values.push(self.number("a number")?);
                }
            }
            directives.push(PerfDirective {
                name: w.to_string(),
                values,
            });
        }
        let body = if self.eat_punct(b';') {
            None
        } else if self.is_punct(b'{') {
            self.i += 1;
            let regs: Vec<&Param> = returns
                .iter()
                .chain(&params)
                .filter(|q| q.space == StateSpace::Reg && !q.name.is_empty())
                .collect();
            Some(crate::body::body(self, &regs)?)
        } else {
            return Err(self.expected("'{' or ';'"));
        };
        Ok(Function {
            name,
            kind,
            linkage,
            returns,
            params,
            directives,
            body,
            pos,
        })
    }

    /// `( .param .type name, ... )` with offsets laid out in order.
    fn param_list(&mut self) -> Res<Vec<Param>> {
        self.expect_punct(b'(', "'('")?;
        let mut out: Vec<Param> = Vec::new();
        let mut offset = 0u64;
        if self.eat_punct(b')') {
            return Ok(out);
        }
        loop {
            if out.len() as u64 >= MAX_PARAMS {
                return Err(self.err(K::Limit {
                    what: "parameters",
                    count: MAX_PARAMS + 1,
                    max: MAX_PARAMS,
                }));
            }
            let mut p = self.param()?;
            let align = u64::from(p.align.unwrap_or(p.ty.size() as u32).max(1));
            offset = offset.div_ceil(align) * align;
            p.offset = offset;
            offset += p.size;
            if !p.name.is_empty() && out.iter().any(|q| q.name == p.name) {
                return Err(self.duplicate(p.pos, "parameter", p.name));
            }
            out.push(p);
            if self.eat_punct(b')') {
                return Ok(out);
            }
            self.expect_punct(b',', "',' or ')'")?;
        }
    }

    fn param(&mut self) -> Res<Param> {
        let space = if self.eat_dot("param") {
            StateSpace::Param
        } else if self.eat_dot("reg") {
            StateSpace::Reg
        } else {
            return Err(self.expected("'.param'"));
        };
        let mut align = self.align()?;
        let ty = self.ptx_type()?;
        let mut ptr = None;
        loop {
            if align.is_none() {
                align = self.align()?;
                if align.is_some() {
                    continue;
                }
            }
            if self.eat_dot("ptr") {
                let mut attr = PtrAttr {
                    space: None,
                    align: None,
                };
                loop {
                    if let Some(a) = self.align()? {
                        attr.align = Some(a);
                        continue;
                    }
                    let sp = self
                        .peek()
                        .filter(|t| t.kind == Tok::Dot)
                        .and_then(|t| StateSpace::from_name(&self.text(t)[1..]));
                    match sp {
                        Some(s) => {
                            attr.space = Some(s);
                            self.i += 1;
                        }
                        None => break,
                    }
                }
                ptr = Some(attr);
                continue;
            }
            break;
        }
        let (name, pos) = match self.peek() {
            Some(t) if t.kind == Tok::Ident => self.ident("a parameter name")?,
            Some(t) => (String::new(), self.pos(t)),
            None => return Err(self.expected("a parameter name")),
        };
        let mut array = None;
        if self.eat_punct(b'[') {
            let n = self.number("an array length")?;
            self.expect_punct(b']', "']'")?;
            array = Some(n);
        }
        let size = array.unwrap_or(1).saturating_mul(ty.size());
        if size > MAX_VARIABLE_BYTES {
            return Err(self.err_at(
                pos,
                K::Limit {
                    what: "parameter size in bytes",
                    count: size,
                    max: MAX_VARIABLE_BYTES,
                },
            ));
        }
        Ok(Param {
            name,
            space,
            ty,
            align,
            array,
            ptr,
            size,
            offset: 0,
            pos,
        })
    }
}

/// Directives allowed between a function's parameters and its body.
const PERF_DIRECTIVES: &[&str] = &[
    "maxntid",
    "reqntid",
    "minnctapersm",
    "maxnctapersm",
    "maxnreg",
    "noreturn",
    "pragma",
    "explicitcluster",
    "reqnctapercluster",
    "maxclusterrank",
    "blocksareclusters",
];

fn once<T>(p: &Parser<'_>, slot: &mut Option<T>, v: T, name: &'static str, pos: Pos) -> Res<()> {
    if slot.is_some() {
        return Err(p.duplicate(pos, "directive", name.to_string()));
    }
    *slot = Some(v);
    Ok(())
}

/// An unsigned integer as PTX writes it: decimal, `0x` hex, `0b` binary,
/// leading-zero octal, optional `U` suffix.
pub(crate) fn parse_uint(s: &str) -> Option<u64> {
    let s = s.strip_suffix('U').unwrap_or(s);
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (b, 2)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}
