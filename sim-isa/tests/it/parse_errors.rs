//! Parse errors as data: every case of `tests/data/parse-errors.txt` gives
//! exactly the recorded outcome (kind, column, token and message). Re-bless
//! after a deliberate change with `UPDATE_EXPECT=1`.

use sim_isa::parse::parse_instruction;
use sim_isa::{IsaError, Symbols};

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/parse-errors.txt");

/// The outcome of parsing `text`, in the fixture's notation.
fn outcome(text: &str) -> String {
    let mut syms = Symbols::new();
    match parse_instruction(text, &mut syms) {
        Ok(i) => format!("ok {}", i.display(&syms)),
        Err(IsaError::Invalid { col, token, reason }) => {
            format!("invalid col {col} at '{token}': {reason}")
        }
        Err(e @ IsaError::Unimplemented { col, .. }) => format!("unimplemented col {col}: {e}"),
        Err(e @ IsaError::Unsupported { .. }) => format!("unsupported: {e}"),
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            },
            (c, false) => out.push(c),
        }
    }
    out
}

#[test]
fn parse_errors() {
    let file = std::fs::read_to_string(PATH).unwrap_or_else(|e| panic!("{PATH}: {e}"));
    let mut blessed = String::new();
    let mut mismatches = Vec::new();
    let mut cases = 0;
    let mut input: Option<String> = None;
    for (n, line) in file.lines().enumerate() {
        if let Some(t) = line.strip_prefix("> ") {
            assert!(input.is_none(), "line {}: input without outcome", n + 1);
            input = Some(unescape(t));
            blessed.push_str(line);
        } else if let Some(want) = line.strip_prefix("= ") {
            let text = input
                .take()
                .unwrap_or_else(|| panic!("line {}: outcome without input", n + 1));
            let got = outcome(&text);
            if got != want {
                mismatches.push(format!(
                    "line {}: `{text}`\n  want {want}\n  got  {got}",
                    n + 1
                ));
            }
            blessed.push_str("= ");
            blessed.push_str(&got);
            cases += 1;
        } else {
            assert!(
                line.is_empty() || line.starts_with('#'),
                "line {}: not a comment, `> input` or `= outcome`: {line}",
                n + 1
            );
            blessed.push_str(line);
        }
        blessed.push('\n');
    }
    assert!(input.is_none(), "last input has no outcome");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(PATH, blessed).unwrap_or_else(|e| panic!("{PATH}: {e}"));
        return;
    }
    assert!(cases >= 90, "{cases} cases");
    assert!(
        mismatches.is_empty(),
        "{} of {cases} cases differ (UPDATE_EXPECT=1 re-blesses):\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
