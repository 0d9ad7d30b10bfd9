//! Building the decoded [`Op`] from a checked statement: operands read as
//! the database's operand kinds say, then assembled per family.

use super::lex::invalid;
use super::operand::{Cx, Slot, Val};
use super::syntax::Raw;
use super::validate::{Checked, Mods};
use crate::db::{self, default_sels, IntWord, OpKind};
use crate::error::{InvalidReason as R, IsaError};
use crate::inst::*;
use crate::symbols::Symbols;

/// The operation `raw` (already [`super::validate::check`]ed) describes.
pub(super) fn build(raw: &Raw<'_>, c: &Checked<'_>, syms: &mut Symbols) -> Result<Op, IsaError> {
    let (vals, bool_op) = read_operands(raw, c, syms)?;
    // The carry flag, interned only where a form names it (after the
    // operands, so that a program without one has no such register and
    // the text's registers keep their ids).
    let carry_word = matches!(raw.def.kind, OpKind::Int(w) if db::reads_carry(w));
    let cf = (c.mods.cc.is_some() || carry_word).then(|| syms.intern(CARRY_FLAG));
    assemble(raw, c, &vals, bool_op, cf)
}

/// "Arguments mismatch" at the opcode.
fn arguments_mismatch(raw: &Raw<'_>, c: &Checked<'_>) -> IsaError {
    let t = raw.op_tok;
    invalid(t.col, t.text, R::ArgumentsMismatch { inst: c.name })
}

/// A BoolOp with its predicate operand.
type BoolPred = Option<(BoolOp, PredSrc)>;

/// The operands read as the database's operand kinds say, and the BoolOp
/// predicate after them.
fn read_operands(
    raw: &Raw<'_>,
    c: &Checked<'_>,
    syms: &mut Symbols,
) -> Result<([Val; 5], BoolPred), IsaError> {
    let (kind, name, op_tok) = (raw.def.kind, c.name, raw.op_tok);
    let (mods, tys) = (&c.mods, &c.tys);
    let mismatch = || arguments_mismatch(raw, c);
    let kinds = match &c.cvt {
        Some(x) => db::cvt_operands(x),
        None => db::operands(kind),
    };
    let n = kinds.len() + usize::from(mods.bool_op.is_some());
    let ops = &raw.operands;
    if ops.len() != n {
        if mods.bool_op.is_none()
            && ops.len() == n + 1
            && matches!(kind, OpKind::Set | OpKind::Setp)
        {
            return Err(invalid(
                op_tok.col,
                op_tok.text,
                R::BoolOpRequired { inst: name },
            ));
        }
        let t = ops.get(n).map_or(op_tok, |o| o.atom);
        return Err(invalid(t.col, t.text, R::ArgumentsMismatch { inst: name }));
    }

    // The integer family's operand slots: the type, then `d`'s (and `c`'s)
    // type, then `b`'s (`dp4a`/`dp2a`'s second type).
    let int_tys;
    let slot_tys: &[Type] = match (kind, mods.mode) {
        (OpKind::Int(IntWord::Dp4a | IntWord::Dp2a), _) => {
            let d = if tys.iter().all(|&t| t == Type::U32) {
                Type::U32
            } else {
                Type::S32
            };
            int_tys = [tys[0], d, tys[1]];
            &int_tys
        }
        (OpKind::Int(_), Some(MulMode::Wide)) => {
            int_tys = [tys[0], tys[0].doubled().ok_or_else(mismatch)?, tys[0]];
            &int_tys
        }
        (OpKind::Int(_), Some(MulMode::Lo | MulMode::Hi) | None) => {
            int_tys = [tys[0], tys[0], tys[0]];
            &int_tys
        }
        (OpKind::Cvt, _) => {
            let x = c.cvt.ok_or_else(mismatch)?;
            int_tys = [x.dtype.reg_type(), x.atype.reg_type(), x.atype.reg_type()];
            &int_tys
        }
        (
            // Each other kind named: exhaustive, no wildcard over kinds (tidy).
            OpKind::Video(..)
            | OpKind::Set
            | OpKind::Setp
            | OpKind::Selp
            | OpKind::Slct
            | OpKind::Alu(_)
            | OpKind::Bit(_)
            | OpKind::Float(_),
            _,
        ) => tys,
    };
    let cx = Cx {
        name,
        tys: slot_tys,
        simd: kind.simd(),
    };
    // Operand values in order; a family picks the ones it needs.
    let mut vals = [Val::None; 5];
    for (i, (o, k)) in ops.iter().zip(kinds).enumerate() {
        let slot = Slot {
            raw: o,
            kind: *k,
            idx: i,
        };
        vals[i] = cx.operand(slot, syms)?;
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
    Ok((vals, bool_op))
}

/// The family's instruction from its operand values.
fn assemble(
    raw: &Raw<'_>,
    c: &Checked<'_>,
    vals: &[Val; 5],
    bool_op: BoolPred,
    cf: Option<RegId>,
) -> Result<Op, IsaError> {
    let (mods, tys) = (&c.mods, &c.tys);
    let mismatch = || arguments_mismatch(raw, c);
    let reg = |i: usize| vals[i].reg().ok_or_else(mismatch);
    let opnd = |i: usize| vals[i].opnd().ok_or_else(mismatch);

    let op = match raw.def.kind {
        OpKind::Video(vop, simd) => video(vop, simd, mods, tys, vals).ok_or_else(mismatch)?,
        OpKind::Set => Op::Set(Set {
            cmp: mods.cmp.ok_or_else(mismatch)?.0,
            bool_op,
            ftz: mods.ftz.is_some(),
            dtype: tys[0],
            stype: tys[1],
            d: reg(0)?,
            a: opnd(1)?,
            b: opnd(2)?,
        }),
        OpKind::Setp => {
            let Val::PredPair(p, q) = vals[0] else {
                return Err(mismatch());
            };
            Op::Setp(Setp {
                cmp: mods.cmp.ok_or_else(mismatch)?.0,
                bool_op,
                ftz: mods.ftz.is_some(),
                ty: tys[0],
                p,
                q,
                a: opnd(1)?,
                b: opnd(2)?,
            })
        }
        OpKind::Selp => {
            let Val::Pred(c) = vals[3] else {
                return Err(mismatch());
            };
            Op::Selp(Selp {
                ty: tys[0],
                d: reg(0)?,
                a: opnd(1)?,
                b: opnd(2)?,
                c,
            })
        }
        OpKind::Slct => Op::Slct(Slct {
            ftz: mods.ftz.is_some(),
            dtype: tys[0],
            ctype: tys[1],
            d: reg(0)?,
            a: opnd(1)?,
            b: opnd(2)?,
            c: opnd(3)?,
        }),
        OpKind::Alu(op) => Op::Alu(Alu {
            op,
            ty: tys[0],
            d: reg(0)?,
            a: opnd(1)?,
            b: match op {
                AluOp::Mov => None,
                AluOp::And | AluOp::Or | AluOp::Xor | AluOp::Shl | AluOp::Shr => Some(opnd(2)?),
            },
        }),
        OpKind::Int(w) => {
            let op = int_op(w, mods.mode).ok_or_else(mismatch)?;
            let x = IntArith {
                op,
                sat: mods.sat.is_some(),
                relu: mods.relu.is_some(),
                ty: tys[0],
                bty: tys.get(1).copied().unwrap_or(tys[0]),
                d: reg(0)?,
                a: opnd(1)?,
                b: if op.has_b() { Some(opnd(2)?) } else { None },
                c: if op.has_c() { Some(opnd(3)?) } else { None },
                carry: cf.map(|cf| Carry {
                    cf,
                    out: mods.cc.is_some(),
                }),
            };
            // ptxas 13.0: "Arguments mismatch" for an immediate operand of
            // a packed (`.u16x2`/`.s16x2`) form.
            let imm = [Some(x.a), x.b, x.c]
                .into_iter()
                .any(|o| matches!(o, Some(Operand::Imm(_))));
            if x.ty.is_packed16() && imm {
                return Err(mismatch());
            }
            Op::Int(x)
        }
        OpKind::Float(op) => {
            let has = |n: usize| db::operands(raw.def.kind).len() > n;
            Op::Float(FloatArith {
                op,
                rnd: mods.rnd.map(|(r, _)| r),
                approx: mods.approx.map(|t| {
                    if t.text == ".full" {
                        Approx::Full
                    } else {
                        Approx::Approx
                    }
                }),
                ftz: mods.ftz.is_some(),
                sat: mods.sat.is_some(),
                nan: mods.nan.is_some(),
                relu: mods.relu.is_some(),
                ty: tys[0],
                d: reg(0)?,
                a: opnd(1)?,
                b: if has(2) { Some(opnd(2)?) } else { None },
                c: if has(3) { Some(opnd(3)?) } else { None },
            })
        }
        OpKind::Cvt => {
            let x = c.cvt.ok_or_else(mismatch)?;
            let n = db::cvt_operands(&x).len();
            Op::Cvt(Cvt {
                d: reg(0)?,
                a: opnd(1)?,
                b: if n >= 3 { Some(opnd(2)?) } else { None },
                c: if n == 4 { Some(opnd(3)?) } else { None },
                ..x
            })
        }
        OpKind::Bit(_) => {
            let op = c.bit.ok_or_else(mismatch)?;
            let mut src = [Operand::Imm(0); 4];
            for (i, s) in src.iter_mut().enumerate().take(op.n_srcs()) {
                *s = opnd(i + 1)?;
            }
            Op::Bit(Bit {
                op,
                ty: tys[0],
                d: reg(0)?,
                src,
            })
        }
    };
    Ok(op)
}

/// A video instruction from its operands: selectors and masks resolved to
/// their defaults where not written (`None` when an operand has the wrong
/// shape, which the caller reports as ptxas's "Arguments mismatch").
fn video(vop: VideoOp, simd: Simd, mods: &Mods<'_>, tys: &[Type], vals: &[Val; 5]) -> Option<Op> {
    let (Val::VDst(d, mask), Val::VSrc(a, asel), Val::VSrc(b, bsel), Val::Reg(c)) =
        (vals[0], vals[1], vals[2], vals[3])
    else {
        return None;
    };
    let full = (1u8 << simd.lanes()) - 1;
    let (dasel, dbsel) = default_sels(simd);
    let set = matches!(vop, VideoOp::Set(_));
    let sat = mods.sat.is_some();
    Some(Op::Video(Video {
        op: match (vop, mods.cmp) {
            (VideoOp::Set(_), Some((c, _))) => VideoOp::Set(c),
            (VideoOp::Set(_), None) => return None,
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
    }))
}

/// The integer operation of an opcode word and its mode (`mul`/`mad`
/// without a mode: `None`).
fn int_op(w: IntWord, mode: Option<MulMode>) -> Option<IntOp> {
    Some(match (w, mode) {
        (IntWord::Add, _) => IntOp::Add,
        (IntWord::Sub, _) => IntOp::Sub,
        (IntWord::Mul, Some(m)) => IntOp::Mul(m),
        (IntWord::Mad, Some(m)) => IntOp::Mad(m),
        (IntWord::Min, _) => IntOp::Min,
        (IntWord::Max, _) => IntOp::Max,
        (IntWord::Div, _) => IntOp::Div,
        (IntWord::Rem, _) => IntOp::Rem,
        (IntWord::Abs, _) => IntOp::Abs,
        (IntWord::Neg, _) => IntOp::Neg,
        (IntWord::Dp4a, _) => IntOp::Dp4a,
        (IntWord::Sad, _) => IntOp::Sad,
        (IntWord::Addc, _) => IntOp::Addc,
        (IntWord::Subc, _) => IntOp::Subc,
        (IntWord::Madc, Some(m @ (MulMode::Lo | MulMode::Hi))) => IntOp::Madc(m),
        (IntWord::Dp2a, Some(m @ (MulMode::Lo | MulMode::Hi))) => IntOp::Dp2a(m),
        (IntWord::Mul | IntWord::Mad, None) | (IntWord::Dp2a | IntWord::Madc, _) => return None,
    })
}
