//! The memory hierarchy and occupancy of a launch in the reports: the
//! `memory` and `occupancy` JSON objects, each timed SM's in `per_sm`, and
//! the text report's table (keys in docs/report-schema.md).

use sim_core::Stats;
use sim_kernel::memstats::{MemStats, Occupancy};
use sim_kernel::Timed;
use std::fmt::Write;

/// The `memory` object of `m`.
pub fn memory_json(m: &MemStats) -> serde_json::Value {
    serde_json::json!({
        "l1": {
            "requests": m.l1.requests,
            "sectors": m.l1.sectors,
            "hits": m.l1.hits,
            "misses": m.l1.misses,
            "hit_rate": m.l1_hit_rate(),
            "bytes": m.l1_bytes(),
        },
        "shared": {
            "requests": m.shared.requests,
            "wavefronts": m.shared.wavefronts,
            "bank_conflicts": m.shared.bank_conflicts,
            "bytes": m.shared.bytes,
        },
        "l2": {
            "requests": m.l2.requests,
            "sectors": m.l2.sectors,
            "hits": m.l2.hits,
            "misses": m.l2.misses,
            "hit_rate": m.l2_hit_rate(),
            "bytes": m.l2_bytes(),
            "atomics": m.l2.atomics,
        },
        "dram": {"sectors": m.dram.sectors, "bytes": m.dram_bytes()},
        "constant": {"requests": m.constant.requests, "misses": m.constant.misses},
        "sectors_per_request": m.sectors_per_request(),
    })
}

/// The CSV's memory columns, after the totals: each a number of the JSON
/// `memory` object, named by its path with `_` for `.` (`l1_hits` is
/// `memory.l1.hits`), in that object's order.
pub const MEMORY_COLUMNS: [&str; 22] = [
    "l1_requests",
    "l1_sectors",
    "l1_hits",
    "l1_misses",
    "l1_hit_rate",
    "l1_bytes",
    "shared_requests",
    "shared_wavefronts",
    "shared_bank_conflicts",
    "shared_bytes",
    "l2_requests",
    "l2_sectors",
    "l2_hits",
    "l2_misses",
    "l2_hit_rate",
    "l2_bytes",
    "l2_atomics",
    "dram_sectors",
    "dram_bytes",
    "constant_requests",
    "constant_misses",
    "sectors_per_request",
];

/// The memory columns' fields: `m`'s counters read from [`memory_json`]
/// (so the CSV says what the JSON says), rates and ratios with six
/// decimals; all empty without a memory model (`None`).
pub fn memory_fields(m: Option<&MemStats>) -> Vec<String> {
    let Some(m) = m else {
        return vec![String::new(); MEMORY_COLUMNS.len()];
    };
    let v = memory_json(m);
    MEMORY_COLUMNS
        .iter()
        .map(|col| {
            let path = match col.split_once('_') {
                Some((g @ ("l1" | "shared" | "l2" | "dram" | "constant"), k)) => {
                    format!("/{g}/{k}")
                }
                _ => format!("/{col}"),
            };
            match v.pointer(&path) {
                Some(serde_json::Value::Number(n)) if n.is_f64() => {
                    format!("{:.6}", n.as_f64().unwrap_or(0.0))
                }
                Some(serde_json::Value::Number(n)) => n.to_string(),
                // Every column names a number of the object (a test holds
                // the two together).
                _ => String::new(),
            }
        })
        .collect()
}

/// The `occupancy` object.
pub fn occupancy_json(o: &Occupancy) -> serde_json::Value {
    serde_json::json!({
        "theoretical_blocks_per_sm": o.theoretical_blocks_per_sm,
        "theoretical_warps_per_sm": o.theoretical_warps_per_sm,
        "achieved_warps_per_sm": o.achieved_warps_per_sm,
        "achieved_blocks_per_sm": o.achieved_blocks_per_sm,
        "limiter": o.limiter.name(),
        "registers_per_thread": o.registers_per_thread,
        "registers_source": o.registers_source.name(),
    })
}

/// Adds `memory`, `occupancy` and the timed SMs' `per_sm` (each SM's
/// statistics as `stats_json` gives them, with `sm` and `memory`) to the
/// JSON report `v` of a launch.
pub fn add_json(
    v: &mut serde_json::Value,
    t: &Timed,
    stats_json: impl Fn(&Stats) -> serde_json::Value,
) {
    let serde_json::Value::Object(o) = v else {
        return;
    };
    o.insert("memory".into(), memory_json(&t.memory));
    o.insert("occupancy".into(), occupancy_json(&t.occupancy));
    let per_sm = t
        .per_sm
        .iter()
        .map(|(sm, s, m)| {
            let mut e = stats_json(s);
            if let serde_json::Value::Object(e) = &mut e {
                e.insert("sm".into(), (*sm).into());
                e.insert("memory".into(), memory_json(m));
            }
            e
        })
        .collect::<Vec<_>>();
    o.insert("per_sm".into(), per_sm.into());
}

/// The text report's memory and occupancy tables.
pub fn text(t: &Timed) -> String {
    let m = &t.memory;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "\n{:<24}{:>12}{:>12}{:>12}{:>12}{:>9}{:>14}",
        "memory", "requests", "sectors", "hits", "misses", "hit rate", "bytes"
    );
    let row = |o: &mut String, name: &str, c: [u64; 4], rate: f64, bytes: u64| {
        let rate = format!("{:.2}%", 100.0 * rate);
        let _ = writeln!(
            o,
            "  {name:<22}{:>12}{:>12}{:>12}{:>12}{rate:>9}{bytes:>14}",
            c[0], c[1], c[2], c[3]
        );
    };
    let l1 = [m.l1.requests, m.l1.sectors, m.l1.hits, m.l1.misses];
    row(&mut o, "L1", l1, m.l1_hit_rate(), m.l1_bytes());
    let l2 = [m.l2.requests, m.l2.sectors, m.l2.hits, m.l2.misses];
    row(&mut o, "L2", l2, m.l2_hit_rate(), m.l2_bytes());
    let _ = writeln!(
        o,
        "  {:<22}{:>12}{:>12}{:>12}{:>12}{:>9}{:>14}",
        "DRAM",
        "-",
        m.dram.sectors,
        "-",
        "-",
        "-",
        m.dram_bytes()
    );
    let kv = |o: &mut String, k: &str, v: String| {
        let _ = writeln!(o, "  {k:<22}{v}");
    };
    kv(
        &mut o,
        "sectors/request",
        format!("{:.2}", m.sectors_per_request()),
    );
    kv(&mut o, "L2 atomics", m.l2.atomics.to_string());
    kv(
        &mut o,
        "shared",
        format!(
            "{} requests, {} wavefronts, {} bank conflicts, {} bytes",
            m.shared.requests, m.shared.wavefronts, m.shared.bank_conflicts, m.shared.bytes
        ),
    );
    kv(
        &mut o,
        "constant",
        format!(
            "{} requests, {} sector misses",
            m.constant.requests, m.constant.misses
        ),
    );
    let oc = &t.occupancy;
    let _ = writeln!(
        o,
        "\n{:<24}{:>12}{:>12}",
        "occupancy (per SM)", "blocks", "warps"
    );
    let _ = writeln!(
        o,
        "  {:<22}{:>12}{:>12}",
        "theoretical", oc.theoretical_blocks_per_sm, oc.theoretical_warps_per_sm
    );
    let _ = writeln!(
        o,
        "  {:<22}{:>12.2}{:>12.2}",
        "achieved", oc.achieved_blocks_per_sm, oc.achieved_warps_per_sm
    );
    let regs = oc
        .registers_per_thread
        .map_or("unknown".to_string(), |r| r.to_string());
    kv(&mut o, "limiter", oc.limiter.name().to_string());
    kv(
        &mut o,
        "registers/thread",
        format!("{regs} ({})", oc.registers_source.name()),
    );
    o
}

#[cfg(test)]
mod tests {
    use super::{memory_fields, MEMORY_COLUMNS};
    use sim_kernel::memstats::MemStats;

    /// Every memory column names a number of the JSON `memory` object (an
    /// unknown path would leave its field empty).
    #[test]
    fn every_memory_column_is_a_number_of_the_json() {
        let fields = memory_fields(Some(&MemStats::default()));
        assert_eq!(fields.len(), MEMORY_COLUMNS.len());
        for (col, f) in MEMORY_COLUMNS.iter().zip(&fields) {
            assert!(f == "0" || f == "0.000000", "{col}: {f:?}");
        }
        assert!(memory_fields(None).iter().all(String::is_empty));
    }
}
