//! Acceptance 4 for `set`, `setp`, `selp` and `slct` (the video half and
//! the shared helpers are in `enumerate.rs`): every legal variant parses to
//! the fields its text names, prints back, passes `check_target` where it
//! should and executes; the illegal neighbours are rejected as
//! `ErrorKind::Invalid`. Nothing here reads sim-isa's own tables (but for
//! `Type::ALL`, to find the type each name of `tests/data/set-core-types.txt`
//! names).

use super::enumerate::{expect_invalid, roundtrip, Failures, Rng};
use super::model;
use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::{
    BoolOp, CmpOp, IsaError, Op, Operand, PredSrc, PtxVersion, Requirement, Symbols, Target, Type,
    WARP_SIZE,
};
use std::sync::LazyLock;
// ------------------------------------------------------------ set / setp / selp / slct

/// The eleven types of the 9.7.6 syntax blocks, as the manual lists them
/// (`tests/data/set-core-types.txt`), not sliced from `Type::ALL`: each
/// name is only looked up among the types.
pub static CORE_TYPES: LazyLock<Vec<Type>> = LazyLock::new(|| {
    let types: Vec<Type> = include_str!("../data/set-core-types.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|name| {
            let named = Type::ALL.into_iter().find(|t| t.name() == name);
            named.unwrap_or_else(|| panic!("no type {name}"))
        })
        .collect();
    assert_eq!(types.len(), 11, "{types:?}");
    types
});

/// Every (dtype, stype) pair `set` accepts: 9.7.6.1 (u32/s32/f32 from the
/// eleven core types), 9.7.7.1 (f16 from core + f16; bf16 from core + f16
/// and, ERRATA 18, bf16; u16/s16/u32/s32 from f16 and bf16; u32/s32 and
/// the matching x2 type from f16x2 / bf16x2). 72 pairs, as ptxas 11.8 says.
pub fn set_pairs() -> Vec<(Type, Type)> {
    let mut v = Vec::new();
    for d in [Type::U32, Type::S32, Type::F32] {
        for &s in CORE_TYPES.iter() {
            v.push((d, s));
        }
    }
    for s in CORE_TYPES.iter().copied().chain([Type::F16]) {
        v.push((Type::F16, s));
    }
    for s in CORE_TYPES.iter().copied().chain([Type::F16, Type::Bf16]) {
        v.push((Type::Bf16, s));
    }
    for d in [Type::U16, Type::S16, Type::U32, Type::S32] {
        v.push((d, Type::F16));
        v.push((d, Type::Bf16));
    }
    for d in [Type::U32, Type::S32, Type::F16x2] {
        v.push((d, Type::F16x2));
    }
    for d in [Type::U32, Type::S32, Type::Bf16x2] {
        v.push((d, Type::Bf16x2));
    }
    v
}

fn is_float(t: Type) -> bool {
    matches!(
        t,
        Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2 | Type::F32 | Type::F64
    )
}

/// Compares legal on a source type (ERRATA 13).
pub fn cmps_for(stype: Type) -> Vec<CmpOp> {
    use CmpOp::*;
    let name = stype.name();
    if is_float(stype) {
        vec![
            Eq, Ne, Lt, Le, Gt, Ge, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan,
        ]
    } else if name.starts_with('b') {
        vec![Eq, Ne]
    } else if name.starts_with('u') {
        vec![Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs]
    } else {
        vec![Eq, Ne, Lt, Le, Gt, Ge]
    }
}

/// `.ftz` is legal when the compared values are f32/f16/f16x2 and the
/// destination is not bf16 (ERRATA 18; ptxas rejects `set.lt.ftz.bf16.f32`).
pub fn set_ftz_ok(dtype: Type, stype: Type) -> bool {
    matches!(stype, Type::F32 | Type::F16 | Type::F16x2) && dtype != Type::Bf16
}

/// Any bf16 operand: ptxas 11.8 then refuses an immediate BoolOp `c`
/// ("Arguments mismatch for instruction 'set'").
fn is_bf16_form(d: Type, s: Type) -> bool {
    [d, s]
        .iter()
        .any(|t| matches!(t, Type::Bf16 | Type::Bf16x2))
}

/// Lowest target for a `set` pair (ERRATA 19; f64 from 9.7.6.1).
fn set_min_sm(d: Type, s: Type) -> u32 {
    let any = |f: &dyn Fn(Type) -> bool| f(d) || f(s);
    if any(&|t| matches!(t, Type::Bf16 | Type::Bf16x2)) {
        90
    } else if any(&|t| matches!(t, Type::F16 | Type::F16x2)) {
        53
    } else if s == Type::F64 {
        13
    } else {
        10
    }
}

/// Lowest PTX ISA version for a `set` pair (9.7.7.1 PTX ISA Notes, ERRATA 19).
fn set_min_ptx(d: Type, s: Type) -> PtxVersion {
    let any = |f: &dyn Fn(Type) -> bool| f(d) || f(s);
    if any(&|t| matches!(t, Type::Bf16 | Type::Bf16x2)) {
        PtxVersion::new(7, 8)
    } else if matches!(s, Type::F16 | Type::F16x2)
        && matches!(d, Type::U16 | Type::S16 | Type::U32 | Type::S32)
    {
        PtxVersion::new(6, 5)
    } else if any(&|t| matches!(t, Type::F16 | Type::F16x2)) {
        PtxVersion::new(4, 2)
    } else {
        PtxVersion::new(1, 0)
    }
}

/// The BoolOp tails exercised: none, and each op with `%c`, `!%c`, `1`, `!0`.
const BOOL_TAILS: [(Option<BoolOp>, &str); 13] = [
    (None, ""),
    (Some(BoolOp::And), ", %c"),
    (Some(BoolOp::Or), ", %c"),
    (Some(BoolOp::Xor), ", %c"),
    (Some(BoolOp::And), ", !%c"),
    (Some(BoolOp::Or), ", !%c"),
    (Some(BoolOp::Xor), ", !%c"),
    (Some(BoolOp::And), ", 1"),
    (Some(BoolOp::Or), ", 0"),
    (Some(BoolOp::Xor), ", 1"),
    (Some(BoolOp::And), ", !0"),
    (Some(BoolOp::Or), ", !1"),
    (Some(BoolOp::Xor), ", !0"),
];

fn pred_tail(tail: &str, syms: &Symbols) -> Option<PredSrc> {
    let t = tail.trim_start_matches(", ");
    match t {
        "" => None,
        "1" => Some(PredSrc::Imm(true)),
        "0" => Some(PredSrc::Imm(false)),
        "!1" => Some(PredSrc::Imm(false)),
        "!0" => Some(PredSrc::Imm(true)),
        "%c" => Some(PredSrc::Reg {
            reg: syms.get("%c")?,
            negate: false,
        }),
        "!%c" => Some(PredSrc::Reg {
            reg: syms.get("%c")?,
            negate: true,
        }),
        _ => None,
    }
}

/// Whether `set`'s decoded predicate source is right for the text. `!1`
/// may be stored as `Imm(false)` or kept negated in a register-free form;
/// only the truth value of an immediate is compared.
fn pred_matches(
    got: Option<(BoolOp, PredSrc)>,
    op: Option<BoolOp>,
    tail: &str,
    syms: &Symbols,
) -> bool {
    match (got, op, pred_tail(tail, syms)) {
        (None, None, None) => true,
        (Some((g, gs)), Some(o), Some(ws)) => g == o && gs == ws,
        _ => false,
    }
}

#[test]
fn set_pair_count_matches_ptxas() {
    let pairs = set_pairs();
    assert_eq!(pairs.len(), 72);
    let mut dedup = pairs.clone();
    dedup.sort_by_key(|(d, s)| (d.name(), s.name()));
    dedup.dedup();
    assert_eq!(dedup.len(), 72);
}

#[test]
fn every_legal_set_variant() {
    let mut fails = Failures::default();
    let mut model_fails = Failures::default();
    let mut rng = Rng(4);
    let mut total = 0;
    for (d, s) in set_pairs() {
        for cmp in cmps_for(s) {
            for ftz in [false, true] {
                if ftz && !set_ftz_ok(d, s) {
                    continue;
                }
                for (bop, tail) in BOOL_TAILS {
                    if is_bf16_form(d, s) && !tail.contains('%') {
                        continue;
                    }
                    let f = if ftz { ".ftz" } else { "" };
                    let b = bop.map(|b| format!(".{}", b.name())).unwrap_or_default();
                    let text = format!(
                        "set.{}{b}{f}.{}.{} %d, %a, %b{tail};",
                        cmp.name(),
                        d.name(),
                        s.name()
                    );
                    total += 1;
                    let Some((inst, syms, before, after)) = roundtrip(&text, &mut fails, &mut rng)
                    else {
                        continue;
                    };
                    let Op::Set(got) = inst.op else {
                        fails.push(format!("`{text}`: decoded as {:?}", inst.op));
                        continue;
                    };
                    if got.cmp != cmp
                        || got.ftz != ftz
                        || got.dtype != d
                        || got.stype != s
                        || !pred_matches(got.bool_op, bop, tail, &syms)
                    {
                        fails.push(format!("`{text}`: decoded {got:?}"));
                        continue;
                    }
                    let id = |n: &str| syms.get(n).unwrap();
                    for lane in 0..WARP_SIZE {
                        let (a, bv) = (before.lane(id("%a"), lane), before.lane(id("%b"), lane));
                        let c = match got.bool_op {
                            Some((_, PredSrc::Reg { reg, negate })) => {
                                (before.lane(reg, lane) & 1 == 1) ^ negate
                            }
                            Some((_, PredSrc::Imm(v))) => v,
                            None => false,
                        };
                        let want = model::set(&got, a, bv, c, Target::SM_90);
                        let dv = after.lane(id("%d"), lane);
                        if dv != want {
                            model_fails.push(format!(
                                "`{text}` a={a:#x} b={bv:#x} c={c}: got {dv:#x}, model {want:#x}"
                            ));
                            break;
                        }
                    }
                }
            }
        }
    }
    fails.finish("set variants (parse/print/check/execute)", total);
    model_fails.finish("set variants vs model", total);
}

#[test]
fn set_target_and_version_gates() {
    let mut fails = Failures::default();
    let pairs = set_pairs();
    for &(d, s) in &pairs {
        let text = format!("set.eq.{}.{} %d, %a, %b;", d.name(), s.name());
        let mut syms = Symbols::new();
        let Ok(inst) = parse_instruction(&text, &mut syms) else {
            fails.push(format!("`{text}` rejected"));
            continue;
        };
        let sm = set_min_sm(d, s);
        if let Err(e) = check_target(&inst, Target { sm, suffix: None }, None) {
            fails.push(format!("`{text}` on sm_{sm}: {e}"));
        }
        if sm > 10 {
            let below = Target {
                sm: sm - 1,
                suffix: None,
            };
            match check_target(&inst, below, None) {
                Err(IsaError::Unsupported {
                    need: Requirement::Sm(n),
                    ..
                }) if n == sm => {}
                other => fails.push(format!(
                    "`{text}` on {below}: want Unsupported(sm_{sm}), got {other:?}"
                )),
            }
        }
        let v = set_min_ptx(d, s);
        if let Err(e) = check_target(&inst, Target::SM_90, Some(v)) {
            fails.push(format!("`{text}` with PTX {v}: {e}"));
        }
        if v > PtxVersion::new(1, 0) {
            let old = PtxVersion::new(v.major, v.minor - 1);
            match check_target(&inst, Target::SM_90, Some(old)) {
                Err(IsaError::Unsupported {
                    need: Requirement::Ptx(n),
                    ..
                }) if n == v => {}
                other => fails.push(format!(
                    "`{text}` with PTX {old}: want Unsupported(PTX {v}), got {other:?}"
                )),
            }
        }
    }
    // Video: sm_30 and PTX 3.0.
    for text in [
        "vadd2.u32.u32.u32 %d, %a, %b, %c;",
        "vset4.s32.u32.lt %d, %a, %b, %c;",
    ] {
        let mut syms = Symbols::new();
        let inst = parse_instruction(text, &mut syms).expect(text);
        match check_target(
            &inst,
            Target {
                sm: 21,
                suffix: None,
            },
            None,
        ) {
            Err(IsaError::Unsupported {
                need: Requirement::Sm(30),
                ..
            }) => {}
            other => fails.push(format!("`{text}` on sm_21: {other:?}")),
        }
        match check_target(&inst, Target::SM_30, Some(PtxVersion::new(2, 3))) {
            Err(IsaError::Unsupported {
                need: Requirement::Ptx(v),
                ..
            }) if v == PtxVersion::new(3, 0) => {}
            other => fails.push(format!("`{text}` with PTX 2.3: {other:?}")),
        }
    }
    // f64 compares/selects: sm_13.
    for text in [
        "setp.lt.f64 %p, %a, %b;",
        "selp.f64 %d, %a, %b, %p;",
        "slct.f64.s32 %d, %a, %b, %c;",
    ] {
        let mut syms = Symbols::new();
        let inst = parse_instruction(text, &mut syms).expect(text);
        if let Err(e) = check_target(&inst, Target::SM_13, None) {
            fails.push(format!("`{text}` on sm_13: {e}"));
        }
        match check_target(
            &inst,
            Target {
                sm: 12,
                suffix: None,
            },
            None,
        ) {
            Err(IsaError::Unsupported {
                need: Requirement::Sm(13),
                ..
            }) => {}
            other => fails.push(format!("`{text}` on sm_12: {other:?}")),
        }
    }
    // Suffixed targets have their base's capabilities.
    let mut syms = Symbols::new();
    let inst = parse_instruction("set.eq.u32.bf16x2 %d, %a, %b;", &mut syms).unwrap();
    if let Err(e) = check_target(&inst, Target::parse("sm_90a").unwrap(), None) {
        fails.push(format!("bf16 on sm_90a: {e}"));
    }
    fails.finish("target/version gates", pairs.len() + 6);
}

#[test]
fn illegal_set_neighbours() {
    let mut fails = Failures::default();
    let pairs = set_pairs();
    let all: Vec<Type> = Type::ALL.into_iter().collect();
    let mut texts = Vec::new();
    // Every other dtype/stype pair (e.g. `set.lt.f16.bf16`, `set.lt.s16.u16`, ERRATA 18).
    for &d in &all {
        for &s in &all {
            if !pairs.contains(&(d, s)) {
                texts.push(format!("set.eq.{}.{} %d, %a, %b;", d.name(), s.name()));
            }
        }
    }
    for &(d, s) in &pairs {
        let ok = cmps_for(s);
        // ERRATA 13: compares outside the source class.
        for c in CmpOp::ALL {
            if !ok.contains(&c) {
                texts.push(format!(
                    "set.{}.{}.{} %d, %a, %b;",
                    c.name(),
                    d.name(),
                    s.name()
                ));
            }
        }
        // ERRATA 18: .ftz elsewhere (integer, bit, f64, bf16 sources, bf16 destination).
        if !set_ftz_ok(d, s) {
            texts.push(format!("set.eq.ftz.{}.{} %d, %a, %b;", d.name(), s.name()));
            texts.push(format!(
                "set.eq.and.ftz.{}.{} %d, %a, %b, %c;",
                d.name(),
                s.name()
            ));
        }
        // bf16 forms take only a predicate register as c (ptxas 11.8).
        if is_bf16_form(d, s) {
            for c in ["1", "0", "!1", "!0"] {
                texts.push(format!(
                    "set.eq.and.{}.{} %d, %a, %b, {c};",
                    d.name(),
                    s.name()
                ));
            }
        }
        // BoolOp needs c, and c needs a BoolOp.
        texts.push(format!("set.eq.and.{}.{} %d, %a, %b;", d.name(), s.name()));
        texts.push(format!("set.eq.{}.{} %d, %a, %b, %c;", d.name(), s.name()));
    }
    // Half-precision values take no immediates (ptxas: "Arguments mismatch").
    texts.push("set.lt.f16.f16 %d, %a, 0x3C00;".into());
    texts.push("set.lt.f16x2.f16x2 %d, %a, 0x3C003C00;".into());
    texts.push("set.lt.u32 %d, %a, %b;".into());
    texts.push("set.lt.u32.u32.u32 %d, %a, %b;".into());
    texts.push("set.foo.u32.u32 %d, %a, %b;".into());
    texts.push("set.lt.nand.u32.u32 %d, %a, %b, %c;".into());
    for t in &texts {
        expect_invalid(t, &mut fails);
    }
    fails.finish("illegal set neighbours", texts.len());
}

/// setp destinations: `p`, `p|q`, `_|q`, `p|_`, `_` (all accepted by ptxas).
const SETP_DESTS: [&str; 5] = ["%p", "%p|%q", "_|%q", "%p|_", "_"];

#[test]
fn every_legal_setp_variant() {
    let mut fails = Failures::default();
    let mut model_fails = Failures::default();
    let mut rng = Rng(5);
    let mut total = 0;
    for &ty in CORE_TYPES.iter() {
        for cmp in cmps_for(ty) {
            for ftz in [false, true] {
                if ftz && ty != Type::F32 {
                    continue;
                }
                for (bop, tail) in BOOL_TAILS {
                    for dest in SETP_DESTS {
                        let f = if ftz { ".ftz" } else { "" };
                        let b = bop.map(|b| format!(".{}", b.name())).unwrap_or_default();
                        let text = format!(
                            "setp.{}{b}{f}.{} {dest}, %a, %b{tail};",
                            cmp.name(),
                            ty.name()
                        );
                        total += 1;
                        let Some((inst, syms, before, after)) =
                            roundtrip(&text, &mut fails, &mut rng)
                        else {
                            continue;
                        };
                        let Op::Setp(got) = inst.op else {
                            fails.push(format!("`{text}`: decoded as {:?}", inst.op));
                            continue;
                        };
                        let p = syms.get("%p");
                        let q = syms.get("%q");
                        let (wp, wq) = match dest {
                            "%p" => (p, None),
                            "%p|%q" => (p, Some(q)),
                            "_|%q" => (None, Some(q)),
                            "%p|_" => (p, Some(None)),
                            _ => (None, None),
                        };
                        if got.cmp != cmp
                            || got.ftz != ftz
                            || got.ty != ty
                            || got.p != wp
                            || got.q != wq
                            || !pred_matches(got.bool_op, bop, tail, &syms)
                        {
                            fails.push(format!("`{text}`: decoded {got:?}"));
                            continue;
                        }
                        let id = |n: &str| syms.get(n).unwrap();
                        for lane in 0..WARP_SIZE {
                            let (a, bv) =
                                (before.lane(id("%a"), lane), before.lane(id("%b"), lane));
                            let c = match got.bool_op {
                                Some((_, PredSrc::Reg { reg, negate })) => {
                                    (before.lane(reg, lane) & 1 == 1) ^ negate
                                }
                                Some((_, PredSrc::Imm(v))) => v,
                                None => false,
                            };
                            let (mp, mq) = model::setp(&got, a, bv, c, Target::SM_90);
                            let gp = got.p.map(|r| after.lane(r, lane));
                            let gq = got.q.flatten().map(|r| after.lane(r, lane));
                            if gp.is_some_and(|v| v != mp as u64)
                                || gq.is_some_and(|v| v != mq as u64)
                            {
                                model_fails.push(format!("`{text}` a={a:#x} b={bv:#x} c={c}: got {gp:?}|{gq:?}, model {mp}|{mq}"));
                                break;
                            }
                        }
                    }
                }
            }
        }
    }
    fails.finish("setp variants", total);
    model_fails.finish("setp variants vs model", total);
}

#[test]
fn every_legal_selp_and_slct_variant() {
    let mut fails = Failures::default();
    let mut model_fails = Failures::default();
    let mut rng = Rng(6);
    let mut total = 0;
    for &ty in CORE_TYPES.iter() {
        for c in ["%p", "!%p", "1", "0"] {
            let text = format!("selp.{} %d, %a, %b, {c};", ty.name());
            total += 1;
            let Some((inst, syms, before, after)) = roundtrip(&text, &mut fails, &mut rng) else {
                continue;
            };
            let Op::Selp(got) = inst.op else {
                fails.push(format!("`{text}`: decoded as {:?}", inst.op));
                continue;
            };
            if got.ty != ty {
                fails.push(format!("`{text}`: decoded {got:?}"));
                continue;
            }
            let id = |n: &str| syms.get(n).unwrap();
            for lane in 0..WARP_SIZE {
                let cv = match got.c {
                    PredSrc::Reg { reg, negate } => (before.lane(reg, lane) & 1 == 1) ^ negate,
                    PredSrc::Imm(v) => v,
                };
                let want = model::selp(
                    &got,
                    before.lane(id("%a"), lane),
                    before.lane(id("%b"), lane),
                    cv,
                );
                if after.lane(id("%d"), lane) != want {
                    model_fails.push(format!(
                        "`{text}` lane {lane}: got {:#x}, model {want:#x}",
                        after.lane(id("%d"), lane)
                    ));
                    break;
                }
            }
        }
        for (ctype, ftz) in [(Type::S32, false), (Type::F32, false), (Type::F32, true)] {
            let f = if ftz { ".ftz" } else { "" };
            let text = format!("slct{f}.{}.{} %d, %a, %b, %c;", ty.name(), ctype.name());
            total += 1;
            let Some((inst, syms, before, after)) = roundtrip(&text, &mut fails, &mut rng) else {
                continue;
            };
            let Op::Slct(got) = inst.op else {
                fails.push(format!("`{text}`: decoded as {:?}", inst.op));
                continue;
            };
            if got.dtype != ty || got.ctype != ctype || got.ftz != ftz {
                fails.push(format!("`{text}`: decoded {got:?}"));
                continue;
            }
            let id = |n: &str| syms.get(n).unwrap();
            for lane in 0..WARP_SIZE {
                let want = model::slct(
                    &got,
                    before.lane(id("%a"), lane),
                    before.lane(id("%b"), lane),
                    before.lane(id("%c"), lane) as u32,
                    Target::SM_90,
                );
                if after.lane(id("%d"), lane) != want {
                    model_fails.push(format!(
                        "`{text}` lane {lane}: got {:#x}, model {want:#x}",
                        after.lane(id("%d"), lane)
                    ));
                    break;
                }
            }
        }
    }
    fails.finish("selp/slct variants", total);
    model_fails.finish("selp/slct variants vs model", total);
}

#[test]
fn immediates_and_guards_roundtrip() {
    // ERRATA 16a immediates (decimal, hex, negative, 0f/0d bit patterns) and guards.
    let mut fails = Failures::default();
    let mut rng = Rng(8);
    let texts = [
        "set.lt.u32.u32 %d, 5, %a;",
        "set.lt.u32.u32 %d, %a, 0x10;",
        "setp.lt.f32 %p, %a, 0f3F800000;",
        "setp.lt.f64 %p, %a, 0d3FF0000000000000;",
        "setp.eq.b32 %p, %a, 0x7fffffff;",
        "selp.u32 %d, 1, 0, %p;",
        "selp.s16 %d, -1, 2, %p;",
        "slct.u32.s32 %d, 1, 2, -1;",
        "slct.u32.f32 %d, 1, 2, 0fBF800000;",
        "set.lt.and.u32.u32 %d, %a, %b, 1;",
        "@%g vadd4.u32.u32.u32 %d, %a, %b, %c;",
        "@!%g vset2.u32.s32.ge.add %d.h1, %a.h03, %b.h21, %c;",
        "@%g set.lt.f16.f32 %d, %a, %b;",
        "@!%g setp.ne.s32 %p|%q, %a, %b;",
        "@%g setp.ne.s32 _|%q, %a, %b;",
        "@%g selp.f64 %d, %a, %b, %p;",
        "@!%g slct.ftz.f32.f32 %d, %a, %b, %c;",
        "@%g set.geu.s32.bf16x2 %d, %a, %b;",
    ];
    for t in texts {
        if let Some((inst, syms, ..)) = roundtrip(t, &mut fails, &mut rng) {
            if t.starts_with('@') {
                let want_neg = t.starts_with("@!");
                match inst.guard {
                    Some(g) if g.reg == syms.get("%g").unwrap() && g.negate == want_neg => {}
                    other => fails.push(format!("`{t}`: guard decoded as {other:?}")),
                }
            }
            let imm = |o: Operand| {
                if let Operand::Imm(v) = o {
                    Some(v)
                } else {
                    None
                }
            };
            let want: Option<(Option<u64>, Option<u64>)> = match t {
                "set.lt.u32.u32 %d, 5, %a;" => Some((Some(5), None)),
                "set.lt.u32.u32 %d, %a, 0x10;" => Some((None, Some(0x10))),
                "setp.lt.f32 %p, %a, 0f3F800000;" => Some((None, Some(0x3F80_0000))),
                "setp.lt.f64 %p, %a, 0d3FF0000000000000;" => {
                    Some((None, Some(0x3FF0_0000_0000_0000)))
                }
                "selp.s16 %d, -1, 2, %p;" => Some((Some(0xFFFF), Some(2))),
                _ => None,
            };
            if let Some(w) = want {
                let got = match inst.op {
                    Op::Set(s) => (imm(s.a), imm(s.b)),
                    Op::Setp(s) => (imm(s.a), imm(s.b)),
                    Op::Selp(s) => (imm(s.a), imm(s.b)),
                    // Each other kind named: exhaustive, no wildcard over kinds (tidy).
                    Op::Video(_)
                    | Op::Slct(_)
                    | Op::Alu(_)
                    | Op::Int(_)
                    | Op::Bit(_)
                    | Op::Cvt(_)
                    | Op::Float(_)
                    | Op::Mem(_)
                    | Op::Warp(_)
                    | Op::Async(_)
                    | Op::Mma(_) => (None, None),
                };
                if got != w {
                    fails.push(format!("`{t}`: immediates decoded as {got:?}, want {w:?}"));
                }
            }
            if t == "slct.u32.s32 %d, 1, 2, -1;" {
                if let Op::Slct(s) = inst.op {
                    if s.c != Operand::Imm(0xFFFF_FFFF) {
                        fails.push(format!("`{t}`: c decoded as {:?}", s.c));
                    }
                }
            }
        }
    }
    fails.finish("immediates and guards", texts.len());
}

#[test]
fn illegal_setp_selp_slct_neighbours() {
    let mut fails = Failures::default();
    let mut texts = Vec::new();
    for &ty in CORE_TYPES.iter() {
        let n = ty.name();
        for c in CmpOp::ALL {
            if !cmps_for(ty).contains(&c) {
                texts.push(format!("setp.{}.{n} %p, %a, %b;", c.name()));
            }
        }
        if ty != Type::F32 {
            texts.push(
                format!("setp.lt.ftz.{n} %p, %a, %b;")
                    .replace(".lt.", if n.starts_with('b') { ".eq." } else { ".lt." }),
            );
        }
        texts.push(format!("slct.ftz.{n}.s32 %d, %a, %b, %c;"));
        for bad_c in ["u32", "b32", "s16", "s64", "f64", "f16"] {
            texts.push(format!("slct.{n}.{bad_c} %d, %a, %b, %c;"));
        }
        texts.push(format!("selp.{n} %d, %a, %b;"));
        texts.push(format!("setp.eq.and.{n} %p, %a, %b;"));
    }
    texts.push("setp.lt.s32 _|_, %a, %b;".into());
    texts.push("setp.lt.s32 %p|%q|%r, %a, %b;".into());
    for t in ["f16", "f16x2", "bf16", "bf16x2", "pred"] {
        texts.push(format!("selp.{t} %d, %a, %b, %p;"));
        texts.push(format!("slct.{t}.s32 %d, %a, %b, %c;"));
    }
    texts.push("selp.ftz.f32 %d, %a, %b, %p;".into());
    texts.push("slct.u32 %d, %a, %b, %c;".into());
    for t in &texts {
        expect_invalid(t, &mut fails);
    }
    fails.finish("illegal setp/selp/slct neighbours", texts.len());
}
