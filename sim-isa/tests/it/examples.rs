//! Every instruction in the PTX ISA's Examples blocks for the families
//! sim-isa implements, as vectors in `tests/data/examples.jsonl`: accepted on
//! a suitable target and executed with values worked out by hand from the
//! Semantics blocks and the errata, or rejected for the erratum's reason. The
//! vset2/vset4 sections repeat the video section's vset examples, so each
//! text is there once.
//!
//! The file's extra keys (which the vector format lets a runner ignore) are
//! checked here: `ptx_version` pins the `.version` the vector runs with,
//! `need` is what an `arch` rejection must name, and `token` / `reason` are
//! what an `invalid` rejection must point at and say.

use super::model::parse_err;
use serde_json::Value as Json;
use sim_isa::conform::{run_vectors_with, Outcome};
use sim_isa::parse::{check_target, parse_for_target, parse_instruction};
use sim_isa::{IsaError, PtxVersion, Symbols, Target};

const EXAMPLES: &str = include_str!("../data/examples.jsonl");

fn str_key<'a>(obj: &'a Json, key: &str) -> Option<&'a str> {
    obj.get(key).map(|v| {
        v.as_str()
            .unwrap_or_else(|| panic!("`{key}` should be a string: {obj}"))
    })
}

/// Runs one vector line with its `ptx_version`, asserting that it passes.
fn run_line(line: &str, obj: &Json) {
    let version = str_key(obj, "ptx_version")
        .map(|v| PtxVersion::parse(v).unwrap_or_else(|| panic!("bad ptx_version {v}")));
    let report = run_vectors_with(line, |ptx, syms, target| {
        parse_for_target(ptx, syms, target, version)
    });
    assert_eq!(report.results.len(), 1);
    assert_eq!(report.results[0].outcome, Outcome::Passed, "{line}");
}

/// The requirement an `arch` rejection names.
fn check_need(obj: &Json, ptx: &str, need: &str) {
    let target = Target::parse(str_key(obj, "arch").unwrap()).unwrap();
    let version = str_key(obj, "ptx_version").and_then(PtxVersion::parse);
    let mut syms = Symbols::new();
    let inst = parse_instruction(ptx, &mut syms).unwrap_or_else(|e| panic!("`{ptx}`: {e}"));
    match check_target(&inst, target, version) {
        Err(IsaError::Unsupported { need: n, .. }) => {
            assert_eq!(n.to_string(), need, "`{ptx}` on {target}")
        }
        other => panic!("`{ptx}` on {target}: expected Unsupported({need}), got {other:?}"),
    }
}

/// The token an `invalid` rejection points at (found at its column) and
/// what it says (one of `reasons`).
fn check_invalid(ptx: &str, token_has: &str, reasons: &[Json]) {
    let e = parse_err(ptx);
    let said = e.to_string().to_lowercase();
    let IsaError::Invalid { col, token, .. } = &e else {
        panic!("`{ptx}`: expected Invalid, got {e:?}")
    };
    assert!(
        token.contains(token_has),
        "`{ptx}`: token {token:?} should name {token_has:?}"
    );
    assert!(
        *col >= 1 && ptx[col - 1..].starts_with(token.as_str()),
        "`{ptx}`: column {col} does not point at {token:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| said.contains(r.as_str().unwrap_or("\u{0}"))),
        "`{ptx}`: {said:?} should say one of {reasons:?}"
    );
}

#[test]
fn spec_examples() {
    let (mut vectors, mut needs, mut invalids) = (0, 0, 0);
    for line in EXAMPLES.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let obj: Json = serde_json::from_str(t).unwrap_or_else(|e| panic!("{e}: {t}"));
        run_line(t, &obj);
        vectors += 1;
        let ptx = str_key(&obj, "ptx").unwrap();
        if let Some(need) = str_key(&obj, "need") {
            check_need(&obj, ptx, need);
            needs += 1;
        }
        if let Some(token) = str_key(&obj, "token") {
            let reasons = obj.get("reason").and_then(Json::as_array);
            check_invalid(ptx, token, reasons.map_or(&[], |v| v.as_slice()));
            invalids += 1;
        }
    }
    // Pinned so that a line dropped from the file is noticed.
    assert_eq!((vectors, needs, invalids), (91, 21, 2));
}
