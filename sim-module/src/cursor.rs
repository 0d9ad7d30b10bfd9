//! The token cursor every grammar file reads through: `Parser`, its
//! token-level steps (words, punctuation, numbers, types, `.align`) and the
//! errors it builds at a position. Below `parse.rs`, `body.rs`,
//! `control.rs`, `variable.rs` and `init.rs`, which add the grammar.

use crate::error::{ModuleError, ModuleErrorKind as K, Pos};
use crate::lex::{Lexed, Tok, Token};
use crate::types::{PtxType, Variable};

pub(crate) type Res<T> = Result<T, ModuleError>;

/// A module's source, its tokens and the next token to read.
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
}

/// `expected` at token `t`, naming what was found there.
pub(crate) fn at(p: &Parser<'_>, t: Token, expected: &'static str) -> ModuleError {
    let found = format!("'{}'", p.text(t));
    p.err_at(p.pos(t), K::Expected { expected, found })
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
