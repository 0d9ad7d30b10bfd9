//! The float arithmetic family (`add sub mul fma min max abs neg div rcp
//! sqrt` over `.f32`/`.f64`): hardware vectors, directed rounding against
//! exact references, and ptxas's verdicts and messages on its forms.

use sim_isa::exec::float_lane;
use sim_isa::parse::parse_instruction;
use sim_isa::*;

/// Every vector of these forms recorded on an H100 (see the file's header).
#[test]
fn h100_vectors_pass() {
    crate::vectors::assert_all_pass(include_str!("../data/h100-float-arith.jsonl"), 1140);
}

fn parse(text: &str) -> Result<Instruction, IsaError> {
    let mut syms = Symbols::new();
    parse_instruction(text, &mut syms)
}

/// `float_lane` of `text` on `a`, `b`, `c`.
fn lane(text: &str, a: u64, b: u64, c: u64) -> u64 {
    float_lane(&family!(text, Float), a, b, c)
}

/// The type modifier picks the family of a word two families share.
#[test]
fn type_picks_the_family() {
    for (text, float) in [
        ("add.u32 %r1, %r2, %r3;", false),
        ("add.f32 %f1, %f2, %f3;", true),
        ("add.rn.f64 %fd1, %fd2, %fd3;", true),
        ("min.s16 %h1, %h2, %h3;", false),
        ("min.NaN.f32 %f1, %f2, %f3;", true),
        ("neg.s64 %rd1, %rd2;", false),
        ("neg.ftz.f32 %f1, %f2;", true),
        ("mul.lo.u64 %rd1, %rd2, %rd3;", false),
        ("mul.rz.f32 %f1, %f2, %f3;", true),
        ("fma.rm.sat.f32 %f1, %f2, %f3, %f4;", true),
    ] {
        let i = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(matches!(i.op, Op::Float(_)), float, "{text}");
        let mut syms = Symbols::new();
        let i = parse_instruction(text, &mut syms).unwrap();
        assert_eq!(i.display(&syms).to_string(), text);
    }
}

/// Valid PTX of these words (and their neighbours) that simcli does not
/// run: "unsupported by simcli", never invalid.
#[test]
fn unimplemented_float_forms() {
    for text in [
        "mul.rz.f64 %fd1, %fd2, %fd3;",
        "fma.rp.f64 %fd1, %fd2, %fd3, %fd4;",
        "fma.rz.relu.bf16 %h1, %h2, %h3, %h4;",
        "fma.rz.bf16x2 %r1, %r2, %r3, %r4;",
        "min.xorsign.abs.bf16 %h1, %h2, %h3;",
        "mad.rp.f64 %fd1, %fd2, %fd3, %fd4;",
        "rcp.rn.ftz.f64 %fd1, %fd2;",
        "div.rz.f64 %fd1, %fd2, %fd3;",
        "sqrt.rp.f64 %fd1, %fd2;",
    ] {
        let e = parse(text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unimplemented, "{text}: {e}");
        assert_eq!(e.col(), Some(1), "{text}");
    }
}

/// `rcp.approx.ftz.f64` as ptxas compiles it for sm_90 (`MUFU.RCP64H` of
/// the source's high word; the low word 0, as ptxas writes it alone): the
/// high word the `.f32` `MUFU.RCP` table at the high word's 20 fraction
/// bits, truncated to 20 (an H200's 4,000 vectors,
/// `vectors::h200_approx_f64`), the special cases as `.ftz` and the PTX
/// ISA give them.
#[test]
fn rcp_approx_f64_is_the_high_word_unit() {
    let rcp = |a: u64| lane("rcp.approx.ftz.f64 %fd1, %fd2;", a, 0, 0);
    // 1/3: 0x3fd55555_55555555 truncated to the high word.
    assert_eq!(rcp(0x4008_0000_0000_0000), 0x3fd5_5555_0000_0000);
    // The low word of the source is not read.
    assert_eq!(rcp(0x4008_0000_ffff_ffff), 0x3fd5_5555_0000_0000);
    assert_eq!(rcp(0x3ff0_0000_0000_0000), 0x3ff0_0000_0000_0000);
    assert_eq!(rcp(0xc000_0000_0000_0000), 0xbfe0_0000_0000_0000);
    // One unit above the truncated exact reciprocal, as the H200 gave it
    // (`tests/data/h200-approx-f64.jsonl.gz`).
    assert_eq!(rcp(0x7001_c817_db69_4149), 0x0fdc_cb37_0000_0000);
    // Zeros, subnormals (flushed) and infinities.
    assert_eq!(rcp(0), 0x7ff0_0000_0000_0000);
    assert_eq!(rcp(0x8000_0000_0000_0000), 0xfff0_0000_0000_0000);
    assert_eq!(rcp(0x000f_ffff_0000_0000), 0x7ff0_0000_0000_0000);
    assert_eq!(rcp(0x7ff0_0000_0000_0000), 0);
    assert_eq!(rcp(0xfff0_0000_0000_0000), 0x8000_0000_0000_0000);
    // A reciprocal below the normal range is flushed to zero.
    assert_eq!(rcp(0x7fe0_0000_0000_0000), 0);
    // A NaN gives the canonical NaN's high word.
    assert_eq!(rcp(0x7ff8_0000_0000_0001), 0x7fff_ffff_0000_0000);
}

/// Over ptxas's grid: what it accepts parses (or, for the directed `.f64`
/// forms, is unimplemented); what it rejects is invalid.
#[test]
fn agrees_with_ptxas_on_the_grid() {
    let data = include_str!("../data/float-arith-ptxas.txt");
    let (mut runs, mut unimpl, mut wrong) = (0, 0, Vec::new());
    for line in data.lines().filter(|l| !l.starts_with('#')) {
        let (verdict, text) = line.split_once(' ').expect("verdict and text");
        match (verdict, parse(text)) {
            ("accept", Ok(_)) => runs += 1,
            ("accept", Err(e)) if e.kind() == ErrorKind::Unimplemented => unimpl += 1,
            ("reject", Err(e)) if e.kind() == ErrorKind::Invalid => {}
            (v, got) => wrong.push(format!("{text}: ptxas {v}s, parser: {got:?}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Unimplemented: the directed `.f64` forms (`rcp.approx.ftz.f64` runs,
    // through `MUFU.RCP64H`: `rcp_approx_f64_is_the_high_word_unit`).
    assert_eq!((runs, unimpl), (141, 19));
}

/// Rejections in ptxas 11.8's words (each recorded from ptxas on the text).
#[test]
fn ptxas_messages() {
    for (text, want) in [
        (
            "fma.f32 %f5, %f1, %f2, %f3;",
            "Rounding modifier required for instruction 'fma'",
        ),
        (
            "fma.ftz.f32 %f5, %f1, %f2, %f3;",
            "Rounding modifier required for instruction 'fma'",
        ),
        (
            "add.ftz.f64 %fd5, %fd1, %fd2;",
            "Illegal modifier '.ftz' for instruction 'add'",
        ),
        (
            "add.sat.f64 %fd5, %fd1, %fd2;",
            "Illegal modifier '.sat' for instruction 'add'",
        ),
        (
            "min.NaN.f64 %fd5, %fd1, %fd2;",
            "Illegal modifier '.NaN' for instruction 'min'",
        ),
        (
            "min.rn.f32 %f5, %f1, %f2;",
            "Illegal rounding modifier for instruction 'min'",
        ),
        (
            "abs.sat.f32 %f5, %f1;",
            "Illegal modifier '.sat' for instruction 'abs'",
        ),
        (
            "add.NaN.f32 %f5, %f1, %f2;",
            "Illegal modifier '.NaN' for instruction 'add'",
        ),
        (
            "add.rn.rz.f32 %f5, %f1, %f2;",
            "Multiple rounding modifiers specified",
        ),
        ("add.ftz.ftz.f32 %f5, %f1, %f2;", "Duplicate .ftz modifier"),
        (
            "add.rn.f32.f32 %f5, %f1, %f2;",
            "Unexpected instruction types specified for 'add'",
        ),
        (
            "fma.rn.f32 %f5, %f1, %f2;",
            "Arguments mismatch for instruction 'fma'",
        ),
        (
            "min.sat.f32 %f5, %f1, %f2;",
            "Illegal modifier '.sat' for instruction 'min'",
        ),
        (
            "div.f32 %f5, %f1, %f2;",
            "Rounding modifier or '.approx' modifier required for instruction 'div'",
        ),
        (
            "rcp.f32 %f5, %f1;",
            "Rounding modifier or '.approx' modifier required for instruction 'rcp'",
        ),
        (
            "div.rn.approx.f32 %f5, %f1, %f2;",
            "Rounding modifier or '.approx' modifier required for instruction 'div'",
        ),
        (
            "div.rn.sat.f32 %f5, %f1, %f2;",
            "Illegal modifier '.sat' for instruction 'div'",
        ),
        (
            "div.f64 %fd5, %fd1, %fd2;",
            "Rounding modifier required for instruction 'div'",
        ),
    ] {
        match parse(text) {
            Err(IsaError::Invalid { reason, .. }) => assert_eq!(reason.to_string(), want, "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    // Accepted by ptxas: modifiers after the type, a repeated .sat or .NaN.
    for text in [
        "min.NaN.NaN.f32 %f5, %f1, %f2;",
        "add.f32.rn %f5, %f1, %f2;",
        "add.sat.sat.f32 %f5, %f1, %f2;",
        "add.f32 %f5, %f1, 1.5;",
        "neg.f32 %f5, 0f3f800000;",
    ] {
        parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}

const F32_MAX: f64 = f32::MAX as f64;

/// `x` (exact, finite) rounded to f32 in `mode` by bracketing it between
/// its two f32 neighbours: an independent reference for `round_f32`.
fn reference_round(x: f64, mode: Rnd) -> f32 {
    if x.abs() > F32_MAX {
        let pos = x > 0.0;
        let big = match mode {
            Rnd::Rn => (x as f32).abs(),
            Rnd::Rz => f32::MAX,
            Rnd::Rm if pos => f32::MAX,
            Rnd::Rp if !pos => f32::MAX,
            Rnd::Rm | Rnd::Rp => f32::INFINITY,
        };
        return if pos { big } else { -big };
    }
    let r = x as f32;
    if f64::from(r) == x {
        return r;
    }
    let (lo, hi) = if f64::from(r) < x {
        (r, r.next_up())
    } else {
        (r.next_down(), r)
    };
    let zero_signed = |v: f32| {
        if v == 0.0 {
            if x < 0.0 {
                -0.0
            } else {
                0.0
            }
        } else {
            v
        }
    };
    zero_signed(match mode {
        Rnd::Rn => r,
        Rnd::Rz => {
            if x > 0.0 {
                lo
            } else {
                hi
            }
        }
        Rnd::Rm => lo,
        Rnd::Rp => hi,
    })
}

proptest::proptest! {
    /// Directed rounding of f32 add/sub/mul/fma equals the bracketing
    /// reference wherever the exact result is an f64 (every product; sums
    /// of nearby magnitudes).
    #[test]
    fn f32_rounding_matches_reference(
        a in proptest::num::u32::ANY,
        b in proptest::num::u32::ANY,
        c in proptest::num::u32::ANY,
        op in 0usize..4,
        mode in proptest::sample::select(Rnd::ALL.to_vec()),
    ) {
        let (fa, fb, fc) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
        proptest::prop_assume!(fa.is_finite() && fb.is_finite() && fc.is_finite());
        let (word, n) = [("add", 2), ("sub", 2), ("mul", 2), ("fma", 3)][op];
        let (a64, b64, c64) = (f64::from(fa), f64::from(fb), f64::from(fc));
        // Knuth's TwoSum: the f64 sum is exact when its error term is 0.
        let two_sum = |x: f64, y: f64| {
            let s = x + y;
            let yy = s - x;
            (s, (x - (s - yy)) + (y - yy))
        };
        let (exact, err) = match word {
            "add" => two_sum(a64, b64),
            "sub" => two_sum(a64, -b64),
            "mul" => (a64 * b64, 0.0),
            _ => two_sum(a64 * b64, c64),
        };
        let ok = err == 0.0;
        proptest::prop_assume!(ok && exact != 0.0);
        let srcs = ["%a", "%b", "%c"][..n].join(", ");
        let text = format!("{word}.{}.f32 %d, {srcs};", mode.name());
        let got = lane(&text, u64::from(a), u64::from(b), u64::from(c)) as u32;
        let want = reference_round(exact, mode).to_bits();
        proptest::prop_assert_eq!(got, want, "{} {:?} {:?} {:?} exact {:e}", text, fa, fb, fc, exact);
    }
}

#[test]
fn manual_edge_cases() {
    let one = 0x3F80_0000u64;
    let m_one = 0xBF80_0000u64;
    // x + (-x) is +0, but -0 toward minus infinity.
    assert_eq!(lane("add.rn.f32 %d, %a, %b;", one, m_one, 0), 0);
    assert_eq!(lane("add.rm.f32 %d, %a, %b;", one, m_one, 0), 0x8000_0000);
    assert_eq!(lane("add.rm.f32 %d, %a, %b;", 0, 0, 0), 0);
    assert_eq!(
        lane("add.rp.f32 %d, %a, %b;", 0x8000_0000, 0x8000_0000, 0),
        0x8000_0000
    );
    // Overflow: the directed modes stop at the largest finite value.
    let max = u64::from(f32::MAX.to_bits());
    assert_eq!(lane("add.rz.f32 %d, %a, %b;", max, max, 0), max);
    assert_eq!(lane("add.rn.f32 %d, %a, %b;", max, max, 0), 0x7F80_0000);
    assert_eq!(
        lane("mul.rm.f32 %d, %a, %b;", max, max | 0x8000_0000, 0),
        0xFF80_0000
    );
    assert_eq!(
        lane("mul.rp.f32 %d, %a, %b;", max, max | 0x8000_0000, 0),
        max | 0x8000_0000
    );
    // 1 + 2^-24 is a tie: even below, up toward plus infinity.
    let tiny = 0x3380_0000u64;
    assert_eq!(lane("add.rn.f32 %d, %a, %b;", one, tiny, 0), one);
    assert_eq!(lane("add.rp.f32 %d, %a, %b;", one, tiny, 0), one + 1);
    assert_eq!(lane("sub.rz.f32 %d, %a, %b;", one, tiny, 0), 0x3F7F_FFFF);
    // .ftz flushes subnormal sources and results; .sat clamps, NaN to +0.
    assert_eq!(lane("mul.rn.ftz.f32 %d, %a, %b;", 0x0000_0001, one, 0), 0);
    assert_eq!(lane("mul.rn.f32 %d, %a, %b;", 0x0000_0001, one, 0), 1);
    assert_eq!(lane("add.sat.f32 %d, %a, %b;", one, one, 0), one);
    assert_eq!(lane("add.sat.f32 %d, %a, %b;", 0x7FC0_0000, one, 0), 0);
    assert_eq!(lane("add.sat.f32 %d, %a, %b;", m_one, 0, 0), 0);
    // NaN: canonical for f32; min/max take the other source unless .NaN.
    assert_eq!(
        lane("add.f32 %d, %a, %b;", 0x7F80_0001, one, 0),
        0x7FFF_FFFF
    );
    assert_eq!(lane("min.f32 %d, %a, %b;", 0x7FC0_0000, one, 0), one);
    assert_eq!(
        lane("min.NaN.f32 %d, %a, %b;", 0x7FC0_0000, one, 0),
        0x7FFF_FFFF
    );
    assert_eq!(lane("min.f32 %d, %a, %b;", 0, 0x8000_0000, 0), 0x8000_0000);
    assert_eq!(lane("max.f32 %d, %a, %b;", 0x8000_0000, 0, 0), 0);
    assert_eq!(lane("neg.f32 %d, %a;", 0xFFC0_0001, 0, 0), 0x7FFF_FFFF);
    assert_eq!(lane("abs.ftz.f32 %d, %a;", 0x8000_0001, 0, 0), 0);
    // f64: the first NaN source, quieted.
    let snan = 0x7FF0_0000_0000_0001u64;
    assert_eq!(
        lane("add.f64 %d, %a, %b;", 0x3FF0_0000_0000_0000, snan, 0),
        snan | 1 << 51
    );
    // abs/neg.f64 are DADD -0, |a| / -a: the NaN quieted, its sign changed.
    assert_eq!(
        lane("neg.f64 %d, %a;", snan, 0, 0),
        snan | 1 << 51 | 1 << 63
    );
    assert_eq!(
        lane("abs.f64 %d, %a;", snan | 1 << 63, 0, 0),
        snan | 1 << 51
    );
    assert_eq!(lane("neg.f64 %d, %a;", 0, 0, 0), 1 << 63);
}

/// Where the exact value lies relative to the f32 `r`, from `cmp`: the
/// ordering of a candidate against the exact value, computed exactly.
fn brackets(r: f32, mode: Rnd, cmp: impl Fn(f32) -> std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    let (here, up, down) = (cmp(r), cmp(r.next_up()), cmp(r.next_down()));
    match mode {
        // r <= x < next_up(r)
        Rnd::Rm => here != Greater && up == Greater,
        // next_down(r) < x <= r
        Rnd::Rp => here != Less && down == Less,
        Rnd::Rz if r > 0.0 => here != Greater && up == Greater,
        Rnd::Rz => here != Less && down == Less,
        // Checked against the f64 result instead.
        Rnd::Rn => true,
    }
}

proptest::proptest! {
    /// div/rcp/sqrt.f32 in every mode: the result brackets the exact
    /// quotient or root as the mode asks (`r*b` against `a`, `r*r` against
    /// `a`, exact in f64); round to nearest equals the f64 result rounded
    /// once more (harmless double rounding: 53 >= 2*24 + 2).
    #[test]
    fn quotients_and_roots_round_as_asked(
        a in proptest::num::u32::ANY,
        b in proptest::num::u32::ANY,
        op in 0usize..3,
        mode in proptest::sample::select(Rnd::ALL.to_vec()),
    ) {
        let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
        let (word, x) = [("div", fa), ("rcp", 1.0), ("sqrt", fa)][op];
        let y = if word == "rcp" { fa } else { fb };
        let text = match word {
            "div" => format!("div.{}.f32 %d, %a, %b;", mode.name()),
            w => format!("{w}.{}.f32 %d, %a;", mode.name()),
        };
        let r = f32::from_bits(lane(&text, u64::from(a), u64::from(b), 0) as u32);
        let exact = match word {
            "sqrt" => f64::from(fa).sqrt(),
            _ => f64::from(x) / f64::from(y),
        };
        proptest::prop_assume!(exact.is_finite() && exact != 0.0 && r.is_finite());
        proptest::prop_assume!(r.abs() < f32::MAX && r.abs() >= f32::MIN_POSITIVE);
        let cmp = |c: f32| match word {
            "sqrt" => (f64::from(c) * f64::from(c)).partial_cmp(&f64::from(fa)).unwrap(),
            _ => {
                let o = (f64::from(c) * f64::from(y)).partial_cmp(&f64::from(x)).unwrap();
                if y < 0.0 { o.reverse() } else { o }
            }
        };
        proptest::prop_assert!(brackets(r, mode, cmp), "{} {:?} {:?} -> {:?}", text, fa, fb, r);
        if mode == Rnd::Rn {
            proptest::prop_assert_eq!(r, exact as f32);
        }
    }
}

/// `x` in units of 2^-114: exact for the sources and results of the f64
/// property (below 2^11; results are multiples of 2^-62, their neighbours
/// of 2^-114) and for their neighbours.
fn units(x: f64) -> i128 {
    (x * 2f64.powi(114)) as i128
}

proptest::proptest! {
    /// add/sub.f64 in every mode against an exact integer reference: the
    /// sources are drawn with exponents in -10..10, so the exact sum is an
    /// integer count of 2^-114 and the result must bracket it as the mode
    /// asks (an exact zero: +0, or -0 toward minus infinity).
    #[test]
    fn f64_sums_round_as_asked(
        ma in 0u64..(1 << 52), ea in -10i32..10, sa in proptest::bool::ANY,
        mb in 0u64..(1 << 52), eb in -10i32..10, sb in proptest::bool::ANY,
        sub in proptest::bool::ANY,
        mode in proptest::sample::select(Rnd::ALL.to_vec()),
    ) {
        let make = |m: u64, e: i32, s: bool| {
            let v = f64::from_bits(((1023 + e) as u64) << 52 | m);
            if s { -v } else { v }
        };
        let (a, b) = (make(ma, ea, sa), make(mb, eb, sb));
        let word = if sub { "sub" } else { "add" };
        let text = format!("{word}.{}.f64 %d, %a, %b;", mode.name());
        let r = f64::from_bits(lane(&text, a.to_bits(), b.to_bits(), 0));
        let exact = units(a) + if sub { -units(b) } else { units(b) };
        if exact == 0 {
            proptest::prop_assert_eq!(r.to_bits(), if mode == Rnd::Rm { 1 << 63 } else { 0 });
            return Ok(());
        }
        let (here, up, down) = (units(r), units(r.next_up()), units(r.next_down()));
        let ok = match mode {
            Rnd::Rm => here <= exact && exact < up,
            Rnd::Rp => down < exact && exact <= here,
            Rnd::Rz if exact >= 0 => here <= exact && exact < up,
            Rnd::Rz => down < exact && exact <= here,
            // Nearest: no neighbour closer.
            Rnd::Rn => (here - exact).abs() <= (up - exact).abs()
                && (here - exact).abs() <= (down - exact).abs(),
        };
        proptest::prop_assert!(ok, "{} {:e} {:e} -> {:e}", text, a, b, r);
    }
}

/// `mad.rnd.f32`/`.f64` is `fma.rnd` (PTX ISA, `mad`: "for .target sm_20 and
/// higher, mad.f32 is the same as fma.f32"; ptxas 13.0 requires the rounding
/// modifier and emits FFMA/DFMA).
#[test]
fn mad_float_is_fma() {
    let mut syms = sim_isa::Symbols::new();
    for (mad, fma) in [
        ("mad.rn.f32 %d, %a, %b, %c;", "fma.rn.f32 %d, %a, %b, %c;"),
        (
            "mad.rz.ftz.sat.f32 %d, %a, %b, %c;",
            "fma.rz.ftz.sat.f32 %d, %a, %b, %c;",
        ),
        ("mad.rn.f64 %d, %a, %b, %c;", "fma.rn.f64 %d, %a, %b, %c;"),
    ] {
        let m = sim_isa::parse::parse_instruction(mad, &mut syms).unwrap();
        let f = sim_isa::parse::parse_instruction(fma, &mut syms).unwrap();
        assert_eq!(m, f, "{mad}");
    }
    for bad in ["mad.f32 %d, %a, %b, %c;", "mad.f64 %d, %a, %b, %c;"] {
        let e = sim_isa::parse::parse_instruction(bad, &mut syms).unwrap_err();
        assert_eq!(e.kind(), sim_isa::ErrorKind::Invalid, "{bad}: {e}");
    }
}

/// `fma.rn.f32` whose product lies one f64 rounding from a tie of f32 and
/// whose addend is far below an f64 ulp of it: `-3 * (1 + 2^-23) + 2^-149`
/// is just above the tie between `0xc0400001` and `0xc0400002`, so rounds
/// to the first (the scalar path once saw the tie and picked the even
/// one). Its mirror image and the two-sided neighbours too, each against
/// the host's fused multiply-add.
#[test]
fn fma_rounds_a_tiny_addend_past_a_tie() {
    let fma = |a: u32, b: u32, c: u32| {
        let text = "fma.rn.f32 %d, %a, %b, %c;";
        lane(text, u64::from(a), u64::from(b), u64::from(c)) as u32
    };
    assert_eq!(fma(0xC040_0000, 0x3F80_0001, 0x0000_0001), 0xC040_0001);
    assert_eq!(fma(0x4040_0000, 0x3F80_0001, 0x8000_0001), 0x4040_0001);
    for (a, b) in [(0xC040_0000u32, 0x3F80_0001u32), (0x3FC0_0000, 0x3F80_0001)] {
        for c in [
            0x0000_0001u32,
            0x8000_0001,
            0x0080_0000,
            0x8080_0000,
            0x2000_0000,
        ] {
            let want = f32::from_bits(a).mul_add(f32::from_bits(b), f32::from_bits(c));
            assert_eq!(fma(a, b, c), want.to_bits(), "{a:#x} {b:#x} {c:#x}");
        }
    }
}
