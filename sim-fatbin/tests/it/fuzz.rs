//! Fuzz targets (proptest, as the other readers' in docs/fuzzing.md):
//! whatever the bytes, reading gives a value or an error, never a panic,
//! and never more output than an entry declares. `PROPTEST_CASES` scales them.

use proptest::prelude::*;
use sim_fatbin::{fatbin_len, fatbins_in_section, nv_fatbin_section, Fatbin, FatbinWrapper};

use crate::data;

/// Everything a reader of `bytes` may call, each result checked for sense.
fn exercise(bytes: &[u8]) {
    let _ = fatbin_len(bytes);
    let _ = FatbinWrapper::parse(bytes);
    if let Ok(fb) = Fatbin::parse(bytes) {
        assert!(fb.len() <= bytes.len() as u64);
        for e in fb.entries() {
            if let Ok(c) = e.contents() {
                let want = if e.compression().ok() == Some(sim_fatbin::Compression::None) {
                    e.payload_size
                } else {
                    e.uncompressed_size
                };
                assert_eq!(c.len() as u64, want);
            }
            let _ = e.ptx();
        }
        for sm in [0, 52, 90, 100, u32::MAX] {
            if let Ok(p) = fb.ptx_for(sm) {
                assert!(p.sm <= sm);
            }
        }
    }
    let _ = fatbins_in_section(bytes);
    if let Ok(Some(s)) = nv_fatbin_section(bytes) {
        let _ = fatbins_in_section(s.data);
    }
}

/// A container of one entry of the given kind, flags and sizes around `payload`.
fn container(kind: u16, flags: u64, csize: u32, declared: u64, payload: &[u8]) -> Vec<u8> {
    let padded = payload.len().next_multiple_of(8);
    let mut b = Vec::new();
    b.extend_from_slice(&0xBA55_ED50u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(&((64 + padded) as u64).to_le_bytes());
    b.extend_from_slice(&kind.to_le_bytes());
    b.extend_from_slice(&0x0101u16.to_le_bytes());
    b.extend_from_slice(&64u32.to_le_bytes());
    b.extend_from_slice(&(padded as u64).to_le_bytes());
    b.extend_from_slice(&csize.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&[0, 0, 9, 0]);
    b.extend_from_slice(&90u32.to_le_bytes());
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&flags.to_le_bytes());
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&declared.to_le_bytes());
    b.extend_from_slice(payload);
    b.resize(16 + 64 + padded, 0);
    b
}

/// The compressed PTX payloads of the fixtures, one per format, as seeds.
fn seeds() -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    for (file, flags) in [
        ("default.fatbin", 0x8011),
        ("mode_speed.fatbin", 0x2011),
        ("algo3_lz4_frame.fatbin", 0x4011),
        ("algo1_zlib.fatbin", 0x1011),
    ] {
        let bytes = data(file);
        let fb = Fatbin::parse(&bytes).unwrap();
        let e = &fb.entries()[1];
        out.push((flags, e.payload[..e.compressed_size as usize].to_vec()));
    }
    out
}

fn edit(mut b: Vec<u8>, edits: &[(usize, u8, u8)]) -> Vec<u8> {
    for &(at, op, v) in edits {
        if b.is_empty() {
            b.push(v);
            continue;
        }
        let i = at % b.len();
        match op % 4 {
            0 => b[i] = v,
            1 => b[i] ^= 1 << (v % 8),
            2 => {
                b.remove(i);
            }
            _ => b.insert(i, v),
        }
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(2000)
    ))]

    #[test]
    fn fuzz_fatbin_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        exercise(&bytes);
    }

    #[test]
    fn fuzz_fatbin_arbitrary_after_a_header(
        payload in proptest::collection::vec(any::<u8>(), 0..400),
        size in prop_oneof![Just(None), (0u64..600).prop_map(Some), any::<u64>().prop_map(Some)],
    ) {
        let mut b = vec![0x50, 0xED, 0x55, 0xBA, 1, 0, 16, 0];
        b.extend_from_slice(&size.unwrap_or(payload.len() as u64).to_le_bytes());
        b.extend_from_slice(&payload);
        exercise(&b);
    }

    #[test]
    fn fuzz_fatbin_mutated_fixtures(
        which in 0..crate::FATBINS.len(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6),
    ) {
        exercise(&edit(data(crate::FATBINS[which]), &edits));
    }

    /// Each decoder on a real payload with 1-5 edits, under any declared size
    /// and compressed size: the container is well formed, so the decoder is reached.
    #[test]
    fn fuzz_fatbin_mutated_payloads(
        which in 0..4usize,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
        declared in prop_oneof![Just(904u64), 0u64..2000, any::<u64>()],
        csize_cut in 0u32..16,
        kind in prop_oneof![Just(1u16), Just(2u16)],
    ) {
        let (flags, payload) = seeds().swap_remove(which);
        let payload = edit(payload, &edits);
        let csize = (payload.len() as u32).saturating_sub(csize_cut);
        exercise(&container(kind, flags, csize, declared, &payload));
    }

    /// Random data under every compression flag.
    #[test]
    fn fuzz_fatbin_random_payloads(
        flags in prop_oneof![Just(0x1011u64), Just(0x2011), Just(0x4011), Just(0x8011), any::<u64>()],
        payload in proptest::collection::vec(any::<u8>(), 0..300),
        magic in any::<bool>(),
        declared in 0u64..5000,
    ) {
        let mut payload = payload;
        if magic && payload.len() >= 4 {
            // Start with the format's magic so the decoder gets past it.
            let m: &[u8] = match flags & 0xF000 {
                0x4000 => &[0x04, 0x22, 0x4D, 0x18],
                0x8000 => &[0x28, 0xB5, 0x2F, 0xFD],
                0x1000 => &[0x78, 0x9C],
                _ => &[],
            };
            payload[..m.len()].copy_from_slice(m);
        }
        exercise(&container(1, flags, payload.len() as u32, declared, &payload));
    }

    #[test]
    fn fuzz_fatbin_mutated_elf(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6),
        header_only in any::<bool>(),
    ) {
        let app = data("app");
        let mut b = edit(app, &edits);
        if header_only {
            // Aim at the ELF and section headers, where the sizes are.
            b = edit(data("app"), &edits.iter().map(|&(a, o, v)| (a % 64, o, v)).collect::<Vec<_>>());
        }
        exercise(&b);
    }
}
