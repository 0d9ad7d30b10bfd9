//! The tensor-core forms against the SASS oracle: `tests/data/sass-mma.jsonl.gz`
//! holds warp vectors (`sim_isa::conform_warp`) made by
//! `xtask values --family mma`: each form compiled by ptxas 13.0.88 for
//! sm_90 in a one-warp kernel and its machine code (HMMA, IMMA, DMMA, LDSM,
//! STSM, MOVM) run on xtask's SASS interpreter, 16 random and edge input
//! sets per form. sim-isa must give every register of every lane, and
//! every byte of shared memory `stmatrix` leaves, bit for bit.

use sim_isa::conform_warp::run_warp_vector;
use std::collections::BTreeMap;
use std::io::Read;

/// The text of `tests/data/<name>` (gzipped warp vectors).
pub(crate) fn vector_file(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("gzip");
    text
}

fn vectors() -> String {
    vector_file("sass-mma.jsonl.gz")
}

/// The vector lines of a file's text (no comments, no blank lines).
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
}

/// Runs every vector of `text` through sim-isa; fails naming up to ten
/// that disagree or cannot run. Returns the number of vectors of each form.
pub(crate) fn agreed(text: &str) -> BTreeMap<String, usize> {
    let mut per_form: BTreeMap<String, usize> = BTreeMap::new();
    let mut wrong = Vec::new();
    for line in lines(text) {
        let j: serde_json::Value = serde_json::from_str(line).expect("json");
        let ptx = j["ptx"].as_str().expect("ptx").to_string();
        match run_warp_vector(line) {
            Ok(None) => *per_form.entry(ptx).or_default() += 1,
            Ok(Some(diff)) => wrong.push(format!("{ptx}: {diff}")),
            Err(e) => wrong.push(format!("{ptx}: unusable: {e}")),
        }
    }
    assert!(
        wrong.is_empty(),
        "{}",
        wrong[..wrong.len().min(10)].join("\n")
    );
    per_form
}

#[test]
fn every_form_agrees_with_the_machine_code() {
    let per_form = agreed(&vectors());
    // 31 forms: 6 f16/bf16 (k16 and k8 into f32 from each type, and f16
    // into f16 accumulators), 10 integer
    // (k32 in four type pairs and k16, each with and without .satfinite),
    // 2 f64, movmatrix, and ldmatrix/stmatrix in x1, x2, x4, .trans or not.
    assert_eq!(per_form.len(), 31, "{per_form:?}");
    assert!(per_form.values().all(|&n| n == 16), "{per_form:?}");
    for (prefix, n) in [
        ("mma.sync.aligned.m16n8k", 16),
        ("mma.sync.aligned.m8n8k4", 2),
        ("ldmatrix", 6),
        ("stmatrix", 6),
        ("movmatrix", 1),
    ] {
        let got = per_form.keys().filter(|k| k.starts_with(prefix)).count();
        assert_eq!(got, n, "{prefix}");
    }
}

/// Every lane value of the registers in `field` (`in` or `out`) of the
/// vectors whose form contains `form`.
pub(crate) fn values(text: &str, field: &str, form: &str) -> Vec<u64> {
    text.lines()
        .filter(|l| l.contains(form))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .flat_map(|j| {
            let regs = j[field].as_object().cloned().unwrap_or_default();
            regs.values()
                .flat_map(|v| v.as_array().cloned().unwrap_or_default())
                .filter_map(|x| u64::from_str_radix(x.as_str()?.strip_prefix("0x")?, 16).ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The vectors reach the edges the forms have: NaN, infinite and subnormal
/// values, saturated integer sums, and `stmatrix` rows written.
/// The same forms on an H200 (the H100's chip; 2026-11-30,
/// `tools/gpu/warp_run.py`): `tests/data/h200-mma.jsonl.gz`, 16 of each
/// form's 64 input sets (new seeds; all 1,984 equalled the oracle's). Every
/// register of every lane, and the image `stmatrix` leaves, as the tensor
/// cores gave them.
#[test]
fn every_form_agrees_with_an_h200() {
    let text = vector_file("h200-mma.jsonl.gz");
    let per_form = agreed(&text);
    assert_eq!(per_form.len(), 31, "{per_form:?}");
    assert!(per_form.values().all(|&n| n == 16), "{per_form:?}");
    assert!(lines(&text).all(|l| l.contains("\"source\":\"h200\"")));
}

#[test]
fn the_vectors_reach_the_edges() {
    let text = vectors();
    let f32_out = values(&text, "out", ".f32.f16.f16.f32");
    assert!(f32_out.contains(&0x7fff_ffff), "NaN");
    assert!(
        f32_out.iter().any(|&v| v & 0x7fff_ffff == 0x7f80_0000),
        "inf"
    );
    let f16_in = values(&text, "in", ".f32.f16.f16.f32");
    let sub = |h: u64| h & 0x7c00 == 0 && h & 0x3ff != 0;
    assert!(
        f16_in.iter().any(|&v| sub(v & 0xffff) || sub(v >> 16)),
        "subnormal"
    );
    let h16_out = values(&text, "out", ".f16.f16.f16.f16");
    assert!(
        h16_out.iter().any(|&v| v & 0x7fff == 0x7c00),
        "f16 overflow to inf"
    );
    let sat = values(&text, "out", ".satfinite.s32.s8.s8.s32");
    assert!(
        sat.iter().any(|&v| v == 0x7fff_ffff || v == 0x8000_0000),
        "saturated"
    );
    assert!(text.lines().any(|l| l.contains("\"shared_out\"")));
}

/// A wrong value is a disagreement naming the register and lane; a
/// malformed vector is an error, never a panic.
#[test]
fn warp_vectors_report_disagreements_and_bad_input() {
    use sim_isa::conform_warp::WarpVectorError;
    let lanes = |f: &dyn Fn(usize) -> u32| {
        let v: Vec<String> = (0..32).map(|l| format!("\"{:#x}\"", f(l))).collect();
        format!("[{}]", v.join(","))
    };
    // movmatrix of element (r, c) = 8r + c (lane 4r + c/2, half c % 2):
    // lane 5 gets (2, 1) and (3, 1), 17 and 25.
    let src = lanes(&|l| (2 * l as u32) | (2 * l as u32 + 1) << 16);
    let line = |out: &str| {
        format!(
            "{{\"arch\":\"sm_90\",\"ptx\":\"movmatrix.sync.aligned.m8n8.trans.b16 %r2, %r1;\",\
             \"in\":{{\"%r1\":{src}}},\"out\":{{\"%r2\":{out}}}}}"
        )
    };
    let t = |l: usize| {
        let (r, c) = (l / 4, 2 * (l % 4));
        (8 * c + r) as u32 | ((8 * (c + 1) + r) as u32) << 16
    };
    assert_eq!(run_warp_vector(&line(&lanes(&t))), Ok(None));
    let off = |l: usize| if l == 5 { t(l) ^ 1 } else { t(l) };
    let diff = run_warp_vector(&line(&lanes(&off)))
        .unwrap()
        .expect("a disagreement");
    assert!(diff.contains("%r2 lane 5"), "{diff}");
    assert_eq!(run_warp_vector("[1]"), Err(WarpVectorError::Field("arch")));
    let missing = line(&lanes(&t))
        .replace("%r1", "%r3")
        .replace("%r3;", "%r1;");
    assert_eq!(
        run_warp_vector(&missing),
        Err(WarpVectorError::MissingInput("%r1".into()))
    );
    let short = line("[\"0x0\"]");
    assert_eq!(
        run_warp_vector(&short),
        Err(WarpVectorError::Lanes("%r2".into()))
    );
    // A row address past the shared image faults; odd or non-ASCII hex is refused.
    let ld = |addr: u32, shared: &str| {
        format!(
            "{{\"arch\":\"sm_90\",\"ptx\":\"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {{%r2}}, [%r1];\",\
             \"in\":{{\"%r1\":{}}},\"shared\":\"{shared}\",\"out\":{{}}}}",
            lanes(&|_| addr)
        )
    };
    assert!(matches!(
        run_warp_vector(&ld(u32::MAX, "00")),
        Err(WarpVectorError::Fault(_))
    ));
    assert_eq!(
        run_warp_vector(&ld(0, "0")),
        Err(WarpVectorError::Bytes("shared"))
    );
    assert_eq!(
        run_warp_vector(&ld(0, "0\u{e9}0")),
        Err(WarpVectorError::Bytes("shared"))
    );
}
