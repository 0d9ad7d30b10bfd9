//! The half-precision forms of the float family (`add sub mul fma neg abs
//! min max` over `.f16 .f16x2 .bf16 .bf16x2`) and `copysign`: ptxas's
//! verdicts per target and PTX version, the lane semantics by hand, and a
//! property test holding `float_lane` to an exact integer reference.

use crate::grid::{self, Grid};
use proptest::prelude::*;
use sim_isa::exec::float_lane;
use sim_isa::parse::parse_instruction;
use sim_isa::*;

const GRID: &str = include_str!("../data/half-arith-ptxas.txt");

fn parse(text: &str) -> Result<Instruction, IsaError> {
    parse_instruction(text, &mut Symbols::new())
}

/// `float_lane` of `text` on `a`, `b`, `c`.
fn lane(text: &str, a: u64, b: u64, c: u64) -> u64 {
    float_lane(&family!(text, Float), a, b, c)
}

/// Valid PTX simcli refuses as unimplemented: `fma.rz` on bf16, which
/// ptxas accepts though the PTX ISA does not list it (and compiles as an
/// f16 operation: docs/validation.md).
fn unimplemented(text: &str) -> bool {
    text.starts_with("fma.rz.")
}

/// Each line of `tests/data/half-arith-ptxas.txt` (made by
/// `tools/ptxas_grid/half_grid.py`) against the parser and `check_target`
/// (`grid::check`) on sm_53, sm_80 and sm_90. The `.version` gate is checked on sm_90; the version below the lowest
/// ptxas accepted was asked (and refused) only where sm_53 accepts and the
/// probe (4.2, 6.0, 6.5, 7.0, 7.8) had one below.
#[test]
fn agrees_with_ptxas_per_target() {
    let versions = ["4.2", "6.0", "6.5", "7.0", "7.8"];
    let below = |v: &str, _: usize, verdicts: &[&str]| {
        let i = versions
            .iter()
            .position(|x| *x == v)
            .expect("known version");
        (verdicts[0] == "accept" && i > 0)
            .then(|| PtxVersion::parse(versions[i - 1]))
            .flatten()
    };
    let g = Grid {
        columns: &[("sm_53", None), ("sm_80", None), ("sm_90", None)],
        gate_column: Some(2),
        below: &below,
        unrun: &unimplemented,
        untyped: &[],
    };
    let (n, accepted, wrong) = grid::check(GRID, &g);
    assert_eq!((n, accepted), (292, 118));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `mad` is `fma` only on `.f32`/`.f64`, and `div` has no half form
/// (ptxas: "Unexpected instruction types specified").
#[test]
fn no_half_mad_or_div() {
    for text in [
        "mad.rn.f16 %h1, %h2, %h3, %h4;",
        "div.rn.f16 %h1, %h2, %h3;",
        "copysign.f16 %h1, %h2, %h3;",
        "add.f16 %h1, %h2, 0x3c00;",
        // ptxas: "Illegal modifier '.ftz' for instruction 'ex2'", ".ftz
        // modifier required for instruction 'ex2.bf16'".
        "ex2.approx.ftz.f16 %h1, %h2;",
        "ex2.approx.bf16 %h1, %h2;",
    ] {
        let e = parse(text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid, "{text}: {e}");
    }
}

/// Values worked out by hand from the formats.
#[test]
fn lanes_by_hand() {
    crate::assert_lanes(lane, BY_HAND);
}

/// 1.0 in f16.
const ONE: u64 = 0x3c00;
const FMA_RELU: &str = "fma.rn.relu.f16 %h1, %h2, %h3, %h4;";

/// `(text, a, b, c, result)`.
#[rustfmt::skip]
const BY_HAND: &[crate::LaneCase] = &[
    // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: to even.
    ("add.f16 %h1, %h2, %h3;", ONE, 0x1000, 0, ONE),
    // 1 + 3 * 2^-11 ties up to 1 + 2^-9.
    ("add.f16 %h1, %h2, %h3;", 0x3c01, 0x1000, 0, 0x3c02),
    // fma: (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20, half of f16's spacing at
    // 2^-9: a tie, to even (2^-9).
    ("fma.rn.f16 %h1, %h2, %h3, %h4;", 0x3c01, 0x3c01, 0xbc00, 0x1800),
    // (1 + 2^-10) * 1.5 = 1.5 + 3 * 2^-11, a tie between 0x3e01 and 0x3e02
    // (to even); an addend of -2^-24 puts it just below the tie.
    ("fma.rn.f16 %h1, %h2, %h3, %h4;", 0x3c01, 0x3e00, 0, 0x3e02),
    ("fma.rn.f16 %h1, %h2, %h3, %h4;", 0x3c01, 0x3e00, 0x8001, 0x3e01),
    // Overflow: 65504 + 65504 is inf; 2 * 2^-24 * 2^-1 = 2^-24.
    ("add.f16 %h1, %h2, %h3;", 0x7bff, 0x7bff, 0, 0x7c00),
    ("mul.f16 %h1, %h2, %h3;", 0x0002, 0x3800, 0, 0x0001),
    // .ftz flushes the subnormal source and result.
    ("mul.ftz.f16 %h1, %h2, %h3;", 0x0002, 0x3800, 0, 0),
    ("add.ftz.f16 %h1, %h2, %h3;", 0x8001, 0, 0, 0),
    // .sat: 2 to 1, -1 to +0, NaN to +0.
    ("add.sat.f16 %h1, %h2, %h3;", ONE, ONE, 0, ONE),
    ("sub.sat.f16 %h1, %h2, %h3;", 0, ONE, 0, 0),
    ("mul.sat.f16 %h1, %h2, %h3;", 0x7e00, ONE, 0, 0),
    // .relu: a negative result and -0 to +0; NaN stays 0x7fff.
    (FMA_RELU, ONE, 0xbc00, 0, 0),
    (FMA_RELU, ONE, 0x8000, 0x8000, 0),
    (FMA_RELU, 0x7c00, 0, 0, 0x7fff),
    ("fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;", 0xbf80_3f80, 0x3f80_3f80, 0, 0x3f80),
    // NaN and inf - inf give 0x7fff.
    ("add.f16 %h1, %h2, %h3;", 0x7c00, 0xfc00, 0, 0x7fff),
    ("mul.bf16 %h1, %h2, %h3;", 0x7f81, 0x3f80, 0, 0x7fff),
    // Exact zeros: x - x is +0, -0 + -0 is -0.
    ("sub.f16 %h1, %h2, %h3;", ONE, ONE, 0, 0),
    ("add.f16 %h1, %h2, %h3;", 0x8000, 0x8000, 0, 0x8000),
    // neg/abs change the sign; a NaN becomes 0x7fff.
    ("neg.f16 %h1, %h2;", ONE, 0, 0, 0xbc00),
    ("abs.bf16 %h1, %h2;", 0xbf80, 0, 0, 0x3f80),
    ("neg.bf16 %h1, %h2;", 0xffc1, 0, 0, 0x7fff),
    // min/max: -0 below +0; one NaN gives the other; .NaN gives NaN.
    ("min.f16 %h1, %h2, %h3;", 0, 0x8000, 0, 0x8000),
    ("max.bf16 %h1, %h2, %h3;", 0x7fc0, 0xbf80, 0, 0xbf80),
    ("max.NaN.f16 %h1, %h2, %h3;", 0x7e00, ONE, 0, 0x7fff),
    // bf16: 1 + 2^-8 ties to 1; 1 + 3 * 2^-8 ties up.
    ("add.bf16 %h1, %h2, %h3;", 0x3f80, 0x3b80, 0, 0x3f80),
    ("add.bf16 %h1, %h2, %h3;", 0x3f81, 0x3b80, 0, 0x3f82),
    // Packed: each half on its own (lo: 1 + 1, hi: 2 * -1).
    ("add.f16x2 %r1, %r2, %r3;", 0xc000_3c00, 0xbc00_3c00, 0, 0xc200_4000),
    ("mul.bf16x2 %r1, %r2, %r3;", 0x4000_3f80, 0xbf80_4040, 0, 0xc000_4040),
    // copysign: b with a's sign, NaN payloads kept.
    ("copysign.f32 %f1, %f2, %f3;", 0x8000_0000, 0x7fc0_1234, 0, 0xffc0_1234),
    ("copysign.f64 %fd1, %fd2, %fd3;", 0, 0xbff0_0000_0000_0000, 0, 0x3ff0_0000_0000_0000),
];

/// A half format: stored mantissa bits and exponent bias.
///
/// The reference below is written apart from xtask's SASS interpreter
/// (`xtask/src/sass/exec_half.rs`) on purpose, so neither checks itself:
/// `duplicates` lists the rounding code the two share.
#[derive(Clone, Copy)]
struct Fmt {
    mbits: u32,
    ebits: u32,
}
const F16: Fmt = Fmt {
    mbits: 10,
    ebits: 5,
};
const BF16: Fmt = Fmt { mbits: 7, ebits: 8 };

impl Fmt {
    fn bias(self) -> i32 {
        (1 << (self.ebits - 1)) - 1
    }
    /// `v` (finite) as a signed integer times 2^e.
    fn decode(self, v: u16) -> (i128, i32) {
        let field = i32::from(v >> self.mbits) & ((1 << self.ebits) - 1);
        let man = i128::from(v) & ((1 << self.mbits) - 1);
        let m = if field == 0 {
            man
        } else {
            man | 1 << self.mbits
        };
        let s = if v & 0x8000 != 0 { -m } else { m };
        (s, field.max(1) - self.bias() - self.mbits as i32)
    }
    /// The exact nonzero `v * 2^e` rounded to nearest even.
    fn encode(self, v: i128, e: i32) -> u16 {
        let sign = if v < 0 { 0x8000 } else { 0 };
        let mag = v.unsigned_abs();
        let top = e + 127 - mag.leading_zeros() as i32;
        let mb = self.mbits as i32;
        let mut q = (top - mb).max(1 - self.bias() - mb);
        let s = q - e;
        let mut n = if s <= 0 {
            mag << -s
        } else {
            let (k, rem, half) = (mag >> s, mag & ((1 << s) - 1), 1u128 << (s - 1));
            k + u128::from(rem > half || (rem == half && k & 1 == 1))
        };
        if n >> (mb + 1) != 0 {
            n >>= 1;
            q += 1;
        }
        if n >> mb == 0 {
            return sign | n as u16;
        }
        let field = q + mb + self.bias();
        if field >= (1 << self.ebits) - 1 {
            return sign | (((1 << self.ebits) - 1) << self.mbits) as u16;
        }
        sign | (field as u16) << self.mbits | (n as u16 & ((1 << self.mbits) - 1))
    }
}

/// `x + y` exactly (`x`, `y` as integer times power of two), rounded; an
/// exact zero is -0 only when both are zeros of negative sign.
fn sum(f: Fmt, x: (i128, i32), xneg: bool, y: (i128, i32), yneg: bool) -> u16 {
    let e = x.1.min(y.1);
    let v = (x.0 << (x.1 - e)) + (y.0 << (y.1 - e));
    if v == 0 {
        return if x.0 == 0 && y.0 == 0 && xneg && yneg {
            0x8000
        } else {
            0
        };
    }
    f.encode(v, e)
}

/// Finite half values of format `f`, exponent fields in `lo..=hi`.
fn finite(f: Fmt, lo: u16, hi: u16) -> impl Strategy<Value = u16> {
    (any::<bool>(), lo..=hi, any::<u16>())
        .prop_map(move |(s, e, m)| u16::from(s) << 15 | e << f.mbits | (m & ((1 << f.mbits) - 1)))
}

/// The reference for `op` on `a`, `b`, `c`.
fn reference(f: Fmt, op: &str, a: u16, b: u16, c: u16) -> u16 {
    let neg = |v: u16| v & 0x8000 != 0;
    let (da, db, dc) = (f.decode(a), f.decode(b), f.decode(c));
    let prod = (da.0 * db.0, da.1 + db.1);
    match op {
        "add" => sum(f, da, neg(a), db, neg(b)),
        "sub" => sum(f, da, neg(a), (-db.0, db.1), !neg(b)),
        "mul" if prod.0 == 0 => {
            if neg(a) != neg(b) {
                0x8000
            } else {
                0
            }
        }
        "mul" => f.encode(prod.0, prod.1),
        _ => sum(f, prod, neg(a) != neg(b), dc, neg(c)),
    }
}

fn check_against_reference(f: Fmt, ty: &str, op: &str, a: u16, b: u16, c: u16) {
    let text = match op {
        "fma" => format!("fma.rn.{ty} %h1, %h2, %h3, %h4;"),
        _ => format!("{op}.{ty} %h1, %h2, %h3;"),
    };
    let want = reference(f, op, a, b, c);
    let got = lane(&text, a.into(), b.into(), c.into());
    assert_eq!(got, u64::from(want), "{text} {a:#06x} {b:#06x} {c:#06x}");
    // Each half of the packed form is the scalar form.
    let packed = text.replace(&format!(".{ty} "), &format!(".{ty}x2 "));
    let p = |v: u16| u64::from(v) << 16 | 0x3c00;
    let got2 = lane(&packed, p(a), p(b), p(c));
    assert_eq!(got2 >> 16, u64::from(want), "{packed}");
    assert_eq!(
        got2 & 0xffff,
        lane(&text, 0x3c00, 0x3c00, 0x3c00),
        "{packed}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// f16 add/sub/mul/fma over every finite input (subnormals included)
    /// match an exact integer reference rounded once.
    #[test]
    fn f16_rounds_once(a in finite(F16, 0, 30), b in finite(F16, 0, 30),
                       c in finite(F16, 0, 30), k in 0usize..4) {
        let op = ["add", "sub", "mul", "fma"][k];
        check_against_reference(F16, "f16", op, a, b, c);
    }

    /// bf16 likewise, over exponents near one's (where the reference's
    /// 128-bit integers hold the exact sum) and, for the tie cases, with
    /// few mantissa bits.
    #[test]
    fn bf16_rounds_once(a in finite(BF16, 110, 144), b in finite(BF16, 110, 144),
                        c in finite(BF16, 110, 144), k in 0usize..4) {
        let op = ["add", "sub", "mul", "fma"][k];
        check_against_reference(BF16, "bf16", op, a, b, c);
    }
}

/// Display round trip: every grid statement simcli runs prints back as
/// ptxas was given it and re-parses to the same instruction, and so does
/// every half form the database enumerates (`db::forms`).
#[test]
fn display_round_trips() {
    let mut texts: Vec<String> = GRID
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.splitn(5, ' ').collect::<Vec<_>>())
        .filter(|f| f[..3].iter().any(|v| *v != "reject") && !unimplemented(f[4]))
        .map(|f| f[4].to_string())
        .collect();
    assert_eq!(texts.len(), 114);
    let half = [".f16 ", ".f16x2 ", ".bf16 ", ".bf16x2 "];
    let forms: Vec<String> = sim_isa::db::forms()
        .into_iter()
        .filter(|f| f.family == sim_isa::db::Family::Float)
        .filter(|f| half.iter().any(|t| f.text.contains(t)) || f.text.starts_with("copysign"))
        .map(|f| f.text)
        .collect();
    // The grid's 114 and `ex2.approx` and `tanh.approx` on the four half
    // types (`tests/data/ex2-half-ptxas.txt`, `tests/data/tanh-ptxas.txt`).
    assert_eq!(forms.len(), 122);
    texts.extend(forms);
    for text in &texts {
        let mut syms = Symbols::new();
        let inst = parse_instruction(text, &mut syms).unwrap_or_else(|e| panic!("{text}: {e}"));
        let printed = inst.display(&syms).to_string();
        assert_eq!(&printed, text);
        let again = parse_instruction(&printed, &mut syms).expect("re-parses");
        assert_eq!(again, inst, "{text}");
    }
}
