//! WMMA (`wmma.load`, `wmma.mma`, `wmma.store`) in a launch:
//! `tests/data/wmma` is CUDA C++ (`wmma.cu`, `nvcuda::wmma`) compiled by
//! nvcc 13.0.88, four warps each a form (global and shared memory, row and
//! column layouts, leading dimensions 16 and 24, f32 and f16 accumulators,
//! an f32 `c` into an f16 `d`), with expected outputs from `reference.py`:
//! the products in Python integers, and warp 0's fragment elements by the
//! lane layout read from ptxas 13.0.88's machine code (docs/wmma.md).

use crate::same_on_any_threads;
use std::path::PathBuf;

fn launch() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/wmma/wmma.json")
}

/// Every output byte is the reference's, on 1 and 2 SMs and any number of
/// host threads; and a few by hand: `d[0][0]` of warp 0 and lane 5's
/// first `a` elements (row 1, columns 2 and 3 of `p[i] = i`: 18, 19).
#[test]
fn four_forms_match_the_reference() {
    for sms in [1, 2] {
        let one = same_on_any_threads(&launch(), sms);
        assert_eq!(one.launch.expected.len(), 1);
        let out = &one.buffers[1];
        assert_eq!(out.len(), 6144);
        let f = |at: usize| f32::from_le_bytes(out[at..at + 4].try_into().unwrap());
        // sum_k a[k] * b[k] + c[0]: a[k] = 7k % 5 - 2, b[k] = 3k % 7 - 3.
        let d00: i32 = (0..16).map(|k| ((7 * k) % 5 - 2) * ((3 * k) % 7 - 3)).sum();
        assert_eq!(f(0), (d00 - 100) as f32);
        // Lane 5's `x[0]`, `x[1]` of `a` (f16 18.0 = 0x4c80, 19.0 = 0x4cc0).
        let lane5 = 3072 + 5 * 32;
        assert_eq!(&out[lane5..lane5 + 4], &[0x80, 0x4c, 0xc0, 0x4c]);
    }
}
