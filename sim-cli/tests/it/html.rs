//! `simcli report --html` (issue 25, item 5): pages from a hand-written
//! report with every section (sim-cli/tests/data/html), from a real run of a
//! committed launch file (today's keys only), from a sweep CSV (hand-written
//! and a real `simcli sweep`); bad inputs; and the pages in headless
//! Chromium (tools/html/browser_check.py), skipped with a message when no
//! Chromium can be had.

use super::{root, simcli};
use sim_cli::html::{ABSENT, RUN_SECTIONS, SWEEP_SECTIONS};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> PathBuf {
    root().join("sim-cli/tests/data/html").join(name)
}

/// Runs `simcli report --html OUT INPUT`; the page on success, else the
/// exit code and standard error.
fn report(input: &Path, out: &Path) -> Result<String, (Option<i32>, String)> {
    let o = simcli(&[
        "report",
        "--html",
        out.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    if o.status.success() {
        Ok(fs::read_to_string(out).unwrap())
    } else {
        Err((
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        ))
    }
}

/// The page's text inside `<section id="id">`.
fn section<'a>(page: &'a str, id: &str) -> &'a str {
    let start = page
        .find(&format!("<section id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no section {id}"));
    let end = page[start..].find("</section>").unwrap() + start;
    &page[start..end]
}

/// Nothing in the page would be fetched: no external script, style, image,
/// link or import (the SVG namespace URI is a name, not a fetch).
fn assert_self_contained(page: &str) {
    for bad in [
        "<link",
        " src=",
        "@import",
        "url(",
        "href=\"http",
        "<img",
        "<iframe",
    ] {
        assert!(!page.contains(bad), "page contains {bad:?}");
    }
}

#[test]
fn full_report_has_every_section_with_its_figures() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("full.html");
    let page = report(&data("full_report.json"), &out).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert_self_contained(&page);
    assert!(
        !page.contains(ABSENT),
        "a section is missing from the full fixture"
    );
    for id in RUN_SECTIONS {
        section(&page, id);
    }
    // Every figure section has a chart drawn by plotters.
    for id in ["stalls", "memory", "occupancy", "activity", "lines"] {
        assert!(section(&page, id).contains("<svg"), "no chart in {id}");
    }
    let stalls = section(&page, "stalls");
    // long_scoreboard: 20000 of 51200 resident warp-cycles.
    assert!(stalls.contains("<td>long_scoreboard</td><td>20000</td><td>39.1%</td>"));
    assert!(stalls.contains("Scheduler issue slots"));
    let mem = section(&page, "memory");
    assert!(
        mem.contains("<td>shared</td><td>128</td><td>160</td>"),
        "{mem}"
    );
    assert!(mem.contains("Sectors per request (coalescing): <b>4</b>"));
    assert!(section(&page, "occupancy").contains("Limited by <b>registers</b>"));
    assert!(section(&page, "activity").contains("the first 4 of 4 SMs"));
    let lines = section(&page, "lines");
    // Hottest first: line 12 (19200 stall cycles) before line 13 (5000).
    let (l12, l13) = (
        lines.find("<td>12</td>").unwrap(),
        lines.find("<td>13</td>").unwrap(),
    );
    assert!(l12 < l13);
    // PTX text is escaped.
    assert!(lines.contains("&lt;tag&gt; &amp; &quot;quoted&quot;"));
    assert!(!lines.contains("<tag>"));
}

/// A real run of a committed launch file: today's keys draw the summary and
/// the (issue-slot) stalls; the sections still to come say they are absent.
fn real_run(dir: &Path) -> PathBuf {
    let json = dir.join("reduce.json");
    let o = simcli(&[
        "run",
        "workloads/reduce.json",
        "--format",
        "json",
        "--sms",
        "4",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    fs::write(&json, &o.stdout).unwrap();
    json
}

#[test]
fn real_run_report_draws_what_it_has() {
    let dir = tempfile::tempdir().unwrap();
    let json = real_run(dir.path());
    let v: serde_json::Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    let page = report(&json, &dir.path().join("run.html")).unwrap();
    assert_self_contained(&page);
    let summary = section(&page, "summary");
    let cycles = v["cycles"].as_u64().unwrap();
    assert!(
        summary.contains(&format!("<td>cycles</td><td>{cycles}</td>")),
        "{summary}"
    );
    assert!(summary.contains("reduce_sum"));
    for id in RUN_SECTIONS {
        let s = section(&page, id);
        let key = if id == "summary" { "cycles" } else { id };
        // A section is drawn exactly when the report has its key.
        assert_eq!(
            s.contains(ABSENT),
            v.get(key).is_none(),
            "section {id}: {s}"
        );
    }
}

#[test]
fn sweep_csv_plots_each_swept_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let page = report(&data("sweep.csv"), &dir.path().join("s.html")).unwrap();
    assert_self_contained(&page);
    for id in SWEEP_SECTIONS {
        section(&page, id);
    }
    let s = section(&page, "sweep");
    assert!(s.contains("6 runs; swept: <code>resident_warps</code> (3 values), <code>scheduler</code> (2 values)"), "{s}");
    assert!(s.contains("cycles against resident_warps"));
    assert_eq!(s.matches("<svg").count(), 2);
    // One line per scheduler in the resident_warps chart.
    assert!(s.contains("scheduler=gto") && s.contains("scheduler=lrr"));
}

#[test]
fn real_sweep_plots_its_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("s.toml");
    let trace = root().join("traces/sad16x16.ptx");
    fs::write(
        &toml,
        format!(
            "traces = [{:?}]\narchs = [\"sm_90\"]\n[params]\nunits.int_alu.latency = [4, 8, 12]\n",
            trace.to_str().unwrap()
        ),
    )
    .unwrap();
    let csv = dir.path().join("s.csv");
    let o = simcli(&["sweep", toml.to_str().unwrap(), "-o", csv.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = report(&csv, &dir.path().join("s.html")).unwrap();
    let s = section(&page, "sweep");
    assert!(
        s.contains("<code>units.int_alu.latency</code> (3 values)"),
        "{s}"
    );
    assert!(s.contains("<svg"));
}

#[test]
fn bad_inputs_are_refused_and_leave_the_output_alone() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("keep.html");
    fs::write(&out, "old page").unwrap();
    let cases: [(&str, &[u8], &str); 6] = [
        ("notjson.json", b"{\"stalls\": ", "not JSON"),
        (
            "array.json",
            b"[1, 2]",
            "the report: expected an object, found an array of 2",
        ),
        (
            "shape.json",
            b"{\"stalls\": {\"wait\": \"many\"}}",
            "stalls.wait: expected a number not below 0, found a string",
        ),
        (
            "neg.json",
            b"{\"activity\": {\"per_sm\": [[1, -2]]}}",
            "activity.per_sm[0][1]: expected a number not below 0",
        ),
        (
            "lines.json",
            b"{\"lines\": {}}",
            "lines: expected an array, found an object",
        ),
        (
            "bad.csv",
            b"run,cycles\n0,10\n1,ten\n",
            "line 3: cycles is \"ten\", not a number",
        ),
    ];
    for (name, body, want) in cases {
        let input = dir.path().join(name);
        fs::write(&input, body).unwrap();
        let (code, err) = report(&input, &out).unwrap_err();
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(
            err.contains(name),
            "{name}: the error names the file: {err}"
        );
        assert!(err.contains(want), "{name}: {err}");
    }
    let nocycles = dir.path().join("nocycles.csv");
    fs::write(&nocycles, "a,b\n1,2\n").unwrap();
    assert!(report(&nocycles, &out)
        .unwrap_err()
        .1
        .contains("no `cycles` column"));
    // A file over the limit is refused before it is read whole (sparse here).
    let huge = dir.path().join("huge.json");
    fs::File::create(&huge)
        .unwrap()
        .set_len(sim_cli::html::MAX_INPUT + 1)
        .unwrap();
    assert!(report(&huge, &out)
        .unwrap_err()
        .1
        .contains("larger than 64 MiB"));
    let binary = dir.path().join("bin.json");
    fs::write(&binary, [0xffu8, 0xfe, 0x00]).unwrap();
    assert!(report(&binary, &out).unwrap_err().1.contains("not UTF-8"));
    // The output kept its old content, and no temporary file was left.
    assert_eq!(fs::read_to_string(&out).unwrap(), "old page");
    let left: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // The input is never the output.
    let input = data("full_report.json");
    let (code, err) = report(&input, &input).unwrap_err();
    assert_eq!(code, Some(2));
    assert!(err.contains("is the input"), "{err}");
}

/// Runs the browser check on `page`; `None` when it skipped (no Chromium).
fn browser_check(page: &Path, sections: &[&str]) -> Option<(i32, String)> {
    let script = root().join("tools/html/browser_check.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script).arg(page);
    for s in sections {
        cmd.arg("--section").arg(s);
    }
    let o = match cmd.output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("SKIP browser test: cannot run python3: {e}");
            return None;
        }
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    match o.status.code() {
        Some(77) => {
            eprintln!("SKIP browser test: {text}");
            None
        }
        Some(c) => Some((c, text)),
        None => Some((-1, text)),
    }
}

#[test]
fn pages_pass_the_browser_check() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full.html");
    report(&data("full_report.json"), &full).unwrap();
    let Some((code, text)) = browser_check(&full, &RUN_SECTIONS) else {
        return;
    };
    assert_eq!(code, 0, "{text}");
    let run = dir.path().join("run.html");
    report(&real_run(dir.path()), &run).unwrap();
    let (code, text) = browser_check(&run, &RUN_SECTIONS).unwrap();
    assert_eq!(code, 0, "{text}");
    let sweep = dir.path().join("sweep.html");
    report(&data("sweep.csv"), &sweep).unwrap();
    let (code, text) = browser_check(&sweep, &SWEEP_SECTIONS).unwrap();
    assert_eq!(code, 0, "{text}");
    // The check can fail: a console error, a section missing, one not laid out.
    let bad = dir.path().join("bad.html");
    let page = fs::read_to_string(&full).unwrap().replacen(
        "<section id=\"lines\">",
        "<script>console.error('deliberate')</script><section id=\"lines\" style=\"display:none\">",
        1,
    );
    fs::write(&bad, page).unwrap();
    let (code, text) = browser_check(&bad, &["summary", "lines", "nosuch"]).unwrap();
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("deliberate"), "{text}");
    assert!(
        text.contains("section \"lines\" is in the DOM but was not laid out"),
        "{text}"
    );
    assert!(
        text.contains("section \"nosuch\" is not in the DOM"),
        "{text}"
    );
    assert!(!text.contains("section \"summary\""), "{text}");
}
