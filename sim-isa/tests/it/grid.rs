//! One checker for ptxas's verdict grids (`tests/data/*-ptxas.txt`, written
//! by the scripts in `tools/ptxas_grid/`): each line is one verdict per
//! target column, the lowest `.version` ptxas took (`-` when none), and the
//! statement.

use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::*;

/// How a grid was made and which statements are set aside.
pub struct Grid<'a> {
    /// Per column: the target, and the `.version` its verdict was asked at
    /// (`None`: `check_target` without a version).
    pub columns: &'a [(&'a str, Option<&'a str>)],
    /// The column whose target the `.version` gate is checked on: a fixed
    /// one, or (`None`) the first that accepts the statement.
    pub gate_column: Option<usize>,
    /// The version below the lowest one ptxas took at which ptxas was asked
    /// and refused the statement on the gate column (`None`: not asked).
    /// Arguments: that lowest version, the gate column, the verdicts.
    pub below: &'a dyn Fn(&str, usize, &[&str]) -> Option<PtxVersion>,
    /// Valid PTX (ptxas accepts it somewhere) that simcli refuses as
    /// unimplemented.
    pub unrun: &'a dyn Fn(&str) -> bool,
    /// Statements set aside: ptxas refuses them for a register's declared
    /// type, which a statement parsed alone does not have.
    pub untyped: &'a [&'a str],
}

/// The PTX version before `v` among the known ones.
pub fn known_below(v: PtxVersion) -> PtxVersion {
    let i = PtxVersion::KNOWN
        .iter()
        .position(|&(a, b)| PtxVersion::new(a, b) == v)
        .expect("a known version");
    let (a, b) = PtxVersion::KNOWN[i - 1];
    PtxVersion::new(a, b)
}

/// Holds `text` (a grid file) against the parser and `check_target`: what
/// ptxas rejects everywhere is invalid; what it accepts on some target
/// parses (or is `unrun`), passes `check_target` exactly where ptxas
/// accepts it, passes at the lowest `.version` ptxas took and not at the
/// version `below` names. Returns (statements, accepted, wrong); accepted
/// counts the `unrun` statements too.
pub fn check(text: &str, g: &Grid) -> (usize, usize, Vec<String>) {
    let cols = g.columns.len();
    let targets: Vec<Target> = g
        .columns
        .iter()
        .map(|(t, _)| Target::parse(t).expect("target"))
        .collect();
    let (mut n, mut accepted) = (0, 0);
    let mut wrong = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.splitn(cols + 2, ' ').collect();
        let (verdicts, ptx, stmt) = (&f[..cols], f[cols], f[cols + 1]);
        n += 1;
        let got = parse_instruction(stmt, &mut Symbols::new());
        if g.untyped.contains(&stmt) {
            assert!(verdicts.iter().all(|v| *v == "reject"), "{stmt}");
            continue;
        }
        if verdicts.iter().all(|v| *v == "reject") {
            if got.as_ref().err().map(IsaError::kind) != Some(ErrorKind::Invalid) {
                wrong.push(format!("{stmt}: ptxas rejects, parser: {got:?}"));
            }
            continue;
        }
        accepted += 1;
        if (g.unrun)(stmt) {
            if got.as_ref().err().map(IsaError::kind) != Some(ErrorKind::Unimplemented) {
                wrong.push(format!("{stmt}: valid but not run, parser: {got:?}"));
            }
            continue;
        }
        let Ok(inst) = got else {
            wrong.push(format!("{stmt}: ptxas accepts, parser: {got:?}"));
            continue;
        };
        for ((t, (_, at)), v) in targets.iter().zip(g.columns).zip(verdicts) {
            let at = at.map(|a| PtxVersion::parse(a).expect("a version"));
            if check_target(&inst, *t, at).is_ok() != (*v == "accept") {
                wrong.push(format!("{stmt}: on {t} ptxas says {v}"));
            }
        }
        let Some(col) = g
            .gate_column
            .or_else(|| verdicts.iter().position(|v| *v == "accept"))
        else {
            continue;
        };
        let t = targets[col];
        let v = PtxVersion::parse(ptx).expect("a version");
        if check_target(&inst, t, Some(v)).is_err() {
            wrong.push(format!("{stmt}: refused at .version {ptx} on {t}"));
        }
        if let Some(b) = (g.below)(ptx, col, verdicts) {
            if check_target(&inst, t, Some(b)).is_ok() {
                wrong.push(format!("{stmt}: accepted below .version {ptx} on {t}"));
            }
        }
    }
    (n, accepted, wrong)
}
