//! Drawing valid instructions: each family's operation, types, modifiers
//! and operands at random, and the immediates ptxas knows how to spell.

use super::model::{Gen, PredV, Selp, Set, Slct, Src, Video};
use super::{
    cmps_for, half_set_pairs, width_of, BOOL_OPS, MASK2, MASK4, SCALAR_TYPES, SET_DTYPES,
    VIDEO_OPS, VIDEO_TYPES, VSET_CMPS,
};
use crate::rng::Rng;

fn sel2(rng: &mut Rng) -> String {
    format!("h{}{}", rng.below(4), rng.below(4))
}
fn sel4(rng: &mut Rng) -> String {
    format!(
        "b{}{}{}{}",
        rng.below(8),
        rng.below(8),
        rng.below(8),
        rng.below(8)
    )
}
/// The destination masks and a selector drawer for width `n` (`2` or `4`).
fn masks_and_selector(n: &str) -> (&'static [&'static str], fn(&mut Rng) -> String) {
    if n == "2" {
        (&MASK2, sel2)
    } else {
        (&MASK4, sel4)
    }
}

pub(super) fn slot(rng: &mut Rng) -> u8 {
    1 + rng.below(3) as u8
}

/// An immediate for an operand of type `t`, in one of the spellings ptxas knows.
pub fn imm_for(rng: &mut Rng, t: &str) -> String {
    let w = width_of(t);
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    match t {
        "f32" => match rng.below(3) {
            0 => format!("0f{:08X}", rng.next_u64() as u32),
            1 => rng.pick(&["1.5", "0.0", "-2.25", "1e10"]).to_string(),
            _ => rng
                .pick(&[
                    "0f3F800000",
                    "0f7FC00000",
                    "0fFF800000",
                    "0f80000000",
                    "0f00000001",
                ])
                .to_string(),
        },
        "f64" => match rng.below(2) {
            0 => format!("0d{:016X}", rng.next_u64()),
            _ => rng
                .pick(&["0d3FF0000000000000", "0d7FF8000000000000", "1.0", "-0.5"])
                .to_string(),
        },
        _ => match rng.below(4) {
            0 => format!("{}", rng.below(100)),
            1 => format!("0x{:x}", rng.next_u64() & mask),
            2 if t.starts_with('s') => format!("-{}", 1 + rng.below(1000)),
            _ => format!("{}", rng.next_u64() & mask & 0x7fff),
        },
    }
}

fn src(rng: &mut Rng, t: &str, imm_pct: u32) -> Src {
    if rng.chance(imm_pct, 100) {
        Src::Imm(imm_for(rng, t))
    } else {
        Src::Reg(slot(rng))
    }
}

fn pred_c(rng: &mut Rng) -> PredV {
    if rng.chance(1, 10) {
        PredV::Imm(rng.pick(&["0", "1"]).to_string())
    } else {
        PredV::Reg(rng.chance(1, 2), slot(rng))
    }
}

/// A video instruction with the given operation, width, types and secondary
/// modifiers (`sat`, `add`, or `satfirst`); mask and selectors at random.
pub fn video_variant(
    rng: &mut Rng,
    op: &str,
    n: &str,
    types: &[&str],
    cmp: Option<&str>,
    sec: &str,
) -> Gen {
    let (masks, sel) = masks_and_selector(n);
    Gen::Video(Video {
        op: op.into(),
        n: n.into(),
        sat_first: sec == "satfirst",
        types: types.iter().map(|t| t.to_string()).collect(),
        cmp: cmp.map(String::from),
        sec: if sec == "sat" || sec == "add" {
            vec![sec.to_string()]
        } else {
            vec![]
        },
        mask: rng.chance(1, 2).then(|| rng.pick(masks).to_string()),
        asel: rng.chance(1, 2).then(|| sel(rng)),
        bsel: rng.chance(1, 2).then(|| sel(rng)),
        csel: None,
        regs: [slot(rng), slot(rng), slot(rng), slot(rng)],
        imm: None,
    })
}

/// A valid video instruction (arithmetic or vset).
fn video(rng: &mut Rng) -> Gen {
    let is_set = rng.chance(1, 4);
    let n = if rng.chance(1, 2) { "2" } else { "4" };
    let ntypes = if is_set { 2 } else { 3 };
    let types: Vec<String> = (0..ntypes)
        .map(|_| rng.pick(&VIDEO_TYPES).to_string())
        .collect();
    let (mut sec, mut sat_first) = (Vec::new(), false);
    match rng.below(3) {
        0 => sec.push("add".to_string()),
        1 if !is_set => {
            if rng.chance(1, 4) {
                sat_first = true
            } else {
                sec.push("sat".to_string())
            }
        }
        _ => {}
    }
    let (masks, sel) = masks_and_selector(n);
    let mask = rng.chance(1, 2).then(|| rng.pick(masks).to_string());
    let asel = rng.chance(1, 2).then(|| sel(rng));
    let bsel = rng.chance(1, 2).then(|| sel(rng));
    Gen::Video(Video {
        op: if is_set {
            "vset".into()
        } else {
            rng.pick(&VIDEO_OPS).to_string()
        },
        n: n.into(),
        sat_first,
        types,
        cmp: is_set.then(|| rng.pick(&VSET_CMPS).to_string()),
        sec,
        mask,
        asel,
        bsel,
        csel: None,
        regs: [slot(rng), slot(rng), slot(rng), slot(rng)],
        imm: None,
    })
}

fn set_like(rng: &mut Rng, mnem: &'static str, dtype: Option<&str>, stype: &str) -> Gen {
    let cmp = rng.pick(cmps_for(stype)).to_string();
    set_variant(rng, mnem, dtype, stype, &cmp)
}

/// A valid `set`/`setp` with the given types and comparison; BoolOp, `.ftz`,
/// destinations and immediates are drawn at random.
pub fn set_variant(
    rng: &mut Rng,
    mnem: &'static str,
    dtype: Option<&str>,
    stype: &str,
    cmp: &str,
) -> Gen {
    let cmp = cmp.to_string();
    let bool_op = rng.chance(1, 3).then(|| rng.pick(&BOOL_OPS).to_string());
    let c = bool_op.as_ref().map(|_| pred_c(rng));
    let ftz = matches!(stype, "f32" | "f16" | "f16x2") && dtype != Some("bf16") && rng.chance(1, 3);
    let mut types: Vec<String> = dtype.into_iter().map(String::from).collect();
    types.push(stype.to_string());
    let dsts = if mnem == "setp" {
        match rng.below(6) {
            0..=2 => vec![Some(slot(rng))],
            3 => {
                // Distinct: with p == q the result depends on write order.
                let p = slot(rng);
                vec![Some(p), Some(1 + p % 3)]
            }
            4 => vec![None, Some(slot(rng))],
            _ => vec![Some(slot(rng)), None],
        }
    } else {
        vec![Some(slot(rng))]
    };
    let imm_pct = if stype.contains("16") && (stype.starts_with('f') || stype.starts_with("bf")) {
        3
    } else {
        15
    };
    Gen::Set(Set {
        mnem,
        cmp,
        bool_op,
        ftz,
        ftz_first: false,
        types,
        dsts,
        a: src(rng, stype, imm_pct),
        b: src(rng, stype, imm_pct),
        c,
    })
}

/// A valid instruction of a random family, with its family name.
pub fn valid(rng: &mut Rng) -> (Gen, &'static str) {
    match rng.below(20) {
        0..=6 => {
            let g = video(rng);
            let fam = if matches!(&g, Gen::Video(v) if v.op == "vset") {
                "vset"
            } else {
                "video"
            };
            (g, fam)
        }
        7..=9 => {
            let s = rng.pick(&SCALAR_TYPES);
            let d = rng.pick(&SET_DTYPES);
            (set_like(rng, "set", Some(d), s), "set")
        }
        10..=13 => {
            let pairs = half_set_pairs();
            let (d, s) = *rng.pick(&pairs);
            (set_like(rng, "set", Some(d), s), "half-set")
        }
        14..=16 => {
            let s = rng.pick(&SCALAR_TYPES);
            (set_like(rng, "setp", None, s), "setp")
        }
        17 | 18 => {
            let t = rng.pick(&SCALAR_TYPES).to_string();
            let g = Gen::Selp(Selp {
                types: vec![t.clone()],
                mods: vec![],
                d: slot(rng),
                a: src(rng, &t, 20),
                b: src(rng, &t, 20),
                c: if rng.chance(1, 10) {
                    PredV::Imm("1".into())
                } else {
                    PredV::Reg(false, slot(rng))
                },
            });
            (g, "selp")
        }
        _ => {
            let t = rng.pick(&SCALAR_TYPES).to_string();
            let ct = rng.pick(&["s32", "f32"]).to_string();
            let g = Gen::Slct(Slct {
                ftz: ct == "f32" && rng.chance(1, 3),
                d: slot(rng),
                a: src(rng, &t, 15),
                b: src(rng, &t, 15),
                c: src(rng, &ct, 10),
                types: vec![t, ct],
            });
            (g, "slct")
        }
    }
}
