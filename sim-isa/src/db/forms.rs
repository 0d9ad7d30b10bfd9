//! Every instruction form the database accepts, as canonical text (what
//! `Display` prints), derived from the same tables the validator reads:
//! each opcode word with every legal type list, every modifier the family
//! allows, and for video every destination/selector shape the lowering
//! key tells apart. Tests walk it to prove that each form parses, prints
//! back, has a lowering row wherever a target can run it, and executes.

use super::bit::{word_lists, BitWord};
use super::{
    all_opcodes, approx_implemented, approx_ok, family_cmp_ok, float_ftz_ok, float_implemented,
    float_sat_ok, ftz_ok, ftz_required, int_relu_ok, int_sat_ok, int_sat_type_ok, m, nan_ok,
    ntypes, operands, relu_ok, rnd_ok, rnd_required, rnd_type_ok, spec, types_ok, Family, Form,
    OpKind, OperandKind,
};
use crate::inst::{BoolOp, CmpOp, FloatOp, MulMode, Rnd, Simd, Type};

/// Video destination/selector shapes the lowering key tells apart.
#[derive(Clone, Copy)]
enum Shape {
    Def,
    Mask,
    Sel,
}

/// Every form, in table order.
pub fn forms() -> Vec<Form> {
    let mut out = Vec::new();
    for def in all_opcodes() {
        // An alias word (float `mad`, which is `fma`) has no forms of its
        // own: its forms are the word it names.
        if super::float::is_alias(def) {
            continue;
        }
        if let OpKind::Cvt = def.kind {
            // Its types are words of its own: `cvt::forms` walks its table.
            out.extend(super::cvt::forms());
            continue;
        }
        let fam = def.kind.family();
        let mut push = |head: String, tail: String| {
            out.push(Form {
                family: fam,
                text: format!("{}{head} {tail};", def.name),
            })
        };
        let modes: &[Option<MulMode>] = if def.kind.mode_op().is_some() {
            &[Some(MulMode::Lo), Some(MulMode::Hi), Some(MulMode::Wide)]
        } else {
            &[None]
        };
        for &mode in modes {
            for tys in type_lists(def.kind, mode) {
                for (mods, pred) in modifier_sets(def.kind, fam, mode, &tys) {
                    // The carry-in words on a type narrower than 32 bits, or
                    // with `.sat`, are valid PTX simcli does not run
                    // (`parse::validate`'s `carry_rules`).
                    if let OpKind::Int(w) = def.kind {
                        let narrow = !tys.iter().all(|t| super::CARRY_TYPES.contains(t));
                        if super::reads_carry(w) && (narrow || mods.contains(&"sat")) {
                            continue;
                        }
                    }
                    let head = head(def.kind, mode, &mods, &tys);
                    for &shape in shapes(def.kind) {
                        push(head.clone(), tail(def.kind, shape, pred));
                    }
                }
            }
        }
    }
    out
}

/// Type lists of `spec(fam).ntypes` entries that `types_ok` accepts.
fn type_lists(kind: OpKind, mode: Option<MulMode>) -> Vec<Vec<Type>> {
    let n = ntypes(kind);
    let mut lists: Vec<Vec<Type>> = vec![vec![]];
    for _ in 0..n {
        lists = lists
            .into_iter()
            .flat_map(|l| {
                Type::ALL.into_iter().map(move |t| {
                    let mut l = l.clone();
                    l.push(t);
                    l
                })
            })
            .collect();
    }
    lists.retain(|l| types_ok(kind, mode, l));
    lists
}

/// Modifier words (besides types and mode) with whether a BoolOp
/// predicate operand follows.
fn modifier_sets(
    kind: OpKind,
    fam: Family,
    mode: Option<MulMode>,
    tys: &[Type],
) -> Vec<(Vec<&'static str>, bool)> {
    if let (OpKind::Float(op), [ty]) = (kind, tys) {
        return float_sets(op, *ty);
    }
    let allow = spec(fam).allow;
    let mut sets: Vec<(Vec<&'static str>, bool)> = vec![(vec![], false)];
    let extend = |sets: &mut Vec<(Vec<&'static str>, bool)>, opts: &[(&'static str, bool)]| {
        *sets = sets
            .iter()
            .flat_map(|(s, p)| {
                opts.iter().map(move |&(w, q)| {
                    let mut s = s.clone();
                    if !w.is_empty() {
                        s.push(w);
                    }
                    (s, *p || q)
                })
            })
            .collect();
    };
    if allow & m::CMP != 0 {
        let cmps: Vec<(&'static str, bool)> = CmpOp::ALL
            .into_iter()
            .filter(|&c| family_cmp_ok(fam, tys, c))
            .map(|c| (c.name(), false))
            .collect();
        extend(&mut sets, &cmps);
    }
    if allow & m::BOOL != 0 {
        let mut opts = vec![("", false)];
        opts.extend(BoolOp::ALL.into_iter().map(|b| (b.name(), true)));
        extend(&mut sets, &opts);
    }
    if let (OpKind::Int(w), [t]) = (kind, tys) {
        if allow & m::RELU != 0 && int_relu_ok(w, *t) {
            extend(&mut sets, &[("", false), ("relu", false)]);
        }
    }
    if allow & m::FTZ != 0 && ftz_ok(fam, tys) {
        extend(&mut sets, &[("", false), ("ftz", false)]);
    }
    let sat = match kind {
        OpKind::Int(w) => int_sat_ok(w, mode) && tys.iter().all(|&t| int_sat_type_ok(t)),
        // Each other kind named: exhaustive, no wildcard over kinds (tidy).
        OpKind::Video(..)
        | OpKind::Set
        | OpKind::Setp
        | OpKind::Selp
        | OpKind::Slct
        | OpKind::Alu(_)
        | OpKind::Bit(_)
        | OpKind::Cvt => allow & m::SAT != 0,
        // `float_sets` answered above.
        OpKind::Float(_) => false,
    };
    if let OpKind::Bit(w) = kind {
        let lists = word_lists(w);
        sets = sets
            .iter()
            .flat_map(|(s, p)| {
                lists.iter().map(move |l| {
                    let mut s = s.clone();
                    s.extend(l);
                    (s, *p)
                })
            })
            .collect();
    }
    match (sat, allow & m::ADD != 0) {
        (true, true) => extend(&mut sets, &[("", false), ("sat", false), ("add", false)]),
        (true, false) => extend(&mut sets, &[("", false), ("sat", false)]),
        (false, true) => extend(&mut sets, &[("", false), ("add", false)]),
        (false, false) => {}
    }
    sets
}

/// The float family's implemented modifier sets in `Display`'s order
/// (rounding, `.ftz`, `.sat`, `.NaN`).
fn float_sets(op: FloatOp, ty: Type) -> Vec<(Vec<&'static str>, bool)> {
    let mut rnds: Vec<Option<Rnd>> = Rnd::ALL.into_iter().map(Some).collect();
    if !rnd_required(op) {
        rnds.insert(0, None);
    }
    // `.ftz`, `.sat` and `.NaN` where the type allows them.
    let opt = |on: bool| if on { vec![false, true] } else { vec![false] };
    let mut out = Vec::new();
    for rnd in rnds {
        if rnd.is_some_and(|r| !rnd_ok(op) || !rnd_type_ok(op, ty, r)) {
            continue;
        }
        for ftz in opt(float_ftz_ok(op, ty)) {
            if !float_implemented(op, ty, rnd, ftz) {
                continue;
            }
            for sat in opt(float_sat_ok(op, ty)) {
                for relu in opt(relu_ok(op, ty, sat)) {
                    for nan in opt(nan_ok(op, ty)) {
                        let mut w: Vec<&'static str> = rnd.map(Rnd::name).into_iter().collect();
                        for (on, m) in [(ftz, "ftz"), (sat, "sat"), (relu, "relu"), (nan, "NaN")] {
                            if on {
                                w.push(m);
                            }
                        }
                        out.push((w, false));
                    }
                }
            }
        }
    }
    // The `.approx` forms (and `div.full`) simcli runs: the H100's MUFU
    // tables (`float/mufu.rs`).
    if approx_implemented(op, ty) {
        for full in [false, true] {
            for ftz in opt(float_ftz_ok(op, ty)) {
                if approx_ok(op, ty, full, ftz) && (ftz || !ftz_required(op, ty)) {
                    let mut w = vec![if full { "full" } else { "approx" }];
                    if ftz {
                        w.push("ftz");
                    }
                    out.push((w, false));
                }
            }
        }
    }
    out
}

/// Modifiers in `Display`'s order: mode, compare/BoolOp/ftz, types, then
/// `.sat`/`.add` for video; `.sat` before the type elsewhere.
fn head(kind: OpKind, mode: Option<MulMode>, mods: &[&str], tys: &[Type]) -> String {
    let mut h = String::new();
    if let Some(md) = mode {
        h.push('.');
        h.push_str(md.name());
    }
    let types = |h: &mut String| {
        for t in tys {
            h.push('.');
            h.push_str(t.name());
        }
    };
    let words = |h: &mut String, ws: &mut dyn Iterator<Item = &&str>| {
        for w in ws {
            h.push('.');
            h.push_str(w);
        }
    };
    match kind {
        // `prmt.b32{.mode}`, as the manual writes it.
        OpKind::Video(..) | OpKind::Bit(BitWord::Prmt) => {
            types(&mut h);
            words(&mut h, &mut mods.iter());
        }
        // Each other kind named: exhaustive, no wildcard over kinds (tidy).
        OpKind::Set
        | OpKind::Setp
        | OpKind::Selp
        | OpKind::Slct
        | OpKind::Alu(_)
        | OpKind::Int(_)
        | OpKind::Bit(_)
        | OpKind::Cvt
        | OpKind::Float(_) => {
            words(&mut h, &mut mods.iter());
            types(&mut h);
        }
    }
    h
}

/// The operand shapes: a video opcode's masks and selectors, else none.
fn shapes(kind: OpKind) -> &'static [Shape] {
    if let OpKind::Video(..) = kind {
        &[Shape::Def, Shape::Mask, Shape::Sel]
    } else {
        &[Shape::Def]
    }
}

/// Operands named by position, with the video shape and the BoolOp predicate.
fn tail(kind: OpKind, shape: Shape, pred: bool) -> String {
    const NAMES: [&str; 5] = ["%d", "%a", "%b", "%c", "%e"];
    let (mask, sel) = match (kind, shape) {
        (OpKind::Video(_, Simd::X2), Shape::Mask) => (".h0", ""),
        (OpKind::Video(_, Simd::X4), Shape::Mask) => (".b10", ""),
        (OpKind::Video(_, Simd::X2), Shape::Sel) => ("", ".h01"),
        (OpKind::Video(_, Simd::X4), Shape::Sel) => ("", ".b0123"),
        (_, Shape::Def | Shape::Mask | Shape::Sel) => ("", ""),
    };
    let mut parts: Vec<String> = operands(kind)
        .iter()
        .enumerate()
        .map(|(i, k)| match k {
            OperandKind::PredPair => "%p".to_string(),
            // `lop3`'s immLut: a function no two inputs alone decide (a ^ b ^ c).
            OperandKind::Imm => "150".to_string(),
            OperandKind::VDst => format!("{}{mask}", NAMES[i]),
            OperandKind::VSrc if i == 1 => format!("{}{sel}", NAMES[i]),
            OperandKind::Dst
            | OperandKind::VSrc
            | OperandKind::VC
            | OperandKind::Value(_)
            | OperandKind::ValueOrSpecial
            | OperandKind::Shift
            | OperandKind::Pred => NAMES[i].to_string(),
        })
        .collect();
    if pred {
        parts.push("%q".into());
    }
    parts.join(", ")
}
