//! The committed vector sets of `tests/data/` (their sources are in its
//! README.md) through the conformance runner: every vector must pass and
//! none may be unusable. The counts pin each file, so a truncated or
//! re-generated file is noticed.

use sim_isa::conform::{run_reader, Outcome, Summary};
use std::io::BufRead;
use std::path::PathBuf;

/// Runs the vectors of `text` (a family's committed file, included) and
/// asserts that every one passed, none was skipped, and there were
/// `passed` of them.
pub fn assert_all_pass(text: &str, passed: usize) {
    let report = sim_isa::conform::run_vectors(text);
    assert!(report.ok(), "{report}");
    assert_eq!(report.passed(), passed, "{}", report.summary_line());
    assert_eq!(report.skipped(), 0, "{}", report.summary_line());
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Runs a vector file (`.gz` decompressed on the fly) and asserts that every
/// vector passed; returns the counts.
fn run_file(name: &str) -> Summary {
    let path = data(name);
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reader: Box<dyn BufRead> = if name.ends_with(".gz") {
        Box::new(std::io::BufReader::new(flate2::read::GzDecoder::new(file)))
    } else {
        Box::new(std::io::BufReader::new(file))
    };
    let mut problems = Vec::new();
    let sum = run_reader(reader, |r| {
        if r.outcome != Outcome::Passed && problems.len() < 50 {
            problems.push(r.to_string());
        }
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        sum.failed == 0 && sum.skipped == 0,
        "{name}:\n{}\n{}",
        problems.join("\n"),
        sum.line()
    );
    sum
}

#[test]
fn public_sample() {
    assert_eq!(run_file("public.jsonl").passed, 623);
}

#[test]
fn h100_observed() {
    assert_eq!(run_file("h100-public.jsonl").passed, 10_762);
}

#[test]
fn h100_compiler_derived() {
    assert_eq!(run_file("gpu-h100-compiler.jsonl.gz").passed, 50_800);
}

#[test]
fn h100_more_forms() {
    // 236 non-seed forms, the MUFU-based `.approx` forms and `div.full` included.
    assert_eq!(run_file("h100-ptx-more.jsonl").passed, 7_110);
}

#[test]
fn h100_ftz_boundary() {
    // `cvt.rn.ftz.f32.f64` of values just under 2^-126 gives 0 on the H100.
    assert_eq!(run_file("h100-ftz-boundary.jsonl").passed, 624);
}

#[test]
fn h100_cvt_boundary() {
    // `cvt.f64.f16` keeps a NaN's payload on the H100.
    assert_eq!(run_file("h100-cvt-boundary.jsonl").passed, 1_360);
}

#[test]
fn h100_f64_boundary() {
    assert_eq!(run_file("h100-f64-boundary.jsonl").passed, 600);
}

#[test]
fn sass_half_arith() {
    // Every half-precision arithmetic form and copysign, 60 inputs each,
    // from the sm_90 machine code run by xtask's SASS interpreter.
    assert_eq!(run_file("sass-half-arith.jsonl").passed, 6_840);
}

#[test]
fn h200_new_families() {
    // The half-precision, packed 16-bit integer and fp8 conversion forms on
    // an H200 (the H100's chip): the SASS-oracle sets' inputs and three
    // larger ones, every value as the GPU gave it.
    assert_eq!(run_file("gpu-h200-new-families.jsonl.gz").passed, 89_440);
}

#[test]
fn h200_domain_edges() {
    // What the H200's whole-domain run showed sim-isa had wrong: bf16 to
    // f32 keeps NaN bits, `.ftz` into f16 leaves f32 subnormals, and
    // `mul.ftz.f16` flushes what is tiny after rounding.
    assert_eq!(run_file("h200-domain-edges.jsonl").passed, 13);
}

#[test]
fn h200_ftz_edges() {
    // f16 results at the flush-to-zero boundary, fma and packed forms too:
    // what is tiny after rounding (IEEE 754) is flushed, as mul showed.
    assert_eq!(run_file("h200-ftz-edges.jsonl.gz").passed, 2_400);
}

#[test]
fn h200_more_forms() {
    // The fp8 conversions from f32 pairs and `sad.u64/.s64`, which the SASS
    // oracle has no vectors of, as an H200 computed them.
    assert_eq!(run_file("h200-more-forms.jsonl.gz").passed, 3_000);
}

#[test]
fn h200_bit_forms() {
    // `bmsk`, `cvt.pack`, `testp` and `fns` on an H200 (2026-11-30): the
    // SASS-oracle files' inputs and larger sets from the same oracle. The
    // first measurement of `BMSK` and `I2IP` here; all equalled the oracle.
    assert_eq!(run_file("h200-bit-forms.jsonl.gz").passed, 31_760);
}

#[test]
fn h200_approx_f64() {
    // `rcp.approx.ftz.f64` and `rsqrt.approx{.ftz}.f64` on an H200
    // (2026-11-30): `MUFU.RCP64H`/`RSQ64H` read the `.f32` units' tables at
    // the high word's 20 fraction bits; 208 and 92 of the 4,000 sources of
    // the two `.ftz` forms differed from the truncated exact result in the
    // last bit, all now agree.
    assert_eq!(run_file("h200-approx-f64.jsonl.gz").passed, 12_000);
}

#[test]
fn h200_ex2_half() {
    // `ex2.approx.f16` and `ex2.approx.ftz.bf16` as an H200 computed them
    // (a sample of its whole tables, the truncation cases included).
    assert_eq!(run_file("h200-ex2-half.jsonl.gz").passed, 2_473);
}

#[test]
fn h200_tanh_half() {
    // `tanh.approx.f16` and `.bf16` on the H200 (a sample of its whole
    // tables: every 64th source, the edges, and all 50 sources where the
    // rule alone misses, which sim-isa holds as measured exceptions).
    assert_eq!(run_file("h200-tanh-half.jsonl.gz").passed, 2_140);
}

#[test]
fn sass_ex2_half() {
    // `ex2.approx` on the four half types, 60 inputs each, from the sm_90
    // machine code (MUFU.EX2.F16/.BF16, PRMT) run by xtask's SASS interpreter.
    assert_eq!(run_file("sass-ex2-half.jsonl").passed, 240);
}

#[test]
fn sass_testp() {
    // `testp` with each property on f32 and f64, 40 random and edge inputs
    // each, from the sm_90 machine code (LOP3, ISETP, ISETP.EX) run by
    // xtask's SASS interpreter.
    assert_eq!(run_file("sass-testp.jsonl").passed, 480);
}

#[test]
fn sass_fns() {
    // `fns.b32` with register and immediate bases and offsets, 40 inputs
    // each, from the sm_90 machine code (branches on the offset, BREV, a
    // POPC binary search) run by xtask's SASS interpreter; the i32::MIN
    // offset forms hold the machine's answer (0), not the manual's.
    assert_eq!(run_file("sass-fns.jsonl").passed, 1_040);
}

#[test]
fn sass_bmsk() {
    // `bmsk.{clamp,wrap}.b32` with register and immediate positions and
    // widths, 40 inputs each: ptxas emits one BMSK (BMSK.W for .wrap), which
    // xtask's interpreter runs as a per-bit range test written apart from
    // sim-isa's shifted masks. Both read the manual: no machine measured.
    assert_eq!(run_file("sass-bmsk.jsonl").passed, 1_680);
}

#[test]
fn sass_cvt_pack() {
    // `cvt.pack.sat` to u16, s16, u8, s8 (immediate sources too), 60
    // inputs each, from the sm_90 machine code (I2IP) run by xtask's SASS
    // interpreter, whose I2IP is the manual's definition (no GPU asked).
    assert_eq!(run_file("sass-cvt-pack.jsonl").passed, 360);
}

#[test]
fn format_doc_examples() {
    // The examples in docs/conformance-format.md are vectors too.
    let doc = include_str!("../../../docs/conformance-format.md");
    let block = doc
        .split("```json\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a json block");
    let report = sim_isa::conform::run_vectors(block);
    assert_eq!(report.summary_line(), "4 passed, 0 failed", "{report}");
}
