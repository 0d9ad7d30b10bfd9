//! The WMMA forms added after the first shapes: `.tf32` (`m16n16k8`),
//! `.b1` (`m8n8k128`, `.xor.popc` and `.and.popc`) and f64's directed
//! roundings (`m8n8k4` `.rz`, `.rm`, `.rp`), one warp each through
//! `wmma.rs`'s harness: every lane's fragment registers after the loads
//! against the layouts read from ptxas 13.0.88's sm_90 machine code
//! (docs/wmma.md), and every element of `d` against the statement's
//! meaning.

use crate::wmma::{form, run_form, small, C, F, T};

/// tf32 with small integers: exact, every layout pair.
#[test]
fn m16n16k8_tf32_small_integers() {
    for col in [[F, C, F, C], [C, F, C, F], [F, F, F, F], [C, C, C, C]] {
        let f = form("m16n16k8", T::Tf32, T::F32, T::F32, col);
        run_form(&f, small(1, -3, 7), small(2, -2, 5), small(3, -50, 100));
    }
}

/// The tensor core reads a tf32 source's sign, exponent and top 10
/// fraction bits: `HMMA.1684.F32.TF32` is fed the loaded registers as
/// they are (docs/wmma.md), so `1 + 2^-11` (bit 12, below tf32's last)
/// counts as 1, and `1.5 + 2^-10 + 2^-13` as `1.5 + 2^-10`. The harness's
/// reference clears the 13 bits; here by hand too.
#[test]
fn m16n16k8_tf32_ignores_the_low_13_bits() {
    let f = form("m16n16k8", T::Tf32, T::F32, T::F32, [F, C, F, F]);
    let a = |i: usize, k: usize| match (i, k) {
        (0, 0) => 1.0 + 2f64.powi(-11),
        (0, 1) => 1.5 + 2f64.powi(-10) + 2f64.powi(-13),
        (0, _) => 0.0,
        _ => small(1, -3, 7)(i, k),
    };
    let b = |k: usize, j: usize| if k < 2 { 1.0 } else { small(2, -2, 5)(k, j) };
    let c = |i: usize, j: usize| {
        if i == 0 {
            0.0
        } else {
            small(3, -50, 100)(i, j)
        }
    };
    let d = run_form(&f, a, b, c);
    let want = 1.0 + 1.5 + 2f32.powi(-10);
    assert_eq!(d[0][0], u64::from(want.to_bits()));
}

/// `wmma.mma` with tf32 is four `HMMA.1684` (docs/wmma.md): `k` 0-3 into
/// `c`, then 4-7 into that result, each step rounded to f32 (toward zero:
/// the MMA-Sim model of exec/mma.rs). `2^25 + 1` then `+ 3` gives `2^25`
/// twice over; one step over all eight would give `2^25 + 4`, an f32.
#[test]
fn m16n16k8_tf32_adds_k_in_two_rounded_steps() {
    let mut f = form("m16n16k8", T::Tf32, T::F32, T::F32, [F, C, F, F]);
    f.own_row0 = true;
    let a = |i: usize, k: usize| match (i, k) {
        (0, 0) => 1.0,
        (0, 4..=6) => 1.0,
        (0, _) => 0.0,
        _ => small(1, -3, 7)(i, k),
    };
    let b = |k: usize, j: usize| if j == 0 { 1.0 } else { small(2, -2, 5)(k, j) };
    let c = |i: usize, j: usize| {
        if i == 0 {
            2f64.powi(25)
        } else {
            small(3, -50, 100)(i, j)
        }
    };
    let d = run_form(&f, a, b, c);
    assert_eq!(d[0][0], u64::from(2f32.powi(25).to_bits()));
}

/// Bits, different for each matrix and position.
fn bits(seed: usize) -> impl Fn(usize, usize) -> f64 {
    move |r, c| ((r * 13 + c * 7 + seed * 5 + (r * c) % 3) % 2) as f64
}

/// b1 `.xor.popc`: `c` plus the count of differing bits; `.and.popc`:
/// of common ones (the harness's sums of `x + y - 2xy` and `xy`).
#[test]
fn m8n8k128_b1_popc() {
    for op in ["xor", "and"] {
        let mut f = form("m8n8k128", T::B1, T::S32, T::S32, [F, C, F, C]);
        f.bop = Some(op);
        let d = run_form(&f, bits(1), bits(2), small(3, -500, 1000));
        // d[0][0] by hand: a[0][k] = (7k + 5) % 2, b[k][0] = (13k + 10) % 2.
        let ones: i64 = (0..128)
            .map(|k| {
                let (x, y) = ((7 * k + 5) % 2, (13 * k + 10) % 2);
                if op == "xor" {
                    x ^ y
                } else {
                    x & y
                }
            })
            .sum();
        // c[0][0] = 15 % 1000 - 500.
        let c00 = -485;
        assert_eq!(d[0][0], u64::from((ones + c00) as i32 as u32), "{op}");
    }
}

/// b1's sum wraps at 32 bits (`IADD3` after `BMMA`).
#[test]
fn m8n8k128_b1_wraps() {
    let mut f = form("m8n8k128", T::B1, T::S32, T::S32, [F, C, C, F]);
    f.bop = Some("xor");
    let a = |_: usize, _: usize| 1.0;
    let b = |_: usize, _: usize| 0.0;
    let c = |i: usize, j: usize| f64::from(i32::MAX) - (i + j) as f64;
    let d = run_form(&f, a, b, c);
    // 2^31 - 1 + 128 wraps to -2^31 + 127.
    assert_eq!(d[0][0], u64::from((i32::MIN + 127) as u32));
}

/// f64 `.rz`, `.rm`, `.rp` (`DMMA.8x8x4.RZ` ...): the chain of fused
/// multiply-adds from `c`, each rounded in the mode. Row 0 adds 2 (from
/// `c` and `k` 0) and then `2^-60` three times (checked with Python's
/// exact fractions): toward zero and down it stays 2; up, each step goes one unit (2^-51)
/// up, `2 + 3 * 2^-51`. From `c = -3`: -2, then toward zero and up each
/// step one unit (2^-52) toward zero, `-(2 - 3 * 2^-52)`; down, -2.
#[test]
fn m8n8k4_f64_directed_roundings() {
    for (rnd, pos, neg) in [
        ("rz", 2.0, -(2.0 - 3.0 * 2f64.powi(-52))),
        ("rm", 2.0, -2.0),
        (
            "rp",
            2.0 + 3.0 * 2f64.powi(-51),
            -(2.0 - 3.0 * 2f64.powi(-52)),
        ),
        ("rn", 2.0, -2.0),
    ] {
        let mut f = form("m8n8k4", T::F64, T::F64, T::F64, [F, C, F, C]);
        f.rnd = Some(rnd);
        f.own_row0 = true;
        let a = |i: usize, k: usize| match (i, k) {
            (0, 0) => 1.0,
            (0, _) => 2f64.powi(-60),
            _ => small(1, -9, 19)(i, k),
        };
        let b = |k: usize, j: usize| if j < 2 { 1.0 } else { small(2, -9, 19)(k, j) };
        let c = |i: usize, j: usize| match (i, j) {
            (0, 0) => 1.0,
            (0, 1) => -3.0,
            _ => small(3, -99, 199)(i, j),
        };
        let d = run_form(&f, a, b, c);
        assert_eq!(d[0][0], pos.to_bits(), "{rnd} +");
        assert_eq!(d[0][1], neg.to_bits(), "{rnd} -");
    }
}
