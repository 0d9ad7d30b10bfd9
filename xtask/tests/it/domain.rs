//! `xtask domain-check` (issue 23): the whole-domain GPU files of
//! tools/gpu/domain recomputed with sim-isa.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running xtask: {e}"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xtask-domain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir.join(name)
}

/// Forms of every kind: add.u16 (control, two16), not.b16 (one16), not.b32
/// (one32), add.f16, neg.f16, cvt.f32.f16, cvt.rn.f16x2.e4m3x2,
/// cvt.rn.f16.f32, setp.eq.f16 (indices into tools/gpu/domain/forms.txt).
const FORMS: &str = "0,1,2,3,45,76,90,94,140";

/// A file written from sim-isa's values reads back equal; the same with one
/// value per form off by one is caught at that `a`, form by form.
#[test]
fn domain_check_reads_back_its_own_values_and_catches_one_flipped_bit() {
    let good = tmp("good.bin");
    let g = good.to_string_lossy().to_string();
    // A fake file of `FORMS`, 3 samples each, sim-isa's values (`--tamper`:
    // each form's one value off by one).
    let fake = |path: &str, tamper: &[&str]| {
        let args = [
            "domain-check",
            "--fake",
            path,
            "--only",
            FORMS,
            "--samples",
            "3",
        ];
        xtask(&[&args[..], tamper].concat())
    };
    let o = fake(&g, &[]);
    assert!(o.status.success(), "{}", text(&o));
    let o = xtask(&["domain-check", &g]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("9 equal, 0 differ, 0 not checked"),
        "{}",
        text(&o)
    );

    let bad = tmp("bad.bin");
    let b = bad.to_string_lossy().to_string();
    let o = fake(&b, &["--tamper"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = xtask(&["domain-check", &b]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("0 equal, 9 differ"), "{out}");
    // The first key of every form is a = 0 (sample_keys).
    assert_eq!(out.matches("    a=0x0000: gpu").count(), 9, "{out}");

    // The extract keeps one16 tables whole and the named samples of the rest.
    let ex = tmp("extract.bin");
    let e = ex.to_string_lossy().to_string();
    let o = xtask(&["domain-check", &g, "--extract", &e, "--samples", "2"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = xtask(&["domain-check", &e]);
    assert!(text(&o).contains("9 equal, 0 differ"), "{}", text(&o));
    assert!(text(&o).contains("(one16, 65536 values)"), "{}", text(&o));
    assert!(text(&o).contains("(two16, 2 values)"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(good.parent().unwrap_or(Path::new("/nonexistent")));
}

/// The extract of the H200 run (tools/gpu/domain/README.md; written by
/// `xtask domain-check domain-0.bin domain-1.bin --extract
/// xtask/tests/data/domain-h200.bin`): every form equal to sim-isa.
#[test]
fn h200_whole_domain_extract_agrees_with_sim_isa() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/domain-h200.bin");
    assert!(data.exists(), "{} missing", data.display());
    let o = xtask(&["domain-check", &data.to_string_lossy()]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    // Every form of the H200 run: the controls, the half arithmetic and
    // compares, the conversions (their whole tables or 64 sampled rows).
    assert!(out.contains("[0] add.u16"), "{out}");
    assert!(
        out.contains("182 equal, 0 differ, 0 not checked (182 forms)"),
        "{out}"
    );
}

/// The second H200 run's approximate functions (`tools/gpu/domain/forms-approx.txt`;
/// extract of its `domain-0.bin`): the f32 MUFU forms sim-isa models agree at
/// every sampled high half (65,536 inputs each); `ex2.approx.f16`,
/// `ex2.approx.ftz.bf16`, `tanh.approx.f16` and `tanh.approx.bf16` over
/// their whole 65,536-entry tables (tanh's with the measured exceptions of
/// sim-isa's `exec/float/tanh.rs`). `tanh.approx.f32` is a model: 60 of its
/// 64 sampled high halves agree, and these four, the ones
/// `tools/gpu/domain/tanh_rules.py` lists, do not.
#[test]
fn h200_approximate_functions_agree_with_sim_isa() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/domain-h200-approx.bin");
    let o = xtask(&["domain-check", &data.to_string_lossy(), "--show", "8"]);
    let out = text(&o);
    // Exit 1: one form differs (tanh.approx.f32), every form is checked.
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("18 equal, 1 differ, 0 not checked (19 forms)"),
        "{out}"
    );
    for form in [
        "[0] ex2.approx.f16 %h5, %h1; (one16, 65536 values): equal",
        "[1] ex2.approx.ftz.bf16 %h5, %h1; (one16, 65536 values): equal",
        "[2] tanh.approx.f16 %h5, %h1; (one16, 65536 values): equal",
        "[3] tanh.approx.bf16 %h5, %h1; (one16, 65536 values): equal",
        "[10] ex2.approx.f32 %r5, %r1; (one32, 64 values): equal",
        "[18] tanh.approx.f32 %r5, %r1; (one32): 4 of 64 values differ",
    ] {
        assert!(out.contains(form), "{form}: {out}");
    }
    // The high halves whose checksums differ: 0x3c00 and 0xbc00 (+-2^-7 to
    // +-0.00787), 0x3f80 (1 to 1.0078) and 0x3ddf (0.1089 to 0.1094).
    let tail = &out[out.find("[18] tanh").expect("the tanh.approx.f32 line")..];
    let keys: Vec<&str> = tail
        .lines()
        .filter_map(|l| l.trim().strip_prefix("a="))
        .map(|l| &l[..6])
        .collect();
    assert_eq!(keys, ["0x3c00", "0xbc00", "0x3f80", "0x3ddf"], "{out}");
}
