//! `simcli report --html`: one self-contained HTML page (inline SVG charts
//! drawn by plotters, inline style, one inline script, nothing fetched) from
//! a run's JSON report or a sweep CSV (docs/html-report.md).

mod charts;
mod page;
mod sections;
mod sweep;

pub use page::{HtmlError, ABSENT};
use serde_json::Value;

/// The largest input read (bytes): a run's report is kilobytes to a few
/// megabytes (its `lines`), a 100,000-run sweep about 20 MB.
pub const MAX_INPUT: u64 = 64 << 20;

/// The ids of a run page's sections, in page order (what the browser test
/// looks for).
pub const RUN_SECTIONS: [&str; 6] = [
    "summary",
    "stalls",
    "memory",
    "occupancy",
    "activity",
    "lines",
];
/// The ids of a sweep page's sections.
pub const SWEEP_SECTIONS: [&str; 2] = ["sweep", "runs"];

/// What an input is, told by its content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A JSON document (a run's report).
    Report,
    /// Anything else: read as a sweep CSV.
    Sweep,
}

/// A JSON document starts with `{` or `[` (after white space); a sweep CSV
/// with its header.
pub fn kind(text: &str) -> Kind {
    match text.trim_start().chars().next() {
        Some('{' | '[') => Kind::Report,
        _ => Kind::Sweep,
    }
}

/// The page for a run's JSON report; `source` names it in the title.
pub fn run_page(text: &str, source: &str, footer: &str) -> Result<String, HtmlError> {
    let v: Value = serde_json::from_str(text).map_err(|source| HtmlError::NotJson { source })?;
    let r = page::object(&v, "the report")?;
    let mut p = page::Page::new(&format!("simcli run: {source}"));
    sections::summary(&mut p, r)?;
    sections::stalls(&mut p, r)?;
    sections::memory(&mut p, r)?;
    sections::occupancy(&mut p, r)?;
    sections::activity(&mut p, r)?;
    sections::lines(&mut p, r)?;
    Ok(p.finish(footer))
}

/// The page for a sweep CSV.
pub fn sweep_page(text: &str, source: &str, footer: &str) -> Result<String, HtmlError> {
    Ok(sweep::page(text, source)?.finish(footer))
}
