//! Golden reports: `simcli run traces/X.ptx --arch A` for every sample and
//! preset, against traces/expected/X.A.txt. Bless with UPDATE_EXPECT=1.

use crate::{parts, root, s, samples, scratch, simcli};

const PRESETS: [&str; 4] = ["sm_13", "sm_30", "sm_53", "sm_90"];

fn observed(file: &str, arch: &str) -> String {
    let (code, out, err) = parts(&simcli(&["run", file, "--arch", arch]));
    if code == 0 {
        out
    } else {
        format!("exit {code}\n{err}")
    }
}

#[test]
fn golden_reports_per_preset() {
    let bless = std::env::var_os("UPDATE_EXPECT").is_some_and(|v| v == "1");
    let mut bad = Vec::new();
    for p in samples() {
        let stem = p.file_stem().unwrap().to_str().unwrap().to_string();
        let rel = format!("traces/{stem}.ptx");
        for arch in PRESETS {
            let got = observed(&rel, arch);
            let path = root()
                .join("traces/expected")
                .join(format!("{stem}.{arch}.txt"));
            if bless {
                std::fs::write(&path, &got).unwrap();
                continue;
            }
            match std::fs::read_to_string(&path) {
                Ok(want) if want == got => {}
                Ok(want) => bad.push(format!(
                    "{}: differs\n--- expected\n{want}\n--- got\n{got}",
                    path.display()
                )),
                Err(_) => bad.push(format!(
                    "{}: missing (bless with UPDATE_EXPECT=1)",
                    path.display()
                )),
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} golden mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The refusal of the bf16 kernel on sm_53 names the line and the need.
#[test]
fn bf16_refused_on_sm53_with_clear_message() {
    let (code, out, err) = parts(&simcli(&["run", "traces/bf16_mask.ptx", "--arch", "sm_53"]));
    assert_eq!(code, 2);
    assert!(out.is_empty(), "nothing is simulated: {out}");
    assert!(err.contains("traces/bf16_mask.ptx:"), "{err}");
    assert!(err.contains("set.gt.u32.bf16x2"), "{err}");
    assert!(err.contains("needs sm_90"), "{err}");
}

/// `run` on kernel text and on its assembled binary print identical reports,
/// in every format, but for the input's name (which JSON and CSV record).
#[test]
fn text_and_binary_give_identical_reports() {
    let dir = scratch("text_vs_bin");
    for p in samples() {
        let stem = p.file_stem().unwrap().to_str().unwrap();
        let bin = dir.join(format!("{stem}.bin"));
        let (code, _, err) = parts(&simcli(&["asm", s(&p), "-o", s(&bin)]));
        assert_eq!(code, 0, "asm {stem}: {err}");
        for fmt in ["text", "json", "csv"] {
            let a = parts(&simcli(&["run", s(&p), "--format", fmt]));
            let b = parts(&simcli(&["run", s(&bin), "--format", fmt]));
            assert_eq!(a.0, 0, "{stem}: {}", a.2);
            let (a, b) = (
                without_input(fmt, &a.1, s(&p)),
                without_input(fmt, &b.1, s(&bin)),
            );
            assert_eq!(a, b, "{stem} --format {fmt}");
        }
    }
}

/// `report` with the input's name, which must be `input`, blanked.
fn without_input(fmt: &str, report: &str, input: &str) -> String {
    match fmt {
        "json" => {
            let mut v: serde_json::Value = serde_json::from_str(report).unwrap();
            assert_eq!(v["input"], input);
            v["input"] = serde_json::Value::Null;
            v.to_string()
        }
        "csv" => {
            let field = format!(",{input},");
            assert_eq!(report.matches(&field).count(), 1, "{report}");
            report.replacen(&field, ",,", 1)
        }
        _ => report.to_string(),
    }
}

/// The JSON report carries the documented keys with consistent values.
#[test]
fn json_report_schema() {
    let (code, out, err) = parts(&simcli(&[
        "run",
        "traces/chain_set.ptx",
        "--arch",
        "sm_30",
        "--format",
        "json",
    ]));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for k in [
        "schema",
        "arch",
        "cycles",
        "warp_instructions",
        "thread_instructions",
        "ipc",
        "stalls",
        "per_opcode",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert_eq!(v["arch"], "sm_30");
    assert_eq!(v["warp_instructions"], 1001);
    assert_eq!(v["thread_instructions"], 1001 * 32);
    assert_eq!(v["per_opcode"]["set"]["count"], 1000);
    let ipc = v["ipc"].as_f64().unwrap();
    let cycles = v["cycles"].as_f64().unwrap();
    assert!((ipc - 1001.0 / cycles).abs() < 1e-9);
    for k in ["issued", "dependency", "unit_busy", "no_eligible"] {
        assert!(v["issue_slots"][k].is_u64(), "issue_slots.{k}");
    }
    // Nsight Compute's reasons, summing to the resident warp-cycles.
    let stalls = v["stalls"].as_object().unwrap();
    assert_eq!(stalls.len(), sim_core::warp_states::REASONS.len());
    let sum: u64 = stalls.values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(sum, v["resident_warp_cycles"].as_u64().unwrap());
    // One warp issuing a dependent chain: it issues 1001 times and waits
    // on the fixed latency of `set` in between.
    assert_eq!(stalls["selected"], 1001);
    assert!(stalls["wait"].as_u64().unwrap() > 1001, "{stalls:?}");
    // Every line that issued, with its text; the activity series.
    let lines = v["lines"].as_array().unwrap();
    let issued: u64 = lines
        .iter()
        .map(|l| l["warp_instructions"].as_u64().unwrap())
        .sum();
    assert_eq!(issued, 1001);
    assert!(lines.iter().all(|l| l["line"].as_u64().unwrap() > 0));
    assert!(lines
        .iter()
        .any(|l| l["text"].as_str().unwrap().starts_with("set.")));
    let act = &v["activity"];
    assert!(act["bucket_cycles"].as_u64().unwrap() >= 64);
    let per: u64 = act["per_sm"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(per, 1001);
}

/// `--dump-regs` writes 32 lanes per register, hex strings and predicate booleans.
#[test]
fn dump_regs_shape_and_values() {
    let dir = scratch("dump_regs");
    let out = dir.join("regs.json");
    let (code, _, err) = parts(&simcli(&[
        "run",
        "traces/indep_cmp.ptx",
        "--dump-regs",
        s(&out),
    ]));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let warps = v["warps"].as_array().unwrap();
    assert_eq!(warps.len(), 64);
    let r1 = warps[5]["%r1"].as_array().unwrap();
    assert_eq!(r1.len(), 32);
    // set.lt.u32.u32 %r1, %laneid, 4: all ones on lanes 0-3.
    assert_eq!(r1[0], "0xffffffff");
    assert_eq!(r1[3], "0xffffffff");
    assert_eq!(r1[4], "0x00000000");
    let r8 = warps[0]["%r8"].as_array().unwrap();
    assert_eq!(r8[31], "0x0000001f");
}
