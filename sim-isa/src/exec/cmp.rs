//! Comparison lanes: `set`, `setp` (PTX 9.7.6) and half-precision `set`
//! (9.7.7.1), as corrected by ERRATA 13-19, and the comparison table
//! ([`Base`], [`int_cmp_kind`], [`float_cmp_kind`]) that the warp paths
//! (`cmp_warp.rs`, `video_warp.rs`) and `vset` read too.

use super::width_mask;
use crate::inst::{BoolOp, CmpOp, Set, Setp, Type, TypeKind};
use crate::target::Target;

/// Exponent and mantissa field widths of a scalar float format.
pub(super) const fn float_fields(ty: Type) -> Option<(u32, u32)> {
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

/// Declares [`Base`] and its [`BaseTest`] types from one list: each test
/// is a variant and a type of the same meaning.
macro_rules! bases {
    ($($(#[$m:meta])* $v:ident => $t:ident, |$x:ident, $y:ident| $e:expr;)*) => {
        /// The comparison table, shared by the scalar reference and the warp
        /// paths: every operator reads as an ordering test on its operands (or
        /// on keys whose order is theirs), plus, for floats, the result when
        /// unordered. An ordering test.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub(super) enum Base {
            $($(#[$m])* $v),*
        }
        $(
            #[derive(Clone, Copy, Default)]
            pub(super) struct $t;
            impl BaseTest for $t {
                #[inline(always)]
                fn holds<T: PartialOrd>($x: T, $y: T) -> bool {
                    $e
                }
            }
        )*
    };
}
bases! {
    /// `x == y`
    Eq => TestEq, |x, y| x == y;
    /// `x != y`
    Ne => TestNe, |x, y| x != y;
    /// `x < y`
    Lt => TestLt, |x, y| x < y;
    /// `x <= y`
    Le => TestLe, |x, y| x <= y;
    /// `x > y`
    Gt => TestGt, |x, y| x > y;
    /// `x >= y`
    Ge => TestGe, |x, y| x >= y;
    /// Always.
    True => TestTrue, |_x, _y| true;
    /// Never.
    False => TestFalse, |_x, _y| false;
}

/// `lo ls hi hs`: unsigned on every integer type; the rest follow the type.
pub(super) const fn is_unsigned_op(cmp: CmpOp) -> bool {
    matches!(cmp, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs)
}

/// Integer (and `vset`) reading of a comparison operator: the unordered
/// forms act as the ordered ones, `num` is true, `nan` false. `lo ls hi hs`
/// compare unsigned ([`is_unsigned_op`]).
// Always inlined: a call from a vector loop's dispatch spills its registers.
#[inline(always)]
pub(super) const fn int_cmp_kind(cmp: CmpOp) -> Base {
    match cmp {
        CmpOp::Eq | CmpOp::Equ => Base::Eq,
        CmpOp::Ne | CmpOp::Neu => Base::Ne,
        CmpOp::Lt | CmpOp::Ltu | CmpOp::Lo => Base::Lt,
        CmpOp::Le | CmpOp::Leu | CmpOp::Ls => Base::Le,
        CmpOp::Gt | CmpOp::Gtu | CmpOp::Hi => Base::Gt,
        CmpOp::Ge | CmpOp::Geu | CmpOp::Hs => Base::Ge,
        CmpOp::Num => Base::True,
        CmpOp::Nan => Base::False,
    }
}

/// A float comparison as `unordered ? U : base(key_a, key_b)`.
#[inline]
pub(super) const fn float_cmp_kind(cmp: CmpOp) -> (Base, bool) {
    match cmp {
        CmpOp::Eq => (Base::Eq, false),
        CmpOp::Ne => (Base::Ne, false),
        CmpOp::Lt | CmpOp::Lo => (Base::Lt, false),
        CmpOp::Le | CmpOp::Ls => (Base::Le, false),
        CmpOp::Gt | CmpOp::Hi => (Base::Gt, false),
        CmpOp::Ge | CmpOp::Hs => (Base::Ge, false),
        CmpOp::Equ => (Base::Eq, true),
        CmpOp::Neu => (Base::Ne, true),
        CmpOp::Ltu => (Base::Lt, true),
        CmpOp::Leu => (Base::Le, true),
        CmpOp::Gtu => (Base::Gt, true),
        CmpOp::Geu => (Base::Ge, true),
        CmpOp::Num => (Base::True, false),
        CmpOp::Nan => (Base::False, true),
    }
}

/// An ordering test as a type ([`Base`]'s values, one type each), so that
/// a kernel can be compiled for one test and chosen once, by function
/// pointer, when an instruction is prepared ([`with_base_type`] maps the
/// values to the types; [`with_base`] calls through it).
pub(super) trait BaseTest: Copy + Default + 'static {
    /// Whether `x` and `y` pass the test.
    fn holds<T: PartialOrd>(x: T, y: T) -> bool;
}

/// Evaluates `$e` with the type alias `$b` naming `$base`'s [`BaseTest`].
// Exhaustive over `Base`, an arm each (each names its own type): they stay.
macro_rules! with_base_type {
    ($base:expr, $b:ident => $e:expr) => {
        match $base {
            $crate::exec::cmp::Base::Eq => {
                type $b = $crate::exec::cmp::TestEq;
                $e
            }
            $crate::exec::cmp::Base::Ne => {
                type $b = $crate::exec::cmp::TestNe;
                $e
            }
            $crate::exec::cmp::Base::Lt => {
                type $b = $crate::exec::cmp::TestLt;
                $e
            }
            $crate::exec::cmp::Base::Le => {
                type $b = $crate::exec::cmp::TestLe;
                $e
            }
            $crate::exec::cmp::Base::Gt => {
                type $b = $crate::exec::cmp::TestGt;
                $e
            }
            $crate::exec::cmp::Base::Ge => {
                type $b = $crate::exec::cmp::TestGe;
                $e
            }
            $crate::exec::cmp::Base::True => {
                type $b = $crate::exec::cmp::TestTrue;
                $e
            }
            $crate::exec::cmp::Base::False => {
                type $b = $crate::exec::cmp::TestFalse;
                $e
            }
        }
    };
}
pub(super) use with_base_type;

impl Base {
    /// Whether an ordering passes the test (`a.cmp(b)` against `Equal`
    /// orders as `a` against `b`).
    #[inline]
    pub(super) fn holds(self, o: std::cmp::Ordering) -> bool {
        with_base_type!(self, B => B::holds(o, std::cmp::Ordering::Equal))
    }
}

/// Calls `$run` with the test `$base` over keys of type `$t`.
macro_rules! with_base {
    ($base:expr, $t:ty, $run:path, ( $($arg:expr),* )) => {
        $crate::exec::cmp::with_base_type!($base, B => $run(
            <B as $crate::exec::cmp::BaseTest>::holds::<$t>,
            $($arg),*
        ))
    };
}
pub(super) use with_base;

/// `a CmpOp b` for one scalar of type `ty` (raw bits, already at its width;
/// for x2 types pass one 16-bit half). `flush` flushes subnormal float inputs
/// first. Combinations ptxas rejects (errata 13) get their natural meaning
/// so the function is total: on integers the unordered operators act as the
/// ordered ones, `num` is true, `nan` false; on floats `lo ls hi hs` act as
/// `lt le gt ge` (the readings of `int_cmp_kind` and `float_cmp_kind`,
/// which the warp paths use too).
pub fn compare(cmp: CmpOp, ty: Type, a: u64, b: u64, flush: bool) -> bool {
    match ty.kind() {
        TypeKind::Float | TypeKind::BFloat => {
            let (a, b) = if flush {
                (flush_subnormal(ty, a), flush_subnormal(ty, b))
            } else {
                (a, b)
            };
            let (base, unordered) = float_cmp_kind(cmp);
            // None = unordered (a NaN); IEEE makes -0.0 == +0.0.
            to_f64(ty, a)
                .partial_cmp(&to_f64(ty, b))
                .map_or(unordered, |o| base.holds(o))
        }
        kind => {
            let bits = ty.bits();
            let m = width_mask(bits);
            let (ua, ub) = (a & m, b & m);
            let ord = if kind == TypeKind::Signed && !is_unsigned_op(cmp) {
                let sh = 64 - bits;
                (((ua << sh) as i64) >> sh).cmp(&(((ub << sh) as i64) >> sh))
            } else {
                ua.cmp(&ub)
            };
            int_cmp_kind(cmp).holds(ord)
        }
    }
}

/// Whether `ty` packs two 16-bit floats, compared half by half.
pub(super) const fn is_x2(ty: Type) -> bool {
    matches!(ty, Type::F16x2 | Type::Bf16x2)
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
pub(super) fn flushes(ftz: bool, ty: Type, target: Target) -> bool {
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

/// The value `set` writes in each true half when the source is x2: 1.0 in
/// the destination's format for `.f16x2`/`.bf16x2` destinations, 0xFFFF
/// otherwise (errata 17).
pub(super) const fn half_true_value(dtype: Type) -> u16 {
    match dtype {
        Type::F16x2 | Type::Bf16x2 => set_true_value(dtype) as u16,
        _ => 0xFFFF,
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
    if is_x2(s.stype) {
        let half_true = u64::from(half_true_value(s.dtype));
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
    if is_x2(s.ty) {
        let lo = compare(s.cmp, s.ty, a & 0xFFFF, b & 0xFFFF, flush);
        let hi = compare(s.cmp, s.ty, (a >> 16) & 0xFFFF, (b >> 16) & 0xFFFF, flush);
        return (combine(op, lo, c), combine(op, hi, c));
    }
    let t = compare(s.cmp, s.ty, a, b, flush);
    (combine(op, t, c), combine(op, !t, c))
}
