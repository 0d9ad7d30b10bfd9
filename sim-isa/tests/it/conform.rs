//! The conformance-vector reader and runner: error paths, skips, summary line.

use sim_isa::conform::{
    parse_vectors, run_reader, run_vectors_with, Expect, Outcome, RegValue, Report, Summary,
    VectorError, VectorResult, MAX_LINE_BYTES,
};
use sim_isa::*;

/// A parser stand-in that knows one instruction: `selp.u16 %d, %a, %b, %p;`
/// (and rejects everything else as invalid, or as arch on sm_1x for `.f64`).
fn tiny_parse(ptx: &str, s: &mut Symbols, t: Target) -> Result<Instruction, IsaError> {
    let ty = match ptx {
        "selp.u16 %d, %a, %b, %p;" => Type::U16,
        "selp.f64 %d, %a, %b, %p;" => Type::F64,
        _ => {
            return Err(IsaError::Invalid {
                col: 1,
                token: ptx.into(),
                reason: InvalidReason::UnknownInstruction(ptx.into()),
            })
        }
    };
    if ty == Type::F64 && !t.supports(Feature::F64) {
        return Err(IsaError::Unsupported {
            what: "selp.f64".into(),
            need: Requirement::Sm(13),
        });
    }
    let d = s.intern("%d");
    let (a, b, p) = (s.intern("%a"), s.intern("%b"), s.intern("%p"));
    let c = PredSrc::Reg {
        reg: p,
        negate: false,
    };
    Ok(Instruction {
        guard: None,
        op: Op::Selp(Selp {
            ty,
            d,
            a: Operand::Reg(a),
            b: Operand::Reg(b),
            c,
        }),
    })
}

fn run(text: &str) -> Report {
    run_vectors_with(text, tiny_parse)
}

fn only(text: &str) -> Outcome {
    let r = run(text);
    assert_eq!(r.results.len(), 1, "{r:?}");
    r.results[0].outcome.clone()
}

const OK: &str = r#"{"arch":"sm_30","ptx":"selp.u16 %d, %a, %b, %p;","in":{"%a":"0x1","%b":"0x2","%p":true,"%d":"0x0"},"out":{"%d":"0x1"}}"#;

#[test]
fn blank_and_comment_lines_are_ignored_and_line_numbers_kept() {
    let text = format!("\n# a comment\n   \n{OK}\n  # indented comment\n{OK}\n");
    let r = run(&text);
    assert_eq!(
        r.results.iter().map(|v| v.line).collect::<Vec<_>>(),
        vec![4, 6]
    );
    assert_eq!(r.summary_line(), "2 passed, 0 failed");
    assert!(r.ok());
}

#[test]
fn malformed_json_is_skipped_with_its_line() {
    let text = format!("{OK}\n{{\"arch\": \"sm_30\", \n[1,2]\n\"str\"\n");
    let r = run(&text);
    assert_eq!(r.summary_line(), "1 passed, 0 failed, 3 skipped");
    let lines: Vec<usize> = r.problems().map(|v| v.line).collect();
    assert_eq!(lines, vec![2, 3, 4]);
    assert!(matches!(
        r.results[1].outcome,
        Outcome::Skipped(VectorError::Json(_))
    ));
    assert!(r
        .problems()
        .next()
        .unwrap()
        .to_string()
        .starts_with("line 2: skipped: malformed JSON"));
    // The reader alone reports the same.
    let parsed = parse_vectors(&text);
    assert!(parsed[0].is_ok());
    assert!(matches!(parsed[1], Err((2, VectorError::Json(_)))));
}

#[test]
fn missing_and_mistyped_fields() {
    let cases = [
        (
            r#"{"ptx":"selp.u16 %d, %a, %b, %p;","in":{},"out":{}}"#,
            "arch",
        ),
        (r#"{"arch":"sm_30","in":{},"out":{}}"#, "ptx"),
        (r#"{"arch":30,"ptx":"x","out":{}}"#, "arch"),
        (r#"{"arch":"sm_30","ptx":"x","in":[1],"out":{}}"#, "in"),
        (r#"{"arch":"sm_30","ptx":"x","in":{}}"#, "out"),
        (
            r#"{"arch":"sm_30","ptx":"x","in":{},"out":{},"error":"invalid"}"#,
            "out",
        ),
        (r#"{"arch":"sm_30","ptx":"x","error":"nope"}"#, "error"),
        (r#"{"arch":"sm_30","ptx":"x","error":true}"#, "error"),
    ];
    for (text, want) in cases {
        match only(text) {
            Outcome::Skipped(VectorError::Field { field, .. }) => assert_eq!(field, want, "{text}"),
            o => panic!("{text}: {o:?}"),
        }
    }
}

#[test]
fn empty_out_is_a_vector_error() {
    // An empty `out` would pass whatever the instruction wrote.
    let text = OK.replace(r#""out":{"%d":"0x1"}"#, r#""out":{}"#);
    match only(&text) {
        Outcome::Skipped(VectorError::Field { field, msg }) => {
            assert_eq!(field, "out");
            assert!(msg.starts_with("empty"), "{msg}");
        }
        o => panic!("{o:?}"),
    }
}

#[test]
fn bad_values() {
    for v in [
        r#""12""#,
        r#""0x""#,
        r#""0xg1""#,
        r#""0x+1""#,
        "12",
        r#""0x10000000000000000""#,
        "null",
    ] {
        let text = format!(r#"{{"arch":"sm_30","ptx":"x","in":{{"%a":{v}}},"out":{{}}}}"#);
        assert!(
            matches!(only(&text), Outcome::Skipped(VectorError::Value { .. })),
            "{v}"
        );
    }
    // Leading zeros beyond 16 digits are fine.
    let parsed = parse_vectors(
        r#"{"arch":"sm_30","ptx":"x","in":{"%a":"0x00000000000000000001","%p":false},"out":{"%a":"0x000000000000000000002"}}"#,
    );
    let v = parsed[0].as_ref().unwrap();
    assert_eq!(
        v.inputs,
        vec![
            ("%a".to_string(), RegValue::Bits(1)),
            ("%p".to_string(), RegValue::Pred(false))
        ]
    );
    assert_eq!(
        v.expect,
        Expect::Out(vec![("%a".to_string(), RegValue::Bits(2))])
    );
}

#[test]
fn value_wider_than_operand_is_a_vector_error() {
    let text = OK.replace(r#""%a":"0x1""#, r#""%a":"0x10000""#);
    assert!(matches!(
        only(&text),
        Outcome::Skipped(VectorError::TooWide { bits: 16, .. })
    ));
    let text = OK.replace(r#""out":{"%d":"0x1"}"#, r#""out":{"%d":"0x1ffff"}"#);
    assert!(matches!(
        only(&text),
        Outcome::Skipped(VectorError::TooWide { .. })
    ));
    // A predicate given a hex string, or a value register given a boolean.
    let text = OK.replace(r#""%p":true"#, r#""%p":"0x1""#);
    assert!(matches!(
        only(&text),
        Outcome::Skipped(VectorError::Kind { .. })
    ));
    let text = OK.replace(r#""%a":"0x1""#, r#""%a":true"#);
    assert!(matches!(
        only(&text),
        Outcome::Skipped(VectorError::Kind { .. })
    ));
}

#[test]
fn missing_read_register_is_skipped_not_failed() {
    let text = OK.replace(r#""%b":"0x2","#, "");
    match only(&text) {
        Outcome::Skipped(VectorError::MissingInput(r)) => assert_eq!(r, "%b"),
        o => panic!("{o:?}"),
    }
    let r = run(&text);
    assert_eq!(r.summary_line(), "0 passed, 0 failed, 1 skipped");
    assert!(r.ok());
}

#[test]
fn unknown_output_and_bad_arch() {
    let text = OK.replace(r#""out":{"%d":"0x1"}"#, r#""out":{"%zz":"0x1"}"#);
    assert!(matches!(
        only(&text),
        Outcome::Skipped(VectorError::UnknownOutput(_))
    ));
    let text = OK.replace("sm_30", "gfx90a");
    assert!(matches!(
        only(&text),
        Outcome::Skipped(VectorError::Arch(_))
    ));
}

#[test]
fn wrong_output_fails_with_expected_and_actual() {
    let text = OK.replace(r#""out":{"%d":"0x1"}"#, r#""out":{"%d":"0x2"}"#);
    let r = run(&text);
    assert_eq!(r.summary_line(), "0 passed, 1 failed");
    assert!(!r.ok());
    assert_eq!(
        r.results[0].outcome,
        Outcome::Failed {
            expected: "%d=0x2".into(),
            actual: "%d=0x1".into()
        }
    );
    assert_eq!(
        r.results[0].to_string(),
        "line 1: selp.u16 %d, %a, %b, %p;: expected %d=0x2, got %d=0x1"
    );
}

#[test]
fn unchanged_inputs_are_checked() {
    // %d is written but the vector claims only the untouched %q is: the
    // write is a failure.
    let text = OK
        .replace(r#""%d":"0x0""#, r#""%d":"0x0","%q":false"#)
        .replace(r#""out":{"%d":"0x1"}"#, r#""out":{"%q":false}"#);
    match only(&text) {
        Outcome::Failed { expected, actual } => {
            assert_eq!(expected, "%d=0x0 (unchanged)");
            assert_eq!(actual, "%d=0x1");
        }
        o => panic!("{o:?}"),
    }
    // An `in` register the instruction never names must survive too (it does).
    let text = OK.replace(
        r#""%d":"0x0""#,
        r#""%d":"0x0","%q":false,"%x":"0xffffffffffffffff""#,
    );
    assert_eq!(only(&text), Outcome::Passed);
}

#[test]
fn error_expectations_compare_kinds() {
    let inv = r#"{"arch":"sm_90","ptx":"bogus;","in":{},"error":"invalid"}"#;
    assert_eq!(only(inv), Outcome::Passed);
    let arch = r#"{"arch":"sm_12","ptx":"selp.f64 %d, %a, %b, %p;","error":"arch"}"#;
    assert_eq!(only(arch), Outcome::Passed);
    let wrong_kind = r#"{"arch":"sm_90","ptx":"bogus;","error":"arch"}"#;
    assert!(matches!(only(wrong_kind), Outcome::Failed { .. }));
    let accepted = r#"{"arch":"sm_90","ptx":"selp.f64 %d, %a, %b, %p;","error":"arch"}"#;
    assert_eq!(
        only(accepted),
        Outcome::Failed {
            expected: "error arch".into(),
            actual: "accepted".into()
        }
    );
    let rejected =
        r#"{"arch":"sm_12","ptx":"selp.f64 %d, %a, %b, %p;","in":{},"out":{"%d":"0x0"}}"#;
    match only(rejected) {
        Outcome::Failed { expected, actual } => {
            assert_eq!(expected, "accepted");
            assert!(actual.starts_with("error arch"), "{actual}");
        }
        o => panic!("{o:?}"),
    }
}

#[test]
fn report_display_lists_problems_then_summary() {
    let text = format!(
        "{OK}\nnot json\n{}\n",
        OK.replace(r#""%d":"0x1"}"#, r#""%d":"0x3"}"#)
    );
    let shown = run(&text).to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 3, "{shown}");
    assert!(lines[0].starts_with("line 2: skipped"));
    assert!(lines[1].starts_with("line 3: selp.u16"));
    assert_eq!(lines[2], "1 passed, 1 failed, 1 skipped");
}

/// Runs `bytes` through the streaming reader, collecting every result.
fn stream(bytes: &[u8]) -> (Summary, Vec<VectorResult>) {
    let mut seen = Vec::new();
    let sum = run_reader(bytes, |r| seen.push(r.clone())).unwrap();
    (sum, seen)
}

#[test]
fn reader_counts_and_numbers_lines() {
    let real = r#"{"arch":"sm_30","ptx":"selp.u16 %d, %a, %b, %p;","in":{"%a":"0x1","%b":"0x2","%p":true,"%d":"0x0"},"out":{"%d":"0x1"}}"#;
    let text = format!(
        "# c\n{real}\n\nnot json\n{}\n",
        real.replace("0x1\"}}", "0x2\"}}")
    );
    let (sum, seen) = stream(text.as_bytes());
    assert_eq!((sum.passed, sum.failed, sum.skipped), (1, 1, 1));
    assert_eq!(sum.line(), "1 passed, 1 failed, 1 skipped");
    let lines: Vec<usize> = seen.iter().map(|r| r.line).collect();
    assert_eq!(lines, [2, 4, 5]);
    assert!(matches!(
        seen[1].outcome,
        Outcome::Skipped(VectorError::Json(_))
    ));
    // A last line without a newline still counts.
    let (sum, _) = stream(real.as_bytes());
    assert_eq!(sum.passed, 1);
}

#[test]
fn reader_bounds_lines_and_refuses_binary() {
    // Not UTF-8: one skipped line, then the reader goes on.
    let (sum, seen) = stream(b"\xff\xfe{}\n# fine\n");
    assert_eq!(sum.skipped, 1);
    assert_eq!(seen[0].outcome, Outcome::Skipped(VectorError::NotText));
    // A line over the limit ends the run at that line, without reading it
    // whole: what follows is not looked at.
    let mut long = vec![b' '; MAX_LINE_BYTES + 10];
    long.extend_from_slice(b"\nnot json\n");
    let (sum, seen) = stream(&long);
    assert_eq!((sum.ran(), sum.skipped), (0, 1));
    assert_eq!(
        seen[0].outcome,
        Outcome::Skipped(VectorError::LineTooLong {
            limit: MAX_LINE_BYTES
        })
    );
    // A line of exactly the limit is read (and here is blank).
    let mut edge = vec![b' '; MAX_LINE_BYTES - 1];
    edge.push(b'\n');
    assert_eq!(stream(&edge).0, Summary::default());
}

mod robustness {
    use super::*;
    use proptest::prelude::*;

    /// Fragments that make random text look like vectors, so the generator
    /// reaches the field and value checks rather than only JSON syntax errors.
    fn jsonish() -> impl Strategy<Value = String> {
        let frag = prop::sample::select(vec![
            "{",
            "}",
            "\"arch\":",
            "\"sm_30\"",
            "\"sm_\"",
            "\"ptx\":",
            "\"selp.u16 %d, %a, %b, %p;\"",
            "\"in\":",
            "\"out\":",
            "\"error\":",
            "\"invalid\"",
            "\"arch\"",
            "\"%a\":",
            "\"%p\":",
            "\"%d\":",
            "\"0x1\"",
            "\"0xffffffffffffffffff\"",
            "\"0x\"",
            "true",
            "false",
            "null",
            "1e999",
            "[",
            "]",
            ",",
            ":",
            "\n",
            "#",
            "\u{0}",
            "é",
            "\"\\u00",
        ]);
        prop::collection::vec(frag, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn reader_and_runner_never_panic(text in prop_oneof![any::<String>(), jsonish()]) {
            let report = run(&text);
            let lines = text.lines().filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#')).count();
            prop_assert_eq!(report.results.len(), lines);
            prop_assert_eq!(parse_vectors(&text).len(), lines);
            let _ = report.to_string();
        }

        #[test]
        fn streaming_reader_agrees_with_the_text_runner(text in prop_oneof![any::<String>(), jsonish()]) {
            // The real parser here (`run_reader` has no hook), so compare
            // with `run_vectors`, which uses it too.
            let want = sim_isa::conform::run_vectors(&text);
            let mut got = Vec::new();
            let sum = run_reader(text.as_bytes(), |r| got.push(r.clone())).unwrap();
            prop_assert_eq!(sum, want.summary());
            prop_assert_eq!(got, want.results);
        }
    }
}
