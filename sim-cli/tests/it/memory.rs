//! A launch's `memory` and `occupancy` in the JSON report, `--regs`, and
//! the text report's tables: sim-kernel's hand-computed strided stream
//! (sim-kernel/tests/it/memcount.rs gives the arithmetic).

use super::simcli;

const STRIDED: &str = "sim-kernel/tests/data/memcount/strided.json";

#[test]
fn a_launch_reports_its_memory_and_occupancy() {
    let out = simcli(&["run", STRIDED, "--sms", "2", "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &v["memory"];
    assert_eq!(m["l1"]["requests"], 12);
    assert_eq!(m["l1"]["sectors"], 272);
    assert_eq!(m["l1"]["hit_rate"], 0.5);
    assert_eq!(m["l2"]["requests"], 132);
    assert_eq!(m["l2"]["bytes"], 144 * 32);
    assert_eq!(m["dram"]["sectors"], 144);
    assert_eq!(m["shared"]["bank_conflicts"], 0);
    assert_eq!(m["sectors_per_request"], 272.0 / 12.0);
    // One block: one SM ran it, and its counters are the launch's.
    let per_sm = v["per_sm"].as_array().unwrap();
    assert_eq!(per_sm.len(), 1);
    assert_eq!((&per_sm[0]["sm"], &per_sm[0]["memory"]), (&0.into(), m));
    let o = &v["occupancy"];
    assert_eq!(o["limiter"], "registers");
    assert_eq!(o["registers_source"], "launch");
    assert_eq!(o["theoretical_blocks_per_sm"], 4);
    assert_eq!(o["achieved_blocks_per_sm"], 1.0);
    // --regs 255: 8,192 registers a warp, 2 blocks of 4 warps.
    let out = simcli(&["run", STRIDED, "--regs", "255", "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &v["occupancy"];
    assert_eq!(
        (&o["registers_per_thread"], &o["registers_source"]),
        (&255.into(), &"option".into())
    );
    assert_eq!(o["theoretical_warps_per_sm"], 8);
    let text = simcli(&["run", STRIDED]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("sectors/request       22.67"), "{text}");
    assert!(text.contains("limiter               registers"), "{text}");
}

#[test]
fn regs_is_for_launch_files() {
    let out = simcli(&["run", "traces/audio_mix.ptx", "--regs", "32"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--regs applies to launch files"), "{err}");
    let out = simcli(&["run", STRIDED, "--regs", "256"]);
    assert_eq!(out.status.code(), Some(2));
}
