//! Error paths: each names what and where, none panics.

use sim_fatbin::{fatbin_len, nv_fatbin_section, Compression, Fatbin, FatbinError};

use crate::data;

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Where the PTX entry's header starts in a two-entry sm_90 fixture.
fn ptx_entry_at(bytes: &[u8]) -> usize {
    Fatbin::parse(bytes).unwrap().entries()[1].offset as usize
}

#[test]
fn every_truncation_is_an_error() {
    for file in crate::FATBINS {
        let bytes = data(file);
        for cut in 0..bytes.len() {
            let err = Fatbin::parse(&bytes[..cut]).unwrap_err();
            assert!(
                matches!(err, FatbinError::Truncated { .. }),
                "{file} cut at {cut}: {err:?}"
            );
        }
    }
    assert_eq!(
        fatbin_len(&[0x50, 0xED, 0x55, 0xBA, 1, 0]),
        Err(FatbinError::Truncated {
            what: "fatbinary header",
            offset: 6,
            needed: 2,
            available: 0
        })
    );
}

#[test]
fn wrong_magic_and_version() {
    let mut bytes = data("default.fatbin");
    bytes[0] ^= 1;
    assert_eq!(
        Fatbin::parse(&bytes).unwrap_err(),
        FatbinError::BadMagic {
            what: "fatbinary",
            offset: 0,
            found: 0xBA55_ED51,
            expected: 0xBA55_ED50
        }
    );
    let mut bytes = data("default.fatbin");
    bytes[4] = 2;
    let err = Fatbin::parse(&bytes).unwrap_err();
    assert!(
        matches!(err, FatbinError::Unsupported { offset: 4, .. }),
        "{err:?}"
    );
    let mut bytes = data("default.fatbin");
    bytes[6] = 8;
    assert!(matches!(
        Fatbin::parse(&bytes),
        Err(FatbinError::Unsupported { offset: 6, .. })
    ));
}

#[test]
fn sizes_beyond_the_buffer() {
    // The container claims more than there is.
    let mut bytes = data("default.fatbin");
    put_u64(&mut bytes, 8, 1 << 40);
    assert_eq!(fatbin_len(&bytes), Ok(16 + (1 << 40)));
    assert_eq!(
        Fatbin::parse(&bytes).unwrap_err(),
        FatbinError::Truncated {
            what: "fatbinary (header size + payload size)",
            offset: 0,
            needed: 16 + (1 << 40),
            available: 4528
        }
    );
    put_u64(&mut bytes, 8, u64::MAX - 8);
    let err = fatbin_len(&bytes).unwrap_err();
    assert!(
        matches!(err, FatbinError::Unsupported { offset: 8, .. }),
        "16 + (2^64 - 9) overflows: {err:?}"
    );
    assert_eq!(Fatbin::parse(&bytes), Err(err));
    // An entry's payload runs past the container.
    let mut bytes = data("default.fatbin");
    let at = ptx_entry_at(&bytes);
    put_u64(&mut bytes, at + 8, 1 << 40);
    let err = Fatbin::parse(&bytes).unwrap_err();
    assert!(
        matches!(err, FatbinError::BadEntry { index: 1, offset, .. } if offset == at as u64),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("runs past the container's end"),
        "{err}"
    );
    // An entry header smaller than its fixed fields.
    let mut bytes = data("default.fatbin");
    put_u32(&mut bytes, 16 + 4, 8);
    let err = Fatbin::parse(&bytes).unwrap_err();
    assert!(
        matches!(
            err,
            FatbinError::BadEntry {
                index: 0,
                offset: 16,
                ..
            }
        ),
        "{err:?}"
    );
    // A name outside the header.
    let mut bytes = data("ident_options.fatbin");
    put_u32(&mut bytes, 16 + 36, 1000);
    assert!(matches!(
        Fatbin::parse(&bytes),
        Err(FatbinError::BadEntry { index: 0, .. })
    ));
}

#[test]
fn compressed_size_lying() {
    // Larger than the payload: refused when parsing.
    let mut bytes = data("default.fatbin");
    let at = ptx_entry_at(&bytes);
    put_u32(&mut bytes, at + 16, 393);
    let err = Fatbin::parse(&bytes).unwrap_err();
    assert!(
        err.to_string()
            .contains("compressed size 393 exceeds the payload (392 bytes)"),
        "{err}"
    );
    // Smaller: the data end early, for every format.
    for (file, format) in [
        ("default.fatbin", Compression::Zstd),
        ("mode_speed.fatbin", Compression::Lz4Block),
        ("algo3_lz4_frame.fatbin", Compression::Lz4Frame),
        ("algo1_zlib.fatbin", Compression::Zlib),
    ] {
        let mut bytes = data(file);
        let at = ptx_entry_at(&bytes);
        let c = u32::from_le_bytes(bytes[at + 16..at + 20].try_into().unwrap());
        put_u32(&mut bytes, at + 16, c - 10);
        let fb = Fatbin::parse(&bytes).unwrap();
        let err = fb.entries()[1].contents().unwrap_err();
        let ok = match err {
            FatbinError::Decompress {
                index: 1,
                format: f,
                ..
            } => f == format,
            FatbinError::SizeMismatch {
                index: 1,
                format: f,
                produced,
                ..
            } => f == format && produced < 904,
            _ => false,
        };
        assert!(ok, "{file}: {err:?}");
        assert!(fb.ptx_for(90).is_err());
    }
}

#[test]
fn decompression_past_the_stated_size_stops_there() {
    for file in [
        "default.fatbin",
        "mode_speed.fatbin",
        "algo3_lz4_frame.fatbin",
        "algo1_zlib.fatbin",
    ] {
        for declared in [0u64, 1, 903, 905, 1 << 20] {
            let mut bytes = data(file);
            let at = ptx_entry_at(&bytes);
            put_u64(&mut bytes, at + 56, declared);
            let fb = Fatbin::parse(&bytes).unwrap();
            let err = fb.entries()[1].contents().unwrap_err();
            let FatbinError::SizeMismatch {
                declared: d,
                produced,
                ..
            } = err
            else {
                panic!("{file} declared {declared}: {err:?}");
            };
            assert_eq!(d, declared);
            // Past the declared size: decoding stopped one byte after it.
            let want = if declared < 904 { declared + 1 } else { 904 };
            assert_eq!(produced, want, "{file} declared {declared}");
        }
    }
    let mut bytes = data("default.fatbin");
    let at = ptx_entry_at(&bytes);
    put_u64(&mut bytes, at + 56, 1 << 40);
    let fb = Fatbin::parse(&bytes).unwrap();
    assert!(matches!(
        fb.entries()[1].contents(),
        Err(FatbinError::TooLarge { .. })
    ));
}

#[test]
fn unknown_compression_and_corrupt_data() {
    let mut bytes = data("default.fatbin");
    let at = ptx_entry_at(&bytes);
    put_u64(&mut bytes, at + 40, 0xC011);
    let fb = Fatbin::parse(&bytes).unwrap();
    let err = fb.ptx_for(90).unwrap_err();
    assert_eq!(
        err,
        FatbinError::UnknownCompression {
            index: 1,
            offset: at as u64,
            flags: 0xC011
        }
    );
    // A zstd payload given as LZ4: an error, with where.
    put_u64(&mut bytes, at + 40, 0x2011);
    let fb = Fatbin::parse(&bytes).unwrap();
    assert!(matches!(
        fb.ptx_for(90),
        Err(FatbinError::Decompress {
            format: Compression::Lz4Block,
            ..
        }) | Err(FatbinError::SizeMismatch { .. })
    ));
    // Flipped bytes inside the zstd data.
    let mut bytes = data("default.fatbin");
    let payload = at + 80;
    for b in &mut bytes[payload + 20..payload + 40] {
        *b ^= 0x5A;
    }
    let fb = Fatbin::parse(&bytes).unwrap();
    assert!(fb.ptx_for(90).is_err());
}

#[test]
fn ptx_that_is_not_text() {
    let mut bytes = data("no_compress.fatbin");
    let at = ptx_entry_at(&bytes);
    bytes[at + 80 + 8] = 0xFF; // inside ".version"
    let err = Fatbin::parse(&bytes).unwrap().ptx_for(90).unwrap_err();
    assert_eq!(
        err,
        FatbinError::NotUtf8 {
            index: 1,
            offset: at as u64,
            valid_up_to: 8
        }
    );
}

#[test]
fn broken_elf_files() {
    let app = data("app");
    for cut in [0, 3, 16, 0x3F, 0x40, 200] {
        assert!(nv_fatbin_section(&app[..cut]).is_err(), "cut at {cut}");
    }
    let mut not64 = app.clone();
    not64[4] = 1;
    assert!(matches!(
        nv_fatbin_section(&not64),
        Err(FatbinError::Elf { offset: 4, .. })
    ));
    let mut shoff = app.clone();
    shoff[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(nv_fatbin_section(&shoff).is_err());
}
