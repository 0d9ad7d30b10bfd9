//! Damaged traces: a clear error and exit 2, never a panic.

use crate::{parts, root, s, scratch, simcli};
use sim_trace::binfmt::{from_bytes, to_bytes, TraceError};

fn sample_bytes() -> Vec<u8> {
    let text = std::fs::read_to_string(root().join("traces/threshold.ptx")).unwrap();
    to_bytes(&sim_trace::kernel::parse_kernel("threshold.ptx", &text).unwrap()).unwrap()
}

fn run_bytes(name: &str, bytes: &[u8]) -> (i32, String) {
    let dir = scratch(&format!("corrupt_{name}"));
    let f = dir.join("t.bin");
    std::fs::write(&f, bytes).unwrap();
    let (c, out, e) = parts(&simcli(&["run", s(&f)]));
    assert!(out.is_empty(), "nothing simulated: {out}");
    let (c2, _, e2) = parts(&simcli(&["dump", s(&f)]));
    assert_eq!(c2, 2, "dump {name}: {e2}");
    (c, e)
}

/// Asserts that simcli refuses `bytes` (exit 2) with `want` in its message.
fn refused(name: &str, bytes: &[u8], want: &str) {
    let (c, e) = run_bytes(name, bytes);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains(want), "{e}");
}

#[test]
fn truncated() {
    let b = sample_bytes();
    for cut in [3, 10, 12, 15, b.len() / 2, b.len() - 1] {
        let (c, e) = run_bytes("trunc", &b[..cut]);
        assert_eq!(c, 2);
        assert!(e.contains("truncated"), "cut at {cut}: {e}");
    }
}

#[test]
fn bit_flipped() {
    let mut b = sample_bytes();
    let i = b.len() / 2;
    b[i] ^= 0x10;
    refused("flip", &b, "corrupt trace");
}

/// CRC32 covers length and payload, so every single-bit flip is detected.
#[test]
fn every_single_bit_flip_is_an_error() {
    let b = sample_bytes();
    for i in 0..b.len() {
        for bit in 0..8 {
            let mut x = b.clone();
            x[i] ^= 1 << bit;
            assert!(
                from_bytes(&x).is_err(),
                "flip of byte {i} bit {bit} went unnoticed"
            );
        }
    }
}

#[test]
fn wrong_magic() {
    let mut b = sample_bytes();
    b[0] = b'X';
    refused("magic", &b, "not a simcli trace: bad magic");
}

#[test]
fn future_version() {
    let mut b = sample_bytes();
    b[8..12].copy_from_slice(&7u32.to_le_bytes());
    refused(
        "version",
        &b,
        "trace format version 7 is newer than this simcli supports (version 1)",
    );
    assert!(matches!(
        from_bytes(&b),
        Err(TraceError::FutureVersion {
            found: 7,
            supported: 1
        })
    ));
}

#[test]
fn absurd_length() {
    let mut b = sample_bytes();
    b[12..16].copy_from_slice(&0xfff0_0000u32.to_le_bytes());
    refused("len", &b, "claims 4293918720 bytes (limit 1048576)");
}

#[test]
fn trailing_garbage_and_missing_end() {
    let mut b = sample_bytes();
    b.push(0);
    assert!(from_bytes(&b)
        .unwrap_err()
        .to_string()
        .contains("data after the end record"));
    // Drop the End chunk entirely (it is the last 8 + 2 bytes: header + `End { chunks }`).
    let b = sample_bytes();
    let cut = b.len() - 10;
    assert!(from_bytes(&b[..cut])
        .unwrap_err()
        .to_string()
        .contains("missing end record"));
}
