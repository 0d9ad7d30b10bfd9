//! Module-level grammar: directives, variables, function headers and parameters.
//! Bodies are read by `body.rs`, variables by `variable.rs`, both through
//! the token cursor of `cursor.rs`.

use crate::cursor::{Parser, Res};
use crate::error::{ModuleError, ModuleErrorKind as K, Pos};
use crate::lex::{lex, Tok};
use crate::types::*;
use sim_isa::PtxVersion;

/// Largest module accepted, in bytes.
pub const MAX_MODULE_BYTES: usize = 16 << 20;
/// Most parameters a function may declare.
pub const MAX_PARAMS: u64 = 4096;

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

impl Parser<'_> {
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
        self.check_bytes(pos, "parameter size in bytes", size)?;
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
