//! The memory and warp families' small scanner (see `mem.rs`): pieces of
//! the text with their offsets, operands split at top-level commas, and
//! [`Cx`], which reads registers, values, predicates and addresses.

use super::lex::invalid;
use super::literal::{literal, Lit};
use crate::error::{InvalidReason as R, IsaError};
use crate::inst::{Operand, PredSrc, RegId, SpecialReg};
use crate::mem_inst::{AddrBase, Address};
use crate::symbols::{is_ptx_identifier, Symbols};

/// A piece of the text with its byte offset.
pub(super) type Piece<'a> = (usize, &'a str);

/// Splits off an optional guard and the opcode: `(guard, opcode, rest)`.
pub(super) fn split_head(text: &str) -> Option<(Piece<'_>, Piece<'_>)> {
    let t = text.trim_end().trim_end_matches(';');
    let mut off = t.len() - t.trim_start().len();
    if t[off..].starts_with('@') {
        let end = t[off..].find(char::is_whitespace)? + off;
        off = end + (t[end..].len() - t[end..].trim_start().len());
    }
    let rest = &t[off..];
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    Some(((off, &rest[..end]), (off + end, &rest[end..])))
}

/// Top-level comma-separated operands with their byte offsets in `s`.
pub(super) fn operands(s: &str) -> Vec<Piece<'_>> {
    // Each piece trimmed as it is found: one vector a statement, not a
    // second one for the trimmed copy.
    fn trimmed(o: usize, p: &str) -> Piece<'_> {
        (o + (p.len() - p.trim_start().len()), p.trim())
    }
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    // Bytes, not chars: the delimiters are ASCII, and a multi-byte
    // character's bytes are never ASCII, so the offsets are the same.
    for (i, c) in s.bytes().enumerate() {
        match c {
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                out.push(trimmed(start, &s[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() || !out.is_empty() {
        out.push(trimmed(start, &s[start..]));
    }
    out
}

/// A statement as the family parsers take it (one signature for them all):
/// the opcode piece and its words, the operands, the offset of the
/// statement's end (where a missing operand is reported) and the opcode's
/// column.
#[derive(Clone, Copy)]
pub(super) struct Stmt<'a> {
    pub(super) op: Piece<'a>,
    pub(super) words: &'a [&'a str],
    pub(super) ops: &'a [Piece<'a>],
    pub(super) end: usize,
    pub(super) col: usize,
}

impl Stmt<'_> {
    /// Modifier `.w`, which the instruction does not take.
    pub(super) fn unknown(&self, w: &str) -> IsaError {
        invalid(self.col, self.op.1, R::UnknownModifier(format!(".{w}")))
    }
    /// Types that `inst` does not take (or none where it needs them).
    pub(super) fn types(&self, inst: &'static str) -> IsaError {
        invalid(self.col, self.op.1, R::UnexpectedTypes { inst })
    }
    /// Valid PTX that this simulator does not run.
    pub(super) fn unimplemented(&self) -> IsaError {
        IsaError::Unimplemented {
            col: self.col,
            what: self.op.1.to_string(),
        }
    }
    /// Unless there are exactly `n` operands: the error at the first one
    /// too many, or at the statement's end.
    pub(super) fn count(&self, cx: &Cx<'_, '_>, n: usize) -> Result<(), IsaError> {
        self.counts(cx, n, n)
    }
    /// Unless there are `lo` to `hi` operands: as [`Stmt::count`].
    pub(super) fn counts(&self, cx: &Cx<'_, '_>, lo: usize, hi: usize) -> Result<(), IsaError> {
        if !(lo..=hi).contains(&self.ops.len()) {
            let at = self.ops.get(hi).map_or((self.end, ";"), |p| *p);
            return Err(cx.args(at.0, at.1));
        }
        Ok(())
    }
}

pub(super) struct Cx<'a, 's> {
    pub(super) text: &'a str,
    pub(super) syms: &'s mut Symbols,
    pub(super) inst: &'static str,
}

impl Cx<'_, '_> {
    pub(super) fn col(&self, off: usize) -> usize {
        self.text[..off.min(self.text.len())].chars().count() + 1
    }
    pub(super) fn syntax(&self, off: usize, tok: &str) -> IsaError {
        invalid(
            self.col(off),
            tok,
            R::Syntax {
                near: tok.to_string(),
            },
        )
    }
    /// Operand `p`, argument `arg` of `inst`, has a value ptxas does not
    /// take (`want`: what it takes).
    pub(super) fn unexpected_value(
        &self,
        p: Piece<'_>,
        inst: &'static str,
        arg: usize,
        want: &'static str,
    ) -> IsaError {
        let value = p.1.to_string();
        let reason = R::UnexpectedValue {
            inst,
            arg,
            value,
            want,
        };
        invalid(self.col(p.0), p.1, reason)
    }
    pub(super) fn args(&self, off: usize, tok: &str) -> IsaError {
        invalid(self.col(off), tok, R::ArgumentsMismatch { inst: self.inst })
    }
    /// Whether `name` is a register: `%name`, or a name the symbol table
    /// already holds. Any other identifier is a variable (see the module
    /// doc), which ptxas takes in no register operand ("must be register",
    /// "Arguments mismatch": `bar.sync %r1, gvar`, `st.global.u64 [%rd1], gvar`).
    pub(super) fn is_register(&self, name: &str) -> bool {
        name.starts_with('%') || self.syms.get(name).is_some()
    }
    pub(super) fn reg(&mut self, p: Piece<'_>) -> Result<RegId, IsaError> {
        if is_ptx_identifier(p.1) && special(p.1).is_none() && self.is_register(p.1) {
            Ok(self.syms.intern(p.1))
        } else {
            Err(self.args(p.0, p.1))
        }
    }
    /// A register, immediate or special-register source.
    pub(super) fn value(&mut self, p: Piece<'_>) -> Result<Operand, IsaError> {
        if let Some(s) = special(p.1) {
            return Ok(Operand::Special(s));
        }
        if is_ptx_identifier(p.1) {
            if !self.is_register(p.1) {
                return Err(self.args(p.0, p.1));
            }
            return Ok(Operand::Reg(self.syms.intern(p.1)));
        }
        imm(p.1)
            .map(Operand::Imm)
            .ok_or_else(|| self.syntax(p.0, p.1))
    }
    pub(super) fn pred(&mut self, p: Piece<'_>) -> Result<PredSrc, IsaError> {
        let (negate, name) = match p.1.strip_prefix('!') {
            Some(n) => (true, n.trim()),
            None => (false, p.1),
        };
        match imm(name) {
            Some(v) if !negate && v <= 1 => Ok(PredSrc::Imm(v == 1)),
            _ => {
                let reg = self.reg((p.0, name))?;
                Ok(PredSrc::Reg { reg, negate })
            }
        }
    }
    /// `[base]`, `[base+off]`, `[off]`; or, with `bare`, `name{+off}`.
    pub(super) fn address(&mut self, p: Piece<'_>, bare: bool) -> Result<Address, IsaError> {
        let inner = match p.1.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            Some(s) => s.trim(),
            None if bare => p.1,
            None => return Err(self.args(p.0, p.1)),
        };
        // `base+off` only: ptxas 13.0 takes `[%rd1+-8]` but not `[%rd1-8]`
        // ("syntax error near '-'"), nor `name-8`.
        let (base, offset) = match inner.find('+').filter(|&i| i > 0) {
            Some(i) => {
                let o = inner[i + 1..].trim();
                let v = imm(o).ok_or_else(|| self.syntax(p.0, o))? as i64;
                (inner[..i].trim(), v)
            }
            None => (inner, 0),
        };
        if let Some(v) = imm(base) {
            return Ok(Address {
                base: AddrBase::Abs,
                offset: (v as i64).wrapping_add(offset),
            });
        }
        if !is_ptx_identifier(base) || special(base).is_some() {
            return Err(self.syntax(p.0, base));
        }
        let b = if base.starts_with('%') || self.syms.get(base).is_some() {
            AddrBase::Reg(self.syms.intern(base))
        } else {
            AddrBase::Var(self.syms.intern_var(base))
        };
        Ok(Address { base: b, offset })
    }
}

/// The special register `name` names, if it has a value here. The memory
/// statements ask this of every register operand; most are registers
/// (`%r1`, `%rd3`), which the prefix table turns away with one read
/// instead of a comparison with each of the 62 names.
pub(super) fn special(name: &str) -> Option<SpecialReg> {
    if !crate::symbols::may_name_special(name) {
        return None;
    }
    super::literal::special(name)
}

/// An integer literal (with unary `-`), as raw bits.
pub(super) fn imm(s: &str) -> Option<u64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b.trim()),
        None => (false, s),
    };
    let v = match literal(body)? {
        Lit::Int(v) => v,
        Lit::F32(f) => u64::from(f.to_bits()),
        Lit::F64(f) => f.to_bits(),
        Lit::Dec(_) => return None,
    };
    Some(if neg { v.wrapping_neg() } else { v })
}
