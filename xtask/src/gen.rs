//! Random PTX instruction texts for the differential validity test (part 1).
//!
//! The grammar here is written from the PTX text in `shared/spec/` and its
//! ERRATA, independently of sim-isa's parser tables, so a misreading in one
//! cannot hide in the other. Every case is judged by ptxas, never by this
//! file: "valid" and "near-miss" only steer the mix, they are not expectations.

use crate::rng::Rng;

/// The arithmetic SIMD video operations (9.7.18.2.1/3).
pub const VIDEO_OPS: [&str; 6] = ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"];
/// Operand types of the video instructions.
pub const VIDEO_TYPES: [&str; 2] = ["u32", "s32"];
/// Comparisons of `vset2`/`vset4`.
pub const VSET_CMPS: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
/// Destination masks of the 2-way instructions.
pub const MASK2: [&str; 3] = ["h0", "h1", "h10"];
/// Destination masks of the 4-way instructions (erratum 10).
pub const MASK4: [&str; 15] = [
    "b0", "b1", "b10", "b2", "b20", "b21", "b210", "b3", "b30", "b31", "b310", "b32", "b320",
    "b321", "b3210",
];
/// Source types of the classic `set`/`setp`/`selp`/`slct`.
pub const SCALAR_TYPES: [&str; 11] = [
    "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
];
/// Destination types of the classic `set`.
pub const SET_DTYPES: [&str; 3] = ["u32", "s32", "f32"];
/// Boolean operators.
pub const BOOL_OPS: [&str; 3] = ["and", "or", "xor"];
const CMP_BITS: &[&str] = &["eq", "ne"];
const CMP_SIGNED: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge"];
const CMP_UNSIGNED: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"];
const CMP_FLOAT: &[&str] = &[
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

/// Comparison operators legal for a source type (erratum 13).
pub fn cmps_for(t: &str) -> &'static [&'static str] {
    match t.as_bytes()[0] {
        b'b' if !t.starts_with("bf") => CMP_BITS,
        b's' => CMP_SIGNED,
        b'u' => CMP_UNSIGNED,
        _ => CMP_FLOAT,
    }
}

/// Half-precision `set` (9.7.7.1) destination/source pairs, plus erratum 18's
/// `set.CmpOp.bf16.bf16`.
pub fn half_set_pairs() -> Vec<(&'static str, &'static str)> {
    let mut v = Vec::new();
    for s in SCALAR_TYPES.iter().copied().chain(["f16"]) {
        v.push(("f16", s));
    }
    for s in [
        "s16", "u16", "f16", "b16", "s32", "u32", "f32", "b32", "s64", "u64", "f64", "b64", "bf16",
    ] {
        v.push(("bf16", s));
    }
    for d in ["u16", "s16", "u32", "s32"] {
        v.push((d, "f16"));
        v.push((d, "bf16"));
    }
    for d in ["f16x2", "u32", "s32"] {
        v.push((d, "f16x2"));
    }
    for d in ["bf16x2", "u32", "s32"] {
        v.push((d, "bf16x2"));
    }
    v
}

fn is_type(t: &str) -> bool {
    SCALAR_TYPES.contains(&t) || matches!(t, "f16" | "bf16" | "f16x2" | "bf16x2" | "pred")
}

/// Register width an operand of type `t` needs (unknown spellings: 32).
pub fn width_of(t: &str) -> u32 {
    match t {
        "b16" | "u16" | "s16" | "f16" | "bf16" => 16,
        "b64" | "u64" | "s64" | "f64" => 64,
        "pred" => 1,
        _ => 32,
    }
}

/// Name of register `idx` of width `w` (declared by the kernel wrapper).
pub fn reg_name(w: u32, idx: u8, plain: bool) -> String {
    let base = match w {
        16 => "h",
        64 => "rd",
        1 => "p",
        _ => "r",
    };
    if plain {
        format!("{base}{idx}")
    } else {
        format!("%{base}{idx}")
    }
}

/// A value operand: register slot or immediate text.
#[derive(Clone, Debug)]
pub enum Src {
    /// Register index (1..=3 keeps every pool valid).
    Reg(u8),
    /// Immediate spelling.
    Imm(String),
}

/// A predicate operand `{!}%pN` or an immediate.
#[derive(Clone, Debug)]
pub enum PredV {
    /// Register, negated or not.
    Reg(bool, u8),
    /// Immediate spelling (`1`, `0`).
    Imm(String),
}

/// One generated instruction, semantic enough to re-render after a type change.
#[derive(Clone, Debug)]
pub enum Gen {
    /// `vop2/vop4/vset2/vset4`.
    Video {
        /// `vadd`, ..., `vset` (or a wrong mnemonic).
        op: String,
        /// `2` or `4` (or a wrong width).
        n: String,
        /// `.sat` written before the types.
        sat_first: bool,
        /// Types, in order.
        types: Vec<String>,
        /// vset comparison (or a stray one).
        cmp: Option<String>,
        /// Secondary modifiers after the types (`sat`, `add`, ...).
        sec: Vec<String>,
        /// Destination mask.
        mask: Option<String>,
        /// `a` selector.
        asel: Option<String>,
        /// `b` selector.
        bsel: Option<String>,
        /// `c` suffix (always a near-miss).
        csel: Option<String>,
        /// Register slots d, a, b, c.
        regs: [u8; 4],
        /// Operand index replaced by an immediate.
        imm: Option<usize>,
    },
    /// `set` / `setp`.
    Set {
        /// `set` or `setp`.
        mnem: &'static str,
        /// Comparison.
        cmp: String,
        /// BoolOp.
        bool_op: Option<String>,
        /// `.ftz`.
        ftz: bool,
        /// Put `.ftz` before the comparison (a wrong order).
        ftz_first: bool,
        /// dtype, stype for set; type for setp (any count in near-misses).
        types: Vec<String>,
        /// set: `[d]`; setp: `[p]` or `[p, q]`, `None` = sink `_`.
        dsts: Vec<Option<u8>>,
        /// Sources.
        a: Src,
        /// Second source.
        b: Src,
        /// `{!}c` of the BoolOp.
        c: Option<PredV>,
    },
    /// `selp`.
    Selp {
        /// Types (one when valid).
        types: Vec<String>,
        /// Extra modifiers (near-misses).
        mods: Vec<String>,
        /// Destination slot.
        d: u8,
        /// Sources.
        a: Src,
        /// Second source.
        b: Src,
        /// Predicate.
        c: PredV,
    },
    /// `slct`.
    Slct {
        /// `.ftz`.
        ftz: bool,
        /// dtype, ctype.
        types: Vec<String>,
        /// Destination slot.
        d: u8,
        /// Sources.
        a: Src,
        /// Second source.
        b: Src,
        /// Sign source.
        c: Src,
    },
}

/// A rendered case.
#[derive(Clone, Debug)]
pub struct Case {
    /// Instruction text (one line, with `;`).
    pub text: String,
    /// Family for statistics (`video`, `vset`, `set`, `half-set`, `setp`, `selp`, `slct`).
    pub family: &'static str,
    /// Near-miss mutation applied, if any.
    pub mutation: Option<&'static str>,
}

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
fn slot(rng: &mut Rng) -> u8 {
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
    let (masks, sel): (&[&str], fn(&mut Rng) -> String) = if n == "2" {
        (&MASK2, sel2)
    } else {
        (&MASK4, sel4)
    };
    Gen::Video {
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
    }
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
    let (masks, sel): (&[&str], fn(&mut Rng) -> String) = if n == "2" {
        (&MASK2, sel2)
    } else {
        (&MASK4, sel4)
    };
    let mask = rng.chance(1, 2).then(|| rng.pick(masks).to_string());
    let asel = rng.chance(1, 2).then(|| sel(rng));
    let bsel = rng.chance(1, 2).then(|| sel(rng));
    Gen::Video {
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
    }
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
    Gen::Set {
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
    }
}

/// A valid instruction of a random family, with its family name.
pub fn valid(rng: &mut Rng) -> (Gen, &'static str) {
    match rng.below(20) {
        0..=6 => {
            let g = video(rng);
            let fam = if matches!(&g, Gen::Video { op, .. } if op == "vset") {
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
            let g = Gen::Selp {
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
            };
            (g, "selp")
        }
        _ => {
            let t = rng.pick(&SCALAR_TYPES).to_string();
            let ct = rng.pick(&["s32", "f32"]).to_string();
            let g = Gen::Slct {
                ftz: ct == "f32" && rng.chance(1, 3),
                d: slot(rng),
                a: src(rng, &t, 15),
                b: src(rng, &t, 15),
                c: src(rng, &ct, 10),
                types: vec![t, ct],
            };
            (g, "slct")
        }
    }
}

/// Applies one near-miss mutation. Returns its name.
fn mutate(rng: &mut Rng, g: &mut Gen) -> &'static str {
    match g {
        Gen::Video {
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
        } => {
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
                                "b00", "b01", "b02", "b0123", "b3201", "b4", "h10", "h0", "b33",
                                "b3210x",
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
        Gen::Set {
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
        } => match rng.below(15) {
            0 => {
                let st = types.last().cloned().unwrap_or_default();
                *cmp = match st.as_bytes().first() {
                    Some(b's') => rng.pick(&["lo", "ls", "hi", "hs"]),
                    Some(b'u') => rng.pick(&["equ", "num", "nan", "ltu"]),
                    Some(b'b') if !st.starts_with("bf") => {
                        rng.pick(&["lt", "ge", "lo", "hs", "num"])
                    }
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
        },
        Gen::Selp {
            types, mods, c, a, ..
        } => match rng.below(8) {
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
        },
        Gen::Slct { ftz, types, c, .. } => match rng.below(7) {
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
        },
    }
}

/// Marks that the caller should apply a text-level mutation instead.
fn text_mutation_marker() -> &'static str {
    "text"
}

fn render_src(s: &Src, w: u32, plain: bool) -> String {
    match s {
        Src::Reg(i) => reg_name(w, *i, plain),
        Src::Imm(t) => t.clone(),
    }
}

fn render_pred(p: &PredV, plain: bool) -> String {
    match p {
        PredV::Reg(neg, i) => format!("{}{}", if *neg { "!" } else { "" }, reg_name(1, *i, plain)),
        PredV::Imm(t) => t.clone(),
    }
}

/// Renders `g` as one PTX line (no guard).
pub fn render(g: &Gen, plain: bool) -> String {
    let dot = |v: &[String]| v.iter().map(|m| format!(".{m}")).collect::<String>();
    match g {
        Gen::Video {
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
            regs,
            imm,
        } => {
            let mut s = format!("{op}{n}");
            if *sat_first {
                s.push_str(".sat");
            }
            s += &dot(types);
            if let Some(c) = cmp {
                s += &format!(".{c}");
            }
            s += &dot(sec);
            let suf = |o: &Option<String>| o.as_ref().map(|m| format!(".{m}")).unwrap_or_default();
            let sufs = [suf(mask), suf(asel), suf(bsel), suf(csel)];
            let ops: Vec<String> = (0..4)
                .map(|i| {
                    if *imm == Some(i) {
                        "7".to_string()
                    } else {
                        format!("{}{}", reg_name(32, regs[i], plain), sufs[i])
                    }
                })
                .collect();
            format!("{s} {};", ops.join(", "))
        }
        Gen::Set {
            mnem,
            cmp,
            bool_op,
            ftz,
            ftz_first,
            types,
            dsts,
            a,
            b,
            c,
        } => {
            let mut s = mnem.to_string();
            if *ftz && *ftz_first {
                s.push_str(".ftz");
            }
            if !cmp.is_empty() {
                s += &format!(".{cmp}");
            }
            if let Some(bo) = bool_op {
                s += &format!(".{bo}");
            }
            if *ftz && !*ftz_first {
                s.push_str(".ftz");
            }
            s += &dot(types);
            let sw = types.last().map(|t| width_of(t)).unwrap_or(32);
            let dw = if *mnem == "set" {
                types.first().map(|t| width_of(t)).unwrap_or(32)
            } else {
                1
            };
            let d = dsts
                .iter()
                .map(|x| {
                    x.map(|i| reg_name(dw, i, plain))
                        .unwrap_or_else(|| "_".into())
                })
                .collect::<Vec<_>>()
                .join("|");
            let mut ops = vec![d, render_src(a, sw, plain), render_src(b, sw, plain)];
            if let Some(c) = c {
                ops.push(render_pred(c, plain));
            }
            format!("{s} {};", ops.join(", "))
        }
        Gen::Selp {
            types,
            mods,
            d,
            a,
            b,
            c,
        } => {
            let w = types.first().map(|t| width_of(t)).unwrap_or(32);
            format!(
                "selp{}{} {}, {}, {}, {};",
                dot(mods),
                dot(types),
                reg_name(w, *d, plain),
                render_src(a, w, plain),
                render_src(b, w, plain),
                render_pred(c, plain)
            )
        }
        Gen::Slct {
            ftz,
            types,
            d,
            a,
            b,
            c,
        } => {
            let w = types.first().map(|t| width_of(t)).unwrap_or(32);
            let cw = types.get(1).map(|t| width_of(t)).unwrap_or(32);
            format!(
                "slct{}{} {}, {}, {}, {};",
                if *ftz { ".ftz" } else { "" },
                dot(types),
                reg_name(w, *d, plain),
                render_src(a, w, plain),
                render_src(b, w, plain),
                render_src(c, cw, plain)
            )
        }
    }
}

/// Text-level near-misses that apply to any family.
fn text_mutate(rng: &mut Rng, text: &str) -> (String, &'static str) {
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

/// Cosmetic variation the assembler must not care about (valid cases only).
fn decorate(rng: &mut Rng, text: String) -> String {
    match rng.below(12) {
        0 => text.replace(", ", ","),
        1 => text.replacen(' ', "\t", 1).replace(", ", " , "),
        2 => format!("{text} // trailing comment"),
        3 => text.replacen(' ', " /* c */ ", 1),
        _ => text,
    }
}

/// `n` cases: about 60% valid variants and 40% near-misses, guards on some.
pub fn cases(seed: u64, n: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let (mut g, family) = valid(&mut rng);
        let plain = rng.chance(1, 12);
        let mut mutation = None;
        let mut text;
        if rng.chance(2, 5) {
            let m = mutate(&mut rng, &mut g);
            text = render(&g, plain);
            if m == "text" {
                let (t, m2) = text_mutate(&mut rng, &text);
                text = t;
                mutation = Some(m2);
            } else {
                mutation = Some(m);
            }
        } else {
            text = decorate(&mut rng, render(&g, plain));
        }
        if rng.chance(1, 5) {
            let neg = if rng.chance(1, 2) { "!" } else { "" };
            text = format!("@{neg}{} {text}", reg_name(1, slot(&mut rng), plain));
        }
        out.push(Case {
            text,
            family,
            mutation,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_single_line() {
        let a = cases(7, 500);
        let b = cases(7, 500);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.text, y.text);
            assert!(!x.text.contains('\n'));
        }
        assert!(a.iter().any(|c| c.mutation.is_none()));
        assert!(a.iter().any(|c| c.mutation == Some("sat-with-add")));
    }

    #[test]
    fn cmp_tables_follow_erratum_13() {
        assert_eq!(cmps_for("b32"), &["eq", "ne"]);
        assert!(cmps_for("u16").contains(&"hs"));
        assert!(!cmps_for("s64").contains(&"lo"));
        assert!(cmps_for("bf16x2").contains(&"nan"));
        assert!(!cmps_for("f32").contains(&"lo"));
    }
}
