//! Proptest strategies and helpers shared by the property tests
//! (`props.rs`, `fastpath.rs`, `lane_model.rs`, `fuzz.rs`): one home for the
//! edge values of every format, the valid video instructions, and the
//! proptest configuration.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use sim_isa::{CmpOp, RegId, Simd, Type, Video, VideoOp};

/// Cases from the environment variable `var` (else `default`), no failure
/// files (regressions that matter become explicit tests).
pub fn config(var: &str, default: u32) -> ProptestConfig {
    let cases = std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..ProptestConfig::default()
    }
}

/// All ones in the low `bits` bits (`bits` in 1..=64).
pub fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

// ------------------------------------------------------------ edge values

/// f16: zeros, ±1, ±inf, quiet and signalling NaNs with payloads, the
/// smallest and largest subnormals and normals, ±max.
pub const F16_EDGES: [u64; 18] = [
    0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x7DFF, 0x7E55, 0x0001,
    0x8001, 0x03FF, 0x83FF, 0x0400, 0x7BFF, 0xFBFF,
];
/// bf16, as [`F16_EDGES`].
pub const BF16_EDGES: [u64; 18] = [
    0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0x7FD5, 0x0001, 0x8001,
    0x007F, 0x807F, 0x0080, 0x8080, 0x7F7F, 0xFF7F,
];
/// f32, as [`F16_EDGES`].
pub const F32_EDGES: [u64; 19] = [
    0x0000_0000,
    0x8000_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFC0_0000,
    0x7F80_0001,
    0x7FBF_FFFF,
    0x7FC0_1234,
    0x0000_0001,
    0x8000_0001,
    0x007F_FFFF,
    0x807F_FFFF,
    0x0080_0000,
    0x8080_0000,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
];
/// f64, as [`F16_EDGES`].
pub const F64_EDGES: [u64; 17] = [
    0,
    0x8000_0000_0000_0000,
    0x3FF0_0000_0000_0000,
    0xBFF0_0000_0000_0000,
    0x7FF0_0000_0000_0000,
    0xFFF0_0000_0000_0000,
    0x7FF8_0000_0000_0000,
    0xFFF8_0000_0000_0000,
    0x7FF0_0000_0000_0001,
    0x7FF8_0000_0000_1234,
    1,
    0x8000_0000_0000_0001,
    0x000F_FFFF_FFFF_FFFF,
    0x0010_0000_0000_0000,
    0x7FEF_FFFF_FFFF_FFFF,
    0xFFEF_FFFF_FFFF_FFFF,
    // f32 min subnormal widened: normal in f64, subnormal-looking elsewhere.
    0x36A0_0000_0000_0000,
];

/// Integer edges of a `bits`-wide type: 0, 1, 2, the unsigned max and one
/// below, the signed min, max and min + 1.
pub fn int_edges(bits: u32) -> Vec<u64> {
    let m = width_mask(bits);
    let top = 1u64 << (bits - 1);
    vec![0, 1, 2, m, m - 1, top, top - 1, top + 1]
}

/// Raw bits of one scalar value of `ty`, biased to its edge cases.
pub fn scalar(ty: Type) -> BoxedStrategy<u64> {
    let m = width_mask(ty.bits());
    let edges: Vec<u64> = match ty {
        Type::F16 => F16_EDGES.to_vec(),
        Type::Bf16 => BF16_EDGES.to_vec(),
        Type::F32 => F32_EDGES.to_vec(),
        Type::F64 => F64_EDGES.to_vec(),
        _ => int_edges(ty.bits()),
    };
    prop_oneof![3 => proptest::sample::select(edges), 2 => any::<u64>().prop_map(move |x| x & m)]
        .boxed()
}

/// Any value of `ty` (x2 types as two halves).
pub fn value(ty: Type) -> BoxedStrategy<u64> {
    match ty {
        Type::F16x2 => (scalar(Type::F16), scalar(Type::F16))
            .prop_map(|(l, h)| l | (h << 16))
            .boxed(),
        Type::Bf16x2 => (scalar(Type::Bf16), scalar(Type::Bf16))
            .prop_map(|(l, h)| l | (h << 16))
            .boxed(),
        t => scalar(t),
    }
}

/// A pair of values, often equal, sign-flipped or adjacent, so compares see ties.
pub fn pair(ty: Type) -> BoxedStrategy<(u64, u64)> {
    let m = width_mask(ty.bits());
    let sign = match ty {
        Type::F16x2 | Type::Bf16x2 => 0x8000_8000,
        t => 1u64 << (t.bits() - 1),
    };
    value(ty)
        .prop_flat_map(move |a| {
            let b = prop_oneof![
                3 => value(ty),
                1 => Just(a),
                1 => Just(a ^ sign),
                1 => Just(a.wrapping_add(1) & m),
            ];
            (Just(a), b)
        })
        .boxed()
}

/// A 64-bit register value of no particular type: random, or an edge of some
/// format (f16/bf16 pairs, f32 and integer words, f64 and 64-bit integers).
pub fn any_width_value() -> impl Strategy<Value = u64> {
    let halves: Vec<u64> = F16_EDGES.iter().chain(&BF16_EDGES).copied().collect();
    let mut words = F32_EDGES.to_vec();
    for bits in [8, 16, 32] {
        words.extend(int_edges(bits));
    }
    let mut dwords = F64_EDGES.to_vec();
    dwords.extend(int_edges(64));
    prop_oneof![
        3 => any::<u64>(),
        1 => any::<u32>().prop_map(u64::from),
        1 => any::<u8>().prop_map(u64::from),
        2 => (proptest::sample::select(halves.clone()), proptest::sample::select(halves))
            .prop_map(|(lo, hi)| lo | hi << 16),
        2 => proptest::sample::select(words),
        1 => proptest::sample::select(dwords),
        1 => 0u64..2,
    ]
}

/// f32 bits: random, an edge, or a subnormal of either sign.
pub fn f32_bits() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        proptest::sample::select(F32_EDGES.map(|x| x as u32).to_vec()),
        (0u32..0x80_0000, any::<bool>()).prop_map(|(m, s)| m | (u32::from(s) << 31)),
    ]
}

/// A 32-bit video operand: random, or built of edge bytes / half-words.
pub fn video_word() -> BoxedStrategy<u32> {
    let bytes = [0u32, 1, 0x7F, 0x80, 0x81, 0xFE, 0xFF];
    let halves = [0u32, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF];
    prop_oneof![
        any::<u32>(),
        proptest::array::uniform4(proptest::sample::select(bytes.to_vec()))
            .prop_map(|b| b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)),
        proptest::array::uniform2(proptest::sample::select(halves.to_vec()))
            .prop_map(|h| h[0] | (h[1] << 16)),
    ]
    .boxed()
}

// ------------------------------------------------------------ instructions

/// The comparisons `vset` accepts: `eq ne lt le gt ge`, the first six of
/// [`CmpOp::ALL`].
pub fn vset_cmps() -> Vec<CmpOp> {
    CmpOp::ALL[..6].to_vec()
}

/// A valid `vop2`/`vop4` (what the parser can produce: no `.sat` with `.add`
/// (errata 6), none on vset (errata 8), listed masks, in-range selectors)
/// with `d, a, b, c` = registers 0, 1, 2, 3, or `c` = `d` as in the spec's
/// examples (`r1, ..., r1`).
pub fn valid_video() -> impl Strategy<Value = Video> {
    let ops = prop_oneof![
        proptest::sample::select(vec![
            VideoOp::Add,
            VideoOp::Sub,
            VideoOp::Avrg,
            VideoOp::Absdiff,
            VideoOp::Min,
            VideoOp::Max
        ]),
        proptest::sample::select(vset_cmps()).prop_map(VideoOp::Set),
    ];
    (
        ops,
        prop_oneof![Just(Simd::X2), Just(Simd::X4)],
        any::<[bool; 3]>(),
        0u8..3,
        1u8..16,
        any::<[u8; 4]>(),
        any::<[u8; 4]>(),
        any::<bool>(),
    )
        .prop_map(
            |(op, simd, [ds, asg, bsg], sec, mask, asel, bsel, alias_c)| {
                let is_set = matches!(op, VideoOp::Set(_));
                let n = simd.lanes();
                // 0: merge, 1: .sat (not on vset), 2: .add (errata 6, 8).
                let (sat, add) = match sec {
                    1 if !is_set => (true, false),
                    2 => (false, true),
                    _ => (false, false),
                };
                let span = 2 * n as u8;
                let fix = |s: [u8; 4]| {
                    let mut o = [0u8; 4];
                    for (i, x) in o.iter_mut().take(n).enumerate() {
                        *x = s[i] % span;
                    }
                    o
                };
                Video {
                    op,
                    simd,
                    dsigned: ds && !is_set,
                    asigned: asg,
                    bsigned: bsg,
                    sat,
                    add,
                    mask: if n == 2 { (mask % 3) + 1 } else { mask },
                    mask_explicit: true,
                    asel: fix(asel),
                    bsel: fix(bsel),
                    asel_explicit: true,
                    bsel_explicit: true,
                    sat_first: false,
                    d: RegId(0),
                    a: RegId(1),
                    b: RegId(2),
                    c: if alias_c { RegId(0) } else { RegId(3) },
                }
            },
        )
}
