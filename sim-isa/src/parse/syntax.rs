//! The statement's shape: guard, opcode word, modifiers and comma-separated
//! operands, before any family gives them meaning.

use super::lex::{invalid, Tok, Token};
use super::literal::{other_special, simulated_special, valid_ident};
use crate::db::{self, OpcodeDef};
use crate::error::{InvalidReason as R, IsaError};

/// `Parsing error near '...': syntax error` at `t`.
pub(super) fn syntax(t: &Token<'_>) -> IsaError {
    invalid(
        t.col,
        t.text,
        R::Syntax {
            near: t.text.to_string(),
        },
    )
}

/// [`IsaError::Unimplemented`] if `text`'s opcode word (after an optional
/// `@{!}p` guard) is PTX that simcli does not implement; read without the
/// lexer, for text it cannot tokenise.
pub(super) fn unimplemented_opcode(text: &str) -> Option<IsaError> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '%';
    let mut rest = text.trim_start();
    if let Some(r) = rest.strip_prefix('@') {
        let r = r.trim_start();
        let r = r.strip_prefix('!').unwrap_or(r).trim_start();
        rest = r.trim_start_matches(ident).trim_start();
    }
    let word = &rest[..rest.find(|c: char| !ident(c)).unwrap_or(rest.len())];
    if db::opcode(word).is_some() || !db::is_ptx_opcode(word) {
        return None;
    }
    let col = text[..text.len() - rest.len()].chars().count() + 1;
    Some(IsaError::Unimplemented {
        col,
        what: word.to_string(),
    })
}

/// One operand as written, before the family gives it meaning.
#[derive(Clone, Debug)]
pub(super) struct RawOperand<'a> {
    /// Unary operators in front (`!`, `-`, `~`), outermost first.
    pub prefix: Vec<Token<'a>>,
    /// Register name or literal.
    pub atom: Token<'a>,
    /// `.sel` after it.
    pub sel: Option<Token<'a>>,
    /// `| q` after it.
    pub pipe: Option<Token<'a>>,
}

/// A statement as written.
pub(super) struct Raw<'a> {
    pub guard: Option<(Token<'a>, bool)>,
    pub def: &'static OpcodeDef,
    pub op_tok: Token<'a>,
    pub mods: Vec<Token<'a>>,
    pub operands: Vec<RawOperand<'a>>,
}

/// Reads `toks` into a [`Raw`] statement; `end_col` is the column one past
/// the text, where an early end is reported.
pub(super) fn statement<'a>(toks: &[Token<'a>], end_col: usize) -> Result<Raw<'a>, IsaError> {
    let mut p = Parser {
        toks,
        pos: 0,
        end_col,
    };
    let guard = p.guard()?;
    let (def, op_tok) = p.opcode()?;
    let mut mods = Vec::new();
    while let Some(t) = p.peek().filter(|t| t.kind == Tok::Mod) {
        mods.push(t);
        p.pos += 1;
    }
    // The type modifiers pick the family of a word two families share.
    let def = db::route(def, mods.iter().map(|t| t.text));
    let operands = p.operands()?;
    Ok(Raw {
        guard,
        def,
        op_tok,
        mods,
        operands,
    })
}

struct Parser<'t, 'a> {
    toks: &'t [Token<'a>],
    pos: usize,
    end_col: usize,
}

impl<'a> Parser<'_, 'a> {
    fn peek(&self) -> Option<Token<'a>> {
        self.toks.get(self.pos).copied()
    }
    fn next(&mut self) -> Option<Token<'a>> {
        let t = self.peek();
        self.pos += 1;
        t
    }
    fn is_punct(&self, c: char) -> bool {
        self.peek().is_some_and(|t| t.kind == Tok::Punct(c))
    }
    fn eof_err(&self, expected: &'static str) -> IsaError {
        invalid(self.end_col, "", R::UnexpectedEnd { expected })
    }

    /// `@{!}p`, returned as the register token and the negation.
    fn guard(&mut self) -> Result<Option<(Token<'a>, bool)>, IsaError> {
        if !self.is_punct('@') {
            return Ok(None);
        }
        self.pos += 1;
        let negate = self.is_punct('!');
        if negate {
            self.pos += 1;
        }
        let t = self
            .next()
            .ok_or_else(|| self.eof_err("a guard predicate"))?;
        if t.kind != Tok::Ident
            || t.text == "_"
            || !valid_ident(t.text)
            || simulated_special(t.text)
            || other_special(t.text)
        {
            return Err(syntax(&t));
        }
        Ok(Some((t, negate)))
    }

    /// The opcode word: one simcli implements, else valid PTX it does not
    /// ([`IsaError::Unimplemented`]), else no instruction at all.
    fn opcode(&mut self) -> Result<(&'static OpcodeDef, Token<'a>), IsaError> {
        let t = self.next().ok_or_else(|| self.eof_err("an instruction"))?;
        if t.kind != Tok::Ident {
            return Err(syntax(&t));
        }
        match db::opcode(t.text) {
            Some(d) => Ok((d, t)),
            None if db::is_ptx_opcode(t.text) => Err(IsaError::Unimplemented {
                col: t.col,
                what: t.text.to_string(),
            }),
            None => Err(invalid(
                t.col,
                t.text,
                R::UnknownInstruction(t.text.to_string()),
            )),
        }
    }

    /// Comma-separated operands up to `;` or the end; nothing may follow `;`.
    fn operands(&mut self) -> Result<Vec<RawOperand<'a>>, IsaError> {
        let mut out = Vec::new();
        if self.peek().is_none() || self.is_punct(';') {
            return self.finish(out);
        }
        loop {
            out.push(self.operand()?);
            match self.peek() {
                None => break,
                Some(t) if t.kind == Tok::Punct(',') => self.pos += 1,
                Some(t) if t.kind == Tok::Punct(';') => break,
                Some(t) => return Err(syntax(&t)),
            }
        }
        self.finish(out)
    }

    fn finish(&mut self, out: Vec<RawOperand<'a>>) -> Result<Vec<RawOperand<'a>>, IsaError> {
        if self.is_punct(';') {
            self.pos += 1;
        }
        match self.peek() {
            Some(t) => Err(syntax(&t)),
            None => Ok(out),
        }
    }

    fn operand(&mut self) -> Result<RawOperand<'a>, IsaError> {
        let mut prefix = Vec::new();
        while self.is_punct('!') || self.is_punct('-') || self.is_punct('~') {
            prefix.extend(self.next());
        }
        let atom = self.next().ok_or_else(|| self.eof_err("an operand"))?;
        if !matches!(atom.kind, Tok::Ident | Tok::Num) {
            return Err(syntax(&atom));
        }
        let mut sel = None;
        if self.peek().is_some_and(|t| t.kind == Tok::Mod) {
            sel = self.next();
        }
        let mut pipe = None;
        if self.is_punct('|') {
            self.pos += 1;
            let q = self
                .next()
                .ok_or_else(|| self.eof_err("a predicate after '|'"))?;
            if q.kind != Tok::Ident {
                return Err(syntax(&q));
            }
            pipe = Some(q);
        }
        Ok(RawOperand {
            prefix,
            atom,
            sel,
            pipe,
        })
    }
}
