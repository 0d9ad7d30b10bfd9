//! Fuzz targets for the Accel-Sim reader (docs/fuzzing.md, tools/fuzz.sh):
//! every input gives a kernel or an error, never a panic.

use proptest::prelude::*;
use sim_accelsim::{parse_kernel, parse_kernelslist};

const SAMPLE: &str = include_str!("../data/vectoradd-100-32/kernel-1.traceg");

proptest! {
    #[test]
    fn fuzz_accelsim_arbitrary_text(text in "\\PC{0,400}") {
        let _ = parse_kernel("f", &text);
        let _ = parse_kernelslist("f", &text);
    }

    #[test]
    fn fuzz_accelsim_mutated_sample(edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..6),
                                    cut in any::<Option<usize>>()) {
        let mut b = SAMPLE.as_bytes().to_vec();
        for (at, v, how) in edits {
            let i = at % b.len().max(1);
            match how {
                0 if !b.is_empty() => b[i] = v,
                1 => b.insert(i, v),
                _ if !b.is_empty() => { b.remove(i); }
                _ => {}
            }
        }
        if let Some(c) = cut {
            let n = b.len() + 1;
            b.truncate(c % n);
        }
        let text = String::from_utf8_lossy(&b);
        if let Ok(k) = parse_kernel("f", &text) {
            // What reads must count without overflow and index safely.
            let _ = k.thread_instructions();
            for i in k.blocks.iter().flat_map(|b| &b.warps).flat_map(|w| &w.insts) {
                if let Some((_, start)) = i.mem {
                    prop_assert_eq!(k.lane_addrs(start, i.mask).len(), i.mask.count_ones() as usize);
                }
            }
        }
    }
}
