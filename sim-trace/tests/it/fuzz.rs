//! Fuzzing the trace reader and the kernel-text parser: arbitrary input must
//! give an error, never a panic. Run longer with, for example,
//! `PROPTEST_CASES=12000000 cargo test -p sim-trace --release --test it -- fuzz_raw_bytes fuzz_mutated_payloads`
//! (about 10 minutes on 2 cores; measured runs in docs/fuzzing.md).

use proptest::prelude::*;
use sim_trace::binfmt::{from_bytes, to_bytes, FORMAT_VERSION, MAGIC};

fn valid() -> Vec<u8> {
    let text = std::fs::read_to_string(crate::root().join("traces/audio_mix.ptx")).unwrap();
    to_bytes(&sim_trace::kernel::parse_kernel("a.ptx", &text).unwrap()).unwrap()
}

/// Frames `payload` as a chunk with a correct length and CRC, so the fuzzer
/// reaches the decoder and the validator instead of stopping at the checksum.
fn frame(payload: &[u8]) -> Vec<u8> {
    let len = (payload.len() as u32).to_le_bytes();
    let mut h = crc32fast::Hasher::new();
    h.update(&len);
    h.update(payload);
    let mut v = len.to_vec();
    v.extend(h.finalize().to_le_bytes());
    v.extend(payload);
    v
}

/// Splits a valid trace into its chunk payloads.
fn payloads(b: &[u8]) -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    let mut i = 12;
    while i + 8 <= b.len() {
        let len = u32::from_le_bytes(b[i..i + 4].try_into().unwrap()) as usize;
        v.push(b[i + 8..i + 8 + len].to_vec());
        i += 8 + len;
    }
    v
}

proptest! {
    #[test]
    fn fuzz_raw_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = from_bytes(&bytes);
        let mut with_magic = MAGIC.to_vec();
        with_magic.extend(FORMAT_VERSION.to_le_bytes());
        with_magic.extend(&bytes);
        let _ = from_bytes(&with_magic);
    }

    #[test]
    fn fuzz_mutated_payloads(edits in proptest::collection::vec((any::<usize>(), any::<usize>(), any::<u8>()), 1..6),
                             drop in any::<Option<usize>>()) {
        let b = valid();
        let mut ps = payloads(&b);
        if let Some(d) = drop {
            let n = ps.len();
            ps.remove(d % n);
        }
        for (c, i, v) in edits {
            let n = ps.len();
            let p = &mut ps[c % n];
            if !p.is_empty() {
                let len = p.len();
                p[i % len] = v;
            }
        }
        let mut out = b[..12].to_vec();
        for p in &ps {
            out.extend(frame(p));
        }
        let _ = from_bytes(&out);
    }

    #[test]
    fn fuzz_load_detects_either_format(bytes in proptest::collection::vec(any::<u8>(), 0..512),
                                       cut in any::<usize>()) {
        // The stream reader: arbitrary bytes, a valid trace cut anywhere, and
        // kernel text, delivered in pieces as a pipe would.
        let _ = sim_trace::load::load("f", Trickle(&bytes));
        let b = valid();
        let _ = sim_trace::load::load("f", Trickle(&b[..cut % (b.len() + 1)]));
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let _ = sim_trace::load::load("f.ptx", Trickle(text.as_bytes()));
    }

    #[test]
    fn fuzz_kernel_text(text in "(\\PC|[{};.%@]|\\.repeat|\\.reg|\\.target sm_53|\\.expect|\n){0,200}") {
        let _ = sim_trace::kernel::parse_kernel("f.ptx", &text);
    }
}

/// A reader that hands out at most 3 bytes per call, as a slow pipe does.
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(3).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn load_through_a_trickle_equals_a_whole_read() {
    let b = valid();
    let (t, f) = sim_trace::load::load("a", Trickle(&b)).unwrap();
    assert_eq!(f, sim_trace::load::Format::Binary);
    assert_eq!(to_bytes(&t).unwrap(), b);
    let text = std::fs::read_to_string(crate::root().join("traces/audio_mix.ptx")).unwrap();
    let (t, f) = sim_trace::load::load("a.ptx", Trickle(text.as_bytes())).unwrap();
    assert_eq!(f, sim_trace::load::Format::Text);
    assert_eq!(to_bytes(&t).unwrap(), b);
}

#[test]
fn valid_trace_survives_reframing() {
    let b = valid();
    let mut out = b[..12].to_vec();
    for p in payloads(&b) {
        out.extend(frame(&p));
    }
    assert_eq!(out, b);
    assert!(from_bytes(&out).is_ok());
}
