//! sim-fatbin's tests: the committed nvcc 13.0.88 fixtures (`tests/data`,
//! made by `tests/data/make.sh`), the error paths, and the fuzz targets.

// The tests' openings (a fixture read, a field altered, the parse's error
// matched) are alike in shape; what differs is each one's fixture, field and
// error (issue 27).

mod errors;
mod fixtures;
mod fuzz;

use std::path::PathBuf;

/// A file of `tests/data`.
pub fn data(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `nvcc -ptx` text as a fatbinary stores it: each line without its `//`
/// comment, its whitespace runs turned into single spaces, trimmed.
pub fn as_stored(ptx: &str) -> String {
    ptx.split('\n')
        .map(|l| {
            let code = l.split("//").next().unwrap_or_default();
            code.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every committed fatbinary.
pub const FATBINS: &[&str] = &[
    "default.fatbin",
    "mode_default.fatbin",
    "mode_balance.fatbin",
    "mode_size.fatbin",
    "mode_speed.fatbin",
    "mode_none.fatbin",
    "no_compress.fatbin",
    "multi_ptx.fatbin",
    "sass_only.fatbin",
    "sm_90a.fatbin",
    "compute_100f.fatbin",
    "sm_100.fatbin",
    "algo1_zlib.fatbin",
    "algo3_lz4_frame.fatbin",
    "algo4_lz4.fatbin",
    "ident_options.fatbin",
];
