//! Report formats: aligned text for people, JSON and CSV for tools
//! (schema in `docs/report-schema.md`), and the `--dump-regs` JSON.
//!
//! JSON and CSV identify the run (tool version and commit, input, target,
//! every parameter); CSV has one fixed set of columns whatever the trace, so
//! files from any runs concatenate, with per-opcode rows in a second,
//! long-format file.

use sim_core::config_file::{params, ParamValue};
use sim_core::warp_states::NREASONS;
use sim_core::{preset, Report, SchedPolicy, SmConfig, Stats};
use sim_isa::{RegId, Target, WarpRegs};
use sim_trace::trace::{fmt_value, width_mask, Trace};
use std::fmt::Write;

/// Version of the JSON/CSV report schema.
pub const SCHEMA_VERSION: u32 = 3;

/// What a report is about, beyond sim-core's statistics.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// Target simulated.
    pub target: Target,
    /// Warps launched.
    pub warps: usize,
    /// The input as named on the command line (`-` for standard input).
    pub input: String,
    /// Every configuration parameter, as [`params`] lists them.
    pub params: Vec<(String, ParamValue)>,
    /// The parameters that differ from the target's preset, as
    /// `key=value` joined by `;` (empty for the preset itself).
    pub overrides: String,
    /// Index of the run in a sweep (0 for `simcli run`).
    pub run: u64,
    /// Per program instruction, its source line and text, for `lines`
    /// (empty: lines are instruction indices + 1, without text).
    pub sources: Vec<(u32, String)>,
    /// A launch's memory counters (the JSON `memory` object), for the CSV's
    /// memory columns; `None` where the run has no memory model.
    pub memory: Option<sim_kernel::memstats::MemStats>,
}

impl RunInfo {
    /// The description of a run of `config` with `scheduler`.
    pub fn new(input: &str, warps: usize, config: &SmConfig, scheduler: SchedPolicy) -> RunInfo {
        let all = params(config, scheduler);
        let base = params(&preset(config.target), scheduler);
        let overrides = all
            .iter()
            .zip(&base)
            .filter(|(a, b)| a != b)
            .map(|((k, v), _)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";");
        RunInfo {
            target: config.target,
            warps,
            input: input.to_string(),
            params: all,
            overrides,
            run: 0,
            sources: Vec::new(),
            memory: None,
        }
    }
}

fn pct(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

/// The text report.
pub fn text(info: &RunInfo, r: &Report) -> String {
    let s: &Stats = &r.stats;
    let mut o = String::new();
    let kv = |o: &mut String, k: &str, v: String| {
        let _ = writeln!(o, "{k:<24}{v}");
    };
    kv(&mut o, "arch", format!("{} [{}]", info.target, r.config));
    kv(&mut o, "scheduler", r.policy.name().to_string());
    kv(&mut o, "sms", r.sms.to_string());
    kv(&mut o, "warps", info.warps.to_string());
    kv(&mut o, "cycles", s.cycles.to_string());
    kv(&mut o, "warp instructions", s.warp_instructions.to_string());
    kv(
        &mut o,
        "thread instructions",
        s.thread_instructions.to_string(),
    );
    kv(&mut o, "micro-ops", s.micro_ops.to_string());
    kv(&mut o, "IPC (warp-instr/cycle)", format!("{:.4}", s.ipc()));
    if s.icache_misses > 0 {
        // Only where the code is larger than the instruction cache.
        kv(&mut o, "icache misses", s.icache_misses.to_string());
    }
    let st = &s.stalls;
    let total = st.total();
    let _ = writeln!(o, "\n{:<24}{:>12}{:>9}", "issue slots", "slots", "share");
    for (name, n) in [
        ("issued", st.issued),
        ("waiting on dependency", st.dependency),
        ("pipe busy", st.unit_busy),
        ("no eligible warp", st.no_eligible),
    ] {
        let _ = writeln!(o, "  {name:<22}{n:>12}{:>8.2}%", pct(n, total));
    }
    let _ = writeln!(o, "  {:<22}{total:>12}", "total");
    crate::profile::stalls_text(&mut o, &s.warp_stalls);
    if !s.units.is_empty() {
        let _ = writeln!(
            o,
            "\n{:<24}{:>10}{:>12}{:>12}",
            "pipe", "ops", "lanes/SM", "utilisation"
        );
        for (name, u) in &s.units {
            if u.ops > 0 {
                let _ = writeln!(
                    o,
                    "  {name:<22}{:>10}{:>12}{:>11.2}%",
                    u.ops,
                    u.lanes_per_sm,
                    100.0 * u.utilisation
                );
            }
        }
    }
    let _ = writeln!(
        o,
        "\n{:<24}{:>10}{:>14}{:>10}{:>10}{:>8}{:>8}",
        "opcode", "warp-instr", "thread-instr", "uops", "lat.mean", "min", "max"
    );
    for (name, p) in &s.per_opcode {
        let _ = writeln!(
            o,
            "  {name:<22}{:>10}{:>14}{:>10}{:>10.2}{:>8}{:>8}",
            p.count,
            p.thread_instructions,
            p.micro_ops,
            p.latency_mean(),
            p.latency_min,
            p.latency_max
        );
    }
    if !s.per_machine_opcode.is_empty() {
        let _ = writeln!(o, "\n{:<24}{:>10}", "machine opcode", "warp-instr");
        for (name, n) in &s.per_machine_opcode {
            let _ = writeln!(o, "  {name:<22}{n:>10}");
        }
    }
    o
}

/// The tool's version and the git commit it was built from.
pub fn tool_version() -> String {
    format!("{} ({})", crate::VERSION, crate::COMMIT)
}

/// Puts `v` at the dotted path `parts` in `m`, making tables on the way.
fn insert_at(
    m: &mut serde_json::Map<String, serde_json::Value>,
    parts: &[&str],
    v: serde_json::Value,
) {
    match parts {
        [] => {}
        [leaf] => {
            m.insert(leaf.to_string(), v);
        }
        [head, rest @ ..] => {
            let e = m
                .entry(head.to_string())
                .or_insert_with(|| serde_json::Value::Object(Default::default()));
            // Keys are never both a value and a table.
            if let serde_json::Value::Object(sub) = e {
                insert_at(sub, rest, v);
            }
        }
    }
}

/// The parameters as nested JSON objects, as the TOML file holds them.
fn params_json(p: &[(String, ParamValue)]) -> serde_json::Value {
    let mut root = serde_json::Map::new();
    for (key, value) in p {
        let v = match value {
            ParamValue::Str(s) => serde_json::Value::from(s.as_str()),
            ParamValue::Int(n) => serde_json::Value::from(*n),
        };
        insert_at(&mut root, &key.split('.').collect::<Vec<_>>(), v);
    }
    serde_json::Value::Object(root)
}

fn per_opcode_json(s: &Stats) -> serde_json::Value {
    s.per_opcode
        .iter()
        .map(|(k, p)| {
            (
                k.clone(),
                serde_json::json!({
                    "count": p.count,
                    "thread_instructions": p.thread_instructions,
                    "micro_ops": p.micro_ops,
                    "latency_mean": p.latency_mean(),
                    "latency_min": p.latency_min,
                    "latency_max": p.latency_max,
                }),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// The statistics of `s` as the JSON report holds them.
pub fn stats_json(s: &Stats) -> serde_json::Value {
    serde_json::json!({
        "cycles": s.cycles,
        "warp_instructions": s.warp_instructions,
        "thread_instructions": s.thread_instructions,
        "micro_ops": s.micro_ops,
        "ipc": s.ipc(),
        "stalls": crate::profile::stalls_json(&s.warp_stalls),
        "resident_warp_cycles": s.warp_stalls.resident_warp_cycles,
        "issue_slots": s.stalls,
        "scheduler_issues": s.scheduler_issues,
        "units": s.units,
        "per_opcode": per_opcode_json(s),
        "per_machine_opcode": s.per_machine_opcode,
        "icache_misses": s.icache_misses,
    })
}

/// The JSON report (one object).
pub fn json(info: &RunInfo, r: &Report) -> serde_json::Value {
    let mut v = serde_json::json!({
        "schema": SCHEMA_VERSION,
        "tool": {"name": "simcli", "version": crate::VERSION, "commit": crate::COMMIT},
        "input": info.input,
        "arch": info.target.to_string(),
        "config": r.config,
        "scheduler": r.policy.name(),
        "sms": r.sms,
        "warps": info.warps,
        "params": params_json(&info.params),
        "overrides": info.overrides,
        "per_sm": r.per_sm.iter().map(stats_json).collect::<Vec<_>>(),
    });
    if let (serde_json::Value::Object(o), serde_json::Value::Object(st)) =
        (&mut v, stats_json(&r.stats))
    {
        o.extend(st);
        let lines = crate::profile::lines(&r.stats, &info.sources);
        o.insert("lines".into(), crate::profile::lines_json(&lines));
        o.insert(
            "activity".into(),
            crate::profile::activity_json(&r.stats.activity),
        );
    }
    v
}

/// The columns identifying a run, first in both CSV files.
pub const RUN_COLUMNS: [&str; 7] = [
    "run",
    "input",
    "arch",
    "scheduler",
    "sms",
    "warps",
    "overrides",
];

/// The totals columns of the CSV report, after [`RUN_COLUMNS`].
pub const TOTAL_COLUMNS: [&str; 9 + NREASONS + 1] = [
    "cycles",
    "warp_instructions",
    "thread_instructions",
    "micro_ops",
    "ipc",
    "stall_issued",
    "stall_dependency",
    "stall_unit_busy",
    "stall_no_eligible",
    // The warp states (JSON `stalls`), in `sim_core::warp_states::REASONS`' order (a
    // test holds the two lists together), and the cycles they sum to.
    "warp_selected",
    "warp_not_selected",
    "warp_math_pipe_throttle",
    "warp_lg_throttle",
    "warp_mio_throttle",
    "warp_wait",
    "warp_short_scoreboard",
    "warp_long_scoreboard",
    "warp_barrier",
    "warp_membar",
    "warp_branch_resolving",
    "warp_no_instruction",
    "warp_sleeping",
    "resident_warp_cycles",
];

/// The columns of the per-opcode CSV, after [`RUN_COLUMNS`].
pub const OPCODE_COLUMNS: [&str; 7] = [
    "opcode",
    "count",
    "thread_instructions",
    "micro_ops",
    "latency_mean",
    "latency_min",
    "latency_max",
];

fn run_fields(info: &RunInfo, r: &Report) -> Vec<String> {
    vec![
        info.run.to_string(),
        info.input.clone(),
        info.target.to_string(),
        r.policy.name().to_string(),
        r.sms.to_string(),
        info.warps.to_string(),
        info.overrides.clone(),
    ]
}

/// The CSV header: [`RUN_COLUMNS`], [`TOTAL_COLUMNS`], then the memory
/// columns ([`crate::memreport::MEMORY_COLUMNS`]).
pub fn csv_header() -> Vec<&'static str> {
    RUN_COLUMNS
        .iter()
        .chain(&TOTAL_COLUMNS)
        .chain(&crate::memreport::MEMORY_COLUMNS)
        .copied()
        .collect()
}

/// The per-opcode CSV header: [`RUN_COLUMNS`] then [`OPCODE_COLUMNS`].
pub fn opcode_csv_header() -> Vec<&'static str> {
    RUN_COLUMNS.iter().chain(&OPCODE_COLUMNS).copied().collect()
}

/// The run's CSV row.
pub fn csv_record(info: &RunInfo, r: &Report) -> Vec<String> {
    let s = &r.stats;
    let mut row = run_fields(info, r);
    row.extend([
        s.cycles.to_string(),
        s.warp_instructions.to_string(),
        s.thread_instructions.to_string(),
        s.micro_ops.to_string(),
        format!("{:.6}", s.ipc()),
        s.stalls.issued.to_string(),
        s.stalls.dependency.to_string(),
        s.stalls.unit_busy.to_string(),
        s.stalls.no_eligible.to_string(),
    ]);
    row.extend(s.warp_stalls.counts.iter().map(u64::to_string));
    row.push(s.warp_stalls.resident_warp_cycles.to_string());
    row.extend(crate::memreport::memory_fields(info.memory.as_ref()));
    row
}

/// The run's per-opcode CSV rows, one per opcode, sorted by name.
pub fn opcode_csv_records(info: &RunInfo, r: &Report) -> Vec<Vec<String>> {
    r.stats
        .per_opcode
        .iter()
        .map(|(name, p)| {
            let mut row = run_fields(info, r);
            row.extend([
                name.clone(),
                p.count.to_string(),
                p.thread_instructions.to_string(),
                p.micro_ops.to_string(),
                format!("{:.6}", p.latency_mean()),
                p.latency_min.to_string(),
                p.latency_max.to_string(),
            ]);
            row
        })
        .collect()
}

/// A CSV file: `header` and `rows`, quoted where a field needs it.
pub fn csv_bytes<S: AsRef<[u8]>>(header: &[&str], rows: &[Vec<S>]) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header)?;
    for r in rows {
        w.write_record(r)?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

/// The CSV report: the header and the run's row.
pub fn csv(info: &RunInfo, r: &Report) -> Result<Vec<u8>, csv::Error> {
    csv_bytes(&csv_header(), &[csv_record(info, r)])
}

/// The per-opcode CSV: the header and one row per opcode.
pub fn opcode_csv(info: &RunInfo, r: &Report) -> Result<Vec<u8>, csv::Error> {
    csv_bytes(&opcode_csv_header(), &opcode_csv_records(info, r))
}

/// One warp's registers, serialised as a map in declaration order.
struct WarpDump<'a> {
    trace: &'a Trace,
    regs: &'a WarpRegs,
}

impl serde::Serialize for WarpDump<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map((0..self.trace.nregs() as u32).map(|r| {
            let bits = self.trace.reg_type(r).bits();
            let lanes: Vec<serde_json::Value> = self
                .regs
                .get(RegId(r))
                .iter()
                .map(|&v| match bits {
                    1 => serde_json::Value::Bool(v & 1 != 0),
                    _ => serde_json::Value::String(fmt_value(v & width_mask(bits), bits)),
                })
                .collect();
            (self.trace.reg_name(r), lanes)
        }))
    }
}

/// `{"warps":[{"%r1":["0x...", ... 32 lanes], "%p1":[true, ...]}, ...]}`, registers
/// in declaration order, lanes 0-31, one warp per line.
pub fn dump_regs(trace: &Trace, finals: &[WarpRegs]) -> Result<String, serde_json::Error> {
    let mut o = String::from("{\"warps\":[");
    for (w, regs) in finals.iter().enumerate() {
        o.push_str(if w > 0 { ",\n  " } else { "\n  " });
        o.push_str(&serde_json::to_string(&WarpDump { trace, regs })?);
    }
    o.push_str("\n]}\n");
    Ok(o)
}

#[cfg(test)]
mod csv_tests {
    use super::TOTAL_COLUMNS;
    use sim_core::warp_states::{NREASONS, REASONS};

    /// The warp-state columns name `REASONS` in its order, so that the row
    /// (`counts` in that order) lands under the right header.
    #[test]
    fn warp_state_columns_follow_the_reasons() {
        let cols = &TOTAL_COLUMNS[9..9 + NREASONS];
        for (c, r) in cols.iter().zip(REASONS) {
            assert_eq!(*c, format!("warp_{r}"));
        }
        assert_eq!(TOTAL_COLUMNS[9 + NREASONS], "resident_warp_cycles");
    }
}
