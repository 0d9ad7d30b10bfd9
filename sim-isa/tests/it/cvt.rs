//! The conversion family (`cvt`): hardware vectors, the manual's edge cases,
//! ptxas's verdicts on every type pair and modifier, and the warp form
//! against the scalar lanes.

use sim_isa::exec::cvt_lane;
use sim_isa::*;

/// Every cvt vector recorded on an H100 (see the file's header).
#[test]
fn h100_vectors_pass() {
    crate::vectors::assert_all_pass(include_str!("../data/h100-cvt.jsonl"), 2640);
}

/// The parser accepts exactly what ptxas 11.8 accepts over the grid (see
/// the data file's header).
#[test]
fn agrees_with_ptxas_on_the_grid() {
    let (n, wrong) = crate::ptxas_grid::disagreements(include_str!("../data/cvt-ptxas.txt"));
    assert_eq!(n, 5256);
    crate::ptxas_grid::assert_agrees(n, &wrong);
}

fn cvt(text: &str) -> Cvt {
    family!(text, Cvt)
}

/// `cvt_lane` of `head` (`cvt.rn.f32.s32`) on `a`.
fn lane(head: &str, a: u64) -> u64 {
    cvt_lane(&cvt(&format!("{head} %d, %a;")), a, 0)
}

#[test]
fn manual_edge_cases() {
    // Integer to integer: wrap, or clamp with .sat; 8-bit results extend
    // into their 16-bit register.
    assert_eq!(lane("cvt.u8.u32", 0x1ff), 0xff);
    assert_eq!(lane("cvt.s8.s32", 0x80), 0xff80);
    assert_eq!(lane("cvt.sat.s8.s32", 0x1000), 0x7f);
    assert_eq!(lane("cvt.sat.u32.s64", u64::MAX), 0);
    assert_eq!(lane("cvt.s64.s32", 0x8000_0000), 0xffff_ffff_8000_0000);
    // Float to integer rounds as told and clamps.
    let f = |x: f32| u64::from(x.to_bits());
    assert_eq!(lane("cvt.rni.s32.f32", f(2.5)), 2);
    assert_eq!(lane("cvt.rni.s32.f32", f(3.5)), 4);
    assert_eq!(lane("cvt.rmi.s32.f32", f(-0.5)), 0xffff_ffff);
    assert_eq!(lane("cvt.rpi.u32.f32", f(0.25)), 1);
    assert_eq!(lane("cvt.rzi.s32.f32", f(-1e20)), 0x8000_0000);
    assert_eq!(lane("cvt.rzi.u32.f32", f(-3.0)), 0);
    // Integer to float: round once from the exact value.
    assert_eq!(lane("cvt.rn.f32.u32", 0x0100_0001), f(16_777_216.0));
    assert_eq!(lane("cvt.rp.f32.u32", 0x0100_0001), f(16_777_218.0));
    assert_eq!(lane("cvt.rz.f32.s64", u64::MAX), f(-1.0));
    // f64 to f32: directed rounding, overflow, subnormals.
    let d = |x: f64| x.to_bits();
    assert_eq!(lane("cvt.rn.f32.f64", d(1e300)), f(f32::INFINITY));
    assert_eq!(lane("cvt.rz.f32.f64", d(1e300)), f(f32::MAX));
    assert_eq!(lane("cvt.rm.f32.f64", d(-1e300)), f(f32::NEG_INFINITY));
    assert_eq!(lane("cvt.rp.f32.f64", d(1e-300)), 1);
    assert_eq!(lane("cvt.rn.ftz.f32.f64", d(1e-40)), 0);
    assert_eq!(
        lane("cvt.rn.f32.f64", d(1e-40)),
        u64::from(1e-40f32.to_bits())
    );
    // f32 to f16: ties to even, overflow.
    assert_eq!(lane("cvt.rn.f16.f32", f(65520.0)), 0x7c00);
    assert_eq!(lane("cvt.rz.f16.f32", f(65520.0)), 0x7bff);
    assert_eq!(lane("cvt.rn.f16.f32", f(1.0 + 1.0 / 2048.0)), 0x3c00);
    // .sat clamps float results to [0, 1]; NaN to +0.
    assert_eq!(lane("cvt.rn.sat.f32.s32", 5), f(1.0));
    assert_eq!(lane("cvt.sat.f32.f32", f(f32::NAN)), 0);
    // Packed: a in the upper half.
    let p = cvt("cvt.rn.f16x2.f32 %d, %a, %b;");
    assert_eq!(cvt_lane(&p, f(1.0), f(2.0)), 0x3c00_4000);
}

mod props {
    use crate::strategies::any_width_value;
    use proptest::prelude::*;
    use sim_isa::db::forms;
    use sim_isa::parse::parse_instruction;
    use sim_isa::*;

    /// Every declared cvt form (parsed once).
    fn cvt_forms() -> &'static [Cvt] {
        static ALL: std::sync::OnceLock<Vec<Cvt>> = std::sync::OnceLock::new();
        ALL.get_or_init(|| {
            forms()
                .into_iter()
                .filter_map(|f| {
                    let mut syms = Symbols::new();
                    // The cvt forms alone (a projection, not a fact).
                    let parsed = parse_instruction(&f.text, &mut syms);
                    if let Ok(Instruction { op: Op::Cvt(x), .. }) = parsed {
                        Some(x)
                    } else {
                        None
                    }
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        /// The warp form (`execute`) equals `cvt_lane` lifted lane by lane.
        #[test]
        fn warp_form_matches_scalar_lanes(
            i in any::<prop::sample::Index>(),
            contents in prop::collection::vec(prop::array::uniform32(any_width_value()), 4),
            active in prop_oneof![Just(u32::MAX), any::<u32>()],
        ) {
            let all = cvt_forms();
            let x = all[i.index(all.len())];
            crate::fastpath::check(Op::Cvt(x), None, &contents, active, Target::SM_90, 1)?;
        }
    }
}

/// The bf16 gates as ptxas 13.0.88 decides them per target and `.version`
/// (tests/data/cvt-bf16-gates.txt): f32 to bf16 from sm_80 and PTX 7.0,
/// bf16 to f32 from sm_80 and PTX 7.8, bf16 with other types from sm_90.
#[test]
fn bf16_gates_agree_with_ptxas_per_target_and_version() {
    let mut n = 0;
    for line in include_str!("../data/cvt-bf16-gates.txt").lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut w = line.splitn(4, ' ');
        let (v, t, verdict, text) = (
            w.next().unwrap(),
            w.next().unwrap(),
            w.next().unwrap(),
            w.next().unwrap(),
        );
        let version = PtxVersion::parse(v).unwrap();
        let target = Target::parse(t).unwrap();
        if target.sm >= 89 && version < PtxVersion::new(7, 8) {
            // "PTX .version 7.0 does not support .target sm_89": ptxas
            // refuses the module whatever it holds.
            assert_eq!(verdict, "reject", "{line}");
            continue;
        }
        let mut syms = Symbols::new();
        let got = sim_isa::parse::parse_for_target(text, &mut syms, target, Some(version));
        match (verdict, &got) {
            ("accept", Ok(_)) => {}
            // Refused by target or version, as ptxas refuses it.
            ("reject", Err(IsaError::Unsupported { .. })) => {}
            _ => panic!("{line}: sim-isa gives {got:?}"),
        }
        n += 1;
    }
    assert_eq!(n, 56);
}
