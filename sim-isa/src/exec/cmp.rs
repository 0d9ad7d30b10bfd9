//! Comparison and selection lanes: `set`, `setp`, `selp`, `slct` (PTX 9.7.6)
//! and half-precision `set` (9.7.7.1), as corrected by ERRATA 13-19.

use super::width_mask;
use crate::inst::{BoolOp, CmpOp, Set, Setp, Slct, Type, TypeKind};
use crate::target::Target;

/// Exponent and mantissa field widths of a scalar float format.
const fn float_fields(ty: Type) -> Option<(u32, u32)> {
    match ty {
        Type::F16 | Type::F16x2 => Some((5, 10)),
        Type::Bf16 | Type::Bf16x2 => Some((8, 7)),
        Type::F32 => Some((8, 23)),
        Type::F64 => Some((11, 52)),
        _ => None,
    }
}

/// Flushes a subnormal float (raw bits of `ty`, or of one half for x2 types)
/// to zero of the same sign; anything else, including non-float types, is
/// returned unchanged.
pub fn flush_subnormal(ty: Type, bits: u64) -> u64 {
    let Some((e, m)) = float_fields(ty) else {
        return bits;
    };
    let exp = (bits >> m) & width_mask(e);
    let man = bits & width_mask(m);
    if exp == 0 && man != 0 {
        bits & (1u64 << (e + m))
    } else {
        bits
    }
}

/// A float's value, exactly (every format here widens to f64 without rounding).
fn to_f64(ty: Type, bits: u64) -> f64 {
    match ty {
        Type::F16 | Type::F16x2 => half::f16::from_bits(bits as u16).to_f64(),
        Type::Bf16 | Type::Bf16x2 => half::bf16::from_bits(bits as u16).to_f64(),
        Type::F32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

/// `a CmpOp b` for one scalar of type `ty` (raw bits, already at its width;
/// for x2 types pass one 16-bit half). `flush` flushes subnormal float inputs
/// first. Combinations ptxas rejects (errata 13) get their natural meaning
/// so the function is total: on integers the unordered operators act as the
/// ordered ones, `num` is true, `nan` false; on floats `lo ls hi hs` act as
/// `lt le gt ge`.
pub fn compare(cmp: CmpOp, ty: Type, a: u64, b: u64, flush: bool) -> bool {
    use std::cmp::Ordering::*;
    match ty.kind() {
        TypeKind::Float | TypeKind::BFloat => {
            let (a, b) = if flush {
                (flush_subnormal(ty, a), flush_subnormal(ty, b))
            } else {
                (a, b)
            };
            let (x, y) = (to_f64(ty, a), to_f64(ty, b));
            // None = unordered (a NaN); IEEE makes -0.0 == +0.0.
            let ord = x.partial_cmp(&y);
            let unordered = ord.is_none();
            let ordered = |f: fn(std::cmp::Ordering) -> bool| ord.is_some_and(f);
            match cmp {
                CmpOp::Eq => ordered(|o| o == Equal),
                CmpOp::Ne => ordered(|o| o != Equal),
                CmpOp::Lt | CmpOp::Lo => ordered(|o| o == Less),
                CmpOp::Le | CmpOp::Ls => ordered(|o| o != Greater),
                CmpOp::Gt | CmpOp::Hi => ordered(|o| o == Greater),
                CmpOp::Ge | CmpOp::Hs => ordered(|o| o != Less),
                CmpOp::Equ => unordered || ordered(|o| o == Equal),
                CmpOp::Neu => unordered || ordered(|o| o != Equal),
                CmpOp::Ltu => unordered || ordered(|o| o == Less),
                CmpOp::Leu => unordered || ordered(|o| o != Greater),
                CmpOp::Gtu => unordered || ordered(|o| o == Greater),
                CmpOp::Geu => unordered || ordered(|o| o != Less),
                CmpOp::Num => !unordered,
                CmpOp::Nan => unordered,
            }
        }
        kind => {
            let bits = ty.bits();
            let m = width_mask(bits);
            let (ua, ub) = (a & m, b & m);
            let ord = if kind == TypeKind::Signed {
                let sh = 64 - bits;
                (((ua << sh) as i64) >> sh).cmp(&(((ub << sh) as i64) >> sh))
            } else {
                ua.cmp(&ub)
            };
            let uord = ua.cmp(&ub);
            match cmp {
                CmpOp::Eq | CmpOp::Equ => ord == Equal,
                CmpOp::Ne | CmpOp::Neu => ord != Equal,
                CmpOp::Lt | CmpOp::Ltu => ord == Less,
                CmpOp::Le | CmpOp::Leu => ord != Greater,
                CmpOp::Gt | CmpOp::Gtu => ord == Greater,
                CmpOp::Ge | CmpOp::Geu => ord != Less,
                CmpOp::Lo => uord == Less,
                CmpOp::Ls => uord != Greater,
                CmpOp::Hi => uord == Greater,
                CmpOp::Hs => uord != Less,
                CmpOp::Num => true,
                CmpOp::Nan => false,
            }
        }
    }
}

/// `BoolOp(t, c)`, or `t` when there is no boolean operation.
fn combine(op: Option<BoolOp>, t: bool, c: bool) -> bool {
    match op {
        None => t,
        Some(BoolOp::And) => t && c,
        Some(BoolOp::Or) => t || c,
        Some(BoolOp::Xor) => t ^ c,
    }
}

/// Whether compares of `ty` flush subnormal inputs: `.ftz`, or f32 on sm_1x
/// (errata 14; f64 is never flushed implicitly).
fn flushes(ftz: bool, ty: Type, target: Target) -> bool {
    ftz || (ty == Type::F32 && target.flushes_f32_subnormals())
}

/// The value `set` writes for true, by destination type (errata 17) when the
/// source is scalar: all ones for integer destinations, 1.0 in the
/// destination's float format for float destinations. For x2 destinations this
/// is the per-half value.
pub const fn set_true_value(dtype: Type) -> u64 {
    match dtype {
        Type::F32 => 0x3F80_0000,
        Type::F64 => 0x3FF0_0000_0000_0000,
        Type::F16 | Type::F16x2 => 0x3C00,
        Type::Bf16 | Type::Bf16x2 => 0x3F80,
        _ => width_mask(dtype.bits()),
    }
}

/// One lane of `set`: `a`, `b` are raw source bits at the source width, `c`
/// is the BoolOp predicate with any `!` already applied (ignored without a
/// BoolOp). The result is zero-extended at the destination width.
///
/// x2 sources compare per half and write per half: 1.0 in the destination's
/// format for `.f16x2`/`.bf16x2` destinations, 0xFFFF otherwise (errata 17).
pub fn set_lane(s: &Set, target: Target, a: u64, b: u64, c: bool) -> u64 {
    let op = s.bool_op.map(|(o, _)| o);
    let flush = flushes(s.ftz, s.stype, target);
    if matches!(s.stype, Type::F16x2 | Type::Bf16x2) {
        let half_true = match s.dtype {
            Type::F16x2 | Type::Bf16x2 => set_true_value(s.dtype),
            _ => 0xFFFF,
        };
        let mut d = 0u64;
        for i in 0..2 {
            let sh = 16 * i;
            let t = compare(
                s.cmp,
                s.stype,
                (a >> sh) & 0xFFFF,
                (b >> sh) & 0xFFFF,
                flush,
            );
            if combine(op, t, c) {
                d |= half_true << sh;
            }
        }
        d & width_mask(s.dtype.bits())
    } else if combine(op, compare(s.cmp, s.stype, a, b, flush), c) {
        set_true_value(s.dtype) & width_mask(s.dtype.bits())
    } else {
        0
    }
}

/// One lane of `setp`: `(p, q)` = `(BoolOp(t, c), BoolOp(!t, c))`; `c` has
/// any `!` applied. For `.f16x2`/`.bf16x2` (the half-precision `setp` of PTX
/// 9.7.7.2) each half compares on its own: `p = BoolOp(t[0], c)` from the low
/// halves, `q = BoolOp(t[1], c)` from the high halves.
pub fn setp_lane(s: &Setp, target: Target, a: u64, b: u64, c: bool) -> (bool, bool) {
    let op = s.bool_op.map(|(o, _)| o);
    let flush = flushes(s.ftz, s.ty, target);
    if matches!(s.ty, Type::F16x2 | Type::Bf16x2) {
        let lo = compare(s.cmp, s.ty, a & 0xFFFF, b & 0xFFFF, flush);
        let hi = compare(s.cmp, s.ty, (a >> 16) & 0xFFFF, (b >> 16) & 0xFFFF, flush);
        return (combine(op, lo, c), combine(op, hi, c));
    }
    let t = compare(s.cmp, s.ty, a, b, flush);
    (combine(op, t, c), combine(op, !t, c))
}

/// One lane of `selp`: `c ? a : b`, bits unchanged (errata 16).
pub fn selp_lane(a: u64, b: u64, c: bool) -> u64 {
    if c {
        a
    } else {
        b
    }
}

/// One lane of `slct`: `c >= 0 ? a : b`, bits unchanged (errata 16). An f32
/// `c` of -0.0 selects `a`, NaN selects `b`; with `.ftz` (or on sm_1x) a
/// subnormal `c` is flushed first, so a negative subnormal selects `a`
/// (errata 14, 15).
pub fn slct_lane(s: &Slct, target: Target, a: u64, b: u64, c: u32) -> u64 {
    let take_a = if s.ctype == Type::F32 {
        let c = if flushes(s.ftz, Type::F32, target) {
            flush_subnormal(Type::F32, c.into()) as u32
        } else {
            c
        };
        f32::from_bits(c) >= 0.0
    } else {
        c as i32 >= 0
    };
    let m = width_mask(s.dtype.bits());
    if take_a {
        a & m
    } else {
        b & m
    }
}
