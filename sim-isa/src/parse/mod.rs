//! PTX instruction text -> [`Instruction`], validated as ptxas 11.8 validates.
//!
//! The instruction set is declared once, as data, in `table.rs` (opcodes,
//! per-family modifiers, type lists, operand kinds, `.ftz`/compare rules,
//! target and PTX-version gates); this module reads statements against it,
//! `display.rs` prints them back, and [`check_target`] applies the gates.
//! Every rule was settled by assembling the text with ptxas 11.8; the tests
//! in `tests/it/parse.rs` record the evidence.
//!
//! What ptxas accepts, and so do we:
//! - modifiers in any order (`vset4.lt.u32.u32`, `set.f32.s32.lt`,
//!   `slct.u32.f32.ftz`); only the order of the type modifiers matters, and
//!   `mul.lo` must start with `.lo`. A repeated `.sat` is accepted; a second
//!   compare, BoolOp, `.add` or `.ftz` is not.
//! - integer literals in decimal, hex (`0x`), octal (leading `0`), binary
//!   (`0b`), optional `U` suffix, under any number of unary `-`, `!`, `~`;
//!   `0fXXXXXXXX` (no unary operator), `0dXXXXXXXXXXXXXXXX` and decimal floats
//!   (`1.5`, `.5e1`, `--1.5`) for `.f32`/`.f64`; `.b32` takes `0f`, `.b64`
//!   takes `0d` and decimal floats; f16/bf16 operands take no immediates.
//!
//! Known differences, all rejections of valid PTX: constant expressions
//! beyond unary operators (`(5)`, `1+2`); integer literals beyond 64 bits;
//! half-precision `setp` (9.7.7.2) and special registers other than
//! `%laneid`/`%warpid`, which the simulator does not model. Register widths
//! are not checked here (standalone text has no declarations); kernel-text
//! callers can compare [`Instruction::reg_uses`] with declared types.

mod display;
mod lex;
mod table;

use crate::error::{IsaError, Requirement};
use crate::inst::*;
use crate::symbols::Symbols;
use crate::target::{PtxVersion, Target};
use lex::{invalid, lex, Tok, Token};
use table::{m, Family, OpcodeDef, OperandKind};

/// Parses one instruction (optionally guarded, trailing `;` optional), interning
/// register names into `syms`. Errors are [`IsaError::Invalid`] with the
/// offending token and its 1-based column (relative to `text`).
pub fn parse_instruction(text: &str, syms: &mut Symbols) -> Result<Instruction, IsaError> {
    let toks = lex(text)?;
    let end_col = text.chars().count() + 1;
    let mut p = Parser {
        toks: &toks,
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
    let operands = p.operands()?;
    let raw = Raw {
        def,
        op_tok,
        mods,
        operands,
    };
    // Interned in text order: guard first.
    let guard = guard.map(|(t, negate)| Guard {
        reg: syms.intern(t.text),
        negate,
    });
    let op = build(&raw, syms)?;
    Ok(Instruction { guard, op })
}

/// Checks that `target` (and `version`, when the text had a `.version`) can run
/// `inst`. Errors are [`IsaError::Unsupported`] naming the minimum.
///
/// Every target gate is tested before any version gate, so an instruction
/// that fails both reports the target (e.g. bf16 on sm_53 with `.version
/// 6.0` reports sm_90).
pub fn check_target(
    inst: &Instruction,
    target: Target,
    version: Option<PtxVersion>,
) -> Result<(), IsaError> {
    let gates = || table::GATES.iter().filter(|g| (g.applies)(inst));
    for g in gates() {
        if let Some(f) = g.feature {
            if !target.supports(f) {
                return Err(IsaError::Unsupported {
                    what: g.what.to_string(),
                    need: Requirement::Sm(f.min_sm()),
                });
            }
        }
    }
    if let Some(v) = version {
        for g in gates() {
            let need = PtxVersion::new(g.ptx.0, g.ptx.1);
            if v < need {
                return Err(IsaError::Unsupported {
                    what: g.what.to_string(),
                    need: Requirement::Ptx(need),
                });
            }
        }
    }
    Ok(())
}

/// [`parse_instruction`] then [`check_target`].
pub fn parse_for_target(
    text: &str,
    syms: &mut Symbols,
    target: Target,
    version: Option<PtxVersion>,
) -> Result<Instruction, IsaError> {
    let inst = parse_instruction(text, syms)?;
    check_target(&inst, target, version)?;
    Ok(inst)
}

fn syntax(t: &Token<'_>) -> IsaError {
    invalid(
        t.col,
        t.text,
        format!("Parsing error near '{}': syntax error", t.text),
    )
}

struct Parser<'t, 'a> {
    toks: &'t [Token<'a>],
    pos: usize,
    end_col: usize,
}

/// One operand as written, before the family gives it meaning.
#[derive(Clone, Debug)]
struct RawOperand<'a> {
    /// Unary operators in front (`!`, `-`, `~`), outermost first.
    prefix: Vec<Token<'a>>,
    /// Register name or literal.
    atom: Token<'a>,
    /// `.sel` after it.
    sel: Option<Token<'a>>,
    /// `| q` after it.
    pipe: Option<Token<'a>>,
}

struct Raw<'a> {
    def: &'static OpcodeDef,
    op_tok: Token<'a>,
    mods: Vec<Token<'a>>,
    operands: Vec<RawOperand<'a>>,
}

impl<'t, 'a> Parser<'t, 'a> {
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
    fn eof_err(&self, what: &str) -> IsaError {
        invalid(
            self.end_col,
            "",
            format!("Parsing error: unexpected end of statement, expected {what}"),
        )
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
            || special(t.text).is_some()
            || OTHER_SPECIALS.contains(&t.text)
        {
            return Err(syntax(&t));
        }
        Ok(Some((t, negate)))
    }

    fn opcode(&mut self) -> Result<(&'static OpcodeDef, Token<'a>), IsaError> {
        let t = self.next().ok_or_else(|| self.eof_err("an instruction"))?;
        if t.kind != Tok::Ident {
            return Err(syntax(&t));
        }
        match table::OPCODES.iter().find(|d| d.name == t.text) {
            Some(d) => Ok((d, t)),
            None => Err(invalid(
                t.col,
                t.text,
                format!("Not a name of any known instruction: '{}'", t.text),
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

fn special(name: &str) -> Option<SpecialReg> {
    match name {
        "%laneid" => Some(SpecialReg::LaneId),
        "%warpid" => Some(SpecialReg::WarpId),
        _ => None,
    }
}

/// Modifiers sorted into classes, each remembering its token.
#[derive(Default)]
struct Mods<'a> {
    types: Vec<(Type, Token<'a>)>,
    cmp: Option<(CmpOp, Token<'a>)>,
    bool_op: Option<(BoolOp, Token<'a>)>,
    ftz: Option<Token<'a>>,
    sat: Option<Token<'a>>,
    add: Option<Token<'a>>,
    lo: Option<Token<'a>>,
    /// `.sat` came before the first type.
    sat_first: bool,
}

/// Sorts the modifiers, rejecting repeats and classes the family lacks with
/// ptxas's messages (a repeated `.sat` or type is accepted by ptxas; a
/// repeated compare, BoolOp or `.add` is not, nor is a second `.ftz`).
fn classify<'a>(raw: &Raw<'a>) -> Result<Mods<'a>, IsaError> {
    let fam = raw.def.family;
    let spec = table::family(fam);
    let is_mul = raw.def.alu == Some(AluOp::MulLo);
    // ptxas reads `mul.lo` as the opcode: `.lo` must come first.
    let name = if is_mul { "mul.lo" } else { raw.def.name };
    if is_mul && raw.mods.first().map(|t| t.text) != Some(".lo") {
        let t = raw.mods.first().copied().unwrap_or(raw.op_tok);
        return Err(invalid(
            t.col,
            t.text,
            "Unexpected instruction types specified for 'mul'",
        ));
    }
    let mut out = Mods::default();
    for (k, &t) in raw.mods.iter().enumerate() {
        let w = t.text.get(1..).unwrap_or("");
        let err = |msg: String| Err(invalid(t.col, t.text, msg));
        let post_op = "Multiple instruction post-operation flags set".to_string();
        let class = if let Some(ty) = Type::from_name(w) {
            out.types.push((ty, t));
            continue;
        } else if is_mul && k == 0 && w == "lo" {
            out.lo = Some(t);
            m::LO
        } else if let Some(c) = CmpOp::from_name(w) {
            if spec.allow & m::CMP == 0 {
                return err(format!(
                    "Comparison qualifier is not allowed for instruction '{name}'"
                ));
            }
            if out.cmp.is_some() {
                return err("Multiple comparisons set".into());
            }
            out.cmp = Some((c, t));
            m::CMP
        } else if let Some(b) = BoolOp::ALL.into_iter().find(|b| b.name() == w) {
            if out.bool_op.is_some() || out.add.is_some() {
                return err(post_op);
            }
            out.bool_op = Some((b, t));
            m::BOOL
        } else if w == "ftz" {
            if out.ftz.is_some() {
                return err("Duplicate .ftz modifier".into());
            }
            out.ftz = Some(t);
            m::FTZ
        } else if w == "sat" {
            if out.types.is_empty() {
                out.sat_first = true;
            }
            out.sat = Some(t);
            m::SAT
        } else if w == "add" {
            if out.bool_op.is_some() || out.add.is_some() {
                return err(post_op);
            }
            out.add = Some(t);
            m::ADD
        } else if matches!(fam, Family::VideoArith | Family::VideoSet) && matches!(w, "min" | "max")
        {
            return err(format!(
                "Illegal secondary operation for video instruction '{name}'"
            ));
        } else {
            return err(format!("Unknown modifier '{}'", t.text));
        };
        if spec.allow & class == 0 {
            return err(format!(
                "Illegal modifier '{}' for instruction '{name}'",
                t.text
            ));
        }
    }
    Ok(out)
}

fn build(raw: &Raw<'_>, syms: &mut Symbols) -> Result<Op, IsaError> {
    let def = raw.def;
    let fam = def.family;
    let spec = table::family(fam);
    let name = def.name;
    let op_tok = raw.op_tok;
    let mods = classify(raw)?;
    let bad_types = || {
        let t = mods.types.first().map_or(op_tok, |p| p.1);
        invalid(
            t.col,
            t.text,
            format!("Unexpected instruction types specified for '{name}'"),
        )
    };

    if matches!(fam, Family::Set | Family::Setp | Family::VideoSet) && mods.cmp.is_none() {
        return Err(invalid(
            op_tok.col,
            op_tok.text,
            format!("Comparison modifier required for instruction '{name}'"),
        ));
    }
    if def.alu == Some(AluOp::MulLo) && mods.lo.is_none() {
        return Err(bad_types());
    }
    let tys: Vec<Type> = mods.types.iter().map(|p| p.0).collect();
    if tys.len() != spec.ntypes {
        return Err(bad_types());
    }
    if !table::types_ok(fam, def.alu, &tys) {
        // ptxas words the unsigned-`c` case of slct specially.
        if fam == Family::Slct && tys.len() == 2 && tys[1].kind() == TypeKind::Unsigned {
            let t = mods.types[1].1;
            return Err(invalid(
                t.col,
                t.text,
                "Instruction 'slct' applies only to signed numeric types",
            ));
        }
        if fam == Family::Setp
            && matches!(tys[0], Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2)
        {
            let t = mods.types[0].1;
            return Err(invalid(
                t.col,
                t.text,
                "half-precision setp (9.7.7.2) is not simulated",
            ));
        }
        return Err(bad_types());
    }
    if let (Some(s), Some(a)) = (mods.sat, mods.add) {
        let t = if s.col > a.col { s } else { a };
        return Err(invalid(
            t.col,
            t.text,
            "Illegal combination of .sat and .add modifiers",
        ));
    }
    if let Some(t) = mods.ftz {
        if !table::ftz_ok(fam, &tys) {
            return Err(invalid(
                t.col,
                t.text,
                format!("Illegal modifier '.ftz' for instruction '{name}'"),
            ));
        }
    }
    if let Some((c, t)) = mods.cmp {
        let ok = match fam {
            Family::VideoSet => table::vset_cmp_ok(c),
            Family::Set => table::cmp_ok(tys[1].kind(), c),
            _ => table::cmp_ok(tys[0].kind(), c),
        };
        if !ok {
            return Err(invalid(
                t.col,
                t.text,
                "Mismatch between instruction type and comparison qualifier",
            ));
        }
    }

    let kinds: &[OperandKind] = if fam == Family::Alu {
        def.alu.map_or(&[], table::alu_operands)
    } else {
        spec.operands
    };
    let n = kinds.len() + usize::from(mods.bool_op.is_some());
    let ops = &raw.operands;
    if ops.len() != n {
        if mods.bool_op.is_none() && ops.len() == n + 1 && matches!(fam, Family::Set | Family::Setp)
        {
            return Err(invalid(
                op_tok.col,
                op_tok.text,
                format!("Boolean operation is required for instruction '{name}'"),
            ));
        }
        let t = ops.get(n).map_or(op_tok, |o| o.atom);
        return Err(invalid(
            t.col,
            t.text,
            format!("Arguments mismatch for instruction '{name}'"),
        ));
    }

    let cx = Cx {
        name,
        tys: &tys,
        simd: def.video.map_or(Simd::X2, |v| v.1),
    };
    // Operand values in order; a family picks the ones it needs.
    let mut vals = [Val::None; 5];
    for (i, (o, k)) in ops.iter().zip(kinds).enumerate() {
        vals[i] = cx.operand(o, *k, i, syms)?;
    }
    let bool_op = match (mods.bool_op, ops.get(kinds.len())) {
        (Some((b, _)), Some(o)) => {
            let c = cx.pred(o, syms)?;
            // ptxas 11.8: "Arguments mismatch for instruction 'set'" for an
            // immediate `c` whenever a bf16 type is involved (f16 is fine).
            let bf16 = tys.iter().any(|t| t.kind() == TypeKind::BFloat);
            if bf16 && matches!(c, PredSrc::Imm(_)) {
                return Err(cx.mismatch(&o.atom));
            }
            Some((b, c))
        }
        _ => None,
    };

    let op = match fam {
        Family::VideoArith | Family::VideoSet => {
            let (vop, simd) = def.video.unwrap_or((VideoOp::Add, Simd::X2));
            let (Val::VDst(d, mask), Val::VSrc(a, asel), Val::VSrc(b, bsel), Val::Reg(c)) =
                (vals[0], vals[1], vals[2], vals[3])
            else {
                return Err(invalid(
                    op_tok.col,
                    op_tok.text,
                    format!("Arguments mismatch for instruction '{name}'"),
                ));
            };
            let full = (1u8 << simd.lanes()) - 1;
            let (dasel, dbsel) = default_sels(simd);
            let set = fam == Family::VideoSet;
            let sat = mods.sat.is_some();
            Op::Video(Video {
                op: match (vop, mods.cmp) {
                    (VideoOp::Set(_), Some((c, _))) => VideoOp::Set(c),
                    (o, _) => o,
                },
                simd,
                dsigned: !set && tys[0] == Type::S32,
                asigned: tys[usize::from(!set)] == Type::S32,
                bsigned: tys[usize::from(!set) + 1] == Type::S32,
                sat,
                add: mods.add.is_some(),
                mask: mask.unwrap_or(full),
                mask_explicit: mask.is_some(),
                asel: asel.unwrap_or(dasel),
                bsel: bsel.unwrap_or(dbsel),
                asel_explicit: asel.is_some(),
                bsel_explicit: bsel.is_some(),
                sat_first: sat && mods.sat_first,
                d,
                a,
                b,
                c,
            })
        }
        Family::Set => Op::Set(Set {
            cmp: mods.cmp.map_or(CmpOp::Eq, |c| c.0),
            bool_op,
            ftz: mods.ftz.is_some(),
            dtype: tys[0],
            stype: tys[1],
            d: vals[0].reg(),
            a: vals[1].opnd(),
            b: vals[2].opnd(),
        }),
        Family::Setp => {
            let Val::PredPair(p, q) = vals[0] else {
                return Err(invalid(
                    op_tok.col,
                    op_tok.text,
                    format!("Arguments mismatch for instruction '{name}'"),
                ));
            };
            Op::Setp(Setp {
                cmp: mods.cmp.map_or(CmpOp::Eq, |c| c.0),
                bool_op,
                ftz: mods.ftz.is_some(),
                ty: tys[0],
                p,
                q,
                a: vals[1].opnd(),
                b: vals[2].opnd(),
            })
        }
        Family::Selp => {
            let Val::Pred(c) = vals[3] else {
                return Err(invalid(
                    op_tok.col,
                    op_tok.text,
                    format!("Arguments mismatch for instruction '{name}'"),
                ));
            };
            Op::Selp(Selp {
                ty: tys[0],
                d: vals[0].reg(),
                a: vals[1].opnd(),
                b: vals[2].opnd(),
                c,
            })
        }
        Family::Slct => Op::Slct(Slct {
            ftz: mods.ftz.is_some(),
            dtype: tys[0],
            ctype: tys[1],
            d: vals[0].reg(),
            a: vals[1].opnd(),
            b: vals[2].opnd(),
            c: vals[3].opnd(),
        }),
        Family::Alu => Op::Alu(Alu {
            op: def.alu.unwrap_or(AluOp::Mov),
            ty: tys[0],
            d: vals[0].reg(),
            a: vals[1].opnd(),
            b: match vals[2] {
                Val::None => None,
                v => Some(v.opnd()),
            },
        }),
    };
    Ok(op)
}

/// Default `asel`/`bsel` (9.7.18.2: `.h10`/`.h32`, `.b3210`/`.b7654`).
pub(crate) const fn default_sels(simd: Simd) -> ([u8; 4], [u8; 4]) {
    match simd {
        Simd::X2 => ([0, 1, 0, 0], [2, 3, 0, 0]),
        Simd::X4 => ([0, 1, 2, 3], [4, 5, 6, 7]),
    }
}

/// An operand after interpretation.
#[derive(Clone, Copy, Debug)]
enum Val {
    None,
    Reg(RegId),
    Opnd(Operand),
    VDst(RegId, Option<u8>),
    VSrc(RegId, Option<[u8; 4]>),
    PredPair(Option<RegId>, Option<Option<RegId>>),
    Pred(PredSrc),
}

impl Val {
    fn reg(self) -> RegId {
        match self {
            Val::Reg(r) | Val::VDst(r, _) | Val::VSrc(r, _) | Val::Opnd(Operand::Reg(r)) => r,
            _ => RegId(0),
        }
    }
    fn opnd(self) -> Operand {
        match self {
            Val::Opnd(o) => o,
            v => Operand::Reg(v.reg()),
        }
    }
}

struct Cx<'t> {
    name: &'static str,
    tys: &'t [Type],
    simd: Simd,
}

impl Cx<'_> {
    fn mismatch(&self, t: &Token<'_>) -> IsaError {
        invalid(
            t.col,
            t.text,
            format!("Arguments mismatch for instruction '{}'", self.name),
        )
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
            Some(t) if o.atom.kind == Tok::Ident => invalid(
                t.col,
                t.text,
                format!(
                    "Operand negation not allowed for instruction '{}'",
                    self.name
                ),
            ),
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
        if special(t.text).is_some() {
            return Err(invalid(
                t.col,
                t.text,
                format!(
                    "Special register argument not allowed for instruction '{}'",
                    self.name
                ),
            ));
        }
        if OTHER_SPECIALS.contains(&t.text) {
            return Err(invalid(
                t.col,
                t.text,
                format!("Special register '{}' is not simulated", t.text),
            ));
        }
        Ok(syms.intern(t.text))
    }

    fn no_extras(&self, o: &RawOperand<'_>) -> Result<(), IsaError> {
        if let Some(t) = o.pipe {
            return Err(syntax(&t));
        }
        if let Some(t) = o.sel {
            return Err(invalid(
                t.col,
                t.text,
                format!(
                    "Video selector is not allowed on operand of '{}'",
                    self.name
                ),
            ));
        }
        Ok(())
    }

    fn operand(
        &self,
        o: &RawOperand<'_>,
        k: OperandKind,
        idx: usize,
        syms: &mut Symbols,
    ) -> Result<Val, IsaError> {
        match k {
            OperandKind::Pred => return Ok(Val::Pred(self.pred(o, syms)?)),
            OperandKind::PredPair => return self.pred_pair(o, syms),
            OperandKind::VDst | OperandKind::VSrc | OperandKind::VC => {
                return self.video(o, k, idx, syms)
            }
            _ => {}
        }
        self.no_extras(o)?;
        match k {
            OperandKind::Dst => Ok(Val::Reg(self.reg(o, syms)?)),
            OperandKind::Value(slot) => self.value(
                o,
                self.tys
                    .get(usize::from(slot))
                    .copied()
                    .unwrap_or(Type::B32),
                syms,
            ),
            OperandKind::Shift => self.value(o, Type::U32, syms),
            OperandKind::ValueOrSpecial => {
                if let Some(s) = special(o.atom.text) {
                    // ptxas: 32-bit integer types only; "Arguments mismatch" for
                    // other widths, "Special register argument not allowed" for f32.
                    return match self.tys.first() {
                        Some(&Type::F32) => Err(invalid(
                            o.atom.col,
                            o.atom.text,
                            format!(
                                "Special register argument not allowed for instruction '{}'",
                                self.name
                            ),
                        )),
                        Some(t) if t.bits() == 32 => Ok(Val::Opnd(Operand::Special(s))),
                        _ => Err(self.mismatch(&o.atom)),
                    };
                }
                self.value(o, self.tys.first().copied().unwrap_or(Type::B32), syms)
            }
            _ => Err(syntax(&o.atom)),
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
            Lit::Int(_) => Err(self.mismatch(&t)),
            Lit::F32(_) if !o.prefix.is_empty() => Err(syntax(&t)),
            Lit::Dec(_) | Lit::F64(_) if o.prefix.iter().any(|p| p.text != "-") => Err(invalid(
                t.col,
                t.text,
                "Integer constant expression expected",
            )),
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
    fn pred(&self, o: &RawOperand<'_>, syms: &mut Symbols) -> Result<PredSrc, IsaError> {
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

    fn video(
        &self,
        o: &RawOperand<'_>,
        k: OperandKind,
        idx: usize,
        syms: &mut Symbols,
    ) -> Result<Val, IsaError> {
        if let Some(t) = o.pipe {
            return Err(syntax(&t));
        }
        let bad_sel = |t: &Token<'_>| {
            invalid(
                t.col,
                t.text,
                format!("Incorrect video selector for operand {idx}"),
            )
        };
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
                format!("Unknown video selector: '{}'", t.text),
            ));
        }
        match k {
            OperandKind::VDst => mask_of(w, self.simd)
                .map(|m| Val::VDst(r, Some(m)))
                .ok_or_else(|| bad_sel(&t)),
            OperandKind::VSrc => sel_of(w, self.simd)
                .map(|s| Val::VSrc(r, Some(s)))
                .ok_or_else(|| bad_sel(&t)),
            _ => Err(invalid(
                t.col,
                t.text,
                "Video selector is not allowed on 'source C' operand",
            )),
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

/// A numeric literal's value class.
#[derive(Clone, Copy, Debug)]
enum Lit {
    /// Integer (any radix), as u64.
    Int(u64),
    /// `0f` bit pattern.
    F32(f32),
    /// `0d` bit pattern.
    F64(f64),
    /// Decimal floating point (`1.5`, `1e3`).
    Dec(f64),
}

fn literal(s: &str) -> Option<Lit> {
    let b = s.as_bytes();
    let hexbits = |digits: &str, n: usize| {
        (digits.len() == n && digits.bytes().all(|c| c.is_ascii_hexdigit()))
            .then(|| u64::from_str_radix(digits, 16).ok())
            .flatten()
    };
    if b.len() > 2 && b[0] == b'0' {
        let rest = s.get(2..)?;
        match b[1] {
            b'f' | b'F' => return hexbits(rest, 8).map(|v| Lit::F32(f32::from_bits(v as u32))),
            b'd' | b'D' => return hexbits(rest, 16).map(|v| Lit::F64(f64::from_bits(v))),
            b'x' | b'X' => return int_digits(rest, 16).map(Lit::Int),
            b'b' | b'B' => return int_digits(rest, 2).map(Lit::Int),
            _ => {}
        }
    }
    if s.contains(['.', 'e', 'E']) {
        // Rust's float grammar is a superset of the one we allow; refuse "inf"/"nan".
        if !s
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            return None;
        }
        return s.parse::<f64>().ok().map(Lit::Dec);
    }
    if b.len() > 1 && b[0] == b'0' && s != "0U" {
        return int_digits(s.get(1..)?, 8).map(Lit::Int);
    }
    int_digits(s, 10).map(Lit::Int)
}

/// Digits with an optional `U` suffix; `None` on bad digits or overflow.
fn int_digits(s: &str, radix: u32) -> Option<u64> {
    let s = s.strip_suffix('U').unwrap_or(s);
    if s.is_empty() || !s.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(s, radix).ok()
}

/// Applies unary `-`, `~`, `!` (innermost last in `prefix`) to an integer.
fn int_prefix(v: u64, prefix: &[Token<'_>]) -> u64 {
    prefix.iter().rev().fold(v, |v, p| match p.text {
        "-" => v.wrapping_neg(),
        "~" => !v,
        _ => u64::from(v == 0),
    })
}

/// PTX identifier: `[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`.
fn valid_ident(s: &str) -> bool {
    let mut c = s.chars();
    match c.next() {
        Some(f) if f.is_ascii_alphabetic() => true,
        Some('_' | '$' | '%') => c.next().is_some(),
        _ => false,
    }
}

/// PTX special registers other than `%laneid`/`%warpid`: valid PTX, but this
/// simulator has no value for them.
const OTHER_SPECIALS: &[&str] = &[
    "%tid",
    "%ntid",
    "%ctaid",
    "%nctaid",
    "%nwarpid",
    "%smid",
    "%nsmid",
    "%gridid",
    "%lanemask_eq",
    "%lanemask_le",
    "%lanemask_lt",
    "%lanemask_ge",
    "%lanemask_gt",
    "%clock",
    "%clock_hi",
    "%clock64",
    "%globaltimer",
    "%globaltimer_lo",
    "%globaltimer_hi",
    "%total_smem_size",
    "%aggr_smem_size",
    "%dynamic_smem_size",
    "%is_explicit_cluster",
    "%clusterid",
    "%nclusterid",
    "%cluster_ctaid",
    "%cluster_nctaid",
    "%cluster_ctarank",
    "%cluster_nctarank",
    "%current_graph_exec",
    "%reserved_smem_offset_begin",
    "%reserved_smem_offset_end",
    "%reserved_smem_offset_cap",
    "%reserved_smem_offset_0",
    "%reserved_smem_offset_1",
    "%pm0",
    "%pm1",
    "%pm2",
    "%pm3",
    "%pm4",
    "%pm5",
    "%pm6",
    "%pm7",
    "%pm0_64",
    "%pm1_64",
    "%pm2_64",
    "%pm3_64",
    "%pm4_64",
    "%pm5_64",
    "%pm6_64",
    "%pm7_64",
];
