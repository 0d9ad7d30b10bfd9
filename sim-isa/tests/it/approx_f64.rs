//! `rcp.approx.ftz.f64` and `rsqrt.approx{.ftz}.f64`: ptxas's verdicts per
//! target and PTX version (`tests/data/approx-f64-ptxas.txt`, written by
//! `tools/ptxas_grid/approx_f64_grid.py`), and the lanes of the code ptxas
//! 13.0.88 emits for sm_90 around `MUFU.RCP64H`/`MUFU.RSQ64H`, which an
//! H200 showed read the `.f32` units' tables (docs/validation.md;
//! `tests/data/h200-approx-f64.jsonl.gz`, `vectors::h200_approx_f64`).

use crate::grid;
use sim_isa::exec::float_lane;
use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::*;
use std::cmp::Ordering;

const GRID: &str = include_str!("../data/approx-f64-ptxas.txt");

/// The grid's targets, the `.version` each verdict was given at (sm_35 and
/// sm_50 by ptxas 11.8, the rest by 13.0.88) and each target's first.
const TARGETS: [(&str, &str, &str); 5] = [
    ("sm_35", "7.8", "3.1"),
    ("sm_50", "7.8", "4.0"),
    ("sm_75", "9.0", "6.3"),
    ("sm_80", "9.0", "7.0"),
    ("sm_90", "9.0", "7.8"),
];

/// Each line against the parser and `check_target`: ptxas's verdict per
/// target, the lowest version on the first accepting target and (unless it
/// is the target's first) the one below it refused.
#[test]
fn agrees_with_ptxas_per_target() {
    // The directed `.f64` reciprocal's `.ftz` form, valid PTX simcli does
    // not run (`float_arith::unimplemented_float_forms`).
    let unrun = |t: &str| t == "rcp.rn.ftz.f64 %fd5, %fd1;";
    let (n, accepted, wrong) = grid::check_first_versions(GRID, &TARGETS, &unrun, &[]);
    // rcp and rsqrt x f64/f32 x {none, .approx, .rn, .full} x .ftz x .sat.
    assert_eq!((n, accepted), (64, 11));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The versions ptxas 11.8 names below sm_35's own (the grid's `# below`
/// lines): `rcp.approx.f64` needs PTX 2.1, `rsqrt.approx.ftz.f64` 4.0 (the
/// grid's lowest), `rsqrt.approx.f64` nothing past f64's own gate.
#[test]
fn version_gates() {
    for msg in [
        "# below 3.1: Feature 'rcp.approx.f64' requires PTX ISA .version 2.1 or later",
        "# below 3.1: Feature 'rsqrt.approx.ftz.f64' requires PTX ISA .version 4.0 or later",
    ] {
        assert!(GRID.contains(msg), "{msg}");
    }
    let sm35 = Target::parse("sm_35").unwrap();
    for (text, ok, refused) in [
        ("rcp.approx.ftz.f64 %fd1, %fd2;", "2.1", Some("2.0")),
        ("rsqrt.approx.ftz.f64 %fd1, %fd2;", "4.0", Some("3.2")),
        ("rsqrt.approx.f64 %fd1, %fd2;", "1.0", None),
    ] {
        let i = parse_instruction(text, &mut Symbols::new()).unwrap();
        let v = |s: &str| Some(PtxVersion::parse(s).unwrap());
        assert!(check_target(&i, sm35, v(ok)).is_ok(), "{text} {ok}");
        if let Some(r) = refused {
            assert!(check_target(&i, sm35, v(r)).is_err(), "{text} {r}");
        }
        // f64 arithmetic: sm_13.
        assert!(check_target(&i, Target::parse("sm_12").unwrap(), None).is_err());
    }
}

fn lane(text: &str, a: u64) -> u64 {
    float_lane(&family!(text, Float), a, 0, 0)
}

fn rsqrt(a: u64) -> u64 {
    lane("rsqrt.approx.f64 %fd1, %fd2;", a)
}

fn rsqrt_ftz(a: u64) -> u64 {
    lane("rsqrt.approx.ftz.f64 %fd1, %fd2;", a)
}

/// How `a^2 x` compares with 1, exactly (`a`, `x` positive and finite).
fn cmp_square_times(a: f64, x: f64) -> Ordering {
    // A value as an integer mantissa and a power of two.
    let split = |v: f64| {
        let b = v.to_bits();
        let (e, m) = ((b >> 52) as i32, b & ((1 << 52) - 1));
        if e == 0 {
            (u128::from(m), -1074)
        } else {
            (u128::from(m | (1 << 52)), e - 1075)
        }
    };
    let ((am, ae), (xm, xe)) = (split(a), split(x));
    let a2 = am * am; // at most 106 bits
    let lo = (a2 & u128::from(u64::MAX)) * xm;
    let hi = (a2 >> 64) * xm + (lo >> 64);
    let lo = lo as u64;
    // The product hi * 2^64 + lo, times 2^s.
    let s = 2 * ae + xe;
    let bits = if hi > 0 {
        192 - hi.leading_zeros() as i32
    } else {
        64 - lo.leading_zeros() as i32
    };
    let pow2 = hi.count_ones() + lo.count_ones() == 1;
    let top = bits - 1 + s;
    if pow2 {
        top.cmp(&0)
    } else if top >= 0 {
        // Above 2^top.
        Ordering::Greater
    } else {
        // Below 2^(top + 1) <= 1.
        Ordering::Less
    }
}

/// Sources spread over the positive normal and subnormal range (a fixed
/// linear congruential sequence).
fn sources(n: usize) -> Vec<u64> {
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (s >> 1) % 0x7ff0_0000_0000_0000
        })
        .chain([1, 2, 0x000f_ffff_ffff_ffff, 0x0010_0000_0000_0000])
        .chain([0x7fef_ffff_ffff_ffff, 0x3ff0_0000_0000_0001])
        .collect()
}

/// `rsqrt.approx.f64` on special values, exactly as the sm_90 code's slow
/// path gives them.
#[test]
fn rsqrt_f64_special_values() {
    for (a, want) in [
        (0u64, 0x7ff0_0000_0000_0000u64),
        (0x8000_0000_0000_0000, 0xfff0_0000_0000_0000),
        (0x7ff0_0000_0000_0000, 0),
        (0xfff0_0000_0000_0000, 0xfff8_0000_0000_0000),
        // A NaN comes back quieted (`DADD x, x`).
        (0x7ff0_0000_0000_0001, 0x7ff8_0000_0000_0001),
        (0xfff8_0000_dead_beef, 0xfff8_0000_dead_beef),
        // Negative sources, subnormals too.
        (0xbff0_0000_0000_0000, 0xfff8_0000_0000_0000),
        (0x8000_0000_0000_0001, 0xfff8_0000_0000_0000),
        // Subnormals, scaled by 2^54 and back by 2^27: 2^-1074 -> 2^537,
        // 2^-1072 -> 2^536.
        (1, 0x6180_0000_0000_0000),
        (4, 0x6170_0000_0000_0000),
        // Powers of four are exact: 4 -> 0.5, 2^-1022 -> 2^511.
        (0x4010_0000_0000_0000, 0x3fe0_0000_0000_0000),
        (0x0010_0000_0000_0000, 0x5fe0_0000_0000_0000),
        (0x3ff0_0000_0000_0000, 0x3ff0_0000_0000_0000),
    ] {
        assert_eq!(rsqrt(a), want, "{a:#x}");
    }
}

/// `rsqrt.approx.f64` on positive normal and subnormal values is faithful:
/// the exact `1/sqrt(x)` lies strictly between the result's neighbours
/// (the correction after the 20-bit model leaves a relative error near
/// 2^-60, and its rounding half a unit; docs/validation.md).
#[test]
fn rsqrt_f64_is_within_an_ulp() {
    for a in sources(20_000) {
        let x = f64::from_bits(a);
        let r = f64::from_bits(rsqrt(a));
        assert!(r.is_normal(), "{a:#x}");
        assert_eq!(cmp_square_times(r.next_down(), x), Ordering::Less, "{a:#x}");
        assert_eq!(
            cmp_square_times(r.next_up(), x),
            Ordering::Greater,
            "{a:#x}"
        );
    }
}

/// `rsqrt.approx.ftz.f64` is `MUFU.RSQ64H` alone: the high word of the
/// unit (the `.f32` `MUFU.RSQ` table at the high word's 20 fraction bits,
/// truncated to 20), the low word 0.
#[test]
fn rsqrt_ftz_f64_is_the_high_word_unit() {
    for (a, want) in [
        (0x4010_0000_0000_0000u64, 0x3fe0_0000_0000_0000u64),
        // 1/sqrt(2) = 0x3fe6a09e667f3bcd, truncated.
        (0x4000_0000_0000_0000, 0x3fe6_a09e_0000_0000),
        // The low word is not read.
        (0x4000_0000_ffff_ffff, 0x3fe6_a09e_0000_0000),
        // An H200's result one unit above the truncated exact root
        // (`tests/data/h200-approx-f64.jsonl.gz`).
        (0x4c67_38fe_0589_a063, 0x39b2_c82a_0000_0000),
        (0, 0x7ff0_0000_0000_0000),
        (0x8000_0000_0000_0000, 0xfff0_0000_0000_0000),
        // Subnormals are zeros (`.ftz`), of their sign.
        (0x000f_ffff_ffff_ffff, 0x7ff0_0000_0000_0000),
        (0x8000_0000_0000_0001, 0xfff0_0000_0000_0000),
        (0x7ff0_0000_0000_0000, 0),
        (0xfff0_0000_0000_0000, 0x7fff_ffff_0000_0000),
        (0xbff0_0000_0000_0000, 0x7fff_ffff_0000_0000),
        (0x7ff8_0000_0000_0001, 0x7fff_ffff_0000_0000),
    ] {
        assert_eq!(rsqrt_ftz(a), want, "{a:#x}");
    }
    // Normal values: the `.f32` table's result (within about an f32 unit,
    // an eighth of a 20-bit one, of the exact root) truncated, so from a
    // little more than one 20-bit unit below 1/sqrt(x_hi) to an eighth
    // above: exact - 1.25 units < r < exact + 0.25 units.
    for a in sources(5_000).into_iter().filter(|a| a >> 52 != 0) {
        let x_hi = f64::from_bits(a & !0xffff_ffff);
        let r = rsqrt_ftz(a);
        assert_eq!(r & 0xffff_ffff, 0, "{a:#x}");
        let r = f64::from_bits(r);
        let unit = f64::from_bits((r.to_bits() >> 52) << 52) / f64::from(1 << 20);
        let (down, up) = (r - 0.25 * unit, r + 1.25 * unit);
        assert_eq!(cmp_square_times(down, x_hi), Ordering::Less, "{a:#x}");
        assert_eq!(cmp_square_times(up, x_hi), Ordering::Greater, "{a:#x}");
    }
}
