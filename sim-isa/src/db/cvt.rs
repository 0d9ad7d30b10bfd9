//! The conversion family's declarations: `cvt`'s modifier words and which
//! combinations ptxas 11.8 accepts (`LEGAL`, from its verdicts over every
//! destination x source type x rounding x `.ftz` x `.sat`, recorded in
//! `tests/data/cvt-ptxas.txt`), and the forms they make.

use super::{Family, Form, OperandKind as K};
use crate::inst::{Cvt, CvtRnd, CvtType};

/// The family's syntax block.
pub(super) const SYNTAX: &str =
    "cvt{.irnd}{.ftz}{.sat}.dtype.atype d, a;  cvt{.frnd}{.ftz}{.sat}.dtype.atype d, a;  \
     cvt.frnd{.sat}.f16x2.f32 d, a, b;  cvt.frnd{.sat}.bf16x2.f32 d, a, b;  \
     .irnd = { .rni, .rzi, .rmi, .rpi }; .frnd = { .rn, .rz, .rm, .rp }; \
     .dtype .atype = { .u8, .u16, .u32, .u64, .s8, .s16, .s32, .s64, .bf16, .f16, .f32, .f64 }";

/// Operands of a `cvt` with destination `d`.
pub(crate) const fn cvt_operands(d: CvtType) -> &'static [K] {
    if d.packed().is_some() {
        &[K::Dst, K::Value(1), K::Value(1)]
    } else {
        &[K::Dst, K::Value(1)]
    }
}

/// `cvt` words of valid PTX that simcli does not implement.
const UNIMPLEMENTED_WORDS: &[&str] = &[
    "tf32",
    "e4m3x2",
    "e5m2x2",
    "e2m1x2",
    "e2m3x2",
    "e3m2x2",
    "ue8m0x2",
    "relu",
    "satfinite",
    "rna",
    "rs",
];

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
pub(crate) fn cvt_words(
    words: &[&str],
) -> Result<(Option<CvtRnd>, bool, bool, CvtType, CvtType), CvtWordsError> {
    let (mut rnd, mut ftz, mut sat, mut tys) = (None, false, false, Vec::with_capacity(2));
    for (i, &w) in words.iter().enumerate() {
        if let Some(r) = CvtRnd::ALL.into_iter().find(|r| r.name() == w) {
            if rnd.replace(r).is_some() {
                return Err(CvtWordsError::Word(i));
            }
        } else if w == "ftz" && !ftz {
            ftz = true;
        } else if w == "sat" && !sat {
            sat = true;
        } else if let (Some(t), true) = (CvtType::from_name(w), tys.len() < 2) {
            tys.push(t);
        } else if UNIMPLEMENTED_WORDS.contains(&w) {
            return Err(CvtWordsError::Unimplemented(i));
        } else {
            return Err(CvtWordsError::Word(i));
        }
    }
    let [d, a] = tys[..] else {
        return Err(CvtWordsError::MissingTypes);
    };
    if !legal(d, a, rnd, ftz, sat) {
        return Err(CvtWordsError::Illegal);
    }
    Ok((rnd, ftz, sat, d, a))
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
                            dtype: d,
                            atype: a,
                            d: crate::inst::RegId(0),
                            a: crate::inst::Operand::Imm(0),
                            b: None,
                        };
                        let srcs = if cvt_operands(d).len() == 3 {
                            "%a, %b"
                        } else {
                            "%a"
                        };
                        out.push(Form {
                            family: Family::Cvt,
                            text: format!("cvt{} %d, {srcs};", cvt_head(&x)),
                        });
                    }
                }
            }
        }
    }
    out
}

/// `{.rnd}{.ftz}{.sat}.dtype.atype`: the modifiers in `Display`'s order.
pub(crate) fn cvt_head(x: &Cvt) -> String {
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
