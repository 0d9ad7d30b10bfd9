//! The warp-state and per-line parts of a report: `stalls` (Nsight
//! Compute's reasons, `docs/stalls.md`), `lines` (per source line) and
//! `activity` (issues per SM over time), in JSON and text, and the line
//! profile `simcli annotate` prints.

use sim_core::warp_states::{NREASONS, REASONS};
use sim_core::{Activity, InstProfile, Stats, WarpStalls};
use std::collections::BTreeMap;
use std::fmt::Write;

/// `stalls` in JSON: warp-cycles per reason, by name.
pub fn stalls_json(w: &WarpStalls) -> serde_json::Value {
    w.named()
        .map(|(k, n)| (k.to_string(), serde_json::Value::from(n)))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// `activity` in JSON.
pub fn activity_json(a: &Activity) -> serde_json::Value {
    serde_json::json!({
        "bucket_cycles": a.bucket_cycles,
        "per_sm": a.per_sm,
    })
}

/// One source line's profile (the statements on it summed).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    /// 1-based line in its file (a trace's: the instruction's index + 1).
    pub line: u32,
    /// The statements' text, joined by `; `.
    pub text: String,
    /// Warp-instructions issued at it.
    pub warp_instructions: u64,
    /// Threads that ran them.
    pub thread_instructions: u64,
    /// Warp-cycles by reason, as [`REASONS`].
    pub stalls: [u64; NREASONS],
    /// Global and local sectors its accesses touched (launches; 0 for
    /// traces, which have no memory model).
    pub sectors: u64,
}

impl Line {
    /// Warp-cycles spent at the line, every reason (`selected` included).
    pub fn cycles(&self) -> u64 {
        self.stalls.iter().sum()
    }

    /// The reasons with cycles, most first (ties in [`REASONS`] order).
    pub fn top(&self) -> Vec<(&'static str, u64)> {
        let mut v: Vec<(&'static str, u64)> = REASONS
            .iter()
            .copied()
            .zip(self.stalls.iter().copied())
            .filter(|&(_, n)| n > 0)
            .collect();
        v.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
        v
    }
}

/// The per-line profile of `stats.per_inst`, with each instruction's
/// `(line, text)` from `sources` (none: the instruction's index + 1, no
/// text). Lines no warp reached are left out; ascending by line.
pub fn lines(stats: &Stats, sources: &[(u32, String)]) -> Vec<Line> {
    let mut by: BTreeMap<u32, Line> = BTreeMap::new();
    for (i, p) in stats.per_inst.iter().enumerate() {
        if *p == InstProfile::default() {
            continue;
        }
        let (line, text) = match sources.get(i) {
            Some((l, t)) => (*l, t.as_str()),
            None => (i as u32 + 1, ""),
        };
        let e = by.entry(line).or_insert_with(|| Line {
            line,
            ..Line::default()
        });
        if !text.is_empty() {
            if !e.text.is_empty() {
                e.text.push_str("; ");
            }
            e.text.push_str(text);
        }
        e.warp_instructions += p.warp_instructions;
        e.thread_instructions += p.thread_instructions;
        e.sectors += p.sectors;
        for (a, b) in e.stalls.iter_mut().zip(&p.stalls) {
            *a += b;
        }
    }
    by.into_values().collect()
}

/// `lines` in JSON.
pub fn lines_json(lines: &[Line]) -> serde_json::Value {
    lines
        .iter()
        .map(|l| {
            let stalls: serde_json::Map<_, _> = REASONS
                .iter()
                .zip(&l.stalls)
                .filter(|&(_, &n)| n > 0)
                .map(|(k, &n)| (k.to_string(), serde_json::Value::from(n)))
                .collect();
            serde_json::json!({
                "line": l.line,
                "text": l.text,
                "warp_instructions": l.warp_instructions,
                "thread_instructions": l.thread_instructions,
                "stalls": stalls,
                "sectors": l.sectors,
            })
        })
        .collect::<Vec<_>>()
        .into()
}

fn pct(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

/// The text report's warp-state table.
pub fn stalls_text(o: &mut String, w: &WarpStalls) {
    let total = w.resident_warp_cycles;
    let _ = writeln!(
        o,
        "\n{:<24}{:>14}{:>9}",
        "warp states", "warp-cycles", "share"
    );
    let mut v: Vec<(&str, u64)> = w.named().filter(|&(_, n)| n > 0).collect();
    v.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    for (name, n) in v {
        let _ = writeln!(o, "  {name:<22}{n:>14}{:>8.2}%", pct(n, total));
    }
    let _ = writeln!(o, "  {:<22}{total:>14}", "resident warp-cycles");
}

/// The annotated listing: every line of `source` from `first` to `last`
/// (1-based, inclusive), each with its profile where it has one, the
/// `hot` lines with the most warp-cycles marked `>>`.
pub fn annotate(source: &str, first: u32, last: u32, lines: &[Line], hot: usize) -> String {
    let total: u64 = lines.iter().map(Line::cycles).sum();
    let mut ranked: Vec<&Line> = lines.iter().filter(|l| l.cycles() > 0).collect();
    ranked.sort_by(|a, b| b.cycles().cmp(&a.cycles()).then(a.line.cmp(&b.line)));
    let hot: Vec<u32> = ranked.iter().take(hot).map(|l| l.line).collect();
    let by: BTreeMap<u32, &Line> = lines.iter().map(|l| (l.line, l)).collect();
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{:>2} {:>6} {:>10} {:>12} {:>7}  {:<44} {:>5}  source",
        "", "cyc%", "warp-inst", "thread-inst", "cycles", "top stall reasons", "line"
    );
    for (k, text) in source.lines().enumerate() {
        let n = k as u32 + 1;
        if n < first || n > last {
            continue;
        }
        let text = text.trim_end();
        match by.get(&n) {
            Some(l) => {
                let mark = if hot.contains(&n) { ">>" } else { "" };
                let top: Vec<String> = l
                    .top()
                    .iter()
                    .filter(|(r, _)| *r != "selected")
                    .take(3)
                    .map(|(r, c)| format!("{r} {c}"))
                    .collect();
                let _ = writeln!(
                    o,
                    "{mark:>2} {:>5.1}% {:>10} {:>12} {:>7}  {:<44} {n:>5}  {text}",
                    pct(l.cycles(), total),
                    l.warp_instructions,
                    l.thread_instructions,
                    l.cycles(),
                    top.join(", "),
                );
            }
            None => {
                let _ = writeln!(
                    o,
                    "{:>2} {:>6} {:>10} {:>12} {:>7}  {:<44} {n:>5}  {text}",
                    "", "", "", "", "", ""
                );
            }
        }
    }
    let _ = writeln!(o, "\nhottest lines (warp-cycles: issued and stalled):");
    for l in ranked.iter().take(hot.len()) {
        let top: Vec<String> = l
            .top()
            .iter()
            .take(4)
            .map(|(r, c)| format!("{r} {:.0}%", pct(*c, l.cycles())))
            .collect();
        let _ = writeln!(
            o,
            "  line {:>5}  {:>5.1}%  {}  [{}]",
            l.line,
            pct(l.cycles(), total),
            l.text,
            top.join(", ")
        );
    }
    o
}
