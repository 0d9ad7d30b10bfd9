//! The compare families' modifier rules: which comparison operators a
//! family and its types accept (`set`, `setp`, `vset2/4`), and where
//! `.ftz` is legal. The form enumeration (`forms.rs`) and the parser's
//! check (`parse/validate.rs`) both ask here.

use super::Family;
use crate::inst::{CmpOp, Type, TypeKind};

use Type as T;

/// Comparison operators allowed per source type class (errata 13, confirmed
/// with ptxas over every CmpOp x type of `setp`).
fn cmp_ok(kind: TypeKind, c: CmpOp) -> bool {
    use CmpOp::*;
    let ordered = matches!(c, Eq | Ne | Lt | Le | Gt | Ge);
    match kind {
        TypeKind::Bits => matches!(c, Eq | Ne),
        TypeKind::Signed => ordered,
        TypeKind::Unsigned => ordered || matches!(c, Lo | Ls | Hi | Hs),
        TypeKind::Float | TypeKind::BFloat => {
            ordered || matches!(c, Equ | Neu | Ltu | Leu | Gtu | Geu | Num | Nan)
        }
        TypeKind::Pred => false,
    }
}

/// Compares `vset2/4` accept (9.7.18.2.2).
fn vset_cmp_ok(c: CmpOp) -> bool {
    matches!(
        c,
        CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge
    )
}

/// Whether family `fam` with types `tys` (as many as it takes) accepts
/// compare `c`: the source type's class for `set`/`setp` ([`cmp_ok`]),
/// [`vset_cmp_ok`] for `vset2/4`; the others take none (`spec(fam).allow`
/// has no compare for them).
pub(crate) fn family_cmp_ok(fam: Family, tys: &[Type], c: CmpOp) -> bool {
    match (fam, tys) {
        (Family::VideoSet, _) => vset_cmp_ok(c),
        (Family::Set, [_, s]) => cmp_ok(s.kind(), c),
        (Family::Setp, [t]) => cmp_ok(t.kind(), c),
        (Family::Set | Family::Setp, _) => false,
        (
            Family::VideoArith
            | Family::Selp
            | Family::Slct
            | Family::Alu
            | Family::Int
            | Family::Bit
            | Family::Cvt
            | Family::Float,
            _,
        ) => false,
    }
}

/// `.ftz` legality (errata 18; ptxas: `set` accepts it for f32/f16/f16x2
/// sources unless the destination is bf16/bf16x2; `setp` for f32, f16 and
/// f16x2; `slct` for an f32 `c`).
pub(crate) fn ftz_ok(fam: Family, tys: &[Type]) -> bool {
    match (fam, tys) {
        (Family::Set, [d, s]) => {
            matches!(s, T::F32 | T::F16 | T::F16x2) && !matches!(d, T::Bf16 | T::Bf16x2)
        }
        (Family::Setp, [t]) => matches!(t, T::F32 | T::F16 | T::F16x2),
        (Family::Slct, [_, c]) => *c == T::F32,
        (Family::Set | Family::Setp | Family::Slct, _) => false,
        // Per operation (`rcp.f64` takes it): `float_rules`.
        (Family::Float, [_]) => true,
        (Family::Float, _) => false,
        (
            Family::VideoArith
            | Family::VideoSet
            | Family::Selp
            | Family::Alu
            | Family::Int
            | Family::Bit
            | Family::Cvt,
            _,
        ) => false,
    }
}
