//! The extended-precision forms (`add.cc`, `addc`, `sub.cc`, `subc`,
//! `mad.cc`, `madc`; `sim_isa::carry`): ptxas's verdicts, hand-worked
//! chains, the flag as a register of the statements' uses, and chains of
//! 32-bit words against `u128` arithmetic.

use crate::grid::{self, Grid};
use proptest::prelude::*;
use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::*;

const GRID: &str = include_str!("../data/carry-ptxas.txt");

/// Each line of `tests/data/carry-ptxas.txt` (made by
/// `tools/ptxas_grid/carry_grid.py`: ptxas 11.8 on sm_35 and sm_70, 13.0.88
/// on sm_75 and sm_90) against the parser and `check_target`, and the
/// `.version` gate on sm_35: 3.1 (its lowest) for every form but a 64-bit
/// `.cc` one, which ptxas refused at 4.2 and took at 4.3.
#[test]
fn agrees_with_ptxas_per_target() {
    let columns = [
        ("sm_35", None),
        ("sm_70", None),
        ("sm_75", None),
        ("sm_90", None),
    ];
    let below = |v: &str, _: usize, _: &[&str]| match v {
        "3.1" => None,
        "4.3" => PtxVersion::parse("4.2"),
        _ => panic!("no version below {v} in the grid"),
    };
    // ptxas takes the carry-in words on 16-bit types and with `.sat`,
    // which the manual does not define: refused as unimplemented.
    let unrun = |s: &str| {
        let carry_in = ["addc.", "subc.", "madc."].iter().any(|w| s.starts_with(w));
        carry_in && !s.contains(".cc") && (s.contains("16 ") || s.contains(".sat"))
    };
    let g = Grid {
        columns: &columns,
        gate_column: None,
        below: &below,
        unrun: &unrun,
        untyped: &[],
    };
    let (n, accepted, wrong) = grid::check(GRID, &g);
    // 6 types x 12 forms and 21 neighbours: the 48 forms on the four
    // carry types, the 4 carry-in ones without `.cc` on .u16, 4 operand
    // forms, `addc.sat`, `madc.hi.sat` and a repeated `.cc` twice.
    assert_eq!((n, accepted), (93, 60));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// ptxas's words for the rules the grid's comments quote.
#[test]
fn messages_are_ptxas_words() {
    grid::messages_are_ptxas(
        GRID,
        &[
            (
                "add.cc.sat.s32 %r5, %r1, %r2;",
                "Modifier '.cc' cannot be combined with modifier '.sat'",
            ),
            (
                "sub.cc.u16 %h5, %h1, %h2;",
                "Modifier '.cc' applies only to sub integer types",
            ),
            (
                "mad.wide.cc.u32 %rd5, %r1, %r2, %rd3;",
                "Illegal modifier '.cc' for instruction 'mad.wide'",
            ),
            (
                "mul.lo.cc.u32 %r5, %r1, %r2;",
                "Illegal modifier '.cc' for instruction 'mul.lo'",
            ),
        ],
    );
}

/// Runs `text` (statements over one symbol table) on lane 0 of a warp
/// with `inputs` set, and returns the registers `outs`.
fn run(text: &[&str], inputs: &[(&str, u64)], outs: &[&str]) -> Vec<u64> {
    let mut syms = Symbols::new();
    for (name, _) in inputs {
        syms.intern(name);
    }
    let insts: Vec<Instruction> = text
        .iter()
        .map(|t| parse_instruction(t, &mut syms).unwrap_or_else(|e| panic!("{t}: {e}")))
        .collect();
    let mut regs = WarpRegs::new(syms.len());
    for (name, v) in inputs {
        regs.set_lane(syms.get(name).unwrap(), 0, *v);
    }
    let ctx = ExecCtx::new(Target::parse("sm_90").unwrap(), 0);
    for i in &insts {
        execute(i, &ctx, &mut regs, 1);
    }
    outs.iter()
        .map(|n| regs.lane(syms.get(n).expect(n), 0))
        .collect()
}

/// `x` as its four 32-bit words, low first, named `%{p}0..3`.
fn words(p: &str, x: u128) -> Vec<(String, u64)> {
    (0..4)
        .map(|i| (format!("%{p}{i}"), (x >> (32 * i)) as u64 & 0xFFFF_FFFF))
        .collect()
}

fn join(ws: &[u64]) -> u128 {
    ws.iter().rev().fold(0, |acc, &w| acc << 32 | u128::from(w))
}

/// 128-bit `a + b` (or `a - b`) as the manual's four-word chain, and the
/// last carry read back with `addc.u32 %k, 0, 0`.
fn chain128(sub: bool, a: u128, b: u128) -> (u128, u64) {
    let (first, mid, last) = if sub {
        ("sub.cc", "subc.cc", "subc.cc")
    } else {
        ("add.cc", "addc.cc", "addc.cc")
    };
    let text = [
        format!("{first}.u32 %d0, %a0, %b0;"),
        format!("{mid}.u32 %d1, %a1, %b1;"),
        format!("{mid}.u32 %d2, %a2, %b2;"),
        format!("{last}.u32 %d3, %a3, %b3;"),
        "addc.u32 %k, 0, 0;".to_string(),
    ];
    let text: Vec<&str> = text.iter().map(String::as_str).collect();
    let mut inputs = words("a", a);
    inputs.extend(words("b", b));
    let inputs: Vec<(&str, u64)> = inputs.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    let out = run(&text, &inputs, &["%d0", "%d1", "%d2", "%d3", "%k"]);
    (join(&out[..4]), out[4])
}

/// Hand-worked chains: all ones plus one carries through every word; zero
/// minus one borrows through every word (the flag after a subtraction is
/// 1 when nothing was borrowed: ptxas's IADD3 carry, see below).
#[test]
fn hand_worked_128_bit_chains() {
    assert_eq!(chain128(false, u128::MAX, 1), (0, 1));
    assert_eq!(chain128(false, 0xFFFF_FFFF, 1), (0x1_0000_0000, 0));
    assert_eq!(
        chain128(false, 0x0000_0001_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF, 1),
        (0x0000_0002_0000_0000_0000_0000_0000_0000, 0)
    );
    assert_eq!(chain128(true, 0, 1), (u128::MAX, 0));
    assert_eq!(chain128(true, 1 << 64, 1), (0xFFFF_FFFF_FFFF_FFFF, 1));
    assert_eq!(chain128(true, 5, 5), (0, 1));
}

/// The 64-bit forms: `add.cc.u64`/`addc.u64` add two 128-bit values held
/// as 64-bit halves; `sub.cc.s64`/`subc.s64` subtract them.
#[test]
fn hand_worked_64_bit_words() {
    let out = run(
        &[
            "add.cc.u64 %lo, %alo, %blo;",
            "addc.u64 %hi, %ahi, %bhi;",
            "sub.cc.s64 %slo, %alo, %blo;",
            "subc.s64 %shi, %ahi, %bhi;",
        ],
        &[("%alo", u64::MAX), ("%ahi", 7), ("%blo", 2), ("%bhi", 1)],
        &["%lo", "%hi", "%slo", "%shi"],
    );
    // (7:2^64-1) + (1:2) = (9:1); (7:2^64-1) - (1:2) = (6:2^64-3).
    assert_eq!(out, vec![1, 9, u64::MAX - 2, 6]);
}

/// ptxas 13.0.88's sm_90 code for a mixed chain
/// (`tests/data/carry-sass-sm90.txt`): `add.cc` then `subc.u32 d, 0, 0`
/// is `IMAD.X d, RZ, RZ, -1, P0` = the carry minus one; `sub.cc` then
/// `addc.u32 d, 0, 0` is `SEL d, RZ, 1, !P1` = the IADD3's carry (1 when
/// nothing was borrowed).
#[test]
fn mixed_chains_as_ptxas_lowers_them() {
    let text = [
        "add.cc.u32 %r3, %r1, %r2;",
        "subc.u32 %r4, 0, 0;",
        "sub.cc.u32 %r5, %r1, %r2;",
        "addc.u32 %r6, 0, 0;",
    ];
    let outs = ["%r3", "%r4", "%r5", "%r6"];
    let run2 = |a: u64, b: u64| run(&text, &[("%r1", a), ("%r2", b)], &outs);
    // No carry, then a borrow.
    assert_eq!(run2(1, 2), vec![3, 0xFFFF_FFFF, 0xFFFF_FFFF, 0]);
    // A carry, then no borrow.
    assert_eq!(run2(0xFFFF_FFFF, 2), vec![1, 0, 0xFFFF_FFFD, 1]);
}

/// `mad.lo.cc`/`madc.hi`: a signed high product plus the carry.
#[test]
fn hand_worked_mad_chain() {
    let out = run(
        &[
            "mad.lo.cc.u32 %d0, %a, %b, %c;",
            "madc.hi.s32 %d1, %a, %b, 0;",
        ],
        &[("%a", 0xFFFF_FFFF), ("%b", 2), ("%c", 2)],
        &["%d0", "%d1"],
    );
    // u32: lo(0xFFFFFFFF * 2) = 0xFFFFFFFE, + 2 carries; s32: -1 * 2 = -2,
    // high word 0xFFFFFFFF, + 1 = 0.
    assert_eq!(out, vec![0, 0]);
}

/// The flag is a register of the uses: `.cc` writes it, the carry-in
/// forms read it, `addc.cc` both; a form without either names none, and
/// no text's register is named by it.
#[test]
fn the_flag_is_a_register_of_the_uses() {
    let mut syms = Symbols::new();
    let mut uses = |t: &str| {
        let i = parse_instruction(t, &mut syms).unwrap();
        let u = i.reg_uses();
        let w: Vec<RegId> = u.writes().map(|r| r.reg).collect();
        let r: Vec<RegId> = u.iter().filter(|r| !r.write).map(|r| r.reg).collect();
        (w, r)
    };
    let plain = uses("add.u32 %r1, %r2, %r3;");
    let cc = uses("add.cc.u32 %r1, %r2, %r3;");
    let addc = uses("addc.u32 %r4, %r2, 0;");
    let both = uses("madc.hi.cc.u32 %r5, %r2, %r3, %r4;");
    let cf = syms.get(CARRY_FLAG).expect("interned");
    assert!(!plain.0.contains(&cf) && !plain.1.contains(&cf));
    assert!(cc.0.contains(&cf) && !cc.1.contains(&cf));
    assert!(!addc.0.contains(&cf) && addc.1.contains(&cf));
    assert!(both.0.contains(&cf) && both.1.contains(&cf));
    assert!(carry::is_hidden_register(syms.name(cf)));
}

/// Display prints what the parser read.
#[test]
fn display_round_trips() {
    for t in [
        "add.cc.u32 %r1, %r2, 7;",
        "addc.cc.s64 %rd1, %rd2, 0;",
        "subc.u32 %r1, %r2, %r3;",
        "mad.hi.cc.s32 %r1, %r2, %r3, %r4;",
        "madc.lo.cc.u64 %rd1, %rd2, %rd3, %rd4;",
    ] {
        let mut syms = Symbols::new();
        let i = parse_instruction(t, &mut syms).unwrap();
        assert_eq!(i.display(&syms).to_string(), t);
    }
}

/// The gates: every form from sm_35 (the oldest target ptxas 11.8 knows),
/// a 64-bit `.cc` form from PTX 4.3, a 32-bit one from 3.1.
#[test]
fn gates() {
    let t = Target::parse("sm_35").unwrap();
    let v = |s: &str| PtxVersion::parse(s);
    let i = |s: &str| parse_instruction(s, &mut Symbols::new()).unwrap();
    assert!(check_target(&i("add.cc.u64 %rd1, %rd2, %rd3;"), t, v("4.2")).is_err());
    assert!(check_target(&i("add.cc.u64 %rd1, %rd2, %rd3;"), t, v("4.3")).is_ok());
    assert!(check_target(&i("addc.u64 %rd1, %rd2, %rd3;"), t, v("3.1")).is_ok());
    assert!(check_target(&i("madc.hi.cc.u32 %r1, %r2, %r3, %r4;"), t, v("3.1")).is_ok());
}

/// `a * b + c` (64-bit `a`, `b`, `c`) as the nine-statement chain nvcc
/// 13.0.88 emits for CUDA's 64x64+64 multiply-add (the lead's probe
/// `v2.ptx`), its four 32-bit words against `u128`.
fn mad_chain(a: u64, b: u64, c: u64) -> u128 {
    let text = [
        "mad.lo.cc.u32 %r0, %alo, %blo, %clo;",
        "madc.hi.cc.u32 %r1, %alo, %blo, %chi;",
        "madc.hi.u32 %r2, %alo, %bhi, 0;",
        "mad.lo.cc.u32 %r1, %alo, %bhi, %r1;",
        "madc.hi.cc.u32 %r2, %ahi, %blo, %r2;",
        "madc.hi.u32 %r3, %ahi, %bhi, 0;",
        "mad.lo.cc.u32 %r1, %ahi, %blo, %r1;",
        "madc.lo.cc.u32 %r2, %ahi, %bhi, %r2;",
        "addc.u32 %r3, %r3, 0;",
    ];
    let split = |x: u64| (x & 0xFFFF_FFFF, x >> 32);
    let (al, ah) = split(a);
    let (bl, bh) = split(b);
    let (cl, ch) = split(c);
    let inputs = [
        ("%alo", al),
        ("%ahi", ah),
        ("%blo", bl),
        ("%bhi", bh),
        ("%clo", cl),
        ("%chi", ch),
    ];
    join(&run(&text, &inputs, &["%r0", "%r1", "%r2", "%r3"]))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Four-word add and subtract chains are `u128` arithmetic, the last
    /// carry the sum's 129th bit (a subtraction's: 1 when `a >= b`).
    #[test]
    fn chains_are_u128_arithmetic(a: u128, b: u128) {
        let (sum, carry) = a.overflowing_add(b);
        prop_assert_eq!(chain128(false, a, b), (sum, u64::from(carry)));
        let (diff, borrow) = a.overflowing_sub(b);
        prop_assert_eq!(chain128(true, a, b), (diff, u64::from(!borrow)));
    }

    /// The mad/madc chain is the 128-bit `a * b + c`.
    #[test]
    fn mad_chain_is_the_wide_product(a: u64, b: u64, c: u64) {
        prop_assert_eq!(mad_chain(a, b, c), u128::from(a) * u128::from(b) + u128::from(c));
    }
}
