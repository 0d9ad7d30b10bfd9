//! One checker for ptxas's verdict grids (`tests/data/*-ptxas.txt`, written
//! by the scripts in `tools/ptxas_grid/`): each line is one verdict per
//! target column, the lowest `.version` ptxas took (`-` when none), and the
//! statement.

use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::*;

/// `Grid::below`: the lowest version ptxas took, the gate column and the
/// verdicts, to the version below it that ptxas refused (if asked).
pub type Below<'a> = dyn Fn(&str, usize, &[&str]) -> Option<PtxVersion> + 'a;

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
    pub below: &'a Below<'a>,
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

/// `Grid::below` for a grid whose lowest versions are few and known: each
/// `(lowest, below)` pair names the version below a lowest one that ptxas
/// was asked and refused; a lowest version not named is a grid the test
/// does not know, and panics.
pub fn below_of<'a>(
    pairs: &'a [(&'a str, &'a str)],
) -> impl Fn(&str, usize, &[&str]) -> Option<PtxVersion> + 'a {
    move |v, _, _| match pairs.iter().find(|(lowest, _)| *lowest == v) {
        Some((_, b)) => PtxVersion::parse(b),
        None => panic!("no version below {v} in the grid"),
    }
}

/// `check` on a grid whose columns were asked without a `.version`, gated
/// on the first accepting column, with the versions below named by
/// `below_of(below)` and nothing set aside.
pub fn check_targets(
    text: &str,
    targets: &[&str],
    below: &[(&str, &str)],
) -> (usize, usize, Vec<String>) {
    check_targets_below(text, targets, &below_of(below))
}

/// [`check_targets`] with any `Grid::below`.
pub fn check_targets_below(
    text: &str,
    targets: &[&str],
    below: &Below<'_>,
) -> (usize, usize, Vec<String>) {
    let columns: Vec<(&str, Option<&str>)> = targets.iter().map(|t| (*t, None)).collect();
    let g = Grid {
        columns: &columns,
        gate_column: None,
        below,
        unrun: &|_| false,
        untyped: &[],
    };
    check(text, &g)
}

/// Holds statements ptxas refuses against the parser, each with ptxas's
/// message (which the grid `text` quotes, in its comments): the parser
/// refuses it as `Invalid` with the same words.
pub fn messages_are_ptxas(text: &str, cases: &[(&str, &str)]) {
    for (stmt, msg) in cases {
        assert!(text.contains(msg), "{msg} is not ptxas's");
        let e = parse_instruction(stmt, &mut Symbols::new()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid, "{stmt}");
        assert!(e.to_string().contains(msg), "{stmt}: {e}");
    }
}

/// Holds `text` (a grid file) against the parser and `check_target`: what
/// ptxas rejects everywhere is invalid; what it accepts on some target
/// parses (or is `unrun`), passes `check_target` exactly where ptxas
/// accepts it, passes at the lowest `.version` ptxas took and not at the
/// version `below` names. Returns (statements, accepted, wrong); accepted
/// counts the `unrun` statements too.
/// [`check`] over `targets` (target, the version its verdict was asked at,
/// the target's own first version), each statement's `.version` gate on the
/// first target that accepts it, and the version below that refused unless it
/// is the target's first: the common case of the families' grids.
pub fn check_first_versions(
    text: &str,
    targets: &[(&str, &str, &str)],
    unrun: &dyn Fn(&str) -> bool,
    untyped: &[&str],
) -> (usize, usize, Vec<String>) {
    let columns: Vec<(&str, Option<&str>)> =
        targets.iter().map(|&(t, at, _)| (t, Some(at))).collect();
    let below = |v: &str, col: usize, _: &[&str]| {
        (v != targets[col].2)
            .then(|| PtxVersion::parse(v).map(known_below))
            .flatten()
    };
    let g = Grid {
        columns: &columns,
        gate_column: None,
        below: &below,
        unrun,
        untyped,
    };
    check(text, &g)
}

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

/// The statements of one kind in a verdict list (`tests/data/mma-ptxas.txt`,
/// `warp-ptxas.txt`, `async-ptxas.txt`, written by their scripts in
/// `tools/ptxas_grid/`): `accept TEXT`, `reject TEXT`, `arch TEXT` (refused
/// only for the target asked: valid PTX for a later one) and `gate TARGET
/// VERSION ok|refused TEXT`, with `#` comments.
pub fn of_kind<'a>(text: &'a str, kind: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| l.strip_prefix(kind)?.strip_prefix(' '))
        .collect()
}

/// Holds a verdict list's `accept`, `reject` and `arch` statements against
/// the parser: what ptxas accepts parses (or, where `unrun` names it, is
/// `Unimplemented`), what it rejects is `Invalid`, what it refuses only for
/// the target is `Unimplemented`. Returns the number of statements of each
/// of the three kinds, in that order, and the disagreements.
pub fn verdicts(text: &str, unrun: &dyn Fn(&str) -> bool) -> ([usize; 3], Vec<String>) {
    let (acc, rej, arch) = (
        of_kind(text, "accept"),
        of_kind(text, "reject"),
        of_kind(text, "arch"),
    );
    let mut wrong = Vec::new();
    let sets = [
        (None, &acc),
        (Some(ErrorKind::Invalid), &rej),
        (Some(ErrorKind::Unimplemented), &arch),
    ];
    for (want, set) in sets {
        for t in set.iter() {
            let want = match want {
                None if unrun(t) => Some(ErrorKind::Unimplemented),
                w => w,
            };
            let got = parse_instruction(t, &mut Symbols::new());
            if got.as_ref().err().map(IsaError::kind) != want {
                wrong.push(format!("{t}: want {want:?}, parser: {got:?}"));
            }
        }
    }
    ([acc.len(), rej.len(), arch.len()], wrong)
}

/// The accepted statements of a verdict list that parse (all but those
/// `unrun` names) and do not print as text that parses back to the same
/// instruction.
pub fn reparse_failures(text: &str, unrun: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut wrong = Vec::new();
    for t in of_kind(text, "accept").into_iter().filter(|t| !unrun(t)) {
        let mut syms = Symbols::new();
        let i = match parse_instruction(t, &mut syms) {
            Ok(i) => i,
            Err(e) => {
                wrong.push(format!("{t}: accepted by ptxas, parser: {e}"));
                continue;
            }
        };
        let printed = i.display(&syms).to_string();
        let again = parse_instruction(&printed, &mut syms.clone());
        if again.as_ref() != Ok(&i) {
            wrong.push(format!("{t} -> {printed} -> {again:?}"));
        }
    }
    wrong
}

/// A single-target grid with its gate lines (`tools/ptxas_grid/verdict.py`'s
/// `write_gated_grid`) held whole against the parser: the [`verdicts`]
/// agree, `counts` statements of each kind; every accepted statement
/// simcli runs prints and re-parses ([`reparse_failures`]); and the
/// `gates` gate lines agree ([`gates_agree`]).
pub fn check_gated(text: &str, unrun: &dyn Fn(&str) -> bool, counts: [usize; 3], gates: usize) {
    let (got, wrong) = verdicts(text, unrun);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(got, counts);
    let wrong = reparse_failures(text, unrun);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(gates_agree(text), gates);
}

/// [`gates`] where every gate line must agree (the test fails listing the
/// disagreements otherwise). Returns the number of gate lines.
pub fn gates_agree(text: &str) -> usize {
    let (n, wrong) = gates(text);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    n
}

/// Holds a verdict list's `gate` lines against `check_target`: it passes
/// the statement for the target and `.version` where ptxas said `ok`, and
/// refuses it as `Unsupported` where ptxas `refused` it. Returns the number
/// of gate lines and the disagreements.
pub fn gates(text: &str) -> (usize, Vec<String>) {
    let gates = of_kind(text, "gate");
    let mut wrong = Vec::new();
    for g in &gates {
        let mut it = g.splitn(4, ' ');
        let mut next = || it.next().expect("target, version, verdict and text");
        let (t, v, verdict, text) = (next(), next(), next(), next());
        let target = Target::parse(t).expect("a target");
        let version = PtxVersion::parse(v).expect("a PTX version");
        let inst = match parse_instruction(text, &mut Symbols::new()) {
            Ok(i) => i,
            Err(e) => {
                wrong.push(format!("{g}: does not parse: {e}"));
                continue;
            }
        };
        let got = check_target(&inst, target, Some(version));
        let agrees = match verdict {
            "ok" => got.is_ok(),
            "refused" => got.as_ref().err().map(IsaError::kind) == Some(ErrorKind::Unsupported),
            _ => panic!("bad verdict in {g}"),
        };
        if !agrees {
            wrong.push(format!("{g}: ours {got:?}"));
        }
    }
    (gates.len(), wrong)
}
