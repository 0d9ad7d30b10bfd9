//! Research workflow: configuration files, timelines, study reports, sweeps,
//! completions and the manual page.

use crate::{exit2, parts, root, s, scratch, simcli};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;

fn json_of(args: &[&str]) -> Value {
    let (c, out, e) = parts(&simcli(args));
    assert_eq!(c, 0, "{args:?}: {e}");
    serde_json::from_str(&out).unwrap()
}

/// `simcli config` printed, read back with `--config`: the same report,
/// statistics and every parameter value, for every preset and derived targets.
#[test]
fn config_round_trip_gives_identical_reports() {
    let d = scratch("config_round_trip");
    for arch in [
        "sm_13", "sm_30", "sm_53", "sm_90", "sm_35", "sm_61", "sm_20",
    ] {
        let f = d.join(format!("{arch}.toml"));
        let (c, text, e) = parts(&simcli(&["config", "--arch", arch]));
        assert_eq!(c, 0, "{e}");
        assert!(text.contains("# Guide"), "sources as comments: {text}");
        std::fs::write(&f, &text).unwrap();
        let trace = if arch == "sm_13" || arch == "sm_20" {
            "traces/chain_set.ptx"
        } else {
            "traces/sad16x16.ptx"
        };
        let want = json_of(&["run", trace, "--arch", arch, "--format", "json"]);
        let got = json_of(&["run", trace, "--config", s(&f), "--format", "json"]);
        assert_eq!(got, want, "{arch}");
        assert_eq!(got["params"]["target"], arch);
        assert_eq!(got["overrides"], "");
        // And the text report, byte for byte.
        let a = parts(&simcli(&["run", trace, "--arch", arch]));
        let b = parts(&simcli(&["run", trace, "--config", s(&f)]));
        assert_eq!(a.1, b.1, "{arch}");
    }
}

/// An edited file, `--set` and flags: later layers win, and the JSON says
/// which parameters differ from the preset.
#[test]
fn config_overrides_change_the_run() {
    let d = scratch("config_overrides");
    let f = d.join("slow.toml");
    std::fs::write(&f, "target = \"sm_90\"\n[units.int_alu]\nlatency = 12\n").unwrap();
    let base = json_of(&[
        "run",
        "traces/chain_set.ptx",
        "--arch",
        "sm_90",
        "--format",
        "json",
    ]);
    let slow = json_of(&[
        "run",
        "traces/chain_set.ptx",
        "--config",
        s(&f),
        "--format",
        "json",
    ]);
    assert_eq!(slow["params"]["units"]["int_alu"]["latency"], 12);
    assert_eq!(slow["overrides"], "units.int_alu.latency=12");
    assert!(slow["cycles"].as_u64() > base["cycles"].as_u64());
    let set = json_of(&[
        "run",
        "traces/chain_set.ptx",
        "--config",
        s(&f),
        "--set",
        "units.int_alu.latency=4",
        "--set",
        "scheduler=gto",
        "--format",
        "json",
    ]);
    assert_eq!(set["cycles"], base["cycles"], "--set after the file wins");
    assert_eq!(set["scheduler"], "gto");
    let flag = json_of(&[
        "run",
        "traces/chain_set.ptx",
        "--set",
        "scheduler=gto",
        "--scheduler",
        "oldest",
        "--format",
        "json",
    ]);
    assert_eq!(flag["scheduler"], "oldest", "flags win over --set");
}

/// Bad keys and values: exit 2, naming the file, line and key.
#[test]
fn config_errors_name_key_and_line() {
    let d = scratch("config_errors");
    let f = d.join("bad.toml");
    for (text, want) in [
        (
            "target = \"sm_90\"\n\n[units.int_alu]\nlatency = \"x\"\n",
            "bad.toml:4: units.int_alu.latency: invalid type",
        ),
        (
            "schedulers = 4\nissue_widht = 2\n",
            "bad.toml:2: issue_widht: unknown field",
        ),
        ("target = \"sm_9x\"\n", "bad.toml:1: target:"),
        (
            "lowering = \"volta\"\n",
            "bad.toml:1: lowering: 'volta' is not",
        ),
        (
            "[limits]\nmax_cycles = -5\n",
            "bad.toml:2: limits.max_cycles:",
        ),
        ("schedulers = [\n", "bad.toml:"),
    ] {
        std::fs::write(&f, text).unwrap();
        let (c, out, e) = parts(&simcli(&["run", "traces/chain_set.ptx", "--config", s(&f)]));
        assert_eq!(c, 2, "{text}: {e}");
        assert!(out.is_empty());
        assert!(e.contains(want), "{text}: want {want}, got {e}");
    }
    for (set, want) in [
        (
            "units.alu.latency=6",
            "--set: units.alu.latency: unknown field `alu`",
        ),
        ("units.int_alu.latency=-1", "--set: units.int_alu.latency:"),
        ("schedulers", "expected KEY=VALUE"),
        ("scheduler=fifo", "'fifo' is not lrr, gto or oldest"),
    ] {
        let (c, _, e) = parts(&simcli(&["run", "traces/chain_set.ptx", "--set", set]));
        assert_eq!(c, 2, "{set}");
        assert!(e.contains(want), "{set}: want {want}, got {e}");
    }
    // A configuration the SM model refuses (no schedulers) is an error, not a panic.
    let e = exit2(&["run", "traces/chain_set.ptx", "--set", "schedulers=0"]);
    assert!(e.starts_with("error: "), "{e}");
    // An instruction cache that would need unbounded state is refused.
    let e = exit2(&[
        "run",
        "traces/chain_set.ptx",
        "--arch",
        "sm_90",
        "--set",
        "icache.line_bytes=1",
    ]);
    assert!(e.contains("icache: inst_bytes must be 1..=64"), "{e}");
}

/// `--timeline`: valid Trace Event Format; every issue the report counts is
/// drawn; spans on a track never overlap where the model forbids it.
#[test]
fn timeline_is_trace_event_format_with_every_issue() {
    let d = scratch("timeline");
    let tl = d.join("tl.json");
    let rep = json_of(&[
        "run",
        "traces/sad16x16.ptx",
        "--timeline",
        s(&tl),
        "--format",
        "json",
    ]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&tl).unwrap()).unwrap();
    let events = doc["traceEvents"].as_array().expect("traceEvents array");
    let mut issues: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    let mut sched: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    let mut names = 0;
    for e in events {
        let ph = e["ph"].as_str().expect("ph");
        assert!(e["pid"].is_u64() && e["tid"].is_u64(), "pid/tid: {e}");
        assert!(e["name"].is_string(), "{e}");
        match ph {
            "M" => {
                assert!(e["args"].is_object(), "{e}");
                names += 1;
            }
            "X" => {
                let (ts, dur) = (
                    e["ts"].as_u64().expect("ts"),
                    e["dur"].as_u64().expect("dur"),
                );
                assert!(dur > 0, "{e}");
                let tid = e["tid"].as_u64().unwrap();
                match e["cat"].as_str().expect("cat") {
                    "issue" => {
                        assert_eq!(e["args"]["complete"].as_u64(), Some(ts + dur), "{e}");
                        issues.entry(tid).or_default().push((ts, dur));
                    }
                    "sched" => sched.entry(tid).or_default().push((ts, dur)),
                    "stall" => {
                        let n = e["name"].as_str().unwrap();
                        assert!(
                            ["dependency", "not selected", "no issue"].contains(&n),
                            "{e}"
                        );
                    }
                    c => panic!("unknown category {c}"),
                }
            }
            p => panic!("unexpected phase {p}"),
        }
    }
    assert!(names >= 1 + 4 + 8, "process, scheduler and warp names");
    let total: usize = issues.values().map(Vec::len).sum();
    assert_eq!(total as u64, rep["warp_instructions"].as_u64().unwrap());
    assert_eq!(
        issues.len() as u64,
        rep["warps"].as_u64().unwrap(),
        "a track per warp"
    );
    let sched_total: usize = sched.values().map(Vec::len).sum();
    assert_eq!(
        sched_total, total,
        "each issue on its scheduler's track too"
    );
    for spans in sched.values() {
        for w in spans.windows(2) {
            assert!(
                w[0].0 + w[0].1 <= w[1].0,
                "a scheduler issues one thing at a time: {w:?}"
            );
        }
    }
    let cycles = rep["cycles"].as_u64().unwrap();
    for spans in issues.values() {
        for &(ts, dur) in spans {
            assert!(ts + dur <= cycles, "completion within the run");
        }
    }
    assert_eq!(doc["otherData"]["truncated"], false);
    // The limit bounds what is drawn, and says so.
    let (c, _, e) = parts(&simcli(&[
        "run",
        "traces/sad16x16.ptx",
        "--timeline",
        s(&tl),
        "--timeline-limit",
        "10",
    ]));
    assert_eq!(c, 0, "{e}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&tl).unwrap()).unwrap();
    assert_eq!(doc["otherData"]["issues_drawn"], 10);
    assert_eq!(doc["otherData"]["truncated"], true);
}

/// One fixed CSV schema whatever the trace; per-opcode rows in their own file.
#[test]
fn csv_schema_is_fixed_and_concatenates() {
    let d = scratch("csv_schema");
    let mut headers = Vec::new();
    for t in [
        "traces/sad16x16.ptx",
        "traces/audio_mix.ptx",
        "traces/chain_set.ptx",
    ] {
        let ops = d.join("ops.csv");
        let (c, out, e) = parts(&simcli(&[
            "run",
            t,
            "--format",
            "csv",
            "--opcode-csv",
            s(&ops),
        ]));
        assert_eq!(c, 0, "{e}");
        let mut lines = out.lines();
        headers.push(lines.next().unwrap().to_string());
        let row: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(row[0], "0");
        assert_eq!(row[1], t);
        let ops = std::fs::read_to_string(&ops).unwrap();
        let mut op_lines = ops.lines();
        assert!(op_lines.next().unwrap().ends_with(
            ",opcode,count,thread_instructions,micro_ops,latency_mean,latency_min,latency_max"
        ));
        let counted: u64 = op_lines
            .map(|l| l.split(',').nth(8).unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(
            counted.to_string(),
            row[8],
            "opcode counts sum to warp_instructions"
        );
    }
    assert!(headers.windows(2).all(|w| w[0] == w[1]), "{headers:?}");
    // A field with a comma is quoted, not split.
    let odd = d.join("a,b.ptx");
    std::fs::copy(root().join("traces/chain_set.ptx"), &odd).unwrap();
    let (c, out, e) = parts(&simcli(&["run", s(&odd), "--format", "csv"]));
    assert_eq!(c, 0, "{e}");
    assert!(out.contains(&format!("0,\"{}\",", s(&odd))), "{out}");
}

/// JSON identifies the run: tool version and commit, input, every parameter, per-SM statistics.
#[test]
fn json_identifies_the_run() {
    let v = json_of(&[
        "run",
        "traces/indep_cmp.ptx",
        "--arch",
        "sm_90",
        "--sms",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(v["schema"], 3);
    assert_eq!(v["tool"]["name"], "simcli");
    assert!(v["tool"]["commit"].as_str().is_some_and(|c| !c.is_empty()));
    assert_eq!(v["input"], "traces/indep_cmp.ptx");
    assert_eq!(v["params"]["units"]["int_alu"]["lanes_per_sm"], 64);
    assert_eq!(v["params"]["limits"]["max_cycles"], 1_000_000_000_000u64);
    let per_sm = v["per_sm"].as_array().unwrap();
    assert_eq!(per_sm.len(), 2);
    let sum: u64 = per_sm
        .iter()
        .map(|s| s["warp_instructions"].as_u64().unwrap())
        .sum();
    assert_eq!(sum, v["warp_instructions"].as_u64().unwrap());
    let (c, out, _) = parts(&simcli(&["--version"]));
    assert_eq!(c, 0);
    let commit = v["tool"]["commit"].as_str().unwrap();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(out.trim(), format!("simcli {version} ({commit})"));
}

const SWEEP: &str = r#"
traces = ["traces/sad16x16.ptx", "traces/audio_mix.ptx", "traces/chain_vadd4.ptx"]
archs = ["sm_53", "sm_90"]
[params]
scheduler = ["lrr", "gto"]
units.int_alu.latency = [4, 6]
"#;

fn sweep_cmd(args: &[&str], slurm: Option<(&str, &str)>) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_simcli"));
    c.args(args).current_dir(root());
    for v in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
    ] {
        c.env_remove(v);
    }
    if let Some((id, n)) = slurm {
        c.env("SLURM_ARRAY_TASK_ID", id)
            .env("SLURM_ARRAY_TASK_COUNT", n);
    }
    parts(&c.output().unwrap())
}

/// Two shards run as separate processes and merged equal the unsharded
/// sweep byte for byte; so do `--jobs`, the Slurm variables, and per-opcode files.
#[test]
fn sharded_sweep_merges_to_the_unsharded_one() {
    let d = scratch("sweep_shards");
    let f = d.join("sweep.toml");
    std::fs::write(&f, SWEEP).unwrap();
    let p = |n: &str| d.join(n);
    let (c, _, e) = sweep_cmd(
        &[
            "sweep",
            s(&f),
            "-o",
            s(&p("all.csv")),
            "--opcode-csv",
            s(&p("all_ops.csv")),
        ],
        None,
    );
    assert_eq!(c, 0, "{e}");
    let all = std::fs::read(p("all.csv")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&all).lines().count(),
        1 + 3 * 2 * 2 * 2
    );
    let (c, _, e) = sweep_cmd(
        &[
            "sweep",
            s(&f),
            "--shard",
            "1/2",
            "-o",
            s(&p("s1.csv")),
            "--opcode-csv",
            s(&p("o1.csv")),
        ],
        None,
    );
    assert_eq!(c, 0, "{e}");
    let (c, _, e) = sweep_cmd(
        &[
            "sweep",
            s(&f),
            "-o",
            s(&p("s0.csv")),
            "--opcode-csv",
            s(&p("o0.csv")),
        ],
        Some(("0", "2")),
    );
    assert_eq!(c, 0, "{e}");
    let (c, merged, e) = sweep_cmd(&["merge", s(&p("s1.csv")), s(&p("s0.csv"))], None);
    assert_eq!(c, 0, "{e}");
    assert_eq!(merged.as_bytes(), all.as_slice());
    let (c, _, e) = sweep_cmd(
        &[
            "merge",
            s(&p("o0.csv")),
            s(&p("o1.csv")),
            "-o",
            s(&p("ops.csv")),
        ],
        None,
    );
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        std::fs::read(p("ops.csv")).unwrap(),
        std::fs::read(p("all_ops.csv")).unwrap()
    );
    let (c, jobs, e) = sweep_cmd(&["sweep", s(&f), "--jobs", "3"], None);
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        jobs.as_bytes(),
        all.as_slice(),
        "--jobs does not change the output"
    );
    // Overlapping shards, and bad shard specifications, are refused.
    let (c, _, e) = sweep_cmd(&["merge", s(&p("s0.csv")), s(&p("all.csv"))], None);
    assert_eq!(c, 2);
    assert!(e.contains("run 0 is also in"), "{e}");
    for bad in ["2/2", "x/2", "1/0", "3"] {
        let (c, _, e) = sweep_cmd(&["sweep", s(&f), "--shard", bad], None);
        assert_eq!(c, 2, "{bad}");
        assert!(e.contains("expected I/N"), "{e}");
    }
}

/// Sweep-file mistakes name the file and the key.
#[test]
fn sweep_file_errors() {
    let d = scratch("sweep_errors");
    let f = d.join("sweep.toml");
    for (text, want) in [
        (
            "traces = [\"traces/sad16x16.ptx\"]\n[params]\nunits.int_alu.latncy = [1]\n",
            "units.int_alu.latncy: unknown field",
        ),
        (
            "traces = [\"traces/sad16x16.ptx\"]\narchz = [\"sm_90\"]\n",
            "sweep.toml:2: unknown field `archz`",
        ),
        ("traces = []\n", "at least one trace"),
        (
            "traces = [\"traces/sad16x16.ptx\"]\narchs = [\"sm90\"]\n",
            "archs: 'sm90' is not a target",
        ),
        ("traces = [\"traces/missing.ptx\"]\n", "traces/missing.ptx"),
        (
            "traces = [\"traces/bf16_mask.ptx\"]\narchs = [\"sm_53\"]\n",
            "needs sm_90",
        ),
    ] {
        std::fs::write(&f, text).unwrap();
        let (c, _, e) = sweep_cmd(&["sweep", s(&f)], None);
        assert_eq!(c, 2, "{text}");
        assert!(e.contains(want), "{text}: want {want}, got {e}");
    }
}

/// Completions for every shell clap_complete knows, and the manual page.
#[test]
fn completions_and_man_page() {
    for sh in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (c, out, e) = parts(&simcli(&["completions", sh]));
        assert_eq!(c, 0, "{e}");
        assert!(out.contains("sweep") && out.contains("timeline"), "{sh}");
    }
    let (c, out, _) = parts(&simcli(&["man"]));
    assert_eq!(c, 0);
    assert!(out.starts_with(".ie") && out.contains(".SH NAME"), "{out}");
}

/// `RUST_LOG` reaches sim-core's tracing events, on standard error only.
#[test]
fn rust_log_goes_to_stderr() {
    let out = Command::new(env!("CARGO_BIN_EXE_simcli"))
        .args(["run", "traces/chain_set.ptx", "--format", "csv"])
        .env("RUST_LOG", "sim_core=debug")
        .current_dir(root())
        .output()
        .unwrap();
    let (c, stdout, stderr) = parts(&out);
    assert_eq!(c, 0, "{stderr}");
    assert!(
        stderr.contains("DEBUG") && stderr.contains("sim_core"),
        "{stderr}"
    );
    assert!(
        stdout.starts_with("run,input,"),
        "the report is untouched: {stdout}"
    );
    let (_, _, quiet) = parts(&simcli(&["run", "traces/chain_set.ptx"]));
    assert!(quiet.is_empty(), "{quiet}");
}

/// The timeline's memory is bounded: an oversized limit is refused up front.
#[test]
fn timeline_limit_is_bounded() {
    let d = scratch("timeline_bound");
    let e = exit2(&[
        "run",
        "traces/chain_set.ptx",
        "--sms",
        "64",
        "--timeline",
        s(&d.join("t.json")),
        "--timeline-limit",
        "1000000",
    ]);
    assert!(e.contains("--timeline-limit"), "{e}");
}
