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
