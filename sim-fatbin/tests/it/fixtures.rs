//! The nvcc 13.0.88 fixtures: every compression mode decodes to the bytes
//! of the uncompressed build, and the PTX is `nvcc -ptx`'s as stored.

use sim_fatbin::{
    elf_section, fatbin_len, fatbins_in_section, nv_fatbin_section, registers_for, Compression,
    EntryKind, Fatbin, FatbinError, FatbinWrapper, Variant, WRAPPER_LEN,
};

use crate::{as_stored, data};

/// (kind, sm, compression) of one entry.
type Layout = (EntryKind, u32, Compression);

/// (file, its entries) as the fixtures' builds give them.
const LAYOUTS: &[(&str, &[Layout])] = {
    use Compression::*;
    use EntryKind::*;
    &[
        ("default.fatbin", &[(Elf, 90, None), (Ptx, 90, Zstd)]),
        ("mode_default.fatbin", &[(Elf, 90, None), (Ptx, 90, Zstd)]),
        ("mode_balance.fatbin", &[(Elf, 90, None), (Ptx, 90, Zstd)]),
        ("mode_size.fatbin", &[(Elf, 90, Zstd), (Ptx, 90, Zstd)]),
        ("mode_speed.fatbin", &[(Elf, 90, None), (Ptx, 90, Lz4Block)]),
        ("mode_none.fatbin", &[(Elf, 90, None), (Ptx, 90, None)]),
        ("no_compress.fatbin", &[(Elf, 90, None), (Ptx, 90, None)]),
        (
            "multi_ptx.fatbin",
            &[(Ptx, 80, Zstd), (Ptx, 90, Zstd), (Ptx, 120, Zstd)],
        ),
        ("sass_only.fatbin", &[(Elf, 90, None)]),
        (
            "sm_90a.fatbin",
            &[(Ptx, 90, Zstd), (Elf, 90, None), (Ptx, 90, Zstd)],
        ),
        ("compute_100f.fatbin", &[(Ptx, 100, Zstd)]),
        ("sm_100.fatbin", &[(Elf, 100, None), (Ptx, 100, Zstd)]),
        ("algo1_zlib.fatbin", &[(Elf, 90, Zlib), (Ptx, 90, Zlib)]),
        (
            "algo3_lz4_frame.fatbin",
            &[(Elf, 90, Lz4Frame), (Ptx, 90, Lz4Frame)],
        ),
        (
            "algo4_lz4.fatbin",
            &[(Elf, 90, Lz4Block), (Ptx, 90, Lz4Block)],
        ),
        ("ident_options.fatbin", &[(Elf, 90, None), (Ptx, 90, None)]),
    ]
};

#[test]
fn every_fixture_has_the_entries_of_its_build() {
    assert_eq!(LAYOUTS.len(), crate::FATBINS.len());
    for (file, layout) in LAYOUTS {
        let bytes = data(file);
        assert_eq!(fatbin_len(&bytes[..16]), Ok(bytes.len() as u64), "{file}");
        let fb = Fatbin::parse(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(fb.len(), bytes.len() as u64);
        let got: Vec<_> = fb
            .entries()
            .iter()
            .map(|e| (e.kind, e.sm, e.compression().unwrap()))
            .collect();
        assert_eq!(&got, layout, "{file}");
        for e in fb.entries() {
            assert_eq!(e.payload_size % 8, 0, "{file}: payloads are padded to 8");
            // The flags nvcc writes: 64-bit and Linux, always.
            assert_eq!(e.flags & 0x11, 0x11, "{file}");
        }
    }
}

/// The uncompressed build's entries, decoded: (cubin, PTX with padding).
fn reference() -> (Vec<u8>, Vec<u8>) {
    let bytes = data("no_compress.fatbin");
    let fb = Fatbin::parse(&bytes).unwrap();
    let e = fb.entries();
    (
        e[0].contents().unwrap().to_vec(),
        e[1].contents().unwrap().to_vec(),
    )
}

#[test]
fn every_compression_decodes_to_the_uncompressed_build() {
    let (cubin, ptx) = reference();
    assert_eq!(&cubin[..4], b"\x7fELF");
    let mut formats = std::collections::BTreeSet::new();
    for (file, _) in LAYOUTS
        .iter()
        // The builds of k.cu for sm_90 as `-arch=sm_90` makes them: cubin, PTX.
        .filter(|(_, l)| matches!(l, [(EntryKind::Elf, 90, _), (EntryKind::Ptx, 90, _)]))
    {
        let bytes = data(file);
        let fb = Fatbin::parse(&bytes).unwrap();
        let e = fb.entries();
        for (entry, want) in [(&e[0], &cubin), (&e[1], &ptx)] {
            let got = entry
                .contents()
                .unwrap_or_else(|err| panic!("{file}: {err}"));
            assert_eq!(&got[..], &want[..], "{file} entry {}", entry.index);
            let format = entry.compression().unwrap();
            if format != Compression::None {
                assert_eq!(entry.uncompressed_size, want.len() as u64, "{file}");
                assert!(u64::from(entry.compressed_size) <= entry.payload_size);
            }
            formats.insert(format!("{format}"));
        }
    }
    // All five: stored, zlib, LZ4 block, LZ4 frame, zstd.
    assert_eq!(formats.len(), 5, "{formats:?}");
}

#[test]
fn nvcc_default_is_balance_and_zstd() {
    // nvcc 13.0.88: no -compress-mode, `default` and `balance` give the same bytes.
    assert_eq!(data("default.fatbin"), data("mode_default.fatbin"));
    assert_eq!(data("default.fatbin"), data("mode_balance.fatbin"));
    assert_eq!(data("no_compress.fatbin"), data("mode_none.fatbin"));
    let bytes = data("default.fatbin");
    let fb = Fatbin::parse(&bytes).unwrap();
    let ptx = &fb.entries()[1];
    assert_eq!(ptx.flags, 0x8011);
    assert_eq!(
        &ptx.payload[..4],
        &[0x28, 0xB5, 0x2F, 0xFD],
        "zstd frame magic"
    );
}

#[test]
fn the_ptx_is_nvcc_ptx_as_stored() {
    let want = as_stored(&String::from_utf8(data("k.sm_90.ptx")).unwrap());
    for file in [
        "default.fatbin",
        "mode_size.fatbin",
        "mode_speed.fatbin",
        "no_compress.fatbin",
    ] {
        let bytes = data(file);
        let ptx = Fatbin::parse(&bytes).unwrap().ptx_for(90).unwrap();
        assert_eq!(ptx.text, want, "{file}");
        assert_eq!((ptx.sm, ptx.version, ptx.index), (90, (9, 0), 1));
        assert_eq!(ptx.options, None);
        assert!(ptx.text.contains(".target sm_90"));
        assert!(ptx.text.contains(".visible .entry _Z4axpyfPKfPfi("));
    }
}

#[test]
fn the_driver_picks_the_highest_ptx_not_above_the_device() {
    let bytes = data("multi_ptx.fatbin");
    let fb = Fatbin::parse(&bytes).unwrap();
    let text = |f: &str| as_stored(&String::from_utf8(data(f)).unwrap());
    for (sm, want_sm, file) in [
        (80, 80, "k.sm_80.ptx"),
        (89, 80, "k.sm_80.ptx"),
        (90, 90, "k.sm_90.ptx"),
        (100, 90, "k.sm_90.ptx"),
        (120, 120, "k.sm_120.ptx"),
        (121, 120, "k.sm_120.ptx"),
    ] {
        let ptx = fb.ptx_for(sm).unwrap();
        assert_eq!(ptx.sm, want_sm, "device sm_{sm}");
        assert_eq!(ptx.text, text(file), "device sm_{sm}");
    }
    let err = fb.ptx_for(75).unwrap_err();
    assert_eq!(
        err,
        FatbinError::NoPtx {
            sm: 75,
            held: "PTX for sm_80, PTX for sm_90, PTX for sm_120".into()
        }
    );
}

#[test]
fn machine_code_only_is_a_clear_error() {
    let bytes = data("sass_only.fatbin");
    let err = Fatbin::parse(&bytes).unwrap().ptx_for(90).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, FatbinError::NoPtx { sm: 90, .. }), "{err:?}");
    assert!(msg.contains("(it holds: sm_90 machine code)"), "{msg}");
    assert!(
        msg.contains("-gencode arch=compute_90,code=compute_90"),
        "{msg}"
    );
    assert!(msg.contains("nvcc -arch=sm_90"), "{msg}");
    // sm_100 PTX only: none for an sm_90 device.
    let bytes = data("sm_100.fatbin");
    let err = Fatbin::parse(&bytes).unwrap().ptx_for(90).unwrap_err();
    assert!(
        err.to_string()
            .contains("sm_100 machine code, PTX for sm_100"),
        "{err}"
    );
}

#[test]
fn sm_100_headers_are_larger() {
    let bytes = data("sm_100.fatbin");
    let fb = Fatbin::parse(&bytes).unwrap();
    let e = fb.entries();
    assert_eq!((e[0].header_size, e[1].header_size), (112, 80));
    assert_eq!(e[0].flags, 0x100_0011);
    // The cubin's "options" are 36 bytes of binary data.
    assert_eq!(e[0].options.map(<[u8]>::len), Some(36));
    let ptx = fb.ptx_for(100).unwrap();
    assert!(ptx.text.contains(".target sm_100"));
}

#[test]
fn name_and_options_strings() {
    let bytes = data("ident_options.fatbin");
    let fb = Fatbin::parse(&bytes).unwrap();
    for e in fb.entries() {
        assert_eq!(e.name, Some(&b"myident.cu"[..]));
    }
    assert_eq!(fb.entries()[1].options, Some(&b"-O2 -v"[..]));
    let ptx = fb.ptx_for(90).unwrap();
    assert_eq!(ptx.options.as_deref(), Some("-O2 -v"));
    let (_, stored) = reference();
    assert_eq!(fb.entries()[1].contents().unwrap(), stored);
    // nvcc's own builds: no name, an empty options string.
    let bytes = data("default.fatbin");
    let fb = Fatbin::parse(&bytes).unwrap();
    assert!(fb
        .entries()
        .iter()
        .all(|e| e.name.is_none() && e.options.is_none()));
}

#[test]
fn a_program_holds_two_fatbinaries_and_two_wrappers() {
    let app = data("app");
    let section = nv_fatbin_section(&app).unwrap().expect(".nv_fatbin");
    let fatbins = fatbins_in_section(section.data).unwrap();
    assert_eq!(fatbins.len(), 2);
    // The device-link step's: one sm_90 cubin, no PTX.
    let (at0, link) = &fatbins[0];
    assert_eq!(*at0, 0);
    let kinds: Vec<_> = link.entries().iter().map(|e| (e.kind, e.sm)).collect();
    assert_eq!(kinds, [(EntryKind::Elf, 90)]);
    assert!(matches!(link.ptx_for(90), Err(FatbinError::NoPtx { .. })));
    // app.cu's: its cubin and its PTX.
    let (at1, unit) = &fatbins[1];
    let ptx = unit.ptx_for(90).unwrap();
    assert_eq!(
        ptx.text,
        as_stored(&String::from_utf8(data("app.sm_90.ptx")).unwrap())
    );
    assert_eq!(unit.entries()[1].compression().unwrap(), Compression::Zstd);
    // The wrappers point at them: version 2 first (device link), then 1.
    let seg = elf_section(&app, ".nvFatBinSegment")
        .unwrap()
        .expect("segment");
    assert_eq!(seg.data.len(), 2 * WRAPPER_LEN);
    let w: Vec<FatbinWrapper> = seg
        .data
        .chunks(WRAPPER_LEN)
        .map(|c| FatbinWrapper::parse(c).unwrap())
        .collect();
    assert_eq!((w[0].version, w[1].version), (2, 1));
    assert_eq!(w[0].data, section.addr + at0);
    assert_eq!(w[1].data, section.addr + at1);
    assert_eq!(w[1].filename_or_fatbins, 0);
    assert_ne!(w[0].filename_or_fatbins, 0);
    // What a runtime does with a wrapper's pointer: 16 bytes, then the length.
    let start = (w[1].data - section.addr) as usize;
    let len = fatbin_len(&section.data[start..start + 16]).unwrap() as usize;
    let again = Fatbin::parse(&section.data[start..start + len]).unwrap();
    assert_eq!(&again, unit);
}

#[test]
fn files_without_device_code() {
    // A fatbinary is no ELF file; an ELF without .nv_fatbin has none.
    let bytes = data("default.fatbin");
    assert!(matches!(
        nv_fatbin_section(&bytes),
        Err(FatbinError::BadMagic { what: "ELF", .. })
    ));
    // The cubin inside is an ELF file without that section.
    let fb = Fatbin::parse(&bytes).unwrap();
    let cubin = fb.entries()[0].contents().unwrap();
    assert_eq!(nv_fatbin_section(&cubin), Ok(None));
    assert!(elf_section(&cubin, ".text._Z4axpyfPKfPfi")
        .unwrap()
        .is_some());
}

#[test]
fn arch_and_family_specific_ptx() {
    let bytes = data("sm_90a.fatbin");
    let fb = Fatbin::parse(&bytes).unwrap();
    let v: Vec<_> = fb.entries().iter().map(|e| e.variant()).collect();
    assert_eq!(
        v,
        [
            Variant::Generic,
            Variant::ArchSpecific,
            Variant::ArchSpecific
        ]
    );
    // On sm_90 the sm_90a PTX (more specific than the generic sm_90 one).
    let ptx = fb.ptx_for(90).unwrap();
    assert_eq!((ptx.index, ptx.variant), (2, Variant::ArchSpecific));
    assert!(
        ptx.text.contains("\n.target sm_90a\n"),
        "{}",
        &ptx.text[..200]
    );
    // sm_90a code runs on no other device: sm_100 gets the generic PTX.
    let ptx = fb.ptx_for(100).unwrap();
    assert_eq!((ptx.index, ptx.variant), (0, Variant::Generic));
    assert!(ptx.text.contains("\n.target sm_90\n"));
    let err = fb.ptx_for(89).unwrap_err().to_string();
    assert!(
        err.contains("(it holds: PTX for sm_90, sm_90a machine code, PTX for sm_90a)"),
        "{err}"
    );

    let bytes = data("compute_100f.fatbin");
    let fb = Fatbin::parse(&bytes).unwrap();
    assert_eq!(fb.entries()[0].variant(), Variant::FamilySpecific);
    for sm in [100, 103] {
        let ptx = fb.ptx_for(sm).unwrap();
        assert!(ptx.text.contains("\n.target sm_100f\n"), "sm_{sm}");
    }
    for sm in [90, 110, 120] {
        let err = fb.ptx_for(sm).unwrap_err().to_string();
        assert!(
            err.contains("(it holds: PTX for sm_100f)"),
            "sm_{sm}: {err}"
        );
    }
}

#[test]
fn with_rdc_the_ptx_is_in_the_relocatable_section() {
    let app = data("app_rdc");
    let linked = nv_fatbin_section(&app).unwrap().expect(".nv_fatbin");
    let fatbins = fatbins_in_section(linked.data).unwrap();
    assert_eq!(fatbins.len(), 1);
    let kinds: Vec<_> = fatbins[0]
        .1
        .entries()
        .iter()
        .map(|e| (e.kind, e.sm))
        .collect();
    assert_eq!(kinds, [(EntryKind::Elf, 90)]);
    let rel = elf_section(&app, "__nv_relfatbin")
        .unwrap()
        .expect("__nv_relfatbin");
    let fatbins = fatbins_in_section(rel.data).unwrap();
    assert_eq!(fatbins.len(), 1);
    let fb = &fatbins[0].1;
    // The relocatable cubin is compressed too (zstd) in the default mode.
    let e = fb.entries();
    assert_eq!(
        (e[0].kind, e[0].compression().unwrap()),
        (EntryKind::Elf, Compression::Zstd)
    );
    let ptx = fb.ptx_for(90).unwrap();
    assert_eq!(
        ptx.text,
        as_stored(&String::from_utf8(data("app.sm_90.ptx")).unwrap())
    );
    // The version 1 wrapper points at it, the version 2 one at the linked cubin.
    let seg = elf_section(&app, ".nvFatBinSegment")
        .unwrap()
        .expect("segment");
    let w: Vec<FatbinWrapper> = seg
        .data
        .chunks(WRAPPER_LEN)
        .map(|c| FatbinWrapper::parse(c).unwrap())
        .collect();
    assert_eq!((w[0].version, w[0].data), (2, linked.addr));
    assert_eq!((w[1].version, w[1].data), (1, rel.addr));
}

/// The registers ptxas allocated, from each fixture's sm_90 cubin
/// (`.nv.info`'s `EIATTR_REGCOUNT`): `axpy` has 10 a thread, as
/// `ptxas -v -arch=sm_90 k.sm_90.ptx` (13.0.88) reports, whatever the
/// compression; the PTX-only fatbinaries and other targets give none.
#[test]
fn cubins_say_how_many_registers_each_kernel_has() {
    for (file, layout) in LAYOUTS {
        let bytes = data(file);
        let f = Fatbin::parse(&bytes).unwrap();
        let got = registers_for(&f, 90).unwrap();
        let has_cubin = layout
            .iter()
            .any(|&(k, sm, _)| k == EntryKind::Elf && sm == 90);
        if has_cubin {
            assert_eq!(got, vec![(AXPY.to_string(), 10)], "{file}");
        } else {
            assert!(got.is_empty(), "{file}: {got:?}");
        }
        assert!(registers_for(&f, 80).unwrap().is_empty(), "{file}");
    }
    let bytes = data("sm_100.fatbin");
    let f = Fatbin::parse(&bytes).unwrap();
    assert_eq!(
        registers_for(&f, 100).unwrap(),
        vec![(AXPY.to_string(), 10)]
    );
}

/// `axpy`'s `.entry` name in `k.sm_90.ptx`.
const AXPY: &str = "_Z4axpyfPKfPfi";
