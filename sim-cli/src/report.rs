//! Report formats: aligned text for people, JSON and CSV for tools
//! (schema in `docs/report-schema.md`), and the `--dump-regs` JSON.

use sim_core::{Report, Stats};
use sim_isa::{RegId, Target, WarpRegs};
use sim_trace::trace::{fmt_value, width_mask, Trace};
use std::fmt::Write;

/// Version of the JSON/CSV report schema.
pub const SCHEMA_VERSION: u32 = 1;

/// What a report is about, beyond sim-core's statistics.
#[derive(Clone, Copy, Debug)]
pub struct RunInfo {
    /// Target simulated.
    pub target: Target,
    /// Warps launched.
    pub warps: usize,
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
    let st = &s.stalls;
    let total = st.total();
    let _ = writeln!(o, "\n{:<24}{:>12}{:>9}", "issue slots", "slots", "share");
    for (name, n) in [
        ("issued", st.issued),
        ("waiting on dependency", st.dependency),
        ("unit busy", st.unit_busy),
        ("no eligible warp", st.no_eligible),
    ] {
        let _ = writeln!(o, "  {name:<22}{n:>12}{:>8.2}%", pct(n, total));
    }
    let _ = writeln!(o, "  {:<22}{total:>12}", "total");
    if !s.units.is_empty() {
        let _ = writeln!(
            o,
            "\n{:<24}{:>10}{:>12}{:>12}",
            "unit", "ops", "lanes/SM", "utilisation"
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
    o
}

/// The JSON report (one object).
pub fn json(info: &RunInfo, r: &Report) -> serde_json::Value {
    let s = &r.stats;
    serde_json::json!({
        "schema": SCHEMA_VERSION,
        "arch": info.target.to_string(),
        "config": r.config,
        "scheduler": r.policy.name(),
        "sms": r.sms,
        "warps": info.warps,
        "cycles": s.cycles,
        "warp_instructions": s.warp_instructions,
        "thread_instructions": s.thread_instructions,
        "micro_ops": s.micro_ops,
        "ipc": s.ipc(),
        "stalls": s.stalls,
        "scheduler_issues": s.scheduler_issues,
        "units": s.units,
        "per_opcode": s.per_opcode.iter().map(|(k, p)| (k.clone(), serde_json::json!({
            "count": p.count,
            "thread_instructions": p.thread_instructions,
            "micro_ops": p.micro_ops,
            "latency_mean": p.latency_mean(),
            "latency_min": p.latency_min,
            "latency_max": p.latency_max,
        }))).collect::<serde_json::Map<_, _>>(),
    })
}

/// The CSV report: a header and one row; per-opcode warp-instruction counts
/// follow the fixed columns as `op:<mnemonic>`, sorted by name.
pub fn csv(info: &RunInfo, r: &Report) -> String {
    let s = &r.stats;
    let mut head = vec![
        "arch",
        "scheduler",
        "sms",
        "warps",
        "cycles",
        "warp_instructions",
        "thread_instructions",
        "micro_ops",
        "ipc",
        "stall_issued",
        "stall_dependency",
        "stall_unit_busy",
        "stall_no_eligible",
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>();
    let mut row = vec![
        info.target.to_string(),
        r.policy.name().to_string(),
        r.sms.to_string(),
        info.warps.to_string(),
        s.cycles.to_string(),
        s.warp_instructions.to_string(),
        s.thread_instructions.to_string(),
        s.micro_ops.to_string(),
        format!("{:.6}", s.ipc()),
        s.stalls.issued.to_string(),
        s.stalls.dependency.to_string(),
        s.stalls.unit_busy.to_string(),
        s.stalls.no_eligible.to_string(),
    ];
    for (name, p) in &s.per_opcode {
        head.push(format!("op:{name}"));
        row.push(p.count.to_string());
    }
    format!("{}\n{}\n", head.join(","), row.join(","))
}

/// `{"warps":[{"%r1":["0x...", ... 32 lanes], "%p1":[true, ...]}, ...]}`, registers
/// in declaration order, lanes 0-31.
pub fn dump_regs(trace: &Trace, finals: &[WarpRegs]) -> String {
    let mut o = String::from("{\"warps\":[");
    for (w, regs) in finals.iter().enumerate() {
        if w > 0 {
            o.push(',');
        }
        o.push_str("\n  {");
        for r in 0..trace.nregs() as u32 {
            if r > 0 {
                o.push_str(", ");
            }
            let bits = trace.reg_type(r).bits();
            let name = serde_json::to_string(trace.reg_name(r)).unwrap_or_default();
            let lanes = regs.get(RegId(r));
            let vals: Vec<String> = lanes
                .iter()
                .map(|&v| {
                    let t = fmt_value(v & width_mask(bits), bits);
                    if bits == 1 {
                        t
                    } else {
                        format!("\"{t}\"")
                    }
                })
                .collect();
            let _ = write!(o, "{name}:[{}]", vals.join(","));
        }
        o.push('}');
    }
    o.push_str("\n]}\n");
    o
}
