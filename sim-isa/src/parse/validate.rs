//! Modifier and type validation against the database: sorts the modifiers
//! into classes and applies the family's type, compare, `.ftz` and `.sat`
//! rules with ptxas's messages.

use super::lex::{invalid, Token};
use super::syntax::Raw;
use crate::db::{self, int_name, m, BitWord, CvtWordsError, Family, IntWord, OpKind};
use crate::error::{InvalidReason as R, IsaError};
use crate::inst::{BitOp, BoolOp, CmpOp, Cvt, FloatOp, MulMode, Rnd, Type, TypeKind};

/// Modifiers sorted into classes, each remembering its token.
#[derive(Default)]
pub(super) struct Mods<'a> {
    pub types: Vec<(Type, Token<'a>)>,
    pub cmp: Option<(CmpOp, Token<'a>)>,
    pub bool_op: Option<(BoolOp, Token<'a>)>,
    pub ftz: Option<Token<'a>>,
    pub sat: Option<Token<'a>>,
    /// `.relu`: the integer family's (`min`/`max`) or the float family's.
    pub relu: Option<Token<'a>>,
    /// `.cc`: the integer family's extended-precision forms.
    pub cc: Option<Token<'a>>,
    pub add: Option<Token<'a>>,
    /// `mul`/`mad`'s `.lo/.hi/.wide`.
    pub mode: Option<MulMode>,
    /// `.sat` came before the first type.
    pub sat_first: bool,
    /// A family's own words (`prmt` mode, `shf` direction and mode; all
    /// of `cvt`'s modifiers).
    pub words: Vec<Token<'a>>,
    /// The float family's rounding modifier.
    pub rnd: Option<(Rnd, Token<'a>)>,
    /// The float family's `.NaN`.
    pub nan: Option<Token<'a>>,
    /// The float family's `.approx` or `.full`.
    pub approx: Option<Token<'a>>,
}

/// A statement whose modifiers and types the database accepts.
pub(super) struct Checked<'a> {
    pub mods: Mods<'a>,
    pub tys: Vec<Type>,
    /// The instruction as ptxas names it in messages (`mul.lo`, `set`).
    pub name: &'static str,
    /// The bit family's operation, from its opcode word and words.
    pub bit: Option<BitOp>,
    /// The conversion its words describe (operands not yet read).
    pub cvt: Option<Cvt>,
}

/// Sorts and checks the modifiers of `raw`.
pub(super) fn check<'a>(raw: &Raw<'a>) -> Result<Checked<'a>, IsaError> {
    unimplemented_form(raw)?;
    let kind = raw.def.kind;
    let fam = kind.family();
    let (mode, name) = mode(raw)?;
    let mods = classify(raw, fam, mode, name)?;
    let op_tok = raw.op_tok;
    let bad_types = || {
        let t = mods.types.first().map_or(op_tok, |p| p.1);
        invalid(t.col, t.text, R::UnexpectedTypes { inst: name })
    };
    if matches!(fam, Family::Set | Family::Setp | Family::VideoSet) && mods.cmp.is_none() {
        return Err(invalid(
            op_tok.col,
            op_tok.text,
            R::CompareRequired { inst: name },
        ));
    }
    let tys: Vec<Type> = mods.types.iter().map(|p| p.0).collect();
    if tys.len() != db::ntypes(kind) {
        return Err(bad_types());
    }
    // `mad` is `fma` on `.f32`/`.f64` only (ptxas: "Unexpected instruction
    // types specified for 'mad'" on `mad.rn.f16`).
    let half_mad = raw.def.name == "mad" && tys.first().is_some_and(|t| db::is_half(*t));
    if !db::types_ok(kind, mode, &tys) || half_mad {
        // ptxas words the unsigned-`c` case of slct specially.
        if fam == Family::Slct && tys.len() == 2 && tys[1].kind() == TypeKind::Unsigned {
            let t = mods.types[1].1;
            return Err(invalid(t.col, t.text, R::SlctSignedOnly));
        }
        if let (OpKind::Int(IntWord::Abs | IntWord::Neg), [(t, tok)]) = (kind, &mods.types[..]) {
            if t.kind() == TypeKind::Unsigned {
                return Err(invalid(tok.col, tok.text, R::SignedOnly { inst: name }));
            }
        }
        return Err(bad_types());
    }
    if let OpKind::Int(w) = kind {
        carry_rules(raw, w, &mods, &tys, name)?;
    }
    if let (Some(s), Some(a)) = (mods.sat, mods.add) {
        let t = if s.col > a.col { s } else { a };
        return Err(invalid(t.col, t.text, R::SatWithAdd));
    }
    if let (Some(t), OpKind::Int(_)) = (mods.sat, kind) {
        if !db::int_sat_type_ok(tys[0]) {
            return Err(invalid(t.col, t.text, R::SatNotForType(tys[0])));
        }
    }
    if let (Some(t), OpKind::Int(w)) = (mods.relu, kind) {
        if !db::int_relu_ok(w, tys[0]) {
            return Err(invalid(
                t.col,
                t.text,
                R::IllegalModifier {
                    modifier: ".relu".into(),
                    inst: name,
                },
            ));
        }
    }
    if let Some(t) = mods.ftz {
        if !db::ftz_ok(fam, &tys) {
            return Err(invalid(
                t.col,
                t.text,
                R::IllegalModifier {
                    modifier: ".ftz".into(),
                    inst: name,
                },
            ));
        }
    }
    if let Some((c, t)) = mods.cmp {
        // `tys` has `ntypes` entries (checked above); `spec(fam).allow`
        // refused a compare on the families that take none in `classify`.
        if !db::family_cmp_ok(fam, &tys, c) {
            return Err(invalid(t.col, t.text, R::CompareTypeMismatch));
        }
    }
    if let OpKind::Float(op) = kind {
        float_rules(op, &mods, tys[0], op_tok, &raw.mods, name)?;
    }
    // The other families' modifiers were all sorted into classes above.
    let bit = if let OpKind::Bit(w) = kind {
        Some(bit_op(w, &mods, raw, name)?)
    } else {
        None
    };
    let cvt = if let OpKind::Cvt = kind {
        Some(cvt(&mods, raw)?)
    } else {
        None
    };
    Ok(Checked {
        mods,
        tys,
        name,
        bit,
        cvt,
    })
}

/// The extended-precision forms (`.cc`, `addc`, `subc`, `madc`), as
/// ptxas 13.0.88 judges them (`tests/data/carry-ptxas.txt`): `.cc` on
/// `.u32 .s32 .u64 .s64` only and never with `.sat`. ptxas also takes the
/// carry-in words without `.cc` on the 16-bit types and with `.sat`, which
/// the manual does not define: refused as unimplemented (their values are
/// no source's).
fn carry_rules(
    raw: &Raw<'_>,
    w: IntWord,
    mods: &Mods<'_>,
    tys: &[Type],
    name: &'static str,
) -> Result<(), IsaError> {
    let wide_enough = tys.iter().all(|t| db::CARRY_TYPES.contains(t));
    if let Some(t) = mods.cc {
        if !wide_enough {
            return Err(invalid(t.col, t.text, R::CcNotForType { inst: name }));
        }
        if let Some(s) = mods.sat {
            let t = if s.col > t.col { s } else { t };
            return Err(invalid(t.col, t.text, R::CcWithSat));
        }
    } else if db::reads_carry(w) && (!wide_enough || mods.sat.is_some()) {
        return Err(unimplemented(raw));
    }
    Ok(())
}

/// The float family's `.ftz`, `.sat`, `.NaN`, `.approx` and rounding
/// rules, in ptxas's words; valid forms simcli does not run are
/// [`IsaError::Unimplemented`].
fn float_rules(
    op: FloatOp,
    mods: &Mods<'_>,
    ty: Type,
    op_tok: Token<'_>,
    raw_mods: &[Token<'_>],
    name: &'static str,
) -> Result<(), IsaError> {
    let illegal = |t: Token<'_>| {
        Err(invalid(
            t.col,
            t.text,
            R::IllegalModifier {
                modifier: t.text.to_string(),
                inst: name,
            },
        ))
    };
    let at_op = |reason: R| Err(invalid(op_tok.col, op_tok.text, reason));
    if let Some((r, t)) = mods.rnd {
        if !db::rnd_type_ok(op, ty, r) {
            return Err(invalid(t.col, t.text, R::IllegalRounding { inst: name }));
        }
    }
    match (mods.sat, mods.nan, mods.ftz) {
        (Some(t), _, _) if !db::float_sat_ok(op, ty) => return illegal(t),
        (_, Some(t), _) if !db::nan_ok(op, ty) => return illegal(t),
        (_, _, Some(t)) if !db::float_ftz_ok(op, ty) => return illegal(t),
        (_, _, None) if mods.approx.is_some() && db::ftz_required(op, ty) => {
            return at_op(R::FtzRequired {
                inst: if ty == Type::Bf16x2 {
                    "ex2.bf16x2"
                } else {
                    "ex2.bf16"
                },
            });
        }
        _ => {}
    }
    if let Some(t) = mods.relu {
        if !db::relu_ok(op, ty, mods.sat.is_some()) {
            return illegal(t);
        }
    }
    let either = R::RoundingOrApproxRequired { inst: name };
    let approximate = db::approx_instead(op, ty);
    match (mods.rnd, mods.approx) {
        (Some(_), Some(_)) => return at_op(either),
        (None, Some(t)) => {
            let full = t.text == ".full";
            if !db::approx_ok(op, ty, full, mods.ftz.is_some()) {
                return illegal(t);
            }
        }
        (None, None) if db::rnd_required(op) && approximate => return at_op(either),
        (None, None) if db::rnd_required(op) => return at_op(R::RoundingRequired { inst: name }),
        (Some(_) | None, None) => {}
    }
    // Valid, but simcli runs neither `.f64` beyond round to nearest nor the
    // `.f64` approximations.
    let rnd = mods.rnd.map(|r| r.0);
    let runs = match mods.approx {
        Some(_) => db::approx_implemented(op, ty),
        None => db::float_implemented(op, ty, rnd, mods.ftz.is_some()),
    };
    if !runs {
        let mut what = op_tok.text.to_string();
        for t in raw_mods {
            what.push_str(t.text);
        }
        return Err(IsaError::Unimplemented {
            col: op_tok.col,
            what,
        });
    }
    Ok(())
}

/// The conversion `cvt`'s words describe, or why they do not.
fn cvt(mods: &Mods<'_>, raw: &Raw<'_>) -> Result<Cvt, IsaError> {
    let words: Vec<&str> = mods
        .words
        .iter()
        .map(|t| t.text.get(1..).unwrap_or(""))
        .collect();
    let op = raw.op_tok;
    db::cvt_words(&words).map_err(|e| match e {
        CvtWordsError::Word(i) => {
            let t = mods.words[i];
            invalid(t.col, t.text, R::UnknownModifier(t.text.to_string()))
        }
        CvtWordsError::Unimplemented(_) => IsaError::Unimplemented {
            col: op.col,
            what: mods
                .words
                .iter()
                .fold(op.text.to_string(), |s, t| s + t.text),
        },
        CvtWordsError::MissingTypes | CvtWordsError::Illegal => {
            invalid(op.col, op.text, R::UnexpectedTypes { inst: "cvt" })
        }
    })
}

/// The bit family's operation, or ptxas's complaint about its words.
fn bit_op(
    w: BitWord,
    mods: &Mods<'_>,
    raw: &Raw<'_>,
    name: &'static str,
) -> Result<BitOp, IsaError> {
    let words: Vec<&str> = mods
        .words
        .iter()
        .map(|t| t.text.get(1..).unwrap_or(""))
        .collect();
    // ptxas accepts `testp.f32 p, a` without a property, and emits no code
    // for it: the predicate is left undefined (tests/data/testp-ptxas.txt).
    if w == BitWord::Testp && words.is_empty() {
        return Err(IsaError::Unimplemented {
            col: raw.op_tok.col,
            what: format!("{name} without a property"),
        });
    }
    db::bit_op(w, &words).map_err(|i| match mods.words.get(i) {
        Some(t) => invalid(
            t.col,
            t.text,
            R::IllegalModifier {
                modifier: t.text.to_string(),
                inst: name,
            },
        ),
        None => invalid(
            raw.op_tok.col,
            raw.op_tok.text,
            R::UnexpectedTypes { inst: name },
        ),
    })
}

/// [`IsaError::Unimplemented`] naming the whole opcode (`addc.sat.u32`), at
/// the opcode's column.
fn unimplemented(raw: &Raw<'_>) -> IsaError {
    let mut what = raw.op_tok.text.to_string();
    for t in &raw.mods {
        what.push_str(t.text);
    }
    IsaError::Unimplemented {
        col: raw.op_tok.col,
        what,
    }
}

/// `add.f32`, `mul.rn.f64`, `add.cc.u32`, `min.NaN.f32`, `div.full.f32`:
/// valid PTX of an implemented opcode word in a form simcli does not
/// implement. The type modifiers choose the family: a float type sends an
/// integer-family word to the float forms, which simcli does not run yet.
fn unimplemented_form(raw: &Raw<'_>) -> Result<(), IsaError> {
    let float = |w: &str| {
        Type::from_name(w).is_some_and(|t| matches!(t.kind(), TypeKind::Float | TypeKind::BFloat))
    };
    fn word<'t>(t: &Token<'t>) -> &'t str {
        t.text.get(1..).unwrap_or("")
    }
    let hit = match raw.def.kind {
        OpKind::Int(_) => raw.mods.iter().any(|t| float(word(t))),
        // `fma.oob`, `min.xorsign.abs` (`.f64` with a directed rounding,
        // `fma.rz.bf16`: `float_rules`).
        OpKind::Float(_) => raw
            .mods
            .iter()
            .any(|t| matches!(word(t), "oob" | "xorsign")),
        // Each other kind named: exhaustive, no wildcard over kinds (tidy).
        OpKind::Video(..)
        | OpKind::Set
        | OpKind::Setp
        | OpKind::Selp
        | OpKind::Slct
        | OpKind::Alu(_)
        | OpKind::Bit(_)
        | OpKind::Cvt => false,
    };
    if hit {
        return Err(unimplemented(raw));
    }
    Ok(())
}

/// `mul`/`mad`'s mode, which ptxas reads as part of the opcode: it must be
/// the first modifier. Returns it with the name ptxas uses in messages.
fn mode(raw: &Raw<'_>) -> Result<(Option<MulMode>, &'static str), IsaError> {
    let Some(op) = raw.def.kind.mode_op() else {
        return Ok((None, raw.def.name));
    };
    let mode = match raw.mods.first().map(|t| t.text) {
        Some(".lo") => Some(MulMode::Lo),
        Some(".hi") => Some(MulMode::Hi),
        Some(".wide") => Some(MulMode::Wide),
        Some(_) | None => None,
    };
    let Some(mode) = mode else {
        let t = raw.mods.first().copied().unwrap_or(raw.op_tok);
        return Err(invalid(
            t.col,
            t.text,
            R::UnexpectedTypes { inst: raw.def.name },
        ));
    };
    Ok((Some(mode), int_name(op(mode))))
}

/// Sorts the modifiers, rejecting repeats and classes the family lacks with
/// ptxas's messages (a repeated `.sat` or type is accepted by ptxas; a
/// repeated compare, BoolOp or `.add` is not, nor is a second `.ftz`).
fn classify<'a>(
    raw: &Raw<'a>,
    fam: Family,
    mode: Option<MulMode>,
    name: &'static str,
) -> Result<Mods<'a>, IsaError> {
    let allow = db::spec(fam).allow;
    let mut out = Mods {
        mode,
        ..Mods::default()
    };
    let skip = usize::from(mode.is_some());
    for &t in &raw.mods[skip..] {
        let w = t.text.get(1..).unwrap_or("");
        if fam == Family::Cvt {
            // All of cvt's modifiers, types included, are its own words.
            out.words.push(t);
            continue;
        }
        let err = |reason: R| Err(invalid(t.col, t.text, reason));
        let class = if let Some(ty) = Type::from_name(w) {
            out.types.push((ty, t));
            continue;
        } else if let Some(c) = CmpOp::from_name(w) {
            if allow & m::CMP == 0 {
                return err(R::CompareNotAllowed { inst: name });
            }
            if out.cmp.is_some() {
                return err(R::MultipleCompares);
            }
            out.cmp = Some((c, t));
            m::CMP
        } else if let Some(b) = BoolOp::ALL.into_iter().find(|b| b.name() == w) {
            if out.bool_op.is_some() || out.add.is_some() {
                return err(R::MultiplePostOps);
            }
            out.bool_op = Some((b, t));
            m::BOOL
        } else if w == "ftz" {
            if out.ftz.is_some() {
                return err(R::DuplicateFtz);
            }
            out.ftz = Some(t);
            m::FTZ
        } else if w == "sat" {
            if out.types.is_empty() {
                out.sat_first = true;
            }
            out.sat = Some(t);
            m::SAT
        } else if w == "relu" && fam == Family::Int {
            out.relu = Some(t);
            m::RELU
        } else if w == "cc" && fam == Family::Int {
            // A repeated `.cc` is accepted, as ptxas does.
            let word_ok = matches!(raw.def.kind, OpKind::Int(w) if db::int_cc_ok(w, mode));
            if !word_ok {
                return err(R::IllegalModifier {
                    modifier: t.text.to_string(),
                    inst: name,
                });
            }
            out.cc = Some(t);
            m::CC
        } else if w == "add" {
            if out.bool_op.is_some() || out.add.is_some() {
                return err(R::MultiplePostOps);
            }
            out.add = Some(t);
            m::ADD
        } else if fam == Family::Bit && db::BIT_WORDS.contains(&w) {
            out.words.push(t);
            m::WORDS
        } else if let (Family::Float, Some(r)) = (fam, db::rnd_from_name(w)) {
            if out.rnd.is_some() {
                return err(R::MultipleRoundings);
            }
            if let OpKind::Float(op) = raw.def.kind {
                if !db::rnd_ok(op) {
                    return err(R::IllegalRounding { inst: name });
                }
            }
            out.rnd = Some((r, t));
            m::RND
        } else if fam == Family::Float && matches!(w, "approx" | "full") {
            out.approx = Some(t);
            m::APPROX
        } else if fam == Family::Float && w == "NaN" {
            out.nan = Some(t);
            m::NAN
        } else if fam == Family::Float && w == "relu" {
            out.relu = Some(t);
            m::RELU
        } else if matches!(fam, Family::VideoArith | Family::VideoSet) && matches!(w, "min" | "max")
        {
            return err(R::IllegalSecondaryOp { inst: name });
        } else {
            return err(R::UnknownModifier(t.text.to_string()));
        };
        let sat_here = class != m::SAT || raw.def.kind.word_sat_ok(mode);
        if allow & class == 0 || !sat_here {
            return err(R::IllegalModifier {
                modifier: t.text.to_string(),
                inst: name,
            });
        }
    }
    Ok(out)
}
