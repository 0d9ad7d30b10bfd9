//! The bit-manipulation family's declarations: opcode words, operand
//! shapes, types and the modifier words (`prmt` modes, `shf` direction and
//! mode) in the manual's notation (PTX ISA 9.7.8.x, 9.7.9.7).

use super::OperandKind as K;
pub(crate) use crate::bit_inst::BitWord;
use crate::inst::{BitOp, Instruction, Op, PrmtMode, TestOp, Type as T};

/// The family's syntax block.
pub(super) const SYNTAX: &str = "popc.type d, a;  clz.type d, a;  .type = { .b32, .b64 }, d is .u32; \
     brev.type d, a;  .type = { .b32, .b64 }; not.type d, a;  cnot.type d, a;  .type = { .b16, .b32, .b64 }; \
     bfe.type d, a, b, c;  .type = { .u32, .u64, .s32, .s64 }, b c .u32; \
     bfi.type f, a, b, c, d;  .type = { .b32, .b64 }, c d .u32; \
     prmt.b32{.mode} d, a, b, c;  .mode = { .f4e, .b4e, .rc8, .ecl, .ecr, .rc16 }; \
     lop3.b32 d, a, b, c, immLut; \
     shf.l.mode.b32 d, a, b, c;  shf.r.mode.b32 d, a, b, c;  .mode = { .clamp, .wrap }, c .u32; \
     bfind{.shiftamt}.type d, a;  .type = { .u32, .u64, .s32, .s64 }, d is .u32; \
     testp.op.type p, a;  .op = { .finite, .infinite, .number, .notanumber, .normal, .subnormal }; \
     .type = { .f32, .f64 }, p is .pred; \
     fns.b32 d, mask, base, offset; \
     bmsk.mode.b32 d, a, b;  .mode = { .clamp, .wrap }";

// `tests/it/families.rs` checks `testp`'s words against the manual's,
// read from `tests/data/testp-forms.txt`: an oracle independent of this table.
/// Modifier words the family reads besides its type.
pub(crate) const BIT_WORDS: &[&str] = &[
    "f4e",
    "b4e",
    "rc8",
    "ecl",
    "ecr",
    "rc16",
    "l",
    "r",
    "wrap",
    "clamp",
    "shiftamt",
    "finite",
    "infinite",
    "number",
    "notanumber",
    "normal",
    "subnormal",
];

/// Operands of `w` (`d` first).
pub(super) const fn operands(w: BitWord) -> &'static [K] {
    match w {
        BitWord::Popc
        | BitWord::Clz
        | BitWord::Brev
        | BitWord::Not
        | BitWord::Cnot
        | BitWord::Testp
        | BitWord::Bfind => &[K::Dst, K::Value(0)],
        BitWord::Bfe => &[K::Dst, K::Value(0), K::Shift, K::Shift],
        BitWord::Bfi => &[K::Dst, K::Value(0), K::Value(0), K::Shift, K::Shift],
        BitWord::Prmt | BitWord::Fns => &[K::Dst, K::Value(0), K::Value(0), K::Value(0)],
        BitWord::Bmsk => &[K::Dst, K::Value(0), K::Value(0)],
        BitWord::Lop3 => &[K::Dst, K::Value(0), K::Value(0), K::Value(0), K::Imm],
        BitWord::Shf => &[K::Dst, K::Value(0), K::Value(0), K::Shift],
    }
}

/// Types `w` takes (ptxas 11.8's verdicts: `tests/data/bit-ptxas.txt`).
pub(super) const fn types(w: BitWord) -> &'static [T] {
    match w {
        BitWord::Popc | BitWord::Clz | BitWord::Brev | BitWord::Bfi => &[T::B32, T::B64],
        // `not.pred` is the predicate complement (PTX ISA 9.7.10.x).
        BitWord::Not => &[T::B16, T::B32, T::B64, T::Pred],
        BitWord::Cnot => &[T::B16, T::B32, T::B64],
        BitWord::Bfe | BitWord::Bfind => &[T::U32, T::U64, T::S32, T::S64],
        BitWord::Prmt | BitWord::Lop3 | BitWord::Shf | BitWord::Fns | BitWord::Bmsk => &[T::B32],
        BitWord::Testp => &[T::F32, T::F64],
    }
}

/// Every legal list of modifier words for `w` (without dots, in order).
pub(crate) fn word_lists(w: BitWord) -> Vec<Vec<&'static str>> {
    match w {
        BitWord::Prmt => std::iter::once(vec![])
            .chain(PrmtMode::ALL.iter().map(|m| vec![m.name()]))
            .collect(),
        BitWord::Shf => ["l", "r"]
            .iter()
            .flat_map(|d| ["wrap", "clamp"].iter().map(move |m| vec![*d, *m]))
            .collect(),
        BitWord::Bfind => vec![vec![], vec!["shiftamt"]],
        BitWord::Bmsk => vec![vec!["clamp"], vec!["wrap"]],
        BitWord::Testp => TestOp::ALL.iter().map(|t| vec![t.name()]).collect(),
        BitWord::Popc
        | BitWord::Clz
        | BitWord::Brev
        | BitWord::Not
        | BitWord::Cnot
        | BitWord::Bfe
        | BitWord::Bfi
        | BitWord::Fns
        | BitWord::Lop3 => vec![vec![]],
    }
}

/// The operation `w` with modifier words `words` names, if they are legal
/// for it: `prmt` takes at most one mode, `shf` exactly `.l|.r` then
/// `.wrap|.clamp`, the others none. On failure, the index of the first
/// word that does not fit.
pub(crate) fn bit_op(w: BitWord, words: &[&str]) -> Result<BitOp, usize> {
    let none = |op: BitOp| if words.is_empty() { Ok(op) } else { Err(0) };
    match w {
        BitWord::Popc => none(BitOp::Popc),
        BitWord::Clz => none(BitOp::Clz),
        BitWord::Brev => none(BitOp::Brev),
        BitWord::Not => none(BitOp::Not),
        BitWord::Cnot => none(BitOp::Cnot),
        BitWord::Bfe => none(BitOp::Bfe),
        BitWord::Bfi => none(BitOp::Bfi),
        BitWord::Lop3 => none(BitOp::Lop3),
        BitWord::Fns => none(BitOp::Fns),
        BitWord::Bfind => match words {
            [] => Ok(BitOp::Bfind { shiftamt: false }),
            ["shiftamt"] => Ok(BitOp::Bfind { shiftamt: true }),
            [_] => Err(0),
            [_, ..] => Err(1),
        },
        // ptxas: "Clamp modifier required for instruction 'bmsk'", and
        // "Multiple clamp modifiers specified" for two.
        BitWord::Bmsk => match words {
            ["clamp"] => Ok(BitOp::Bmsk { clamp: true }),
            ["wrap"] => Ok(BitOp::Bmsk { clamp: false }),
            [_, ..] | [] => Err(0),
        },
        BitWord::Testp => match words {
            [t] => TestOp::ALL
                .into_iter()
                .find(|x| x.name() == *t)
                .map(BitOp::Testp)
                .ok_or(0),
            [] => Err(0),
            [_, ..] => Err(1),
        },
        BitWord::Prmt => match words {
            [] => Ok(BitOp::Prmt(None)),
            [m] => PrmtMode::ALL
                .into_iter()
                .find(|x| x.name() == *m)
                .map(|x| BitOp::Prmt(Some(x)))
                .ok_or(0),
            [_, ..] => Err(1),
        },
        BitWord::Shf => {
            let left = match words.first() {
                Some(&"l") => true,
                Some(&"r") => false,
                Some(_) | None => return Err(0),
            };
            let clamp = match words.get(1) {
                Some(&"clamp") => true,
                Some(&"wrap") => false,
                Some(_) | None => return Err(1),
            };
            if words.len() > 2 {
                return Err(2);
            }
            Ok(BitOp::Shf { left, clamp })
        }
    }
}

/// Whether `i` is a bit-family instruction with one of the words `ws`.
pub(super) fn is_word(i: &Instruction, ws: &[BitWord]) -> bool {
    let Op::Bit(b) = i.op else {
        return false;
    };
    ws.contains(&b.op.op_word())
}
