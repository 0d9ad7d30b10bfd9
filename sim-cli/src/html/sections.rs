//! The sections of a run's page, one function each, from the keys of the
//! JSON report (docs/report-schema.md): the summary, `stalls` (with
//! `issue_slots`), `memory`, `occupancy`, `activity` and `lines`. A key the
//! report lacks gives a section that says so; a key of the wrong shape is an
//! error naming its path.

use super::charts;
use super::page::{
    array, count, esc, join, num, object, opt_count, scalar, table, HtmlError, Page,
};
use serde_json::{Map, Value};

/// Hot lines listed (and charted: the first 12).
const HOT_LINES: usize = 20;
/// SMs drawn in the activity map, and buckets per SM.
const ACTIVITY_SMS: usize = 16;
const ACTIVITY_BUCKETS: usize = 256;

/// The summary table: what ran, where, and how long.
pub fn summary(page: &mut Page, r: &Map<String, Value>) -> Result<(), HtmlError> {
    let mut rows = Vec::new();
    let keys = [
        "input",
        "arch",
        "config",
        "scheduler",
        "sms",
        "warps",
        "cycles",
        "warp_instructions",
        "thread_instructions",
        "ipc",
        "resident_warp_cycles",
    ];
    for k in keys {
        if let Some(v) = r.get(k) {
            rows.push(vec![esc(k), esc(&scalar(v, k)?)]);
        }
    }
    if let Some(l) = r.get("launch").filter(|v| !v.is_null()) {
        let l = object(l, "launch")?;
        for k in ["entry", "grid", "block", "sms_used"] {
            match l.get(k) {
                Some(Value::Array(a)) => {
                    let parts: Result<Vec<_>, _> =
                        a.iter().map(|x| scalar(x, &join("launch", k))).collect();
                    rows.push(vec![esc(&join("launch", k)), esc(&parts?.join(" × "))]);
                }
                Some(v) => rows.push(vec![esc(&join("launch", k)), esc(&scalar(v, k)?)]),
                None => {}
            }
        }
    }
    page.section("summary", "Summary", &table(&["key", "value"], &rows));
    Ok(())
}

/// Every numeric entry of an object, largest first (ties by name).
fn counts(m: &Map<String, Value>, path: &str) -> Result<Vec<(String, f64)>, HtmlError> {
    let mut out = Vec::new();
    for (k, v) in m {
        out.push((k.clone(), count(v, &join(path, k))?));
    }
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(out)
}

fn share_rows(items: &[(String, f64)], total: f64) -> Vec<Vec<String>> {
    items
        .iter()
        .map(|(k, v)| {
            let share = if total > 0.0 { v / total * 100.0 } else { 0.0 };
            vec![esc(k), num(*v), format!("{share:.1}%")]
        })
        .collect()
}

/// Stall reasons per warp-cycle (and the scheduler's issue slots).
pub fn stalls(page: &mut Page, r: &Map<String, Value>) -> Result<(), HtmlError> {
    let Some(s) = page.present(r, "stalls", "Stall breakdown") else {
        return Ok(());
    };
    let items = counts(object(s, "stalls")?, "stalls")?;
    let sum: f64 = items.iter().map(|i| i.1).sum();
    let resident = opt_count(r, "resident_warp_cycles", "")?;
    // Without resident_warp_cycles (reports of schema 3, whose `stalls` are
    // the scheduler's issue-slot counts) the shares are of the counts' sum.
    let (mut html, unit) = match resident {
        Some(total) => (
            format!(
                "<p>Warp-cycles by the reason the warp was not issuing (or <code>selected</code>), \
                 out of {} resident warp-cycles.</p>",
                num(total)
            ),
            "warp-cycles",
        ),
        None => (
            format!(
                "<p>Counts as the report gives them (no <code>resident_warp_cycles</code>: \
                 shares are of their sum, {}).</p>",
                num(sum)
            ),
            "count",
        ),
    };
    html += &charts::hbar("Stall reasons", &items, unit)?;
    html += &table(
        &["reason", unit, "share"],
        &share_rows(&items, resident.unwrap_or(sum)),
    );
    if let Some(slots) = r.get("issue_slots") {
        let slots = counts(object(slots, "issue_slots")?, "issue_slots")?;
        let total: f64 = slots.iter().map(|i| i.1).sum();
        html += "<h3>Scheduler issue slots</h3>";
        html += &charts::hbar("Issue slots", &slots, "slots")?;
        html += &table(&["slot", "count", "share"], &share_rows(&slots, total));
    }
    page.section("stalls", "Stall breakdown", &html);
    Ok(())
}

/// The columns of the memory table, in the order a reader follows a request.
const MEMORY_COLUMNS: [&str; 9] = [
    "requests",
    "wavefronts",
    "sectors",
    "hits",
    "misses",
    "hit_rate",
    "bank_conflicts",
    "atomics",
    "bytes",
];
const LEVELS: [&str; 5] = ["l1", "shared", "l2", "dram", "constant"];

/// Memory hierarchy: a row per level, bytes and hit rates charted.
pub fn memory(page: &mut Page, r: &Map<String, Value>) -> Result<(), HtmlError> {
    let Some(m) = page.present(r, "memory", "Memory hierarchy") else {
        return Ok(());
    };
    let m = object(m, "memory")?;
    let mut rows = Vec::new();
    let (mut bytes, mut rates) = (Vec::new(), Vec::new());
    for level in LEVELS {
        let Some(l) = m.get(level) else { continue };
        let path = join("memory", level);
        let l = object(l, &path)?;
        let mut row = vec![esc(level)];
        for c in MEMORY_COLUMNS {
            row.push(opt_count(l, c, &path)?.map_or_else(|| "—".into(), num));
        }
        rows.push(row);
        if let Some(b) = opt_count(l, "bytes", &path)? {
            bytes.push((level.to_string(), b));
        }
        if let Some(h) = opt_count(l, "hit_rate", &path)? {
            rates.push((level.to_string(), h));
        }
    }
    let mut html = String::new();
    if let Some(spr) = opt_count(m, "sectors_per_request", "memory")? {
        html += &format!(
            "<p>Sectors per request (coalescing): <b>{}</b></p>",
            num(spr)
        );
    }
    if rows.is_empty() {
        html += "<p class=\"absent\">No memory level in this report.</p>";
    } else {
        let mut head = vec!["level"];
        head.extend(MEMORY_COLUMNS);
        html += &table(&head, &rows);
    }
    if !bytes.is_empty() {
        html += &charts::hbar("Bytes moved per level", &bytes, "bytes")?;
    }
    if !rates.is_empty() {
        html += &charts::hbar("Hit rate per level", &rates, "hit rate")?;
    }
    page.section("memory", "Memory hierarchy", &html);
    Ok(())
}

// Every section opens with `Page::present` and closes with `page.section`;
// what lies between is each section's own (issue 27).

/// Occupancy: theoretical against achieved, and the limiter.
pub fn occupancy(page: &mut Page, r: &Map<String, Value>) -> Result<(), HtmlError> {
    let Some(o) = page.present(r, "occupancy", "Occupancy") else {
        return Ok(());
    };
    let o = object(o, "occupancy")?;
    let mut rows = Vec::new();
    for (k, v) in o {
        rows.push(vec![esc(k), esc(&scalar(v, &join("occupancy", k))?)]);
    }
    let mut bars = Vec::new();
    for k in [
        "theoretical_warps_per_sm",
        "achieved_warps_per_sm",
        "theoretical_blocks_per_sm",
        "achieved_blocks_per_sm",
    ] {
        if let Some(v) = opt_count(o, k, "occupancy")? {
            bars.push((k.to_string(), v));
        }
    }
    let mut html = String::new();
    if let Some(Value::String(l)) = o.get("limiter") {
        html += &format!("<p>Limited by <b>{}</b>.</p>", esc(l));
    }
    if !bars.is_empty() {
        html += &charts::hbar("Resident per SM", &bars, "warps or blocks")?;
    }
    html += &table(&["key", "value"], &rows);
    page.section("occupancy", "Occupancy", &html);
    Ok(())
}

/// Issue activity per SM over time, as a heat map.
pub fn activity(page: &mut Page, r: &Map<String, Value>) -> Result<(), HtmlError> {
    let Some(a) = page.present(r, "activity", "Issue activity per SM") else {
        return Ok(());
    };
    let a = object(a, "activity")?;
    let bucket = match a.get("bucket_cycles") {
        Some(v) => count(v, "activity.bucket_cycles")?.max(1.0),
        None => 1.0,
    };
    let per_sm = match a.get("per_sm") {
        Some(v) => array(v, "activity.per_sm")?.as_slice(),
        None => &[],
    };
    let mut rows = Vec::new();
    for (i, sm) in per_sm.iter().take(ACTIVITY_SMS).enumerate() {
        let path = format!("activity.per_sm[{i}]");
        let cells = array(sm, &path)?;
        let row: Result<Vec<f64>, _> = cells
            .iter()
            .take(ACTIVITY_BUCKETS)
            .enumerate()
            .map(|(j, v)| count(v, &format!("{path}[{j}]")))
            .collect();
        rows.push(row?);
    }
    let mut html = format!(
        "<p>Warp-instructions issued per {} cycles, one row per SM \
         (darker: more; the first {} of {} SMs).</p>",
        num(bucket),
        rows.len(),
        per_sm.len()
    );
    if rows.is_empty() {
        html += "<p class=\"absent\">No SM in <code>activity.per_sm</code>.</p>";
    } else {
        let names: Vec<String> = (0..rows.len()).map(|i| format!("SM {i}")).collect();
        html += &charts::heat("Issued per bucket", &names, &rows, bucket)?;
    }
    page.section("activity", "Issue activity per SM", &html);
    Ok(())
}

/// One line of the per-line profile.
struct Line {
    line: String,
    text: String,
    warp: f64,
    thread: Option<f64>,
    stalls: Vec<(String, f64)>,
    sectors: Option<f64>,
}

impl Line {
    fn stall_total(&self) -> f64 {
        self.stalls.iter().map(|s| s.1).sum()
    }
}

fn line(v: &Value, path: &str) -> Result<Line, HtmlError> {
    let m = object(v, path)?;
    let stalls = match m.get("stalls") {
        Some(s) => counts(object(s, &join(path, "stalls"))?, &join(path, "stalls"))?,
        None => Vec::new(),
    };
    Ok(Line {
        line: match m.get("line") {
            Some(v) => scalar(v, &join(path, "line"))?,
            None => "?".into(),
        },
        text: match m.get("text") {
            Some(v) => scalar(v, &join(path, "text"))?,
            None => String::new(),
        },
        warp: opt_count(m, "warp_instructions", path)?.unwrap_or(0.0),
        thread: opt_count(m, "thread_instructions", path)?,
        stalls,
        sectors: opt_count(m, "sectors", path)?,
    })
}

/// The hottest lines: most stall cycles, then most warp-instructions.
pub fn lines(page: &mut Page, r: &Map<String, Value>) -> Result<(), HtmlError> {
    let Some(l) = page.present(r, "lines", "Hottest lines") else {
        return Ok(());
    };
    let all = array(l, "lines")?;
    let mut parsed = Vec::with_capacity(all.len());
    for (i, v) in all.iter().enumerate() {
        parsed.push(line(v, &format!("lines[{i}]"))?);
    }
    parsed.sort_by(|a, b| {
        b.stall_total()
            .total_cmp(&a.stall_total())
            .then(b.warp.total_cmp(&a.warp))
    });
    let hot = &parsed[..parsed.len().min(HOT_LINES)];
    let rows: Vec<Vec<String>> = hot
        .iter()
        .map(|l| {
            let top = l
                .stalls
                .first()
                .map_or_else(|| "—".into(), |(k, v)| format!("{} ({})", esc(k), num(*v)));
            vec![
                esc(&l.line),
                format!("<code>{}</code>", esc(&l.text)),
                num(l.warp),
                l.thread.map_or_else(|| "—".into(), num),
                num(l.stall_total()),
                top,
                l.sectors.map_or_else(|| "—".into(), num),
            ]
        })
        .collect();
    let mut html = format!(
        "<p>The {} hottest of {} lines, by stall warp-cycles then warp-instructions.</p>",
        hot.len(),
        parsed.len()
    );
    let bars: Vec<(String, f64)> = hot
        .iter()
        .take(12)
        .map(|l| (format!("line {}", l.line), l.stall_total()))
        .collect();
    if bars.iter().any(|b| b.1 > 0.0) {
        html += &charts::hbar("Stall warp-cycles per line", &bars, "warp-cycles")?;
    }
    html += &table(
        &[
            "line",
            "text",
            "warp-instr.",
            "thread-instr.",
            "stall cycles",
            "top reason",
            "sectors",
        ],
        &rows,
    );
    page.section("lines", "Hottest lines", &html);
    Ok(())
}
