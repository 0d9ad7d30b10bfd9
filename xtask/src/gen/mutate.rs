//! Near-misses: one mutation of a valid instruction's model, or of its text,
//! that ptxas is likely (not certain) to reject.

use super::model::{Gen, PredV, Selp, Set, Slct, Src, Video};
use super::{cmps_for, imm_for, is_type, width_of, SCALAR_TYPES, VIDEO_TYPES, VSET_CMPS};
use crate::rng::Rng;

/// Applies one near-miss mutation. Returns its name.
pub(super) fn mutate(rng: &mut Rng, g: &mut Gen) -> &'static str {
    match g {
        Gen::Video(v) => mutate_video(rng, v),
        Gen::Set(v) => mutate_set(rng, v),
        Gen::Selp(v) => mutate_selp(rng, v),
        Gen::Slct(v) => mutate_slct(rng, v),
    }
}

/// Video near-misses: modifiers, types, masks, selectors and mnemonics.
fn mutate_video(rng: &mut Rng, v: &mut Video) -> &'static str {
    let Video {
        op,
        n,
        sat_first,
        types,
        cmp,
        sec,
        mask,
        asel,
        bsel,
        csel,
        imm,
        ..
    } = v;
    let is_set = op == "vset";
    let four = n == "4";
    match rng.below(16) {
        0 => {
            *sec = vec!["sat".into(), "add".into()];
            if rng.chance(1, 3) {
                *sat_first = true;
                *sec = vec!["add".into()];
            }
            "sat-with-add"
        }
        1 => {
            let i = rng.below(types.len());
            types[i] = rng
                .pick(&["u16", "s16", "b32", "u64", "s64", "f32", "u8"])
                .to_string();
            "bad-video-type"
        }
        2 => {
            if types.len() == 3 || is_set && rng.chance(1, 2) {
                types.pop();
            } else {
                types.push(rng.pick(&VIDEO_TYPES).to_string());
            }
            "wrong-type-count"
        }
        3 => {
            *mask = Some(
                rng.pick(if four {
                    &[
                        "b00", "b01", "b02", "b0123", "b3201", "b4", "h10", "h0", "b33", "b3210x",
                    ][..]
                } else {
                    &["h01", "h00", "h2", "h11", "b0", "b10", "h210", "h"][..]
                })
                .to_string(),
            );
            "bad-mask"
        }
        4 => {
            let bad = if four {
                rng.pick(&["b8888", "b321", "b32100", "h10", "b0008", "b"])
                    .to_string()
            } else {
                rng.pick(&["h4", "h44", "h3", "h210", "b3210", "h04"])
                    .to_string()
            };
            if rng.chance(1, 2) {
                *asel = Some(bad)
            } else {
                *bsel = Some(bad)
            }
            "bad-selector"
        }
        5 => {
            *csel = Some(if four { "b3210".into() } else { "h10".into() });
            "selector-on-c"
        }
        6 => {
            *imm = Some(1 + rng.below(3));
            "immediate-video-operand"
        }
        7 if is_set => {
            sec.push("sat".into());
            "vset-sat"
        }
        7 => {
            *cmp = Some(rng.pick(&VSET_CMPS).to_string());
            "cmp-on-arith-video"
        }
        8 if is_set => {
            *cmp = Some(
                rng.pick(&["lo", "hs", "equ", "num", "ltu", "hi"])
                    .to_string(),
            );
            "vset-bad-cmp"
        }
        8 => {
            *op = rng
                .pick(&["vmad", "vshl", "vset", "vabs", "vadd"])
                .to_string();
            // Not "": the scalar video instructions (vadd, vmad, ...) are
            // valid PTX outside the modelled ISA.
            *n = rng.pick(&["2", "4", "8", "3"]).to_string();
            "bad-video-mnemonic"
        }
        9 => {
            *sec = vec![rng
                .pick(&["max", "min", "rn", "ftz", "add.add"])
                .to_string()];
            "bad-secondary-op"
        }
        10 if is_set => {
            *cmp = None;
            "vset-missing-cmp"
        }
        10 => {
            *n = if four { "2".into() } else { "4".into() };
            "selector-width-mismatch"
        }
        11 => {
            let last = types.len() - 1;
            types.swap(0, last);
            *cmp = cmp.take().or_else(|| Some("lt".into()));
            "stray-or-moved-cmp"
        }
        12 => {
            *mask = Some(if four { "b3210".into() } else { "h10".into() });
            *asel = Some(if four { "b3210".into() } else { "h10".into() });
            *bsel = Some(if four { "b7654".into() } else { "h32".into() });
            "explicit-defaults"
        }
        _ => text_mutation_marker(),
    }
}

/// `set`/`setp` near-misses: comparisons, types, BoolOps, destinations.
fn mutate_set(rng: &mut Rng, v: &mut Set) -> &'static str {
    let Set {
        mnem,
        cmp,
        bool_op,
        ftz,
        ftz_first,
        types,
        dsts,
        c,
        a,
        b,
    } = v;
    match rng.below(15) {
        0 => {
            let st = types.last().cloned().unwrap_or_default();
            *cmp = match st.as_bytes().first() {
                Some(b's') => rng.pick(&["lo", "ls", "hi", "hs"]),
                Some(b'u') => rng.pick(&["equ", "num", "nan", "ltu"]),
                Some(b'b') if !st.starts_with("bf") => rng.pick(&["lt", "ge", "lo", "hs", "num"]),
                _ => rng.pick(&["lo", "ls", "hi", "hs"]),
            }
            .to_string();
            "cmp-type-mismatch"
        }
        1 => {
            *ftz = true;
            if rng.chance(1, 2) {
                let st = rng
                    .pick(&["u32", "s16", "b32", "f64", "bf16", "bf16x2", "u64"])
                    .to_string();
                let last = types.len() - 1;
                types[last] = st.clone();
                *cmp = rng.pick(cmps_for(&st)).to_string();
            }
            "ftz-on-non-f32"
        }
        2 if *mnem == "set" => {
            types[0] = rng
                .pick(&["f64", "u64", "b32", "s64", "u8", "pred", "f16x2", "b16"])
                .to_string();
            "bad-set-dtype"
        }
        2 => {
            types.insert(0, "u32".into());
            "setp-with-dtype"
        }
        3 => {
            let (d, s) = *rng.pick(&[
                ("f32", "f16"),
                ("f16", "bf16"),
                ("s16", "u16"),
                ("u16", "u32"),
                ("f16x2", "f16"),
                ("bf16x2", "f16x2"),
                ("u16", "f16x2"),
                ("f16", "f16x2"),
                ("bf16", "bf16x2"),
                ("f16x2", "f32"),
                ("u32", "f16"),
                ("f32", "bf16"),
                ("u64", "f16"),
                ("bf16", "f16x2"),
            ]);
            *mnem = "set";
            *types = vec![d.into(), s.into()];
            *dsts = vec![Some(1)];
            *cmp = rng.pick(cmps_for(s)).to_string();
            "half-pairing"
        }
        4 => {
            if bool_op.is_some() {
                *c = None;
                "boolop-without-c"
            } else {
                *c = Some(PredV::Reg(false, 1));
                "c-without-boolop"
            }
        }
        5 => {
            *bool_op = Some(rng.pick(&["nand", "andn", "not", "xnor"]).to_string());
            *c = Some(PredV::Reg(false, 2));
            "bad-boolop"
        }
        6 if *mnem == "set" => {
            *dsts = vec![Some(1), if rng.chance(1, 2) { Some(2) } else { None }];
            "set-two-dests"
        }
        6 => {
            *dsts = match rng.below(3) {
                0 => vec![None, None],
                1 => vec![None],
                _ => vec![Some(1), Some(2), Some(3)],
            };
            "setp-sink-misuse"
        }
        7 => {
            *ftz = true;
            *ftz_first = true;
            "ftz-before-cmp"
        }
        8 if *mnem == "set" => {
            types.truncate(1);
            "set-one-type"
        }
        8 => {
            *dsts = vec![None];
            *bool_op = Some("and".into());
            *c = Some(PredV::Reg(true, 3));
            "setp-sink-only"
        }
        9 => {
            if let Some(PredV::Reg(_, i)) = c {
                *c = Some(PredV::Imm(format!("!{i}")));
            } else {
                *bool_op = Some("or".into());
                *c = Some(PredV::Imm(rng.pick(&["2", "1", "0", "!1"]).to_string()));
            }
            "pred-immediate"
        }
        10 => {
            let st = types.last().cloned().unwrap_or_default();
            if rng.chance(1, 2) {
                *a = Src::Imm(imm_for(rng, &st))
            } else {
                *b = Src::Imm(imm_for(rng, &st))
            }
            "immediate-source"
        }
        11 => {
            *cmp = rng.pick(&["lt.ge", "lte", "less", ""]).to_string();
            "bad-cmp-spelling"
        }
        _ => text_mutation_marker(),
    }
}

/// `selp` near-misses.
fn mutate_selp(rng: &mut Rng, v: &mut Selp) -> &'static str {
    let Selp {
        types, mods, c, a, ..
    } = v;
    match rng.below(8) {
        0 => {
            mods.push(rng.pick(&["ftz", "sat", "lt", "rn"]).to_string());
            "selp-modifier"
        }
        1 => {
            types.push(rng.pick(&SCALAR_TYPES).to_string());
            "selp-two-types"
        }
        2 => {
            types[0] = rng
                .pick(&["pred", "f16", "bf16", "f16x2", "u8", "s8"])
                .to_string();
            "selp-bad-type"
        }
        3 => {
            *c = PredV::Reg(true, 1);
            "selp-negated-c"
        }
        4 => {
            *c = PredV::Imm(rng.pick(&["1", "0", "5"]).to_string());
            "selp-immediate-c"
        }
        5 => {
            let t0 = types[0].clone();
            *a = Src::Imm(imm_for(rng, &t0));
            "immediate-source"
        }
        _ => text_mutation_marker(),
    }
}

/// `slct` near-misses.
fn mutate_slct(rng: &mut Rng, v: &mut Slct) -> &'static str {
    let Slct { ftz, types, c, .. } = v;
    match rng.below(7) {
        0 => {
            types[1] = rng
                .pick(&["u32", "b32", "f64", "s64", "s16", "f16"])
                .to_string();
            "slct-bad-ctype"
        }
        1 => {
            *ftz = true;
            types[1] = "s32".into();
            "slct-ftz-s32"
        }
        2 => {
            types.truncate(1);
            "slct-one-type"
        }
        3 => {
            types[0] = rng.pick(&["f16", "bf16", "pred", "f16x2"]).to_string();
            "slct-bad-dtype"
        }
        4 => {
            let t1 = types[1].clone();
            *c = Src::Imm(imm_for(rng, &t1));
            "slct-immediate-c"
        }
        _ => text_mutation_marker(),
    }
}

/// Marks that the caller should apply a text-level mutation instead.
fn text_mutation_marker() -> &'static str {
    "text"
}

/// Text-level near-misses that apply to any family.
pub(super) fn text_mutate(rng: &mut Rng, text: &str) -> (String, &'static str) {
    let body = text.trim_end_matches(';');
    match rng.below(7) {
        0 => match body.rfind(',') {
            Some(i) => (format!("{};", &body[..i]), "missing-operand"),
            None => (format!("{body}, %r1;"), "extra-operand"),
        },
        1 => (format!("{body}, %r1;"), "extra-operand"),
        2 => (format!("{};", body.replacen(", ", " ", 1)), "missing-comma"),
        3 => (text.to_uppercase(), "uppercase"),
        4 => {
            // Drop one dotted modifier of the opcode.
            let (op, rest) = body.split_once(' ').unwrap_or((body, ""));
            let parts: Vec<&str> = op.split('.').collect();
            if parts.len() < 2 {
                return (format!("{body};"), "none");
            }
            let k = 1 + rng.below(parts.len() - 1);
            let kept: Vec<&str> = parts
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != k)
                .map(|(_, p)| *p)
                .collect();
            (format!("{} {rest};", kept.join(".")), "dropped-modifier")
        }
        5 => {
            // Swap two adjacent dotted modifiers.
            let (op, rest) = body.split_once(' ').unwrap_or((body, ""));
            let mut parts: Vec<&str> = op.split('.').collect();
            if parts.len() < 3 {
                return (format!("{body};"), "none");
            }
            let k = 1 + rng.below(parts.len() - 2);
            // Swapping two types would also change the operand widths the
            // registers were declared with, which sim-isa cannot see.
            if width_of(parts[k]) != width_of(parts[k + 1])
                && is_type(parts[k])
                && is_type(parts[k + 1])
            {
                return (format!("{body};"), "none");
            }
            parts.swap(k, k + 1);
            (format!("{} {rest};", parts.join(".")), "swapped-modifiers")
        }
        _ => {
            let (op, rest) = body.split_once(' ').unwrap_or((body, ""));
            let m = rng.pick(&["foo", "rn", "ftz", "sat", "add", "u32", "cc", "x2"]);
            (format!("{op}.{m} {rest};"), "extra-modifier")
        }
    }
}
