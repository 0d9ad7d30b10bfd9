//! The memory and warp families (`ld`/`ldu`/`st`/`atom`/`red`/`cvta`/`mov`
//! of an address; `bar`/`barrier`/`membar`/`fence`/`shfl.sync`/`vote.sync`/
//! `activemask`): the parser against ptxas's verdicts, printing, and the
//! semantics against the PTX ISA manual.

use sim_isa::parse::parse_instruction;
use sim_isa::{ErrorKind, Symbols};

const GRID: &str = include_str!("../data/mem-ptxas.txt");

/// ptxas's verdict on one grid statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Accept,
    Reject,
    /// Refused only for the target (sm_100 features, 32-bit addressing).
    Arch,
}

/// The grid's statements with ptxas's verdict.
fn grid() -> Vec<(Verdict, &'static str)> {
    GRID.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (v, t) = l.split_once(' ').expect("verdict and text");
            let v = match v {
                "accept" => Verdict::Accept,
                "reject" => Verdict::Reject,
                "arch" => Verdict::Arch,
                _ => panic!("bad verdict: {l}"),
            };
            (v, t)
        })
        .collect()
}

/// Statements ptxas accepts that the simulator does not run: the parser
/// must say so (`Unimplemented`), never call them invalid.
const UNIMPLEMENTED: &[&str] = &[
    "ld.global.b128 %q1, [%rd1];",
    "st.global.b128 [%rd1], %q1;",
    "ld.shared::cluster.u32 %r1, [%rd1];",
    "ld.shared::cluster.u32 %r1, [svar+4];",
    "st.shared::cluster.u32 [%rd1+8], %r1;",
    "atom.global.add.noftz.f16 %h1, [%rd1], %h2;",
    "atom.global.add.noftz.f16x2 %r1, [%rd1], %r2;",
    "atom.global.v2.f32.add {%f1, %f2}, [%rd1], {%f3, %f4};",
    "atom.global.v4.f32.add {%f1, %f2, %f3, %f4}, [%rd1], {%f5, %f6, %f7, %f8};",
    "atom.shared::cluster.add.u32 %r1, [%rd1], %r2;",
    "atom.global.exch.b128 %q1, [%rd1], %q2;",
    "atom.global.cas.b128 %q1, [%rd1], %q2, %q3;",
    "cvta.shared::cluster.u64 %rd1, %rd2;",
    "bar.warp.sync -1;",
];

/// Statements ptxas rejects for what the declarations say, which one
/// statement's text cannot show: a register of the wrong class (`%p1`
/// where a `.b32` belongs, `%rd2` for `shfl`'s `.b32` source), a variable as
/// `mov`'s destination, a store to a kernel's own parameter. The parser,
/// which sees no declarations, accepts them; the module reader must decide.
const NEEDS_DECLARATIONS: &[&str] = &[
    "st.param.u64 [pp], %rd1;",
    "mov.u64 gvar, %rd1;",
    "bar.sync %p1;",
    "shfl.sync.bfly.b32 %p1|%r1, %r2, 1, 31, -1;",
    "shfl.sync.idx.b32 %r1, %rd2, 1, 31, -1;",
    "vote.sync.any.pred %p1, %r2, -1;",
    "vote.sync.any.pred %r1, %p2, -1;",
];

/// The parser accepts what ptxas 13.0 accepts and calls `Invalid` what it
/// rejects, over the grid of `tests/data/mem-ptxas.txt` (made by
/// `tools/ptxas_grid/mem_grid.py`); target-only refusals are valid PTX (the
/// parser must not call them invalid), and the two lists above are the
/// only exceptions, each checked to behave as its list says.
#[test]
fn agrees_with_ptxas_on_the_grid() {
    let g = grid();
    assert_eq!(g.len(), 689);
    assert_eq!(g.iter().filter(|v| v.0 == Verdict::Accept).count(), 344);
    assert_eq!(g.iter().filter(|v| v.0 == Verdict::Arch).count(), 18);
    let mut wrong = Vec::new();
    for &(verdict, text) in &g {
        let got = parse_instruction(text, &mut Symbols::new());
        let kind = got.as_ref().err().map(|e| e.kind());
        let unimpl = UNIMPLEMENTED.contains(&text);
        let decl = NEEDS_DECLARATIONS.contains(&text);
        let ok = match verdict {
            Verdict::Accept if unimpl => kind == Some(ErrorKind::Unimplemented),
            Verdict::Accept => kind.is_none(),
            Verdict::Arch => kind != Some(ErrorKind::Invalid),
            Verdict::Reject if decl => kind.is_none(),
            Verdict::Reject => kind == Some(ErrorKind::Invalid),
        };
        if !ok {
            wrong.push(format!("{text}: ptxas {verdict:?}, parser: {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{} disagreements:\n{}", wrong.len(), wrong.join("\n"));
    for t in UNIMPLEMENTED {
        assert!(g.contains(&(Verdict::Accept, t)), "{t} is no accepted grid statement");
    }
    for t in NEEDS_DECLARATIONS {
        assert!(g.contains(&(Verdict::Reject, t)), "{t} is no rejected grid statement");
    }
}
