//! The extended-precision forms in launches (`tests/data/carry`, issue
//! 23): nvcc 13.0.88's double `sin` (whose large-argument reduction chains
//! `mad.lo.cc`/`madc`) and `unsigned __int128` arithmetic (`add.cc`,
//! `addc`, `sub.cc`, `subc`, the mad chains), which the launch gate
//! refused whole before the carry flag was modelled.

use crate::same_on_any_threads;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/carry")
        .join(name)
}

fn doubles(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Distance in units in the last place between two finite doubles of one
/// sign (or zeros): their bit patterns' difference.
fn ulps(a: f64, b: f64) -> u64 {
    let key = |x: f64| {
        let b = x.to_bits() as i64;
        if b < 0 {
            i64::MIN - b
        } else {
            b
        }
    };
    key(a).abs_diff(key(b))
}

/// `sin` of 32 arguments, the huge ones (1e22, 1e300, 2^1000, the largest
/// double) through libdevice's slow path: within 2 ulp of Python's
/// `math.sin` (`make.py`; CUDA documents 2 ulp), the same bits on any
/// number of SMs and host threads. sin(1e22) = -0.8522008497671888 is the
/// classic reduction test (a naive reduction gets the sign wrong).
#[test]
fn double_sin_with_huge_arguments() {
    let reference = doubles(&std::fs::read(data("sin.ref.bin")).unwrap());
    let args = doubles(&std::fs::read(data("sin.in.bin")).unwrap());
    let mut first: Option<Vec<u8>> = None;
    for sms in [1, 2] {
        let run = same_on_any_threads(&data("sin.json"), sms);
        let out = &run.buffers[1];
        let got = doubles(out);
        for (i, (&g, &r)) in got.iter().zip(&reference).enumerate() {
            assert!(
                ulps(g, r) <= 2,
                "sin({:e}) = {g:e}, Python {r:e} ({} ulp)",
                args[i],
                ulps(g, r)
            );
        }
        assert_eq!(args[18], 1e22);
        assert!((got[18] - -0.8522008497671888).abs() < 1e-15, "{}", got[18]);
        match &first {
            Some(f) => assert_eq!(f, out, "{sms} SMs"),
            None => first = Some(out.clone()),
        }
    }
}

/// 128-bit `a * b + c` and `a * b - (c:c)` per thread: every output word
/// equals Python's (the launch file's expected bytes), on 1 and 2 SMs.
#[test]
fn u128_arithmetic() {
    for sms in [1, 2] {
        let run = same_on_any_threads(&data("u128.json"), sms);
        assert_eq!(run.launch.expected.len(), 1);
        // Thread 0: (2^64-1)^2 + 2^64-1 = 2^128 - 2^64: halves 0, 2^64-1.
        let out = &run.buffers[1];
        assert_eq!(&out[0..8], &0u64.to_le_bytes());
        assert_eq!(&out[8..16], &u64::MAX.to_le_bytes());
    }
}

/// A 24-byte structure passed and returned by value (`struct.cu`: two ints
/// as `.v2.b32`, an f64, a b16 at offset 16, the three 8-byte parts of
/// `sim-module/src/inline_param.rs`): every field of every thread equals
/// Python's (the launch file's expected bytes), on 1 and 2 SMs.
#[test]
fn a_structure_passed_by_value() {
    for sms in [1, 2] {
        let run = same_on_any_threads(&data("struct.json"), sms);
        assert_eq!(run.launch.expected.len(), 1);
        // Thread 0: v = -50: fields -150, -50, -396, -2.
        let out = &run.buffers[1];
        let field = |k: usize| i32::from_le_bytes(out[4 * k..4 * k + 4].try_into().unwrap());
        assert_eq!(
            [field(0), field(1), field(2), field(3)],
            [-150, -50, -396, -2]
        );
    }
}
