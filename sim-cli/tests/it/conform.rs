//! `simcli conform`: exit codes, and what a hostile-input sweep found
//! (issue 13): malformed lines, an empty `out`, files with no vectors, a
//! missing file after good ones, unbounded lines.

use super::{parts, s, scratch, simcli};
use std::io::Write;
use std::process::{Command, Stdio};

const GOOD: &str = "{\"arch\":\"sm_30\",\"ptx\":\"vadd2.u32.s32.u32 %r1.h10, %r2.h10, %r3.h30, %r1;\",\"in\":{\"%r2\":\"0xa1700001\",\"%r3\":\"0x93bd\",\"%r1\":\"0x7fff7fff\"},\"out\":{\"%r1\":\"0xa1700002\"}}\n";

/// `GOOD` with a wrong expectation.
fn wrong() -> String {
    GOOD.replace("0xa1700002", "0xa1700003")
}

#[test]
fn conform_exit_codes() {
    let dir = scratch("conform");
    let good = dir.join("good.jsonl");
    let bad = dir.join("bad.jsonl");
    std::fs::write(&good, GOOD).unwrap();
    std::fs::write(&bad, format!("# a wrong expectation\n{}", wrong())).unwrap();
    let (c, out, _) = parts(&simcli(&["conform", s(&good)]));
    assert_eq!((c, out.as_str()), (0, "1 passed, 0 failed\n"));
    let (c, out, _) = parts(&simcli(&["conform", s(&good), s(&bad)]));
    assert_eq!(c, 1);
    assert!(out.contains("bad.jsonl: line 2:"), "{out}");
    assert!(out.ends_with("1 passed, 1 failed\n"), "{out}");
    let (c, out, _) = parts(&simcli(&["conform", "sim-isa/tests/data/public.jsonl"]));
    assert_eq!((c, out.as_str()), (0, "623 passed, 0 failed\n"));
}

#[test]
fn malformed_line_is_counted_reported_and_fails() {
    let dir = scratch("conform-malformed");
    let f = dir.join("v.jsonl");
    std::fs::write(&f, format!("{GOOD}{{\"arch\": oops\n{GOOD}")).unwrap();
    let (c, out, err) = parts(&simcli(&["conform", s(&f)]));
    assert_eq!(c, 2, "{out}{err}");
    assert!(
        out.contains("v.jsonl: line 2: skipped: malformed JSON"),
        "{out}"
    );
    assert!(out.ends_with("2 passed, 0 failed, 1 skipped\n"), "{out}");
    assert!(err.contains("1 unusable"), "{err}");
    // A failure outranks unusable lines in the exit code.
    std::fs::write(&f, format!("{}not json\n", wrong())).unwrap();
    let (c, out, _) = parts(&simcli(&["conform", s(&f)]));
    assert_eq!(c, 1);
    assert!(out.ends_with("0 passed, 1 failed, 1 skipped\n"), "{out}");
}

#[test]
fn a_file_that_is_no_vector_file_fails() {
    // Every line malformed: before, exit 0 with "0 passed, 0 failed, N skipped".
    let (c, out, _) = parts(&simcli(&["conform", "/proc/self/status"]));
    assert_ne!(c, 0, "{out}");
    assert_eq!(c, 2);
    assert!(out.contains("line 1: skipped"), "{out}");
}

#[test]
fn zero_vectors_is_an_error() {
    let dir = scratch("conform-empty");
    let f = dir.join("v.jsonl");
    std::fs::write(&f, "# only a comment\n\n").unwrap();
    let (c, out, err) = parts(&simcli(&["conform", s(&f)]));
    assert_eq!((c, out.as_str()), (2, "0 passed, 0 failed\n"));
    assert!(err.contains("no vectors ran"), "{err}");
    std::fs::write(&f, "").unwrap();
    assert_eq!(parts(&simcli(&["conform", s(&f)])).0, 2);
}

#[test]
fn empty_out_is_a_format_error() {
    // Before, `"out": {}` passed whatever the instruction wrote.
    let dir = scratch("conform-empty-out");
    let f = dir.join("v.jsonl");
    let empty = GOOD.replace("{\"%r1\":\"0xa1700002\"}", "{}");
    assert_ne!(empty, GOOD);
    std::fs::write(&f, empty).unwrap();
    let (c, out, _) = parts(&simcli(&["conform", s(&f)]));
    assert_eq!(c, 2, "{out}");
    assert!(
        out.contains("line 1:") && out.contains("'out': empty"),
        "{out}"
    );
    assert!(out.ends_with("0 passed, 0 failed, 1 skipped\n"), "{out}");
}

#[test]
fn every_file_is_summarised_up_to_a_missing_one() {
    let dir = scratch("conform-missing");
    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    std::fs::write(&a, GOOD).unwrap();
    std::fs::write(&b, format!("{GOOD}{GOOD}")).unwrap();
    let missing = dir.join("missing.jsonl");
    let (c, out, err) = parts(&simcli(&["conform", s(&a), s(&b), s(&missing)]));
    assert_eq!(c, 2);
    assert!(
        out.contains(&format!("{}: 1 passed, 0 failed\n", s(&a))),
        "{out}"
    );
    assert!(
        out.contains(&format!("{}: 2 passed, 0 failed\n", s(&b))),
        "{out}"
    );
    assert!(err.contains("missing.jsonl"), "{err}");
    // Several good files: one line each, then the total.
    let (c, out, _) = parts(&simcli(&["conform", s(&a), s(&b)]));
    assert_eq!(c, 0);
    assert!(
        out.ends_with("2 passed, 0 failed\n3 passed, 0 failed\n"),
        "{out}"
    );
}

#[test]
fn lines_are_bounded() {
    // An endless line: read no further than the line limit, then stop.
    let (c, out, _) = parts(&simcli(&["conform", "/dev/zero"]));
    assert_eq!(c, 2);
    assert!(out.contains("line 1: skipped: line longer than"), "{out}");
    let dir = scratch("conform-long");
    let f = dir.join("v.jsonl");
    let long = format!("{GOOD}{}\n{GOOD}", " ".repeat(1 << 20));
    std::fs::write(&f, long).unwrap();
    let (c, out, _) = parts(&simcli(&["conform", s(&f)]));
    assert_eq!(c, 2);
    assert!(out.contains("line 2: skipped: line longer than"), "{out}");
    assert!(out.ends_with("1 passed, 0 failed, 1 skipped\n"), "{out}");
}

#[test]
fn dash_reads_standard_input() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_simcli"))
        .args(["conform", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(GOOD.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let (c, out, _) = parts(&o);
    assert_eq!((c, out.as_str()), (0, "1 passed, 0 failed\n"));
}
