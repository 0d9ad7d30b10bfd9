//! An independent, deliberately plain model of the instruction families,
//! written from the PTX ISA's Semantics blocks plus the project's errata
//! (video in i64 arithmetic, float compares through f64 / the `half` crate,
//! selects as bit copies), and `parse_err`, which the other test modules use
//! to get the parser's rejection of a text.
//!
//! Nothing here calls sim-isa's own lane functions or tables: the point is a
//! second opinion.

// Lanes index several parallel arrays; index loops read closest to the spec.
#![allow(clippy::needless_range_loop)]

use half::{bf16, f16};
use sim_isa::parse::parse_instruction;
use sim_isa::{
    BoolOp, CmpOp, IsaError, PredSrc, Selp, Set, Setp, Simd, Slct, Symbols, Target, Type, TypeKind,
    Video, VideoOp,
};

// ---------------------------------------------------------------- harness

/// Parses `text`, returning the error (panics if it was accepted).
pub fn parse_err(text: &str) -> IsaError {
    let mut syms = Symbols::new();
    match parse_instruction(text, &mut syms) {
        Ok(i) => panic!("`{text}` was accepted as {i:?}, expected a rejection"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------- video

/// Mask bits for x2 masks `.h0 .h1 .h10`, as (text, bits).
pub const MASKS2: [(&str, u8); 3] = [("h0", 0b01), ("h1", 0b10), ("h10", 0b11)];

/// Mask bits for the fifteen x4 masks of ERRATA 10, as (text, bits).
pub const MASKS4: [(&str, u8); 15] = [
    ("b0", 0b0001),
    ("b1", 0b0010),
    ("b10", 0b0011),
    ("b2", 0b0100),
    ("b20", 0b0101),
    ("b21", 0b0110),
    ("b210", 0b0111),
    ("b3", 0b1000),
    ("b30", 0b1001),
    ("b31", 0b1010),
    ("b310", 0b1011),
    ("b32", 0b1100),
    ("b320", 0b1101),
    ("b321", 0b1110),
    ("b3210", 0b1111),
];

/// Element `k` of the concatenation a:b (a's elements first), zero-extended.
fn element(simd: Simd, a: u32, b: u32, k: u8) -> u32 {
    let ab = (a as u64) | ((b as u64) << 32);
    let w = simd.lane_bits();
    ((ab >> (w * k as u32)) & ((1u64 << w) - 1)) as u32
}

fn extend(x: u32, signed: bool, bits: u32) -> i64 {
    if signed {
        let sh = 64 - bits;
        ((x as i64) << sh) >> sh
    } else {
        x as i64
    }
}

/// The spec's vop2/vop4/vset2/vset4 semantics with ERRATA 1-8, 11.
pub fn video(v: &Video, a: u32, b: u32, c: u32) -> u32 {
    let n = v.simd.lanes();
    let w = v.simd.lane_bits();
    let mut t = [0i64; 4];
    for i in 0..n {
        let va = extend(element(v.simd, a, b, v.asel[i]), v.asigned, w);
        let vb = extend(element(v.simd, a, b, v.bsel[i]), v.bsigned, w);
        t[i] = match v.op {
            VideoOp::Add => va + vb,
            VideoOp::Sub => va - vb,
            VideoOp::Avrg => {
                let s = va + vb;
                if s >= 0 {
                    (s + 1) >> 1
                } else {
                    s >> 1
                }
            }
            VideoOp::Absdiff => (va - vb).abs(),
            VideoOp::Min => va.min(vb),
            VideoOp::Max => va.max(vb),
            VideoOp::Set(cmp) => {
                let r = match cmp {
                    CmpOp::Eq => va == vb,
                    CmpOp::Ne => va != vb,
                    CmpOp::Lt => va < vb,
                    CmpOp::Le => va <= vb,
                    CmpOp::Gt => va > vb,
                    CmpOp::Ge => va >= vb,
                    other => panic!("vset has no {other:?}"),
                };
                r as i64
            }
        };
        if v.sat {
            // ERRATA 5: the destination type's lane range.
            let (lo, hi) = if v.dsigned {
                (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
            } else {
                (0, (1i64 << w) - 1)
            };
            t[i] = t[i].clamp(lo, hi);
        }
    }
    if v.add {
        // ERRATA 3: full-precision signed sum, modulo 2^32.
        let mut d = c as i64;
        for (i, ti) in t.iter().enumerate().take(n) {
            if v.mask & (1 << i) != 0 {
                d += ti;
            }
        }
        d as u32
    } else {
        // ERRATA 1, 2: masked lanes from t (truncated), the others raw from c.
        let lane_mask = (1u64 << w) - 1;
        let mut d = 0u64;
        for (i, ti) in t.iter().enumerate().take(n) {
            let sh = w * i as u32;
            let bits = if v.mask & (1 << i) != 0 {
                (*ti as u64) & lane_mask
            } else {
                ((c as u64) >> sh) & lane_mask
            };
            d |= bits << sh;
        }
        d as u32
    }
}

// ---------------------------------------------------------------- compares

/// A scalar float of the given format, widened exactly to f64, after the
/// optional flush of subnormals to sign-preserving zero.
fn to_f64(ty: Type, bits: u64, flush: bool) -> f64 {
    let x = match ty {
        Type::F16 => f16::from_bits(bits as u16).to_f64(),
        Type::Bf16 => bf16::from_bits(bits as u16).to_f64(),
        Type::F32 => f32::from_bits(bits as u32) as f64,
        Type::F64 => f64::from_bits(bits),
        other => panic!("not a scalar float: {other:?}"),
    };
    if flush && is_subnormal_in(x, ty) {
        if x.is_sign_negative() {
            -0.0
        } else {
            0.0
        }
    } else {
        x
    }
}

/// Subnormal in the *source* format (the f64 widening of an f16 subnormal
/// is a normal f64).
fn is_subnormal_in(x: f64, ty: Type) -> bool {
    let min_normal = match ty {
        Type::F16 => f16::MIN_POSITIVE.to_f64(),
        Type::Bf16 => bf16::MIN_POSITIVE.to_f64(),
        Type::F32 => f32::MIN_POSITIVE as f64,
        Type::F64 => f64::MIN_POSITIVE,
        _ => return false,
    };
    x != 0.0 && x.abs() < min_normal
}

fn float_cmp(cmp: CmpOp, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match cmp {
        CmpOp::Eq => !unordered && a == b,
        CmpOp::Ne => !unordered && a != b,
        CmpOp::Lt => !unordered && a < b,
        CmpOp::Le => !unordered && a <= b,
        CmpOp::Gt => !unordered && a > b,
        CmpOp::Ge => !unordered && a >= b,
        CmpOp::Equ => unordered || a == b,
        CmpOp::Neu => unordered || a != b,
        CmpOp::Ltu => unordered || a < b,
        CmpOp::Leu => unordered || a <= b,
        CmpOp::Gtu => unordered || a > b,
        CmpOp::Geu => unordered || a >= b,
        CmpOp::Num => !unordered,
        CmpOp::Nan => unordered,
        other => panic!("{other:?} is not a float compare"),
    }
}

/// `a CmpOp b` on scalar values of type `ty` (raw bits at the type's width).
/// `flush`: subnormal inputs become sign-preserving zero (`.ftz`, or f32 on sm_1x).
pub fn compare(cmp: CmpOp, ty: Type, a: u64, b: u64, flush: bool) -> bool {
    match ty.kind() {
        TypeKind::Float | TypeKind::BFloat => {
            float_cmp(cmp, to_f64(ty, a, flush), to_f64(ty, b, flush))
        }
        TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed => {
            let bits = ty.bits();
            let m = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            let (x, y) = if ty.kind() == TypeKind::Signed {
                (extend64(a & m, bits) as i128, extend64(b & m, bits) as i128)
            } else {
                ((a & m) as i128, (b & m) as i128)
            };
            match cmp {
                CmpOp::Eq => x == y,
                CmpOp::Ne => x != y,
                CmpOp::Lt | CmpOp::Lo => x < y,
                CmpOp::Le | CmpOp::Ls => x <= y,
                CmpOp::Gt | CmpOp::Hi => x > y,
                CmpOp::Ge | CmpOp::Hs => x >= y,
                other => panic!("{other:?} is not an integer compare"),
            }
        }
        TypeKind::Pred => panic!("no pred compares"),
    }
}

fn extend64(x: u64, bits: u32) -> i64 {
    let sh = 64 - bits;
    ((x << sh) as i64) >> sh
}

fn bool_op(op: Option<(BoolOp, PredSrc)>, t: bool, c: bool) -> bool {
    match op {
        None => t,
        Some((BoolOp::And, _)) => t & c,
        Some((BoolOp::Or, _)) => t | c,
        Some((BoolOp::Xor, _)) => t ^ c,
    }
}

/// Whether compares of `ty` flush subnormal inputs: `.ftz`, or (ERRATA 14)
/// f32 on an sm_1x target.
fn flushes(ty: Type, ftz: bool, target: Target) -> bool {
    ftz || (ty == Type::F32 && target.sm < 20)
}

/// The value `set` writes for "true" into `dtype` (ERRATA 17; f32 from 9.7.6.1).
/// With an x2 source the value is per half.
fn set_true(dtype: Type, x2_source: bool) -> u64 {
    match (dtype, x2_source) {
        (Type::U32 | Type::S32, false) => 0xFFFF_FFFF,
        (Type::U32 | Type::S32, true) => 0xFFFF,
        (Type::F32, _) => 0x3F80_0000,
        (Type::U16 | Type::S16, _) => 0xFFFF,
        (Type::F16 | Type::F16x2, _) => 0x3C00,
        (Type::Bf16 | Type::Bf16x2, _) => 0x3F80,
        (other, _) => panic!("set has no {other:?} destination"),
    }
}

/// `set` (9.7.6.1 and 9.7.7.1). `c` is the BoolOp predicate's value (after `!`).
pub fn set(s: &Set, a: u64, b: u64, c: bool, target: Target) -> u64 {
    match s.stype {
        Type::F16x2 | Type::Bf16x2 => {
            let half = if s.stype == Type::F16x2 {
                Type::F16
            } else {
                Type::Bf16
            };
            let tv = set_true(s.dtype, true);
            let mut d = 0;
            for i in 0..2 {
                let (x, y) = ((a >> (16 * i)) & 0xFFFF, (b >> (16 * i)) & 0xFFFF);
                let t = compare(s.cmp, half, x, y, s.ftz);
                if bool_op(s.bool_op, t, c) {
                    d |= tv << (16 * i);
                }
            }
            d
        }
        st => {
            let t = compare(s.cmp, st, a, b, flushes(st, s.ftz, target));
            if bool_op(s.bool_op, t, c) {
                set_true(s.dtype, false)
            } else {
                0
            }
        }
    }
}

/// `setp`: (p, q) = (BoolOp(t, c), BoolOp(!t, c)).
pub fn setp(s: &Setp, a: u64, b: u64, c: bool, target: Target) -> (bool, bool) {
    let t = compare(s.cmp, s.ty, a, b, flushes(s.ty, s.ftz, target));
    (bool_op(s.bool_op, t, c), bool_op(s.bool_op, !t, c))
}

/// `selp`: a bit copy (ERRATA 16).
pub fn selp(_s: &Selp, a: u64, b: u64, c: bool) -> u64 {
    if c {
        a
    } else {
        b
    }
}

/// `slct`: `c >= 0 ? a : b` with ERRATA 14-16 (bit copies, -0 >= 0, NaN -> b,
/// flushed subnormal -> a).
pub fn slct(s: &Slct, a: u64, b: u64, c: u32, target: Target) -> u64 {
    let take_a = match s.ctype {
        Type::S32 => (c as i32) >= 0,
        Type::F32 => {
            let x = to_f64(Type::F32, c as u64, flushes(Type::F32, s.ftz, target));
            !x.is_nan() && x >= 0.0
        }
        other => panic!("slct has no {other:?} c"),
    };
    if take_a {
        a
    } else {
        b
    }
}

// ---------------------------------------------------------------- self-checks

#[test]
fn model_agrees_with_hand_values() {
    // ERRATA 7: vavrg rounds half away from zero.
    let v = Video {
        op: VideoOp::Avrg,
        simd: Simd::X2,
        dsigned: true,
        asigned: true,
        bsigned: true,
        sat: false,
        add: false,
        mask: 0b11,
        mask_explicit: false,
        asel: [0, 1, 0, 0],
        bsel: [2, 3, 0, 0],
        asel_explicit: false,
        bsel_explicit: false,
        sat_first: false,
        d: sim_isa::RegId(0),
        a: sim_isa::RegId(1),
        b: sim_isa::RegId(2),
        c: sim_isa::RegId(3),
    };
    // lane0: (-3 + 0) >> 1 = -2 ; lane1: (3 + 0 + 1) >> 1 = 2
    assert_eq!(video(&v, 0x0003_FFFD, 0, 0), 0x0002_FFFE);
    assert!(compare(CmpOp::Eq, Type::F32, 0x8000_0000, 0, false));
    assert!(compare(CmpOp::Lt, Type::F32, 0x8000_0001, 0, false));
    assert!(!compare(CmpOp::Lt, Type::F32, 0x8000_0001, 0, true));
    assert!(!compare(CmpOp::Lt, Type::F16, 0x8001, 0, true));
    assert!(compare(CmpOp::Lt, Type::F16, 0x8001, 0, false));
    assert!(compare(CmpOp::Lo, Type::U16, 0x7FFF, 0x8000, false));
    assert!(!compare(CmpOp::Lt, Type::S16, 0x7FFF, 0x8000, false));
    assert!(compare(CmpOp::Nan, Type::Bf16, 0x7F81, 0, false));
}
