//! The float arithmetic family's rules (`add sub mul fma min max abs neg
//! div rcp sqrt` over `.f32`/`.f64`, and the `.approx`-only `rsqrt ex2 lg2
//! sin cos`), as ptxas 11.8 applies them (`tests/data/
//! float-arith-ptxas.txt` holds its verdicts over the whole grid), and the
//! routing of an opcode word shared with the integer family to it by the
//! type modifiers.

use super::{OpKind, OpcodeDef};
use crate::inst::{FloatOp, Rnd, Type};

/// The float family's opcode words. `add sub mul min max abs neg` also
/// name integer forms: [`route`] picks this table by the type modifier.
pub(crate) const FLOAT_OPCODES: &[OpcodeDef] = &[
    fl("add", FloatOp::Add),
    fl("sub", FloatOp::Sub),
    fl("mul", FloatOp::Mul),
    fl("fma", FloatOp::Fma),
    // `mad.rnd{.ftz}{.sat}.f32` / `mad.rnd.f64`: on sm_20 and later the PTX
    // ISA defines it as `fma` with the same modifiers (ptxas 13.0 requires
    // the rounding, as for fma, and emits the same FFMA/DFMA); it decodes to
    // `fma` and prints as such.
    fl("mad", FloatOp::Fma),
    fl("min", FloatOp::Min),
    fl("max", FloatOp::Max),
    fl("abs", FloatOp::Abs),
    fl("neg", FloatOp::Neg),
    fl("div", FloatOp::Div),
    fl("rcp", FloatOp::Rcp),
    fl("sqrt", FloatOp::Sqrt),
    fl("rsqrt", FloatOp::Rsqrt),
    fl("ex2", FloatOp::Ex2),
    fl("lg2", FloatOp::Lg2),
    fl("sin", FloatOp::Sin),
    fl("cos", FloatOp::Cos),
];

/// Whether `def` is a second word for an operation (`mad` for `fma`).
pub(crate) fn is_alias(def: &OpcodeDef) -> bool {
    def.name == "mad" && matches!(def.kind, OpKind::Float(FloatOp::Fma))
}

const fn fl(name: &'static str, op: FloatOp) -> OpcodeDef {
    OpcodeDef {
        name,
        kind: OpKind::Float(op),
    }
}

/// The definition a statement with opcode word `def` and modifiers `mods`
/// (each with its dot) reaches: a `.f32`/`.f64` type modifier sends a word
/// the float family shares to that family; anything else stays with `def`.
pub(crate) fn route<'m>(
    def: &'static OpcodeDef,
    mut mods: impl Iterator<Item = &'m str>,
) -> &'static OpcodeDef {
    if !mods.any(|m| matches!(m, ".f32" | ".f64")) {
        return def;
    }
    FLOAT_OPCODES
        .iter()
        .find(|d| d.name == def.name)
        .unwrap_or(def)
}

/// Whether the type list is legal: one of `.f32`, `.f64` (`.f32` alone for
/// `ex2 lg2 sin cos`; their half-precision forms are unimplemented before
/// this check).
pub(crate) fn types_ok(op: FloatOp, tys: &[Type]) -> bool {
    match op {
        FloatOp::Ex2 | FloatOp::Lg2 | FloatOp::Sin | FloatOp::Cos => matches!(tys, [Type::F32]),
        _ => matches!(tys, [Type::F32 | Type::F64]),
    }
}

/// Whether `op` takes a rounding modifier (`add sub mul` optionally, `fma
/// div rcp sqrt` always: [`rnd_required`]).
pub(crate) const fn rnd_ok(op: FloatOp) -> bool {
    match op {
        FloatOp::Add
        | FloatOp::Sub
        | FloatOp::Mul
        | FloatOp::Fma
        | FloatOp::Div
        | FloatOp::Rcp
        | FloatOp::Sqrt => true,
        FloatOp::Min
        | FloatOp::Max
        | FloatOp::Abs
        | FloatOp::Neg
        | FloatOp::Rsqrt
        | FloatOp::Ex2
        | FloatOp::Lg2
        | FloatOp::Sin
        | FloatOp::Cos => false,
    }
}

/// Whether `op` needs a rounding modifier (`div rcp sqrt` take `.approx`
/// or `.full` instead on `.f32`; `rsqrt ex2 lg2 sin cos` need `.approx`).
pub(crate) const fn rnd_required(op: FloatOp) -> bool {
    matches!(
        op,
        FloatOp::Fma | FloatOp::Div | FloatOp::Rcp | FloatOp::Sqrt
    ) || op.approx_only()
}

/// Whether a missing rounding modifier may be `.approx` instead (the
/// `div rcp sqrt` `.f32` forms and the `.approx`-only operations).
pub(crate) fn approx_instead(op: FloatOp, ty: Type) -> bool {
    op.approx_only() || ty == Type::F32 && matches!(op, FloatOp::Div | FloatOp::Rcp | FloatOp::Sqrt)
}

/// Whether `.sat` is legal (`.f32` add/sub/mul/fma).
pub(crate) fn sat_ok(op: FloatOp, ty: Type) -> bool {
    ty == Type::F32
        && matches!(
            op,
            FloatOp::Add | FloatOp::Sub | FloatOp::Mul | FloatOp::Fma
        )
}

/// Whether `.approx` (or, for `div`, `.full`) is legal: `div/rcp/sqrt.f32`,
/// and `rcp.approx.ftz.f64` (ptxas 11.8's grid); `rsqrt ex2 lg2 sin cos`
/// on `.f32`, and `rsqrt.approx{.ftz}.f64` (PTX ISA 9.7.3.18).
pub(crate) fn approx_ok(op: FloatOp, ty: Type, full: bool, ftz: bool) -> bool {
    match (op, ty) {
        (FloatOp::Div, Type::F32) => true,
        (FloatOp::Rcp | FloatOp::Sqrt, Type::F32) => !full,
        (FloatOp::Rcp, Type::F64) => !full && ftz,
        (FloatOp::Rsqrt, Type::F32 | Type::F64) => !full,
        (FloatOp::Ex2 | FloatOp::Lg2 | FloatOp::Sin | FloatOp::Cos, Type::F32) => !full,
        _ => false,
    }
}

/// Whether simcli runs an `.approx`/`.full` form: every one on `.f32`
/// (`float/mufu.rs`); `rcp.approx.ftz.f64` and `rsqrt.approx.f64` are
/// valid PTX it does not run.
pub(crate) fn approx_implemented(ty: Type) -> bool {
    ty == Type::F32
}

/// Whether `.ftz` is legal: `.f32`, and `rcp`/`rsqrt.f64`.
pub(crate) fn ftz_ok(op: FloatOp, ty: Type) -> bool {
    ty == Type::F32 || matches!(op, FloatOp::Rcp | FloatOp::Rsqrt)
}

/// Whether `.NaN` is legal (`min`/`max.f32`).
pub(crate) fn nan_ok(op: FloatOp, ty: Type) -> bool {
    ty == Type::F32 && matches!(op, FloatOp::Min | FloatOp::Max)
}

/// Whether simcli runs the form: every rounding on `.f32`; on `.f64`,
/// every rounding for `add`/`sub` and round to nearest for the others (the
/// remaining directed `.f64` forms, and `rcp.ftz.f64`, are valid PTX it
/// does not run).
pub(crate) fn implemented(op: FloatOp, ty: Type, rnd: Option<Rnd>, ftz: bool) -> bool {
    let directed_ok = matches!(op, FloatOp::Add | FloatOp::Sub);
    !op.approx_only()
        && (ty == Type::F32 || (!ftz && (directed_ok || matches!(rnd, None | Some(Rnd::Rn)))))
}

/// The word of a rounding modifier (without its dot).
pub(crate) fn rnd_from_name(w: &str) -> Option<Rnd> {
    Rnd::ALL.into_iter().find(|r| r.name() == w)
}
