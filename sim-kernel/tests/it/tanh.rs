//! `tanh.approx` in a launch (`tests/data/tanh`): one block of 64 threads
//! runs it in all five forms (`.f32 .f16 .f16x2 .bf16 .bf16x2`); the
//! expected outputs are an H200's (`make.py`: its whole 16-bit tables, and
//! for `.f32` high halves whose sampled checksums sim-isa's rule
//! reproduces).

use crate::same_on_any_threads;
use std::path::PathBuf;

/// Every output byte equals the H200's, on 1 and 2 SMs and any number of
/// host threads; and thread 1's source 0x3c8e (1.139 in f16), where the
/// H200 gives 0x3a82 and exact tanh truncated would give 0x3a83, reads the
/// H200's value.
#[test]
fn five_forms_match_the_h200() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tanh/tanh.json");
    for sms in [1, 2] {
        let one = same_on_any_threads(&path, sms);
        assert_eq!(one.launch.expected.len(), 1);
        let out = &one.buffers[1];
        assert_eq!(out.len(), 1024);
        // Thread 1: f16 (bytes 16..18) and the f16x2 low half (20..22).
        assert_eq!(&out[16..18], &0x3a82u16.to_le_bytes());
        assert_eq!(&out[20..22], &0x3a82u16.to_le_bytes());
        // Thread 5: bf16 0x3f3f gives 0x3f21 (the rule: 0x3f22).
        assert_eq!(&out[82..84], &0x3f21u16.to_le_bytes());
    }
}
