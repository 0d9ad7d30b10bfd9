//! Launch files everywhere traces go (issue 25, item 6): the memory figures
//! as configuration keys (`--set memory.*`, `[memory]` in `--config`,
//! `simcli config`), `--timeline` and `--dump-regs` on a launch, and
//! `simcli sweep` over launch files.

use crate::{exit2, parts, root, s, scratch, simcli};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A memory-bound launch: every thread loads two arrays from DRAM.
fn launch() -> PathBuf {
    root().join("sim-module/tests/data/h100/audio_mix.t.json")
}

fn json_of(args: &[&str]) -> Value {
    let (c, out, e) = parts(&simcli(args));
    assert_eq!(c, 0, "{args:?}: {e}");
    serde_json::from_str(&out).unwrap_or_else(|err| panic!("{args:?}: {err}\n{out}"))
}

/// Runs simcli with `args`, which must succeed, and reads the JSON it
/// wrote to `file`.
fn json_written(args: &[&str], file: &Path) -> Value {
    let (c, _, e) = parts(&simcli(args));
    assert_eq!(c, 0, "{args:?}: {e}");
    serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap()
}

/// Cycles of the launch with `extra` options.
fn cycles(extra: &[&str]) -> u64 {
    let l = launch();
    let mut args = vec!["run", s(&l), "--format", "json", "--sms", "1"];
    args.extend(extra);
    json_of(&args)["cycles"].as_u64().unwrap()
}

#[test]
fn memory_keys_change_a_launchs_cycles() {
    let base = cycles(&[]);
    // A DRAM latency of 670 (the preset) to 1670: each of the launch's
    // dependent first touches waits 1000 cycles more.
    let slow = cycles(&["--set", "memory.dram.latency=1670"]);
    assert!(slow >= base + 1000, "{base} -> {slow}");
    let fast = cycles(&["--set", "memory.dram.latency=100"]);
    assert!(fast < base, "{base} -> {fast}");
    // The same through a `[memory]` table in a file.
    let d = scratch("launchopts_config");
    let f = d.join("m.toml");
    std::fs::write(&f, "[memory.dram]\nlatency = 1670\n").unwrap();
    assert_eq!(cycles(&["--config", s(&f)]), slow);
    // The report says what was changed.
    let l = launch();
    let v = json_of(&[
        "run",
        s(&l),
        "--format",
        "json",
        "--sms",
        "1",
        "--set",
        "memory.l2.latency=600",
    ]);
    assert_eq!(v["overrides"], "memory.l2.latency=600");
    assert_eq!(v["params"]["memory"]["l2"]["latency"], 600);
    assert_eq!(v["params"]["memory"]["dram"]["latency"], 670);
}

/// `--warm`: the launch's buffers start in L2, so its dependent first
/// touches wait an L2 hit (291) where a cold launch waits a DRAM access
/// (670); a kernel text has no buffers and refuses the flag.
#[test]
fn warm_buffers_start_in_l2() {
    let (cold, warm) = (cycles(&[]), cycles(&["--warm"]));
    assert!(warm + (670 - 291) <= cold, "cold {cold}, warm {warm}");
    let (code, _, err) = parts(&simcli(&["run", "traces/audio_mix.ptx", "--warm"]));
    assert_ne!(code, 0);
    assert!(err.contains("--warm applies to launch files"), "{err}");
}

/// `--set memory.l2.latency=600` (the example) on a launch whose
/// accesses hit in L2 (the histogram's 256 blocks, on the whole GPU).
#[test]
fn l2_latency_changes_a_launchs_cycles() {
    let l = root().join("workloads/histogram.json");
    let run = |set: &str| {
        json_of(&["run", s(&l), "--format", "json", "--set", set])["cycles"]
            .as_u64()
            .unwrap()
    };
    let (preset, slow) = (run("memory.l2.latency=291"), run("memory.l2.latency=600"));
    assert!(slow > preset, "{preset} -> {slow}");
}

#[test]
fn memory_key_errors_name_the_key() {
    let l = launch();
    for (set, want) in [
        ("memory.l2.latncy=600", "memory.l2.latncy"),
        ("memory.sms=0", "memory.sms: 0 is out of range: 1 to 4096"),
        ("memory.dram.bytes=4", "memory.dram.bytes"),
    ] {
        let (c, _, e) = parts(&simcli(&["run", s(&l), "--set", set]));
        assert_eq!(c, 2, "{set}");
        assert!(e.contains(want), "{set}: want {want}, got {e}");
    }
}

/// `--sample-sms`: how many SMs `--sample` times, at least one and fewer
/// than the SMs, spread over the GPU; the report names them.
#[test]
fn sample_sms_are_bounded_and_reported() {
    let l = root().join("workloads/reduce.json");
    for (extra, want) in [
        (&["--sample", "--sample-sms", "0"][..], "0 is not in 1.."),
        (
            &["--sample", "--sample-sms", "8", "--sms", "8"][..],
            "--sample-sms 8: must be fewer than the SMs (8)",
        ),
        (&["--sample-sms", "2"][..], "--sample"),
    ] {
        let mut args = vec!["run", s(&l)];
        args.extend(extra);
        let e = exit2(&args);
        assert!(e.contains(want), "{extra:?}: want {want}, got {e}");
    }
    let j = json_of(&[
        "run",
        s(&l),
        "--sample",
        "--sample-sms",
        "3",
        "--threads",
        "2",
        "--format",
        "json",
    ]);
    let sampled = &j["launch"]["sampled"];
    assert_eq!(sampled["timed_sm_indices"], serde_json::json!([0, 44, 88]));
    assert_eq!(sampled["timed_sms"], 3);
}

/// `simcli config` prints the memory keys with their sources, and the
/// printed file reads back to the same run.
#[test]
fn config_prints_memory_keys_with_sources() {
    let (c, text, e) = parts(&simcli(&[
        "config",
        "--arch",
        "sm_90",
        "--set",
        "memory.l2.latency=600",
    ]));
    assert_eq!(c, 0, "{e}");
    assert!(text.contains("\n[memory]\nsms = 132"), "{text}");
    assert!(
        text.contains("latency = 600") && text.contains("custom (the sm_90 preset has 291)"),
        "{text}"
    );
    assert!(text.contains("latency = 670") && text.contains("calibration/h100/memory.json"));
    let d = scratch("launchopts_printed");
    let f = d.join("c.toml");
    std::fs::write(&f, &text).unwrap();
    assert_eq!(
        cycles(&["--config", s(&f)]),
        cycles(&["--set", "memory.l2.latency=600"])
    );
}

#[test]
fn timeline_of_a_launch_has_blocks_warps_and_memory() {
    let d = scratch("launchopts_timeline");
    let t = d.join("t.json");
    let l = root().join("workloads/halfops.json");
    let v = json_written(&["run", s(&l), "--sms", "2", "--timeline", s(&t)], &t);
    let ev = v["traceEvents"].as_array().unwrap();
    let count = |cat: &str| ev.iter().filter(|x| x["cat"] == cat).count();
    let launch: Value = serde_json::from_slice(&std::fs::read(&l).unwrap()).unwrap();
    let product = |key: &str| -> u64 {
        let dims = launch[key].as_array().unwrap();
        dims.iter().map(|x| x.as_u64().unwrap()).product()
    };
    let (blocks, threads) = (product("grid"), product("block"));
    assert_eq!(count("block") as u64, blocks);
    assert_eq!(count("warp") as u64, blocks * threads.div_ceil(32));
    assert!(count("memory") > 0);
    assert_eq!(v["otherData"]["truncated"], false);
    // Each memory access lies on its warp's track, issue to completion.
    let m = ev.iter().find(|x| x["cat"] == "memory").unwrap();
    assert!(m["args"]["latency"].as_u64().unwrap() > 0, "{m}");
    // Bounded: a limit of 3 events per SM keeps 3 per SM and says so.
    let v = json_written(
        &[
            "run",
            s(&l),
            "--sms",
            "2",
            "--timeline",
            s(&t),
            "--timeline-limit",
            "3",
        ],
        &t,
    );
    assert_eq!(v["otherData"]["events_drawn"], 6);
    assert_eq!(v["otherData"]["truncated"], true);
}

#[test]
fn dump_regs_of_a_launch_writes_one_block() {
    let d = scratch("launchopts_regs");
    let out = d.join("r.json");
    let l = root().join("workloads/halfops.json");
    let v = json_written(
        &["run", s(&l), "--dump-regs", s(&out), "--dump-block", "1"],
        &out,
    );
    assert_eq!(v["block"], 1);
    let warps = v["warps"].as_array().unwrap();
    // 256 threads a block: 8 warps; halfops.ptx reads %ntid.x into %r3,
    // %ctaid.x into %r4, and %r1 = %ctaid.x * %ntid.x + %tid.x.
    assert_eq!(warps.len(), 8);
    assert_eq!(warps[0]["%r3"][5], "0x00000100");
    assert_eq!(warps[0]["%r4"][5], "0x00000001");
    assert_eq!(warps[1]["%r1"][0], "0x00000120");
    assert_eq!(warps[7]["%r1"][31], "0x000001ff");
    for w in warps {
        for (_, lanes) in w.as_object().unwrap() {
            assert_eq!(lanes.as_array().unwrap().len(), 32);
        }
    }
    let e = exit2(&[
        "run",
        s(&l),
        "--dump-regs",
        s(&out),
        "--dump-block",
        "100000000",
    ]);
    assert!(e.contains("--dump-block 100000000: the grid has"), "{e}");
}

/// A sweep over a launch file and a memory key: one row per value, the
/// kernel named, and the cycles differing.
#[test]
fn sweep_over_a_launch_file_and_memory_keys() {
    let d = scratch("launchopts_sweep");
    let f = d.join("sweep.toml");
    std::fs::write(
        &f,
        format!(
            "traces = [{:?}]\nsms = 1\n[params]\nmemory.dram.latency = [670, 1670]\n",
            s(&launch())
        ),
    )
    .unwrap();
    let (c, out, e) = parts(&simcli(&["sweep", s(&f)]));
    assert_eq!(c, 0, "{e}");
    let mut r = csv::Reader::from_reader(out.as_bytes());
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2, "{out}");
    let cyc: Vec<u64> = rows
        .iter()
        .map(|x| x[col("cycles")].parse().unwrap())
        .collect();
    assert!(cyc[1] >= cyc[0] + 1000, "{cyc:?}");
    assert_eq!(cyc[0], cycles(&[]));
    assert_eq!(&rows[0][col("kernel")], "audio_mix");
    assert_eq!(&rows[0][col("launch")], "0");
    assert_eq!(&rows[0][col("overrides")], "");
    assert_eq!(&rows[1][col("overrides")], "memory.dram.latency=1670");
}
