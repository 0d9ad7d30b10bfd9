//! Operands given meaning: registers, immediates at the operand's type,
//! predicates, predicate pairs and video selectors.

use super::lex::{invalid, Tok, Token};
use super::literal::{
    int_prefix, literal, other_special, simulated_special, special, valid_ident, Lit,
};
use super::syntax::{syntax, RawOperand};
use crate::db::OperandKind;
use crate::error::{InvalidReason as R, IsaError};
use crate::inst::{Operand, PredSrc, RegId, Simd, Type, TypeKind};
use crate::symbols::Symbols;

/// One operand as written, with what the instruction's form expects at its
/// place: what [`Cx::operand`] reads and hands on to the video operands.
#[derive(Clone, Copy)]
pub(super) struct Slot<'o, 'a> {
    /// The operand's text.
    pub raw: &'o RawOperand<'a>,
    /// What the form takes there.
    pub kind: OperandKind,
    /// Its position (0 = first), for errors that count operands.
    pub idx: usize,
}

/// An operand after interpretation.
#[derive(Clone, Copy, Debug)]
pub(super) enum Val {
    None,
    Reg(RegId),
    Opnd(Operand),
    VDst(RegId, Option<u8>),
    VSrc(RegId, Option<[u8; 4]>),
    PredPair(Option<RegId>, Option<Option<RegId>>),
    Pred(PredSrc),
}

impl Val {
    /// The register of a register-only operand.
    pub(super) fn reg(self) -> Option<RegId> {
        match self {
            Val::Reg(r) | Val::Opnd(Operand::Reg(r)) => Some(r),
            Val::None
            | Val::Opnd(Operand::Imm(_) | Operand::Special(_))
            | Val::VDst(..)
            | Val::VSrc(..)
            | Val::PredPair(..)
            | Val::Pred(_) => None,
        }
    }
    /// A value operand (register, immediate or special register).
    pub(super) fn opnd(self) -> Option<Operand> {
        match self {
            Val::Opnd(o) => Some(o),
            Val::Reg(r) => Some(Operand::Reg(r)),
            Val::None | Val::VDst(..) | Val::VSrc(..) | Val::PredPair(..) | Val::Pred(_) => None,
        }
    }
}

pub(super) struct Cx<'t> {
    /// The instruction as ptxas names it in messages.
    pub name: &'static str,
    /// Operand types by slot (see [`OperandKind::Value`]).
    pub tys: &'t [Type],
    /// Lane count of a video instruction.
    pub simd: Simd,
}

impl Cx<'_> {
    pub(super) fn mismatch(&self, t: &Token<'_>) -> IsaError {
        invalid(t.col, t.text, R::ArgumentsMismatch { inst: self.name })
    }

    /// A plain register operand: no unary operator, sink or special register.
    fn reg(&self, o: &RawOperand<'_>, syms: &mut Symbols) -> Result<RegId, IsaError> {
        if !o.prefix.is_empty() {
            return Err(self.prefixed_reg(o));
        }
        self.reg_name(o.atom, syms)
    }

    /// `-%r` / `!%r` / `~%r` where only a register fits.
    fn prefixed_reg(&self, o: &RawOperand<'_>) -> IsaError {
        match o.prefix.iter().find(|t| t.text == "-") {
            // ptxas: "Operand negation not allowed for instruction 'set'".
            Some(t) if o.atom.kind == Tok::Ident => {
                invalid(t.col, t.text, R::NegationNotAllowed { inst: self.name })
            }
            _ => syntax(&o.atom),
        }
    }

    fn reg_name(&self, t: Token<'_>, syms: &mut Symbols) -> Result<RegId, IsaError> {
        if t.kind != Tok::Ident || t.text == "_" {
            return Err(if t.kind == Tok::Num {
                self.mismatch(&t)
            } else {
                syntax(&t)
            });
        }
        if !valid_ident(t.text) {
            return Err(syntax(&t));
        }
        if simulated_special(t.text) {
            return Err(invalid(
                t.col,
                t.text,
                R::SpecialRegNotAllowed { inst: self.name },
            ));
        }
        if other_special(t.text) {
            return Err(invalid(
                t.col,
                t.text,
                R::SpecialRegNotSimulated(t.text.to_string()),
            ));
        }
        Ok(syms.intern(t.text))
    }

    fn no_extras(&self, o: &RawOperand<'_>) -> Result<(), IsaError> {
        if let Some(t) = o.pipe {
            return Err(syntax(&t));
        }
        // `%tid.x`: the component is part of the special register's name.
        if let Some(t) = o
            .sel
            .filter(|t| special(&format!("{}{}", o.atom.text, t.text)).is_none())
        {
            return Err(invalid(
                t.col,
                t.text,
                R::SelectorNotAllowed { inst: self.name },
            ));
        }
        Ok(())
    }

    pub(super) fn operand(&self, slot: Slot<'_, '_>, syms: &mut Symbols) -> Result<Val, IsaError> {
        let Slot {
            raw: o, kind: k, ..
        } = slot;
        match k {
            OperandKind::Pred => return Ok(Val::Pred(self.pred(o, syms)?)),
            OperandKind::PredPair => return self.pred_pair(o, syms),
            OperandKind::VDst | OperandKind::VSrc | OperandKind::VC => {
                return self.video(slot, syms)
            }
            // ptxas 11.8 accepts a sink as a second destination of `set`
            // (`set.eq.f32.b64 %r1|_, ...`; `%r1|%r2` is rejected). It means
            // the same as `%r1`, so it decodes to that (found by the xtask
            // validity differential, docs/validation.md).
            OperandKind::Dst
                if self.name == "set"
                    && o.sel.is_none()
                    && o.pipe.is_some_and(|q| q.text == "_") =>
            {
                return Ok(Val::Reg(self.reg(o, syms)?));
            }
            _ => {}
        }
        self.no_extras(o)?;
        match k {
            OperandKind::Dst => Ok(Val::Reg(self.reg(o, syms)?)),
            OperandKind::Value(slot) => {
                let ty = self.tys.get(usize::from(slot)).copied();
                self.value(o, ty.ok_or_else(|| self.mismatch(&o.atom))?, syms)
            }
            OperandKind::Shift => self.value(o, Type::U32, syms),
            OperandKind::Imm => {
                let ty = self.tys.first().copied();
                if o.atom.kind == Tok::Ident {
                    return Err(self.mismatch(&o.atom));
                }
                let ty = ty.ok_or_else(|| self.mismatch(&o.atom))?;
                Ok(Val::Opnd(Operand::Imm(self.imm(o, ty)?)))
            }
            OperandKind::ValueOrSpecial => {
                let full = match o.sel {
                    Some(sel) => format!("{}{}", o.atom.text, sel.text),
                    None => o.atom.text.to_string(),
                };
                if let Some(s) = special(&full) {
                    // ptxas: integer types of the register's width only;
                    // "Arguments mismatch" for other widths, "Special register
                    // argument not allowed" for floats.
                    return match self.tys.first() {
                        Some(&(Type::F32 | Type::F64)) => Err(invalid(
                            o.atom.col,
                            o.atom.text,
                            R::SpecialRegNotAllowed { inst: self.name },
                        )),
                        Some(t) if t.bits() == s.bits() => Ok(Val::Opnd(Operand::Special(s))),
                        _ => Err(self.mismatch(&o.atom)),
                    };
                }
                let ty = self.tys.first().copied();
                self.value(o, ty.ok_or_else(|| self.mismatch(&o.atom))?, syms)
            }
            // Handled above.
            OperandKind::Pred
            | OperandKind::PredPair
            | OperandKind::VDst
            | OperandKind::VSrc
            | OperandKind::VC => Err(syntax(&o.atom)),
        }
    }

    fn value(&self, o: &RawOperand<'_>, ty: Type, syms: &mut Symbols) -> Result<Val, IsaError> {
        if o.atom.kind == Tok::Ident {
            return Ok(Val::Opnd(Operand::Reg(self.reg(o, syms)?)));
        }
        Ok(Val::Opnd(Operand::Imm(self.imm(o, ty)?)))
    }

    /// A literal, with its unary operators, as the raw bits of `ty`.
    ///
    /// ptxas 11.8: integers take `-`, `!`, `~` in any number (`-~!5`); decimal
    /// floats and `0d` take `-` only ("Integer constant expression expected"
    /// otherwise); `0f` takes none (a syntax error). `.b32` accepts `0f`, `.b64` accepts `0d` and
    /// decimal floats; other integer types accept no float literal.
    fn imm(&self, o: &RawOperand<'_>, ty: Type) -> Result<u64, IsaError> {
        let t = o.atom;
        let lit = literal(t.text).ok_or_else(|| syntax(&t))?;
        let bits = ty.bits();
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let is_int = matches!(
            ty.kind(),
            TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed
        );
        match lit {
            Lit::Int(v) if is_int => Ok(int_prefix(v, &o.prefix) & mask),
            // `mov.pred %p, 0` (nvcc emits it): nonzero is true, as for
            // predicate sources.
            Lit::Int(v) if ty == Type::Pred => Ok(u64::from(int_prefix(v, &o.prefix) != 0)),
            Lit::Int(_) => Err(self.mismatch(&t)),
            Lit::F32(_) if !o.prefix.is_empty() => Err(syntax(&t)),
            Lit::Dec(_) | Lit::F64(_) if o.prefix.iter().any(|p| p.text != "-") => {
                Err(invalid(t.col, t.text, R::IntegerExpressionExpected))
            }
            Lit::F32(f) => match ty {
                Type::F32 | Type::B32 => Ok(u64::from(f.to_bits())),
                Type::F64 => Ok(f64::from(f).to_bits()),
                _ => Err(self.mismatch(&t)),
            },
            Lit::F64(f) | Lit::Dec(f) => {
                let f = if o.prefix.len() % 2 == 1 { -f } else { f };
                match (ty, lit) {
                    (Type::F32, _) => Ok(u64::from((f as f32).to_bits())),
                    (Type::F64 | Type::B64, _) => Ok(f.to_bits()),
                    _ => Err(self.mismatch(&t)),
                }
            }
        }
    }

    /// `{!}p` or an integer immediate (nonzero = true), as ptxas accepts.
    pub(super) fn pred(&self, o: &RawOperand<'_>, syms: &mut Symbols) -> Result<PredSrc, IsaError> {
        if let Some(t) = o.pipe {
            return Err(syntax(&t));
        }
        if let Some(t) = o.sel {
            return Err(syntax(&t));
        }
        if o.atom.kind == Tok::Num {
            let Some(Lit::Int(v)) = literal(o.atom.text) else {
                return Err(self.mismatch(&o.atom));
            };
            return Ok(PredSrc::Imm(int_prefix(v, &o.prefix) != 0));
        }
        // Exactly one `!` (ptxas: `!!%p` and `~%p` are syntax errors).
        let negate = match o.prefix.as_slice() {
            [] => false,
            [t] if t.text == "!" => true,
            _ => return Err(self.prefixed_reg(o)),
        };
        Ok(PredSrc::Reg {
            reg: self.reg_name(o.atom, syms)?,
            negate,
        })
    }

    /// `p`, `_`, `p|q`, `_|q`, `p|_` (not `_|_`: ptxas reports a syntax error).
    fn pred_pair(&self, o: &RawOperand<'_>, syms: &mut Symbols) -> Result<Val, IsaError> {
        if let Some(t) = o.prefix.first().copied().or(o.sel) {
            return Err(syntax(&t));
        }
        let mut one = |t: Token<'_>| -> Result<Option<RegId>, IsaError> {
            if t.kind != Tok::Ident {
                return Err(self.mismatch(&t));
            }
            if t.text == "_" {
                return Ok(None);
            }
            self.reg_name(t, syms).map(Some)
        };
        let p = one(o.atom)?;
        let q = match o.pipe {
            Some(t) => {
                let q = one(t)?;
                if p.is_none() && q.is_none() {
                    return Err(syntax(&t));
                }
                Some(q)
            }
            None => None,
        };
        Ok(Val::PredPair(p, q))
    }

    fn video(&self, slot: Slot<'_, '_>, syms: &mut Symbols) -> Result<Val, IsaError> {
        let Slot {
            raw: o,
            kind: k,
            idx,
        } = slot;
        if let Some(t) = o.pipe {
            return Err(syntax(&t));
        }
        let bad_sel =
            |t: &Token<'_>| invalid(t.col, t.text, R::IncorrectVideoSelector { operand: idx });
        if o.atom.kind != Tok::Ident {
            // ptxas 11.8: `vadd4.s32.s32.s32 %r1, %r2, %r3, 5;` -> "Incorrect video selector for operand 3".
            return Err(bad_sel(o.prefix.first().unwrap_or(&o.atom)));
        }
        let r = self.reg(o, syms)?;
        let Some(t) = o.sel else {
            return Ok(match k {
                OperandKind::VDst => Val::VDst(r, None),
                OperandKind::VSrc => Val::VSrc(r, None),
                _ => Val::Reg(r),
            });
        };
        let w = t.text.get(1..).unwrap_or("");
        if !is_video_selector_word(w) {
            return Err(invalid(
                t.col,
                t.text,
                R::UnknownVideoSelector(t.text.to_string()),
            ));
        }
        match k {
            OperandKind::VDst => mask_of(w, self.simd)
                .map(|m| Val::VDst(r, Some(m)))
                .ok_or_else(|| bad_sel(&t)),
            OperandKind::VSrc => sel_of(w, self.simd)
                .map(|s| Val::VSrc(r, Some(s)))
                .ok_or_else(|| bad_sel(&t)),
            _ => Err(invalid(t.col, t.text, R::SelectorOnSourceC)),
        }
    }
}

/// Whether ptxas knows `w` as a video selector at all (`h`/`b` and digits).
fn is_video_selector_word(w: &str) -> bool {
    let (Some(l), digits) = (w.chars().next(), w.get(1..).unwrap_or("")) else {
        return false;
    };
    let max = match l {
        'h' => b'3',
        'b' => b'7',
        _ => return false,
    };
    !digits.is_empty() && digits.len() <= 4 && digits.bytes().all(|d| (b'0'..=max).contains(&d))
}

/// Destination mask: lane digits strictly descending (errata 9/10), each
/// below the lane count; `.h` for 2-way, `.b` for 4-way.
pub(crate) fn mask_of(w: &str, simd: Simd) -> Option<u8> {
    let letter = if simd == Simd::X2 { 'h' } else { 'b' };
    let digits = w.strip_prefix(letter)?;
    let mut mask = 0u8;
    let mut prev = u8::MAX;
    for d in digits.bytes() {
        let lane = d.checked_sub(b'0')?;
        if usize::from(lane) >= simd.lanes() || lane >= prev {
            return None;
        }
        mask |= 1 << lane;
        prev = lane;
    }
    (mask != 0).then_some(mask)
}

/// Source selector: exactly one digit per lane, written lane n-1 first (errata 11).
pub(crate) fn sel_of(w: &str, simd: Simd) -> Option<[u8; 4]> {
    let letter = if simd == Simd::X2 { 'h' } else { 'b' };
    let digits = w.strip_prefix(letter)?.as_bytes();
    let n = simd.lanes();
    if digits.len() != n {
        return None;
    }
    let mut sel = [0u8; 4];
    for (i, &d) in digits.iter().enumerate() {
        let e = d.checked_sub(b'0')?;
        if usize::from(e) >= 2 * n {
            return None;
        }
        sel[n - 1 - i] = e;
    }
    Some(sel)
}
