//! Recorded ptxas verdicts (`accept TEXT` / `reject TEXT` lines, `#`
//! comments) held against the parser.

use sim_isa::parse::parse_instruction;
use sim_isa::Symbols;

/// The number of verdicts in `data` and the texts where the parser
/// disagrees with ptxas.
pub fn disagreements(data: &str) -> (usize, Vec<String>) {
    let mut wrong = Vec::new();
    let mut n = 0;
    for line in data.lines().filter(|l| !l.starts_with('#')) {
        let (verdict, text) = line.split_once(' ').expect("verdict and text");
        let mut syms = Symbols::new();
        let got = parse_instruction(text, &mut syms);
        if got.is_ok() != (verdict == "accept") {
            wrong.push(format!("{text}: ptxas {verdict}s, parser: {got:?}"));
        }
        n += 1;
    }
    (n, wrong)
}

/// For `accept|reject TARGET VERSION TEXT` lines (the grids that record
/// ptxas per target and PTX version): the number of verdicts held, the
/// lines where the parser and `check_target` together disagree with
/// ptxas, and the lines `skip` set aside (it sees the verdict, the target,
/// the version and the text, and asserts what it must about them).
pub fn per_target_disagreements(
    data: &str,
    mut skip: impl FnMut(&str, sim_isa::Target, sim_isa::PtxVersion, &str) -> bool,
) -> (usize, Vec<String>, usize) {
    let (mut n, mut skipped, mut wrong) = (0, 0, Vec::new());
    for line in data.lines().filter(|l| !l.starts_with('#')) {
        let mut parts = line.splitn(4, ' ');
        let mut next = || parts.next().expect("verdict, target, version and text");
        let (verdict, target, version, text) = (next(), next(), next(), next());
        let target = sim_isa::Target::parse(target).expect("a target");
        let version = sim_isa::PtxVersion::parse(version).expect("a PTX version");
        if skip(verdict, target, version, text) {
            skipped += 1;
            continue;
        }
        let mut syms = Symbols::new();
        let got = parse_instruction(text, &mut syms)
            .and_then(|i| sim_isa::parse::check_target(&i, target, Some(version)).map(|()| i));
        if got.is_ok() != (verdict == "accept") {
            wrong.push(format!("{line}: ours {got:?}"));
        }
        n += 1;
    }
    (n, wrong, skipped)
}

/// Fails, listing the first 40 of them, when there are disagreements
/// (`wrong`) among the `n` verdicts held.
pub fn assert_agrees(n: usize, wrong: &[String]) {
    let first = &wrong[..wrong.len().min(40)];
    assert!(
        wrong.is_empty(),
        "{} of {n}:\n{}",
        wrong.len(),
        first.join("\n")
    );
}
