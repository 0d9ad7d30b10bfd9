//! The float arithmetic family's rules (`add sub mul fma min max abs neg
//! div rcp sqrt copysign` over `.f32`/`.f64`, the `.approx`-only `rsqrt ex2
//! lg2 sin cos`, and `add sub mul fma neg abs min max` over `.f16 .f16x2
//! .bf16 .bf16x2`; `ex2.approx` over `.f16 .f16x2` and, with `.ftz`,
//! `.bf16 .bf16x2`; `tanh.approx` over `.f32` and the four half types), as
//! ptxas applies them (`tests/data/
//! float-arith-ptxas.txt` holds ptxas 11.8's verdicts over the f32/f64
//! grid, `tests/data/half-arith-ptxas.txt` ptxas 13.0.88's and 11.8's over
//! the half grid per target), the half forms' target and PTX-version gates,
//! and the routing of an opcode word shared with the integer family to it
//! by the type modifiers.

use super::{Gate, OpKind, OpTag, OpcodeDef};
use crate::inst::float::float_ops;
use crate::inst::{FloatOp, Instruction, Op, Rnd, Type};
use crate::target::Feature;

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
    fl("tanh", FloatOp::Tanh),
    fl("copysign", FloatOp::Copysign),
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
/// (each with its dot) reaches: a float type modifier (`.f32 .f64 .f16
/// .f16x2 .bf16 .bf16x2`) sends a word the float family shares to that
/// family; anything else stays with `def`.
pub(crate) fn route<'m>(
    def: &'static OpcodeDef,
    mut mods: impl Iterator<Item = &'m str>,
) -> &'static OpcodeDef {
    if !mods.any(|m| matches!(m, ".f32" | ".f64" | ".f16" | ".f16x2" | ".bf16" | ".bf16x2")) {
        return def;
    }
    FLOAT_OPCODES
        .iter()
        .find(|d| d.name == def.name)
        .unwrap_or(def)
}

/// Whether `ty` is one of the four half types.
pub(crate) const fn is_half(ty: Type) -> bool {
    matches!(ty, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2)
}

/// Whether `ty` is `.bf16` or `.bf16x2`.
const fn is_bf16(ty: Type) -> bool {
    matches!(ty, Type::Bf16 | Type::Bf16x2)
}

/// Whether `op` has half-precision forms (`add sub mul fma neg abs min
/// max`; the `.approx` half forms, `ex2.approx.f16` and the like, are
/// unimplemented before this check).
pub(crate) const fn half_op(op: FloatOp) -> bool {
    matches!(
        op,
        FloatOp::Add
            | FloatOp::Sub
            | FloatOp::Mul
            | FloatOp::Fma
            | FloatOp::Neg
            | FloatOp::Abs
            | FloatOp::Min
            | FloatOp::Max
    )
}

/// Whether the type list is legal: one of `.f32`, `.f64` (`.f32` alone for
/// `lg2 sin cos`, `.f32` or a half type for `ex2` and `tanh`), or a half
/// type for [`half_op`]s.
pub(crate) fn types_ok(op: FloatOp, tys: &[Type]) -> bool {
    match (op, tys) {
        (FloatOp::Ex2 | FloatOp::Tanh, [t]) => *t == Type::F32 || is_half(*t),
        (FloatOp::Lg2 | FloatOp::Sin | FloatOp::Cos, [t]) => *t == Type::F32,
        (_, [Type::F32 | Type::F64]) => true,
        (_, [t]) => is_half(*t) && half_op(op),
        _ => false,
    }
}

/// Whether the rounding `r` is legal on `ty` (after [`rnd_ok`]): every
/// mode on `.f32`/`.f64`; on the half types `.rn` alone, and `.rz` on the
/// bf16 `fma` (ptxas 13.0.88 accepts `fma.rz.bf16`, which the PTX ISA does
/// not list; simcli refuses it as unimplemented: ptxas 13.0.88 and 11.8
/// compile it as an f16 operation, the sources read as f16 by `HADD2.F32`,
/// an f32 `FFMA.RZ`, the result written as f16 by `F2FP.F16.F32`).
pub(crate) fn rnd_type_ok(op: FloatOp, ty: Type, r: Rnd) -> bool {
    !is_half(ty) || r == Rnd::Rn || (r == Rnd::Rz && op == FloatOp::Fma && is_bf16(ty))
}

/// Whether `op` takes a rounding modifier (`add sub mul` optionally, `fma
/// div rcp sqrt` always: [`rnd_required`]).
pub(crate) const fn rnd_ok(op: FloatOp) -> bool {
    // Exhaustive by group, no wildcard (a new operation must be placed).
    match op {
        float_ops!(rounded) => true,
        float_ops!(approx) | float_ops!(exact) => false,
    }
}

/// Whether `op` needs a rounding modifier (`div rcp sqrt` take `.approx`
/// or `.full` instead on `.f32`; `rsqrt ex2 lg2 sin cos tanh` need
/// `.approx`).
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

/// Whether `.sat` is legal (`.f32`, `.f16` and `.f16x2` add/sub/mul/fma).
pub(crate) fn sat_ok(op: FloatOp, ty: Type) -> bool {
    matches!(ty, Type::F32 | Type::F16 | Type::F16x2)
        && matches!(
            op,
            FloatOp::Add | FloatOp::Sub | FloatOp::Mul | FloatOp::Fma
        )
}

/// Whether `.approx` (or, for `div`, `.full`) is legal: `div/rcp/sqrt.f32`,
/// and `rcp.approx.ftz.f64` (ptxas 11.8's grid); `rsqrt ex2 lg2 sin cos`
/// on `.f32`, and `rsqrt.approx{.ftz}.f64` (PTX ISA 9.7.3.18); `ex2.approx`
/// on the half types (`.ftz` there is [`ftz_ok`]'s and [`ftz_required`]'s);
/// `tanh.approx` on `.f32` and the half types (ptxas 13.0.88: `tests/data/
/// tanh-ptxas.txt`).
pub(crate) fn approx_ok(op: FloatOp, ty: Type, full: bool, ftz: bool) -> bool {
    match (op, ty) {
        (FloatOp::Ex2 | FloatOp::Tanh, _) if is_half(ty) => !full,
        (FloatOp::Tanh, Type::F32) => !full,
        (FloatOp::Div, Type::F32) => true,
        (FloatOp::Rcp | FloatOp::Sqrt, Type::F32) => !full,
        (FloatOp::Rcp, Type::F64) => !full && ftz,
        (FloatOp::Rsqrt, Type::F32 | Type::F64) => !full,
        (FloatOp::Ex2 | FloatOp::Lg2 | FloatOp::Sin | FloatOp::Cos, Type::F32) => !full,
        _ => false,
    }
}

/// Whether simcli runs an `.approx`/`.full` form: every one on `.f32`
/// (`float/mufu.rs`) and `ex2.approx` on the half types (`MUFU.EX2.F16` /
/// `.BF16`, the same file) and `tanh.approx` on them (`float/tanh.rs`);
/// `rcp.approx.ftz.f64` and `rsqrt.approx{.ftz}.f64` as `MUFU.RCP64H` /
/// `MUFU.RSQ64H` (models of their high words) and the code ptxas puts
/// around them (`exec/float/approx64.rs`).
pub(crate) fn approx_implemented(op: FloatOp, ty: Type) -> bool {
    ty == Type::F32
        || (matches!(op, FloatOp::Ex2 | FloatOp::Tanh) && is_half(ty))
        || (matches!(op, FloatOp::Rcp | FloatOp::Rsqrt) && ty == Type::F64)
}

/// Whether `.ftz` is legal: `.f32` (not `copysign`), `rcp`/`rsqrt.f64`,
/// and `.f16`/`.f16x2` (never bf16), but `ex2` takes it on bf16 and not
/// on f16 (ptxas 13.0.88: "Illegal modifier '.ftz' for instruction 'ex2'"
/// on `ex2.approx.ftz.f16`); `tanh` takes it on no type ("Illegal modifier
/// '.ftz' for instruction 'tanh'", `tests/data/tanh-ptxas.txt`).
pub(crate) fn ftz_ok(op: FloatOp, ty: Type) -> bool {
    match ty {
        _ if op == FloatOp::Tanh => false,
        _ if op == FloatOp::Ex2 && is_half(ty) => is_bf16(ty),
        Type::F32 | Type::F16 | Type::F16x2 => op != FloatOp::Copysign,
        _ => matches!(op, FloatOp::Rcp | FloatOp::Rsqrt) && ty == Type::F64,
    }
}

/// Whether `.ftz` is required: `ex2.approx.bf16/.bf16x2` (ptxas 13.0.88:
/// ".ftz modifier required for instruction 'ex2.bf16'"). It changes
/// nothing the unit would not do: `MUFU.EX2` reads a subnormal source as
/// zero and writes no subnormal (`exec/float/mufu.rs`).
pub(crate) fn ftz_required(op: FloatOp, ty: Type) -> bool {
    op == FloatOp::Ex2 && is_bf16(ty)
}

/// Whether `.relu` is legal: `fma` on the half types, without `.sat`
/// (ptxas 13.0.88: `tests/data/half-arith-ptxas.txt`).
pub(crate) fn relu_ok(op: FloatOp, ty: Type, sat: bool) -> bool {
    op == FloatOp::Fma && is_half(ty) && !sat
}

/// Whether `.NaN` is legal (`min`/`max` on `.f32` and the half types).
pub(crate) fn nan_ok(op: FloatOp, ty: Type) -> bool {
    (ty == Type::F32 || is_half(ty)) && matches!(op, FloatOp::Min | FloatOp::Max)
}

/// Whether simcli runs the form: every rounding on `.f32`; on `.f64`,
/// every rounding for `add`/`sub` and round to nearest for the others (the
/// remaining directed `.f64` forms, and `rcp.ftz.f64`, are valid PTX it
/// does not run). The half forms run in round to nearest (`fma.rz.bf16`
/// does not: [`rnd_type_ok`]).
pub(crate) fn implemented(op: FloatOp, ty: Type, rnd: Option<Rnd>, ftz: bool) -> bool {
    let directed_ok = matches!(op, FloatOp::Add | FloatOp::Sub);
    let rn = matches!(rnd, None | Some(Rnd::Rn));
    !op.approx_only()
        && match ty {
            Type::F32 => true,
            Type::F64 => !ftz && (directed_ok || rn),
            _ => rn,
        }
}

/// `.ftz` or `.sat`-free forms' type: the half forms whose ops `f` picks.
fn half_where(i: &Instruction, f: fn(FloatOp, Type) -> bool) -> bool {
    matches!(i.op, Op::Float(x) if is_half(x.ty) && f(x.op, x.ty))
}

/// The half forms' gates, as ptxas decides them (`tests/data/
/// half-arith-ptxas.txt`: the target from ptxas 11.8 on sm_53 and 13.0.88
/// on sm_80/sm_90; the lowest `.version` from ptxas 11.8 on the lowest
/// target that accepts each form, which agrees with the PTX ISA's notes;
/// `ex2.approx`'s from ptxas 13.0.88 on sm_75, sm_80 and sm_90: `tests/
/// data/ex2-half-ptxas.txt`; `tanh.approx`'s from ptxas 13.0.88 on sm_75,
/// sm_80 and sm_90 and 11.8 on sm_70: `tests/data/tanh-ptxas.txt`), and
/// `copysign`'s (PTX ISA 4.2, every target).
pub(crate) const HALF_GATES: &[Gate] = &[
    Gate {
        what: "add/sub/mul/fma.f16",
        feature: Some(Feature::F16Arith),
        ptx: (4, 2),
        on: &[OpTag::Float],
        applies: |i| {
            half_where(i, |op, t| {
                !is_bf16(t)
                    && matches!(
                        op,
                        FloatOp::Add | FloatOp::Sub | FloatOp::Mul | FloatOp::Fma
                    )
            })
        },
    },
    Gate {
        what: "neg.f16",
        feature: Some(Feature::F16Arith),
        ptx: (6, 0),
        on: &[OpTag::Float],
        applies: |i| half_where(i, |op, t| !is_bf16(t) && op == FloatOp::Neg),
    },
    Gate {
        what: "abs.f16",
        feature: Some(Feature::F16Arith),
        ptx: (6, 5),
        on: &[OpTag::Float],
        applies: |i| half_where(i, |op, t| !is_bf16(t) && op == FloatOp::Abs),
    },
    Gate {
        what: "min/max.f16/.bf16",
        feature: Some(Feature::HalfMinMax),
        ptx: (7, 0),
        on: &[OpTag::Float],
        applies: |i| half_where(i, |op, _| matches!(op, FloatOp::Min | FloatOp::Max)),
    },
    Gate {
        what: "fma.relu",
        feature: Some(Feature::HalfMinMax),
        ptx: (7, 0),
        on: &[OpTag::Float],
        applies: |i| matches!(i.op, Op::Float(x) if x.relu),
    },
    Gate {
        what: "fma/neg/abs.bf16",
        feature: Some(Feature::HalfMinMax),
        ptx: (7, 0),
        on: &[OpTag::Float],
        applies: |i| {
            half_where(i, |op, t| {
                is_bf16(t) && matches!(op, FloatOp::Fma | FloatOp::Neg | FloatOp::Abs)
            })
        },
    },
    Gate {
        what: "add/sub/mul.bf16",
        feature: Some(Feature::Bf16),
        ptx: (7, 8),
        on: &[OpTag::Float],
        applies: |i| {
            half_where(i, |op, t| {
                is_bf16(t) && matches!(op, FloatOp::Add | FloatOp::Sub | FloatOp::Mul)
            })
        },
    },
    Gate {
        what: "ex2.approx.f16/.f16x2",
        feature: Some(Feature::HalfMufu),
        ptx: (7, 0),
        on: &[OpTag::Float],
        applies: |i| half_where(i, |op, t| !is_bf16(t) && op == FloatOp::Ex2),
    },
    Gate {
        what: "ex2.approx.ftz.bf16/.bf16x2",
        feature: Some(Feature::Bf16),
        ptx: (7, 8),
        on: &[OpTag::Float],
        applies: |i| half_where(i, |op, t| is_bf16(t) && op == FloatOp::Ex2),
    },
    Gate {
        what: "tanh.approx.f32/.f16/.f16x2",
        feature: Some(Feature::Tanh),
        ptx: (7, 0),
        on: &[OpTag::Float],
        applies: |i| matches!(i.op, Op::Float(x) if x.op == FloatOp::Tanh && !is_bf16(x.ty)),
    },
    Gate {
        what: "tanh.approx.bf16/.bf16x2",
        feature: Some(Feature::Bf16),
        ptx: (7, 8),
        on: &[OpTag::Float],
        applies: |i| half_where(i, |op, t| is_bf16(t) && op == FloatOp::Tanh),
    },
    Gate {
        what: "copysign",
        feature: None,
        ptx: (4, 2),
        on: &[OpTag::Float],
        applies: |i| matches!(i.op, Op::Float(x) if x.op == FloatOp::Copysign),
    },
];

/// The word of a rounding modifier (without its dot).
pub(crate) fn rnd_from_name(w: &str) -> Option<Rnd> {
    Rnd::ALL.into_iter().find(|r| r.name() == w)
}
