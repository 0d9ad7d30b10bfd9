//! The fp8 conversions (`.e4m3x2`, `.e5m2x2`) and the `.relu`/`.satfinite`
//! forms of f32 to f16/bf16 in the conversion family: ptxas 13.0.88's
//! verdicts per target and PTX version, `Display`, the formats' values on
//! hand-worked cases, and the SASS oracle's vectors.

use sim_isa::exec::cvt_lane;
use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::*;

fn ver(s: &str) -> PtxVersion {
    PtxVersion::parse(s).unwrap()
}

/// `accept|reject TARGET VERSION TEXT` lines (tools/grids/cvt_fp8.py): the
/// parser and the target gates together must agree with ptxas on each.
#[test]
fn ptxas_verdicts_per_target_and_version() {
    let data = include_str!("../data/cvt-fp8-ptxas.txt");
    let (n, wrong, width) =
        crate::ptxas_grid::per_target_disagreements(data, |verdict, target, version, text| {
            assert!(
                target.sm < 89 || version >= PtxVersion::new(7, 8),
                "the grid holds no module ptxas refuses whole: {text}"
            );
            // ptxas refuses a .b32 register for the .b16 destination: a
            // declaration's width, which the module checks, not the text.
            let width = text.starts_with("cvt.rn.satfinite.e4m3x2.f32 %r5");
            if width {
                assert_eq!(verdict, "reject", "{text}");
            }
            width
        });
    assert_eq!((n, width), (1917, 9), "grid size");
    crate::ptxas_grid::assert_agrees(n, &wrong);
}

/// A form refused for its target or version is `Unsupported`, naming what
/// ptxas asks for.
#[test]
fn gates_name_the_requirement() {
    let cases = [
        (
            "cvt.rn.satfinite.e4m3x2.f32 %h5, %f1, %f2;",
            "sm_86",
            "8.1",
            "sm_89",
        ),
        ("cvt.rn.f16x2.e5m2x2 %r5, %h1;", "sm_89", "8.0", "8.1"),
        (
            "cvt.rn.satfinite.e4m3x2.f16x2 %h5, %r1;",
            "sm_90",
            "7.5",
            "7.8",
        ),
        ("cvt.rn.relu.f16.f32 %h5, %f1;", "sm_75", "8.1", "sm_80"),
        (
            "cvt.rz.satfinite.bf16x2.f32 %r5, %f1, %f2;",
            "sm_90",
            "8.0",
            "8.1",
        ),
        // ptxas 12.4 (13.0.88 no longer knows sm_53): "Feature '.satfinite'
        // requires .target sm_70 or higher".
        (
            "cvt.rn.satfinite.f16.f32 %h5, %f1;",
            "sm_53",
            "8.1",
            "sm_70",
        ),
    ];
    for (text, t, v, need) in cases {
        let mut syms = Symbols::new();
        let i = parse_instruction(text, &mut syms).unwrap();
        let e = check_target(&i, Target::parse(t).unwrap(), Some(ver(v))).expect_err(text);
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{text}: {e}");
        assert!(e.to_string().contains(need), "{text}: {e}");
    }
    // sm_89 with PTX 8.1 and sm_90 with PTX 7.8 both take fp8.
    let mut syms = Symbols::new();
    let i = parse_instruction("cvt.rn.satfinite.e5m2x2.f32 %h5, %f1, %f2;", &mut syms).unwrap();
    check_target(&i, Target::parse("sm_89").unwrap(), Some(ver("8.1"))).unwrap();
    check_target(&i, Target::SM_90, Some(ver("7.8"))).unwrap();
}

#[test]
fn display_round_trips() {
    for text in [
        "cvt.rn.satfinite.e4m3x2.f32 %h5, %f1, %f2;",
        "cvt.rn.satfinite.relu.e5m2x2.f32 %h5, %f1, %f2;",
        "cvt.rn.satfinite.relu.e4m3x2.f16x2 %h5, %r1;",
        "cvt.rn.f16x2.e4m3x2 %r5, %h1;",
        "cvt.rn.relu.f16x2.e5m2x2 %r5, %h1;",
        "cvt.rn.satfinite.f16.f32 %h5, %f1;",
        "cvt.rz.satfinite.relu.bf16x2.f32 %r5, %f1, %f2;",
        "cvt.rn.relu.bf16.f32 %h5, %f1;",
    ] {
        let mut syms = Symbols::new();
        let i = parse_instruction(text, &mut syms).unwrap();
        assert_eq!(i.display(&syms).to_string(), text);
    }
}

fn cvt(text: &str) -> Cvt {
    family!(text, Cvt)
}

fn f(x: f32) -> u64 {
    u64::from(x.to_bits())
}

/// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32` on `a` (upper) and `b`.
fn to8(head: &str, a: f32, b: f32) -> u64 {
    cvt_lane(&cvt(&format!("{head} %h5, %f1, %f2;")), f(a), f(b))
}

/// Values worked out by hand from the formats: e4m3 is bias 7 with no
/// infinities (largest 448 = 0x7e, NaN 0x7f); e5m2 is bias 15 (largest
/// 57344 = 0x7b, infinity 0x7c).
#[test]
fn formats_on_hand_worked_cases() {
    let e4 = "cvt.rn.satfinite.e4m3x2.f32";
    let e5 = "cvt.rn.satfinite.e5m2x2.f32";
    // a in the upper byte: 1.0 = 0 0111 000, 2.0 = 0 1000 000.
    assert_eq!(to8(e4, 1.0, 2.0), 0x3840);
    assert_eq!(to8(e4, 448.0, -448.0), 0x7efe);
    // Overflow and infinity saturate to the largest finite value.
    assert_eq!(to8(e4, 1000.0, f32::NEG_INFINITY), 0x7efe);
    // 464 is halfway between 448 (mantissa 110) and 480 (would be 111,
    // the NaN pattern): ties to even keep 448.
    assert_eq!(to8(e4, 464.0, 0.0), 0x7e00);
    // Subnormals step by 2^-9; 2^-10 ties to even (0), 1.5 * 2^-10 up.
    assert_eq!(to8(e4, 2f32.powi(-9), 2f32.powi(-10)), 0x0100);
    assert_eq!(to8(e4, 1.5 * 2f32.powi(-10), -2f32.powi(-9)), 0x0181);
    assert_eq!(to8(e4, f32::NAN, -f32::NAN), 0x7f7f);
    assert_eq!(to8(e5, 1.0, 57344.0), 0x3c7b);
    assert_eq!(to8(e5, 1e6, f32::INFINITY), 0x7b7b);
    // 1.125 ties to 1.0 (mantissa 00), 1.375 to 1.5 (mantissa 10).
    assert_eq!(to8(e5, 1.125, 1.375), 0x3c3e);
    assert_eq!(to8(e5, -2f32.powi(-16), f32::NAN), 0x817f);
    // .relu: negatives to +0, NaN stays the canonical NaN.
    let r = "cvt.rn.satfinite.relu.e4m3x2.f32";
    assert_eq!(to8(r, -1.0, 1.0), 0x0038);
    assert_eq!(to8(r, f32::NAN, -0.0), 0x7f00);
    // From f16x2 (each half into the same place): 1.0, 2.0.
    let h = cvt("cvt.rn.satfinite.e4m3x2.f16x2 %h5, %r1;");
    assert_eq!(cvt_lane(&h, 0x3c00_4000, 0), 0x3840);
    assert_eq!(cvt_lane(&h, 0x7c00_fbff, 0), 0x7efe);
    // To f16x2: exact; e4m3 NaN is f16's canonical NaN.
    let w = cvt("cvt.rn.f16x2.e4m3x2 %r5, %h1;");
    assert_eq!(cvt_lane(&w, 0x3840, 0), 0x3c00_4000);
    assert_eq!(cvt_lane(&w, 0x01fe, 0), 0x1800_df00);
    assert_eq!(cvt_lane(&w, 0x7f80, 0), 0x7fff_8000);
    let w5 = cvt("cvt.rn.f16x2.e5m2x2 %r5, %h1;");
    assert_eq!(cvt_lane(&w5, 0x7b7c, 0), 0x7b00_7c00);
    let r5 = cvt("cvt.rn.relu.f16x2.e5m2x2 %r5, %h1;");
    assert_eq!(cvt_lane(&r5, 0xbc3c, 0), 0x0000_3c00);
    // .satfinite and .relu to f16 and bf16.
    let one = |t: &str, a: f32| cvt_lane(&cvt(&format!("{t} %h5, %f1;")), f(a), 0);
    assert_eq!(one("cvt.rn.satfinite.f16.f32", 1e6), 0x7bff);
    assert_eq!(one("cvt.rn.satfinite.f16.f32", f32::NEG_INFINITY), 0xfbff);
    assert_eq!(one("cvt.rn.satfinite.f16.f32", f32::NAN), 0x7fff);
    assert_eq!(one("cvt.rn.f16.f32", 1e6), 0x7c00);
    assert_eq!(one("cvt.rn.relu.f16.f32", -2.0), 0);
    assert_eq!(one("cvt.rn.satfinite.bf16.f32", f32::MAX), 0x7f7f);
    assert_eq!(one("cvt.rn.satfinite.relu.bf16.f32", f32::NEG_INFINITY), 0);
}

/// The SASS oracle's vectors (`sass-cvt-fp8.jsonl`: ptxas 13.0.88's sm_90
/// `F2FP` for each form of `cvt-fp8-forms.txt`, run by xtask's interpreter,
/// whose rounding is a nearest-value search, not sim-isa's bit rounding).
#[test]
fn sass_oracle_vectors_pass() {
    crate::vectors::assert_all_pass(include_str!("../data/sass-cvt-fp8.jsonl"), 240);
}
