//! The conversion family's declarations: `cvt`'s modifier words and which
//! combinations ptxas 11.8 accepts (`LEGAL`, from its verdicts over every
//! destination x source type x rounding x `.ftz` x `.sat`, recorded in
//! `tests/data/cvt-ptxas.txt`), the `.relu`/`.satfinite` and fp8
//! (`.e4m3x2`/`.e5m2x2`) forms ptxas 13.0.88 adds (`narrow_legal`, from
//! `tests/data/cvt-fp8-ptxas.txt`), and the forms they make.

use super::{Family, Form, OperandKind as K};
use crate::inst::{Cvt, CvtRnd, CvtType};

/// The family's syntax block.
pub(super) const SYNTAX: &str =
    "cvt{.irnd}{.ftz}{.sat}.dtype.atype d, a;  cvt{.frnd}{.ftz}{.sat}.dtype.atype d, a;  \
     cvt.frnd{.sat}.f16x2.f32 d, a, b;  cvt.frnd{.sat}.bf16x2.f32 d, a, b;  \
     cvt.frnd2{.relu}{.satfinite}.f16.f32 d, a;  cvt.frnd2{.relu}{.satfinite}.f16x2.f32 d, a, b;  \
     cvt.frnd2{.relu}{.satfinite}.bf16.f32 d, a;  cvt.frnd2{.relu}{.satfinite}.bf16x2.f32 d, a, b;  \
     cvt.rn.satfinite{.relu}.f8x2type.f32 d, a, b;  cvt.rn.satfinite{.relu}.f8x2type.f16x2 d, a;  \
     cvt.rn{.relu}.f16x2.f8x2type d, a;  .frnd2 = { .rn, .rz }; .f8x2type = { .e4m3x2, .e5m2x2 };  \
     .irnd = { .rni, .rzi, .rmi, .rpi }; .frnd = { .rn, .rz, .rm, .rp }; \
     .dtype .atype = { .u8, .u16, .u32, .u64, .s8, .s16, .s32, .s64, .bf16, .f16, .f32, .f64 };  \
     cvt.pack.sat.{ .u16, .s16 }.s32 d, a, b;  cvt.pack.sat.{ .u8, .s8 }.s32.b32 d, a, b, c";

/// Operands of a `cvt` with destination `d` and source `a`: two sources
/// when a packed destination is made from two f32s; `cvt.pack`'s two, and
/// `c` for the 8-bit forms.
pub(crate) const fn cvt_operands(x: &Cvt) -> &'static [K] {
    let (d, a) = (x.dtype, x.atype);
    if x.pack {
        if matches!(d, CvtType::U8 | CvtType::S8) {
            &[K::Dst, K::Value(1), K::Value(1), K::Value(1)]
        } else {
            &[K::Dst, K::Value(1), K::Value(1)]
        }
    } else if d.packed().is_some() && matches!(a, CvtType::F32) {
        &[K::Dst, K::Value(1), K::Value(1)]
    } else {
        &[K::Dst, K::Value(1)]
    }
}

/// `cvt` words of valid PTX that simcli does not implement.
const UNIMPLEMENTED_WORDS: &[&str] =
    &["tf32", "e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2", "rna", "rs"];

/// `cvt.pack`'s sub-byte types (sm_75: tests/data/cvt-pack-ptxas.txt),
/// valid PTX simcli does not implement.
const UNIMPLEMENTED_PACK_WORDS: &[&str] = &["u4", "s4", "u2", "s2"];

/// Why `cvt`'s words do not make a form.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CvtWordsError {
    /// The word at this index is unknown, repeated or one too many.
    Word(usize),
    /// The word at this index is valid PTX that simcli does not implement.
    Unimplemented(usize),
    /// Fewer than two types.
    MissingTypes,
    /// The combination ptxas refuses.
    Illegal,
}

/// The `cvt` the words (without dots) describe, checked against [`LEGAL`];
/// operands are filled in by the parser.
pub(crate) fn cvt_words(words: &[&str]) -> Result<Cvt, CvtWordsError> {
    let (mut rnd, mut ftz, mut sat, mut tys) = (None, false, false, Vec::with_capacity(2));
    let (mut satfinite, mut relu) = (false, false);
    let pack = words.first() == Some(&"pack");
    let (mut b32, words) = (false, if pack { &words[1..] } else { words });
    // Indexes in errors count the `.pack` word.
    let at = |i: usize| i + usize::from(pack);
    for (i, &w) in words.iter().enumerate() {
        if pack && w == "b32" && tys.len() == 2 && !b32 {
            b32 = true;
            continue;
        }
        if pack && UNIMPLEMENTED_PACK_WORDS.contains(&w) {
            // Only the form ptxas takes: `.sat`, the type, `.s32.b32`.
            return Err(match words {
                ["sat", _, "s32", "b32"] => CvtWordsError::Unimplemented(at(i)),
                _ => CvtWordsError::Illegal,
            });
        }
        if let Some(r) = CvtRnd::ALL.into_iter().find(|r| r.name() == w) {
            if rnd.replace(r).is_some() {
                return Err(CvtWordsError::Word(at(i)));
            }
        } else if w == "ftz" && !ftz {
            ftz = true;
        } else if w == "sat" && !sat {
            sat = true;
        } else if w == "satfinite" && !satfinite {
            satfinite = true;
        } else if w == "relu" && !relu {
            relu = true;
        } else if let (Some(t), true) = (CvtType::from_name(w), tys.len() < 2) {
            tys.push(t);
        } else if UNIMPLEMENTED_WORDS.contains(&w) {
            return Err(CvtWordsError::Unimplemented(at(i)));
        } else {
            return Err(CvtWordsError::Word(at(i)));
        }
    }
    let [d, a] = tys[..] else {
        return Err(CvtWordsError::MissingTypes);
    };
    let x = Cvt {
        rnd,
        ftz,
        sat,
        satfinite,
        relu,
        pack,
        ..plain(d, a)
    };
    let legal = if pack {
        pack_legal(&x, b32)
    } else {
        legal_cvt(&x)
    };
    if !legal {
        return Err(CvtWordsError::Illegal);
    }
    Ok(x)
}

/// ptxas 13.0.88's verdicts on `cvt.pack` (tests/data/cvt-pack-ptxas.txt):
/// `.sat` required, no rounding, `.s32` sources, `.b32` (and `c`) exactly
/// for the 8-bit types.
fn pack_legal(x: &Cvt, b32: bool) -> bool {
    let eight = matches!(x.dtype, C::U8 | C::S8);
    x.sat
        && x.rnd.is_none()
        && !(x.ftz || x.satfinite || x.relu)
        && x.atype == C::S32
        && matches!(x.dtype, C::U8 | C::S8 | C::U16 | C::S16)
        && b32 == eight
}

fn is_fp8(t: CvtType) -> bool {
    matches!(t, CvtType::E4m3x2 | CvtType::E5m2x2)
}

/// Whether `x` converts to or from fp8.
pub(crate) fn is_fp8_cvt(x: &Cvt) -> bool {
    is_fp8(x.dtype) || is_fp8(x.atype)
}

/// A PTX version a form needs only on targets below `below_sm` (a gate
/// whose version depends on the target, which `Gate` cannot say).
pub(crate) struct LowTargetGate {
    /// The feature in words, for the error.
    pub what: &'static str,
    /// Targets below this compute capability need `ptx`.
    pub below_sm: u32,
    /// The PTX ISA version they need.
    pub ptx: (u8, u8),
    /// Whether `inst` needs this.
    pub applies: fn(&crate::inst::Instruction) -> bool,
}

/// ptxas 13.0.88: "Feature 'cvt with .e4m3x2/.e5m2x2 on sm_89' requires PTX
/// ISA .version 8.1 or later", while sm_90 takes them from 7.8
/// (tests/data/cvt-fp8-ptxas.txt).
pub(crate) const LOW_TARGET_GATES: &[LowTargetGate] = &[LowTargetGate {
    what: "cvt with .e4m3x2/.e5m2x2 on sm_89",
    below_sm: 90,
    ptx: (8, 1),
    applies: |i| matches!(i.op, crate::inst::Op::Cvt(c) if is_fp8_cvt(&c)),
}];

/// Whether ptxas accepts `x`'s modifiers and types: [`LEGAL`] for the
/// forms ptxas 11.8 knew, [`narrow_legal`] for `.relu`, `.satfinite` and fp8.
pub(crate) fn legal_cvt(x: &Cvt) -> bool {
    if x.relu || x.satfinite || is_fp8(x.dtype) || is_fp8(x.atype) {
        narrow_legal(x)
    } else {
        legal(x.dtype, x.atype, x.rnd, x.ftz, x.sat)
    }
}

/// ptxas 13.0.88's verdicts (tests/data/cvt-fp8-ptxas.txt): `.relu` and
/// `.satfinite` take `.rn` or `.rz` from f32 to f16, bf16 and their pairs,
/// never with `.ftz` or `.sat`; to fp8 is `.rn.satfinite` with an optional
/// `.relu`, from f32 pairs or f16x2; from fp8 is `.rn` to f16x2 with an
/// optional `.relu`.
fn narrow_legal(x: &Cvt) -> bool {
    if x.ftz || x.sat {
        return false;
    }
    let rn = x.rnd == Some(CvtRnd::Rn);
    match (x.dtype, x.atype) {
        (C::E4m3x2 | C::E5m2x2, C::F32 | C::F16x2) => rn && x.satfinite,
        (C::F16x2, C::E4m3x2 | C::E5m2x2) => rn && !x.satfinite,
        (C::F16 | C::Bf16 | C::F16x2 | C::Bf16x2, C::F32) => rn || x.rnd == Some(CvtRnd::Rz),
        _ => false,
    }
}

/// Bit of a modifier combination in a [`LEGAL`] mask.
const fn combo(rnd: Option<CvtRnd>, ftz: bool, sat: bool) -> u32 {
    let r = match rnd {
        None => 0,
        Some(CvtRnd::Rn) => 1,
        Some(CvtRnd::Rz) => 2,
        Some(CvtRnd::Rm) => 3,
        Some(CvtRnd::Rp) => 4,
        Some(CvtRnd::Rni) => 5,
        Some(CvtRnd::Rzi) => 6,
        Some(CvtRnd::Rmi) => 7,
        Some(CvtRnd::Rpi) => 8,
    };
    r * 4 + (ftz as u32) * 2 + sat as u32
}

/// Whether ptxas 11.8 accepts `cvt` with these modifiers and types.
pub(crate) fn legal(d: CvtType, a: CvtType, rnd: Option<CvtRnd>, ftz: bool, sat: bool) -> bool {
    LEGAL
        .iter()
        .any(|&(ld, la, mask)| ld == d && la == a && mask >> combo(rnd, ftz, sat) & 1 == 1)
}

/// Every legal `cvt` form, as `Display` prints it.
pub(super) fn forms() -> Vec<Form> {
    let mut out = Vec::new();
    let rnds = std::iter::once(None).chain(CvtRnd::ALL.into_iter().map(Some));
    for rnd in rnds {
        for ftz in [false, true] {
            for sat in [false, true] {
                for &(d, a, _) in LEGAL {
                    if legal(d, a, rnd, ftz, sat) {
                        let x = Cvt {
                            rnd,
                            ftz,
                            sat,
                            ..plain(d, a)
                        };
                        out.push(form(&x));
                    }
                }
            }
        }
    }
    // The `.relu`/`.satfinite` and fp8 forms (`narrow_legal`).
    for (d, a) in NARROW_PAIRS {
        for rnd in [CvtRnd::Rn, CvtRnd::Rz] {
            for (satfinite, relu) in [(false, false), (true, false), (false, true), (true, true)] {
                let x = Cvt {
                    rnd: Some(rnd),
                    satfinite,
                    relu,
                    ..plain(d, a)
                };
                // The plain forms are already listed from LEGAL.
                if (satfinite || relu || is_fp8(d) || is_fp8(a)) && narrow_legal(&x) {
                    out.push(form(&x));
                }
            }
        }
    }
    // `cvt.pack` (`pack_legal`).
    for d in [C::U16, C::S16, C::U8, C::S8] {
        let x = Cvt {
            sat: true,
            pack: true,
            ..plain(d, C::S32)
        };
        out.push(form(&x));
    }
    out
}

/// `cvt.dtype.atype` with no modifier, its operands placeholders.
fn plain(dtype: CvtType, atype: CvtType) -> Cvt {
    Cvt {
        rnd: None,
        ftz: false,
        sat: false,
        satfinite: false,
        relu: false,
        dtype,
        atype,
        d: crate::inst::RegId(0),
        a: crate::inst::Operand::Imm(0),
        b: None,
        pack: false,
        c: None,
    }
}

/// The type pairs `narrow_legal` may accept.
const NARROW_PAIRS: [(CvtType, CvtType); 10] = [
    (CvtType::F16, CvtType::F32),
    (CvtType::Bf16, CvtType::F32),
    (CvtType::F16x2, CvtType::F32),
    (CvtType::Bf16x2, CvtType::F32),
    (CvtType::E4m3x2, CvtType::F32),
    (CvtType::E5m2x2, CvtType::F32),
    (CvtType::E4m3x2, CvtType::F16x2),
    (CvtType::E5m2x2, CvtType::F16x2),
    (CvtType::F16x2, CvtType::E4m3x2),
    (CvtType::F16x2, CvtType::E5m2x2),
];

/// `x` as `Display` prints it, with placeholder registers.
fn form(x: &Cvt) -> Form {
    let srcs = match cvt_operands(x).len() {
        4 => "%a, %b, %c",
        3 => "%a, %b",
        _ => "%a",
    };
    Form {
        family: Family::Cvt,
        text: format!("cvt{} %d, {srcs};", cvt_head(x)),
    }
}

/// `{.rnd}{.ftz}{.sat}{.satfinite}{.relu}.dtype.atype`: the modifiers in
/// `Display`'s order (nvcc's for fp8: `cvt.rn.satfinite.relu.e4m3x2.f32`).
pub(crate) fn cvt_head(x: &Cvt) -> String {
    if x.pack {
        let c = if cvt_operands(x).len() == 4 {
            ".b32"
        } else {
            ""
        };
        return format!(".pack.sat.{}.{}{c}", x.dtype.name(), x.atype.name());
    }
    let mut h = String::new();
    if let Some(r) = x.rnd {
        h.push('.');
        h.push_str(r.name());
    }
    if x.ftz {
        h.push_str(".ftz");
    }
    if x.sat {
        h.push_str(".sat");
    }
    if x.satfinite {
        h.push_str(".satfinite");
    }
    if x.relu {
        h.push_str(".relu");
    }
    h.push('.');
    h.push_str(x.dtype.name());
    h.push('.');
    h.push_str(x.atype.name());
    h
}

use CvtType as C;

/// (destination, source, mask of accepted modifier combinations; bit
/// `4 * r + 2 * ftz + sat`, `r` = none, rn, rz, rm, rp, rni, rzi, rmi, rpi).
const LEGAL: &[(CvtType, CvtType, u64)] = &[
    (C::U8, C::U8, 0x1),
    (C::U8, C::U16, 0x3),
    (C::U8, C::U32, 0x3),
    (C::U8, C::U64, 0x3),
    (C::U8, C::S8, 0x3),
    (C::U8, C::S16, 0x3),
    (C::U8, C::S32, 0x3),
    (C::U8, C::S64, 0x3),
    (C::U8, C::F16, 0x333300000),
    (C::U8, C::F32, 0xffff00000),
    (C::U8, C::F64, 0x333300000),
    (C::U16, C::U8, 0x1),
    (C::U16, C::U16, 0x1),
    (C::U16, C::U32, 0x3),
    (C::U16, C::U64, 0x3),
    (C::U16, C::S8, 0x3),
    (C::U16, C::S16, 0x3),
    (C::U16, C::S32, 0x3),
    (C::U16, C::S64, 0x3),
    (C::U16, C::F16, 0x333300000),
    (C::U16, C::Bf16, 0x111100000),
    (C::U16, C::F32, 0xffff00000),
    (C::U16, C::F64, 0x333300000),
    (C::U32, C::U8, 0x1),
    (C::U32, C::U16, 0x1),
    (C::U32, C::U32, 0x1),
    (C::U32, C::U64, 0x3),
    (C::U32, C::S8, 0x3),
    (C::U32, C::S16, 0x3),
    (C::U32, C::S32, 0x3),
    (C::U32, C::S64, 0x3),
    (C::U32, C::F16, 0x333300000),
    (C::U32, C::Bf16, 0x111100000),
    (C::U32, C::F32, 0xffff00000),
    (C::U32, C::F64, 0x333300000),
    (C::U64, C::U8, 0x1),
    (C::U64, C::U16, 0x1),
    (C::U64, C::U32, 0x1),
    (C::U64, C::U64, 0x1),
    (C::U64, C::S8, 0x3),
    (C::U64, C::S16, 0x3),
    (C::U64, C::S32, 0x3),
    (C::U64, C::S64, 0x3),
    (C::U64, C::F16, 0x333300000),
    (C::U64, C::Bf16, 0x111100000),
    (C::U64, C::F32, 0xffff00000),
    (C::U64, C::F64, 0x333300000),
    (C::S8, C::U8, 0x3),
    (C::S8, C::U16, 0x3),
    (C::S8, C::U32, 0x3),
    (C::S8, C::U64, 0x3),
    (C::S8, C::S8, 0x1),
    (C::S8, C::S16, 0x3),
    (C::S8, C::S32, 0x3),
    (C::S8, C::S64, 0x3),
    (C::S8, C::F16, 0x333300000),
    (C::S8, C::F32, 0xffff00000),
    (C::S8, C::F64, 0x333300000),
    (C::S16, C::U8, 0x1),
    (C::S16, C::U16, 0x3),
    (C::S16, C::U32, 0x3),
    (C::S16, C::U64, 0x3),
    (C::S16, C::S8, 0x1),
    (C::S16, C::S16, 0x1),
    (C::S16, C::S32, 0x3),
    (C::S16, C::S64, 0x3),
    (C::S16, C::F16, 0x333300000),
    (C::S16, C::Bf16, 0x111100000),
    (C::S16, C::F32, 0xffff00000),
    (C::S16, C::F64, 0x333300000),
    (C::S32, C::U8, 0x1),
    (C::S32, C::U16, 0x1),
    (C::S32, C::U32, 0x3),
    (C::S32, C::U64, 0x3),
    (C::S32, C::S8, 0x1),
    (C::S32, C::S16, 0x1),
    (C::S32, C::S32, 0x1),
    (C::S32, C::S64, 0x3),
    (C::S32, C::F16, 0x333300000),
    (C::S32, C::Bf16, 0x111100000),
    (C::S32, C::F32, 0xffff00000),
    (C::S32, C::F64, 0x333300000),
    (C::S64, C::U8, 0x1),
    (C::S64, C::U16, 0x1),
    (C::S64, C::U32, 0x1),
    (C::S64, C::U64, 0x3),
    (C::S64, C::S8, 0x1),
    (C::S64, C::S16, 0x1),
    (C::S64, C::S32, 0x1),
    (C::S64, C::S64, 0x1),
    (C::S64, C::F16, 0x333300000),
    (C::S64, C::Bf16, 0x111100000),
    (C::S64, C::F32, 0xffff00000),
    (C::S64, C::F64, 0x333300000),
    (C::F16, C::U8, 0x33330),
    (C::F16, C::U16, 0x33330),
    (C::F16, C::U32, 0x33330),
    (C::F16, C::U64, 0x33330),
    (C::F16, C::S8, 0x33330),
    (C::F16, C::S16, 0x33330),
    (C::F16, C::S32, 0x33330),
    (C::F16, C::S64, 0x33330),
    (C::F16, C::F16, 0x333300003),
    (C::F16, C::Bf16, 0x11111),
    (C::F16, C::F32, 0xffff0),
    (C::F16, C::F64, 0x33330),
    (C::Bf16, C::U16, 0x11110),
    (C::Bf16, C::U32, 0x11110),
    (C::Bf16, C::U64, 0x11110),
    (C::Bf16, C::S16, 0x11110),
    (C::Bf16, C::S32, 0x11110),
    (C::Bf16, C::S64, 0x11110),
    (C::Bf16, C::F16, 0x11111),
    (C::Bf16, C::Bf16, 0x111100001),
    (C::Bf16, C::F32, 0x55550),
    (C::Bf16, C::F64, 0x11110),
    (C::F32, C::U8, 0xffff0),
    (C::F32, C::U16, 0xffff0),
    (C::F32, C::U32, 0xffff0),
    (C::F32, C::U64, 0xffff0),
    (C::F32, C::S8, 0xffff0),
    (C::F32, C::S16, 0xffff0),
    (C::F32, C::S32, 0xffff0),
    (C::F32, C::S64, 0xffff0),
    (C::F32, C::F16, 0xf),
    (C::F32, C::Bf16, 0x55555),
    (C::F32, C::F32, 0xffff0000f),
    (C::F32, C::F64, 0xffff0),
    (C::F64, C::U8, 0x33330),
    (C::F64, C::U16, 0x33330),
    (C::F64, C::U32, 0x33330),
    (C::F64, C::U64, 0x33330),
    (C::F64, C::S8, 0x33330),
    (C::F64, C::S16, 0x33330),
    (C::F64, C::S32, 0x33330),
    (C::F64, C::S64, 0x33330),
    (C::F64, C::F16, 0x3),
    (C::F64, C::Bf16, 0x11111),
    (C::F64, C::F32, 0xf),
    (C::F64, C::F64, 0x333300003),
    (C::F16x2, C::F32, 0x110),
    (C::Bf16x2, C::F32, 0x110),
];
