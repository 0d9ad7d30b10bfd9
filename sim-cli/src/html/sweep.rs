//! A sweep CSV's page (`simcli sweep`, docs/sweeps.md): each swept
//! parameter against cycles, one line per combination of the other swept
//! parameters, and the runs as a table.
//!
//! A run's parameters are its `overrides` (`key=value;...`) plus the `input`,
//! `arch`, `scheduler` and `sms` columns; a parameter is swept when it takes
//! more than one value. `overrides` lists only values that differ from the
//! preset, so a run without a key another run has is at the preset, shown as
//! the category `preset` (the CSV does not say its value). A parameter whose
//! values are all numbers is drawn on a numeric axis, any other as
//! categories in order of first appearance.

use super::charts::{self, Series};
use super::page::{esc, table, HtmlError, Page};
use std::collections::{BTreeMap, BTreeSet};

/// Charts drawn (one per swept parameter) and lines per chart.
const MAX_CHARTS: usize = 8;
const MAX_SERIES: usize = 12;
/// Runs listed in the table.
const MAX_ROWS: usize = 500;
const COLUMN_PARAMS: [&str; 4] = ["input", "arch", "scheduler", "sms"];
const PRESET: &str = "preset";

struct Run {
    params: BTreeMap<String, String>,
    cycles: f64,
    cells: Vec<String>,
}

fn csv_err(place: String, message: impl Into<String>) -> HtmlError {
    HtmlError::Csv {
        place,
        message: message.into(),
    }
}

fn read(text: &str) -> Result<(Vec<String>, Vec<Run>), HtmlError> {
    let mut rd = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let header: Vec<String> = rd
        .headers()
        .map_err(|e| csv_err("header".into(), e.to_string()))?
        .iter()
        .map(str::to_string)
        .collect();
    let col = |name: &str| header.iter().position(|h| h == name);
    let cycles = col("cycles").ok_or_else(|| {
        csv_err(
            "header".into(),
            format!("no `cycles` column (columns: {})", header.join(",")),
        )
    })?;
    let mut runs = Vec::new();
    for rec in rd.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            csv_err(format!("line {line}"), e.to_string())
        })?;
        let line = rec.position().map_or(0, |p| p.line());
        let c = rec.get(cycles).unwrap_or("");
        let cyc: f64 = c
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                csv_err(
                    format!("line {line}"),
                    format!("cycles is {c:?}, not a number"),
                )
            })?;
        let mut params = BTreeMap::new();
        for name in COLUMN_PARAMS {
            if let Some(v) = col(name).and_then(|i| rec.get(i)) {
                params.insert(name.to_string(), v.to_string());
            }
        }
        let ov = col("overrides").and_then(|i| rec.get(i)).unwrap_or("");
        for kv in ov.split(';').filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                csv_err(
                    format!("line {line}"),
                    format!("override {kv:?} is not key=value"),
                )
            })?;
            params.insert(k.to_string(), v.to_string());
        }
        runs.push(Run {
            params,
            cycles: cyc,
            cells: rec.iter().map(str::to_string).collect(),
        });
    }
    Ok((header, runs))
}

/// A swept parameter: its values in axis order and whether they are numbers.
struct Axis {
    name: String,
    values: Vec<String>,
    numeric: bool,
}

fn value_of<'a>(run: &'a Run, key: &str) -> &'a str {
    run.params.get(key).map_or(PRESET, String::as_str)
}

fn axes(runs: &[Run]) -> Vec<Axis> {
    let keys: BTreeSet<&String> = runs.iter().flat_map(|r| r.params.keys()).collect();
    let mut out = Vec::new();
    for k in keys {
        let mut values: Vec<String> = Vec::new();
        for r in runs {
            let v = value_of(r, k);
            if !values.iter().any(|x| x == v) {
                values.push(v.to_string());
            }
        }
        if values.len() < 2 {
            continue;
        }
        let numeric = values.iter().all(|v| v.parse::<f64>().is_ok());
        if numeric {
            values.sort_by(|a, b| {
                let (x, y) = (a.parse::<f64>(), b.parse::<f64>());
                x.unwrap_or(0.0).total_cmp(&y.unwrap_or(0.0))
            });
        }
        out.push(Axis {
            name: k.clone(),
            values,
            numeric,
        });
    }
    out
}

/// The chart of `axis` against cycles, a line per combination of the other axes.
fn chart(axis: &Axis, others: &[&Axis], runs: &[Run]) -> Result<String, HtmlError> {
    let mut groups: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for r in runs {
        let label = if others.is_empty() {
            "all runs".to_string()
        } else {
            let parts: Vec<String> = others
                .iter()
                .map(|o| format!("{}={}", o.name, value_of(r, &o.name)))
                .collect();
            parts.join(", ")
        };
        let v = value_of(r, &axis.name);
        let x = if axis.numeric {
            v.parse::<f64>().unwrap_or(0.0)
        } else {
            axis.values.iter().position(|x| x == v).unwrap_or(0) as f64
        };
        match groups.iter_mut().find(|g| g.0 == label) {
            Some(g) => g.1.push((x, r.cycles)),
            None => groups.push((label, vec![(x, r.cycles)])),
        }
    }
    let total = groups.len();
    let series: Vec<Series> = groups
        .into_iter()
        .take(MAX_SERIES)
        .map(|(name, mut points)| {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series { name, points }
        })
        .collect();
    let names = (!axis.numeric).then_some(axis.values.as_slice());
    let title = format!("cycles against {}", axis.name);
    let mut html = charts::lines(&title, &axis.name, "cycles", &series, names)?;
    if total > MAX_SERIES {
        html += &format!("<p>The first {MAX_SERIES} of {total} lines are drawn.</p>");
    }
    Ok(html)
}

/// The page for a sweep CSV.
pub fn page(text: &str, source: &str) -> Result<Page, HtmlError> {
    let (header, runs) = read(text)?;
    let mut page = Page::new(&format!("simcli sweep: {source}"));
    let axes = axes(&runs);
    let mut html = format!(
        "<p>{} runs; swept: {}.</p>",
        runs.len(),
        if axes.is_empty() {
            "nothing (every run has the same parameters)".to_string()
        } else {
            axes.iter()
                .map(|a| format!("<code>{}</code> ({} values)", esc(&a.name), a.values.len()))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    for axis in axes.iter().take(MAX_CHARTS) {
        let others: Vec<&Axis> = axes.iter().filter(|a| a.name != axis.name).collect();
        html += &chart(axis, &others, &runs)?;
    }
    if axes.len() > MAX_CHARTS {
        html += &format!("<p>The first {MAX_CHARTS} swept parameters are charted.</p>");
    }
    page.section("sweep", "Swept parameters against cycles", &html);
    let head: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows: Vec<Vec<String>> = runs
        .iter()
        .take(MAX_ROWS)
        .map(|r| r.cells.iter().map(|c| esc(c)).collect())
        .collect();
    let mut t = table(&head, &rows);
    if runs.len() > MAX_ROWS {
        t += &format!("<p>The first {MAX_ROWS} of {} runs.</p>", runs.len());
    }
    page.section("runs", "Runs", &t);
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "run,input,arch,scheduler,sms,warps,overrides,cycles\n\
        0,a.ptx,sm_90,lrr,1,4,resident_warps=16,100\n\
        1,a.ptx,sm_90,lrr,1,4,resident_warps=32,80\n\
        2,a.ptx,sm_90,gto,1,4,resident_warps=16,90\n\
        3,a.ptx,sm_90,gto,1,4,,70\n";

    #[test]
    fn swept_parameters_are_found() {
        let (_, runs) = read(CSV).unwrap();
        let a = axes(&runs);
        let names: Vec<&str> = a.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["resident_warps", "scheduler"]);
        // The run at the preset makes resident_warps a category.
        assert_eq!(a[0].values, ["16", "32", "preset"]);
        assert!(!a[0].numeric);
    }

    #[test]
    fn bad_cycles_name_the_line() {
        let e = read("run,cycles\n0,12\n1,x\n").err().unwrap().to_string();
        assert!(e.contains("line 3"), "{e}");
        assert!(e.contains("\"x\""), "{e}");
    }
}
