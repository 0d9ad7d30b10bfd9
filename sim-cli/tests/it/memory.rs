//! A launch's `memory` and `occupancy` in the JSON report, `--regs`, and
//! the text report's tables: sim-kernel's hand-computed strided stream
//! (sim-kernel/tests/it/memcount.rs gives the arithmetic).

use super::{root, s, scratch, simcli};
use sim_cli::memreport::MEMORY_COLUMNS;
use std::collections::BTreeMap;

const STRIDED: &str = "sim-kernel/tests/data/memcount/strided.json";

#[test]
fn a_launch_reports_its_memory_and_occupancy() {
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&["run", STRIDED, "--sms", "2", "--format", "json"])).unwrap();
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
    let v: serde_json::Value = serde_json::from_str(&stdout(&[
        "run", STRIDED, "--regs", "255", "--format", "json",
    ]))
    .unwrap();
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

/// The standard output of `simcli args` (which must succeed).
fn stdout(args: &[&str]) -> String {
    let out = simcli(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The first row of a CSV, by column name.
fn csv_row(text: &str) -> BTreeMap<String, String> {
    let mut rd = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
    let row = rd.records().next().expect("a row").unwrap();
    header
        .into_iter()
        .zip(row.iter().map(String::from))
        .collect()
}

/// The CSV's memory columns (after the existing ones, before a sweep's
/// `kernel,launch`) say what the JSON report's `memory` says: the strided
/// launch's hand-computed counts, from `simcli run` and from `simcli
/// sweep`; a trace, which has no memory model, leaves them empty.
#[test]
fn csv_memory_columns_match_the_json() {
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&["run", STRIDED, "--sms", "2", "--format", "json"])).unwrap();
    let text = stdout(&["run", STRIDED, "--sms", "2", "--format", "csv"]);
    let header = text.lines().next().unwrap();
    assert!(
        header.ends_with(&format!(
            ",resident_warp_cycles,{}",
            MEMORY_COLUMNS.join(",")
        )),
        "{header}"
    );
    let d = scratch("memory-csv");
    let sweep = d.join("s.toml");
    let launch = root().join(STRIDED);
    std::fs::write(&sweep, format!("traces = [{:?}]\nsms = 2\n", s(&launch))).unwrap();
    let swept = stdout(&["sweep", s(&sweep)]);
    assert!(
        swept
            .lines()
            .next()
            .unwrap()
            .ends_with(",sectors_per_request,kernel,launch"),
        "{swept}"
    );
    for row in [csv_row(&text), csv_row(&swept)] {
        assert_eq!(row["cycles"], v["cycles"].to_string());
        for col in MEMORY_COLUMNS {
            let (group, key) = col.split_once('_').unwrap();
            let want = match v["memory"].get(group) {
                Some(g) if g.is_object() => &g[key],
                _ => &v["memory"][col],
            };
            let want = match want.as_u64() {
                Some(n) => n.to_string(),
                None => format!("{:.6}", want.as_f64().expect(col)),
            };
            assert_eq!(row[col], want, "{col}");
        }
        // The arithmetic of sim-kernel/tests/it/memcount.rs.
        assert_eq!(row["l1_requests"], "12");
        assert_eq!(row["l1_sectors"], "272");
        assert_eq!(row["l1_hit_rate"], "0.500000");
        assert_eq!(row["l2_requests"], "132");
        assert_eq!(row["dram_sectors"], "144");
        assert_eq!(row["sectors_per_request"], "22.666667");
    }
    let trace = csv_row(&stdout(&["run", "traces/audio_mix.ptx", "--format", "csv"]));
    for col in MEMORY_COLUMNS {
        assert_eq!(trace[col], "", "{col}");
    }
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
