//! Parser, validator, gating and Display. "ptxas:" comments record what
//! ptxas 11.8 (`-arch=sm_90`, `.version 7.8` unless noted) said about the text.

use sim_isa::parse::{check_target, parse_for_target, parse_instruction};
use sim_isa::*;

/// Parses, checks the Display round trip (text re-parses to an equal
/// instruction and prints identically), returns the instruction.
pub(super) fn ok(text: &str) -> Instruction {
    let mut syms = Symbols::new();
    let inst = parse_instruction(text, &mut syms).unwrap_or_else(|e| panic!("{text}: {e}"));
    let printed = inst.display(&syms).to_string();
    let again = parse_instruction(&printed, &mut syms)
        .unwrap_or_else(|e| panic!("{text} -> {printed}: {e}"));
    assert_eq!(inst, again, "{text} -> {printed}");
    assert_eq!(printed, again.display(&syms).to_string());
    inst
}

/// `ok(text)`'s family payload (`Op::$family`), panicking on another family.
macro_rules! ok_as {
    ($text:expr, $family:ident) => {
        match ok($text).op {
            Op::$family(x) => x,
            other => panic!("{}: {other:?}", $text),
        }
    };
}

/// Expects `Invalid` whose message contains `msg`; returns (col, token).
pub(super) fn bad(text: &str, msg: &str) -> (usize, String) {
    let mut syms = Symbols::new();
    match parse_instruction(text, &mut syms) {
        Err(IsaError::Invalid { col, token, reason }) => {
            let m = reason.to_string();
            assert!(m.contains(msg), "{text}: got '{m}', want '{msg}'");
            (col, token)
        }
        other => panic!("{text}: expected Invalid({msg}), got {other:?}"),
    }
}

pub(super) fn printed(text: &str) -> String {
    let mut syms = Symbols::new();
    let inst = parse_instruction(text, &mut syms).unwrap_or_else(|e| panic!("{text}: {e}"));
    let s = inst.display(&syms).to_string();
    s
}

pub(super) fn video(text: &str) -> Video {
    match ok(text).op {
        Op::Video(v) => v,
        o => panic!("{o:?}"),
    }
}

pub(super) fn set(text: &str) -> Set {
    match ok(text).op {
        Op::Set(s) => s,
        o => panic!("{o:?}"),
    }
}

pub(super) fn setp(text: &str) -> Setp {
    match ok(text).op {
        Op::Setp(s) => s,
        o => panic!("{o:?}"),
    }
}

pub(super) const SEL: &str = "Incorrect video selector";
pub(super) const CMP: &str = "Mismatch between instruction type and comparison qualifier";

// ---------------------------------------------------------------- set / setp matrices

const ALL15: [&str; 15] = [
    "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f16", "f16x2", "bf16",
    "bf16x2", "f32", "f64",
];

/// ptxas 11.8 verdicts for `set.eq.D.S` over all 15x15 type pairs: exactly these were accepted.
const SET_ACCEPTED: &str = "u16.f16 u16.bf16 u32.b16 u32.b32 u32.b64 u32.u16 u32.u32 u32.u64 u32.s16 u32.s32 u32.s64 \
u32.f16 u32.f16x2 u32.bf16 u32.bf16x2 u32.f32 u32.f64 s16.f16 s16.bf16 s32.b16 s32.b32 s32.b64 s32.u16 s32.u32 s32.u64 \
s32.s16 s32.s32 s32.s64 s32.f16 s32.f16x2 s32.bf16 s32.bf16x2 s32.f32 s32.f64 f16.b16 f16.b32 f16.b64 f16.u16 f16.u32 \
f16.u64 f16.s16 f16.s32 f16.s64 f16.f16 f16.f32 f16.f64 f16x2.f16x2 bf16.b16 bf16.b32 bf16.b64 bf16.u16 bf16.u32 \
bf16.u64 bf16.s16 bf16.s32 bf16.s64 bf16.f16 bf16.bf16 bf16.f32 bf16.f64 bf16x2.bf16x2 f32.b16 f32.b32 f32.b64 \
f32.u16 f32.u32 f32.u64 f32.s16 f32.s32 f32.s64 f32.f32 f32.f64";

/// ptxas 11.8 verdicts for `set.eq.ftz.D.S` over the accepted pairs (errata 18).
const SET_FTZ_ACCEPTED: &str =
    "u16.f16 u32.f16 u32.f16x2 u32.f32 s16.f16 s32.f16 s32.f16x2 s32.f32 f16.f16 f16.f32 f16x2.f16x2 f32.f32";

const CMPS: [&str; 18] = [
    "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu",
    "geu", "num", "nan",
];

fn accepted(text: &str) -> bool {
    parse_instruction(text, &mut Symbols::new()).is_ok()
}

#[test]
fn set_type_matrix_matches_ptxas() {
    let yes: Vec<&str> = SET_ACCEPTED.split_whitespace().collect();
    let ftz: Vec<&str> = SET_FTZ_ACCEPTED.split_whitespace().collect();
    for d in ALL15 {
        for s in ALL15 {
            let pair = format!("{d}.{s}");
            let text = format!("set.eq.{pair} %d, %a, %b;");
            assert_eq!(accepted(&text), yes.contains(&pair.as_str()), "{text}");
            if yes.contains(&pair.as_str()) {
                let st = set(&text);
                assert_eq!((st.dtype.name(), st.stype.name()), (d, s));
                let t = format!("set.eq.ftz.{pair} %d, %a, %b;");
                assert_eq!(accepted(&t), ftz.contains(&pair.as_str()), "{t}");
                if !ftz.contains(&pair.as_str()) {
                    // ptxas: "Illegal modifier '.ftz' for instruction 'set'".
                    let (col, tok) = bad(&t, "Illegal modifier '.ftz' for instruction 'set'");
                    assert_eq!((col, tok.as_str()), (7, ".ftz"));
                }
            }
        }
    }
    // Errata 18 spot checks.
    ok("set.lt.bf16.bf16 %d, %a, %b;");
}

/// ptxas 11.8 over every CmpOp x type of `setp` (errata 13): the accepted compares per class.
fn cmp_expected(ty: &str, c: &str) -> bool {
    let ordered = ["eq", "ne", "lt", "le", "gt", "ge"].contains(&c);
    match ty.as_bytes()[0] {
        b'b' if ty.starts_with("bf") => true,
        b'b' => c == "eq" || c == "ne",
        b's' => ordered,
        b'u' => ordered || ["lo", "ls", "hi", "hs"].contains(&c),
        _ => !["lo", "ls", "hi", "hs"].contains(&c),
    }
}

#[test]
fn cmp_type_rules() {
    for ty in [
        "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
    ] {
        for c in CMPS {
            for bool_op in ["", ".and", ".or", ".xor"] {
                let tail = if bool_op.is_empty() { "" } else { ", !%c" };
                let text = format!("setp.{c}{bool_op}.{ty} %p|%q, %a, %b{tail};");
                assert_eq!(accepted(&text), cmp_expected(ty, c), "{text}");
                if cmp_expected(ty, c) {
                    let s = setp(&text);
                    assert_eq!((s.cmp.name(), s.ty.name()), (c, ty));
                    assert_eq!(printed(&text), text, "canonical form");
                } else {
                    let (col, tok) = bad(&text, CMP);
                    assert_eq!((col, tok), (5, format!(".{c}")));
                }
                // `set` applies the rule to the source type.
                let text = format!("set.{c}{bool_op}.u32.{ty} %d, %a, %b{tail};");
                assert_eq!(accepted(&text), cmp_expected(ty, c), "{text}");
                if cmp_expected(ty, c) {
                    assert_eq!(printed(&text), text, "canonical form");
                    ok(&text);
                }
            }
        }
    }
    // Half sources take the float compares (9.7.7.1 lists no lo/ls/hi/hs).
    for c in CMPS {
        for s in ["f16", "bf16", "f16x2", "bf16x2"] {
            let text = format!("set.{c}.u32.{s} %d, %a, %b;");
            assert_eq!(accepted(&text), cmp_expected("f32", c), "{text}");
        }
    }
}

#[test]
fn set_and_setp_forms() {
    // All BoolOps with {!}c and every modifier order ptxas accepted.
    for b in BoolOp::ALL {
        for neg in [false, true] {
            let bang = if neg { "!" } else { "" };
            let s = set(&format!(
                "set.lt.{}.f32.f32 %r1, %r2, %r3, {bang}%p1;",
                b.name()
            ));
            assert!(
                matches!(s.bool_op, Some((bb, PredSrc::Reg { negate, .. })) if bb == b && negate == neg)
            );
        }
    }
    let canon = set("set.lt.and.ftz.f32.f32 %r1, %r2, %r3, %p1;");
    for t in [
        "set.lt.ftz.and.f32.f32 %r1, %r2, %r3, %p1;",
        "set.ftz.lt.and.f32.f32 %r1, %r2, %r3, %p1;",
        "set.f32.f32.lt.and.ftz %r1, %r2, %r3, %p1;",
    ] {
        assert_eq!(set(t), canon, "{t}");
    }
    assert_eq!(
        set("set.f32.s32.lt %r1, %r2, %r3;"),
        set("set.lt.f32.s32 %r1, %r2, %r3;")
    );
    assert_eq!(
        setp("setp.lt.s32.and %p1, %r2, %r3, %p2;"),
        setp("setp.lt.and.s32 %p1, %r2, %r3, %p2;")
    );
    // .ftz on setp only for f32 (ptxas: "Illegal modifier '.ftz' for instruction 'setp'").
    assert!(setp("setp.lt.ftz.f32 %p1, %r2, %r3;").ftz);
}

#[test]
fn setp_destinations_and_sinks() {
    let s = setp("setp.lt.s32 %p1, %r2, %r3;");
    assert!(s.p.is_some() && s.q.is_none());
    let s = setp("setp.lt.s32 %p1|%p2, %r2, %r3;");
    assert!(s.p.is_some() && matches!(s.q, Some(Some(_))));
    // ptxas accepts spaces around '|'.
    assert_eq!(setp("setp.lt.s32 %p1 | %p2, %r2, %r3;"), s);
    let s = setp("setp.lt.s32 %p1|_, %r2, %r3;");
    assert_eq!(s.q, Some(None));
    let s = setp("setp.lt.s32 _|%p1, %r2, %r3;");
    assert!(s.p.is_none() && matches!(s.q, Some(Some(_))));
    // ptxas accepts a lone sink.
    let s = setp("setp.lt.s32 _, %r2, %r3;");
    assert_eq!((s.p, s.q), (None, None));
    // ptxas: "Parsing error near '_': syntax error" for two sinks.
    let (col, tok) = bad("setp.lt.s32 _|_, %r2, %r3;", "syntax error");
    assert_eq!((col, tok.as_str()), (15, "_"));
    // Errata 20: valid PTX (ptxas crashes on it: no answer).
    let i = ok("@%g setp.ne.s32 _|%p2, %a, %b;");
    assert!(i.guard.is_some());
    // Half-precision setp (PTX 9.7.7.2): ptxas 11.8 accepts `setp.lt.f16`,
    // `setp.lt.ftz.f16`, `setp.lt.f16x2 %p1|%p2` and `setp.lt.f16x2 %p1` on
    // sm_53 and sm_90, and bf16/bf16x2 forms only on sm_90
    // ("Feature 'setp.bf16' requires .target sm_90 or higher").
    for t in [
        "setp.lt.f16 %p1, %h1, %h2;",
        "setp.lt.ftz.f16 %p1, %h1, %h2;",
        "setp.lt.f16x2 %p1|%p2, %r1, %r2;",
        "setp.lt.and.bf16 %p1, %h1, %h2, %p3;",
        "setp.lt.bf16x2 %p1|%p2, %r1, %r2;",
    ] {
        let i = ok(t);
        assert!(check_target(&i, Target::SM_90, None).is_ok(), "{t}");
    }
    let i = ok("setp.lt.f16x2 %p1|%p2, %r1, %r2;");
    assert!(check_target(&i, Target::SM_53, None).is_ok());
    let i = ok("setp.lt.bf16x2 %p1|%p2, %r1, %r2;");
    let e = check_target(&i, Target::SM_53, None).unwrap_err();
    assert_eq!(e.to_string(), "setp with a bf16 source needs sm_90");
}

// ---------------------------------------------------------------- immediates (errata 16a)

fn imm(o: Operand) -> u64 {
    match o {
        Operand::Imm(v) => v,
        o => panic!("{o:?}"),
    }
}

/// Immediate `operand` (`'a'` or `'b'`) of `set`/`setp` statement `text`.
fn imm_of(text: &str, operand: char) -> u64 {
    let (a, b) = if text.starts_with("setp") {
        let s = setp(text);
        (s.a, s.b)
    } else {
        let s = set(text);
        (s.a, s.b)
    };
    imm(if operand == 'a' { a } else { b })
}

#[test]
fn immediates() {
    // ptxas accepted every one of these: (statement, the operand, its value).
    #[rustfmt::skip]
    let cases = [
        ("set.lt.u32.u32 %d, 5, %a;", 'a', 5),
        ("set.lt.u32.u32 %d, -5, %a;", 'a', 0xFFFF_FFFB),
        ("set.lt.u32.u16 %d, %h, 70000;", 'b', 70000 & 0xFFFF),
        ("set.lt.u32.u16 %d, %h, -1;", 'b', 0xFFFF),
        ("set.lt.u32.u32 %d, %a, 0XFF;", 'b', 0xFF),
        ("set.lt.u32.u32 %d, %a, 0b101;", 'b', 5),
        ("set.lt.u32.u32 %d, %a, 017;", 'b', 15),
        ("set.lt.u32.u32 %d, %a, 5U;", 'b', 5),
        ("set.lt.u32.u32 %d, %a, 0xFFFFFFFFFF;", 'b', 0xFFFF_FFFF),
        ("set.lt.s32.s32 %d, 2147483648, %a;", 'a', 0x8000_0000),
        ("set.lt.f32.f32 %d, %a, 0f3F800000;", 'b', 0x3F80_0000),
        ("set.lt.f32.f32 %d, %a, 0F3F800000;", 'b', 0x3F80_0000),
        ("set.lt.f32.f32 %d, 1.5, %a;", 'a', u64::from(1.5f32.to_bits())),
        ("set.lt.f32.f32 %d, %a, -1.5;", 'b', u64::from((-1.5f32).to_bits())),
        ("set.lt.f32.f32 %d, %a, 1e3;", 'b', u64::from(1000f32.to_bits())),
        ("set.lt.f32.f64 %d, 0d3FF0000000000000, %a;", 'a', 1f64.to_bits()),
        ("set.lt.f32.f64 %d, 0f3F800000, %a;", 'a', 1f64.to_bits()),
        ("setp.lt.f32 %p, %a, 0f3F800000;", 'b', 0x3F80_0000),
        ("setp.lt.s32 %p1|%p2, %r2, 7;", 'b', 7),
        // Unary operators on literals (ptxas accepted each of these).
        ("set.lt.u32.u32 %r1, %r2, --5;", 'b', 5),
        ("set.lt.u32.u32 %r1, %r2, ---5;", 'b', 0xFFFF_FFFB),
        ("set.lt.u32.u32 %r1, %r2, !5;", 'b', 0),
        ("set.lt.u32.u32 %r1, %r2, ~5;", 'b', 0xFFFF_FFFA),
        ("set.lt.u32.u32 %r1, %r2, -~!5;", 'b', 1),
        ("set.lt.f32.f32 %r1, %r2, --1.5;", 'b', u64::from(1.5f32.to_bits())),
        ("set.lt.f32.f32 %r1, %r2, .5e1;", 'b', u64::from(5f32.to_bits())),
        ("set.lt.f32.f32 %r1, %r2, -.5;", 'b', u64::from((-0.5f32).to_bits())),
        ("set.lt.f32.f32 %r1, %r2, 0d3FF0000000000000;", 'b', u64::from(1f32.to_bits())),
        ("set.lt.f32.f64 %r1, %rd1, -0d3FF0000000000000;", 'b', (-1f64).to_bits()),
        // Bit types take float literals of their own width: .b32 `0f`, .b64 `0d` and decimal.
        ("set.eq.u32.b32 %r1, %r2, 0f3F800000;", 'b', 0x3F80_0000),
        ("setp.eq.b64 %p1, %rd1, 0d3FF0000000000000;", 'b', 1f64.to_bits()),
    ];
    for (text, operand, want) in cases {
        assert_eq!(imm_of(text, operand), want, "{text}");
    }
    // ptxas accepted every one of these.
    let s = ok_as!("selp.u32 %d, 1, 0, %p;", Selp);
    assert_eq!((imm(s.a), imm(s.b)), (1, 0));
    let s = ok_as!("slct.u32.s32 %r1, 1, 2, -3;", Slct);
    assert_eq!(imm(s.c), 0xFFFF_FFFD);
    let s = ok_as!("slct.u32.f32 %r1, %r2, %r3, 0f80000000;", Slct);
    assert_eq!(imm(s.c), 0x8000_0000);
    // Predicate c immediates: nonzero is true, `!` negates (ptxas accepts `1`, `!1`, `2`, `!0`, `-1`).
    for (c, v) in [
        ("1", true),
        ("!1", false),
        ("2", true),
        ("0", false),
        ("!0", true),
        ("-1", true),
    ] {
        let s = set(&format!("set.lt.and.f32.f32 %r1, %r2, %r3, {c};"));
        assert_eq!(s.bool_op, Some((BoolOp::And, PredSrc::Imm(v))), "{c}");
    }
    // ... but not when a bf16 type is involved (ptxas: "Arguments mismatch for instruction 'set'").
    ok("set.eq.and.s32.f16x2 %r1, %r2, %r3, 1;");
    ok("set.eq.and.f16.f32 %h1, %r2, %r3, 1;");
    ok("set.eq.and.bf16.s32 %h1, %r2, 5, %p1;");
    for t in [
        "set.eq.and.s32.bf16x2 %r1, %r2, %r3, 1;",
        "set.eq.and.bf16.f32 %h1, %r2, %r3, 1;",
        "set.eq.and.u32.bf16 %r1, %h2, %h3, 1;",
        "set.eq.and.bf16x2.bf16x2 %r1, %r2, %r3, !1;",
        "set.eq.and.bf16.u32 %h1, %r2, %r3, 1;",
    ] {
        let (col, tok) = bad(t, "Arguments mismatch for instruction 'set'");
        assert_eq!(tok, t[col - 1..t.len() - 1].trim_start_matches('!'), "{t}");
    }
    let s = ok_as!("selp.u32 %r1, 1, 0, !1;", Selp);
    assert_eq!(s.c, PredSrc::Imm(false));
    // A unary operator on a predicate literal (ptxas accepted it).
    assert_eq!(
        set("set.lt.and.u32.u32 %r1, %r2, %r3, ~0;").bool_op,
        Some((BoolOp::And, PredSrc::Imm(true)))
    );
    // Bit types take float literals of their own width: .b32 `0f`, .b64 `0d` and decimal.
    let a = ok_as!("mov.b64 %rd1, 1.5;", Alu);
    assert_eq!(a.a, Operand::Imm(1.5f64.to_bits()));
    let a = ok_as!("mov.b64 %rd1, --0d3FF0000000000000;", Alu);
    assert_eq!(a.a, Operand::Imm(1f64.to_bits()));
    let s = ok_as!("selp.b32 %r1, 0f3F800000, %r2, %p1;", Selp);
    assert_eq!(s.a, Operand::Imm(0x3F80_0000));
}

#[test]
fn immediates_display_round_trip() {
    for t in [
        "set.lt.s32.s16 %d, %a, -1;",
        "set.lt.u32.u64 %d, %a, 18446744073709551615;",
        "set.lt.u32.f32 %d, %a, 0f7FC00001;",
        "set.lt.u32.f64 %d, 0dFFF0000000000000, %a;",
        "setp.ne.and.b16 %p|_, %a, 65535, 1;",
        "selp.s64 %d, -9223372036854775808, 9223372036854775807, !%p;",
        "slct.ftz.f64.f32 %d, 0d8000000000000000, %a, 0f00000001;",
    ] {
        assert_eq!(printed(t), t);
        ok(t);
    }
    assert_eq!(
        printed("set.lt.f32.f32 %d, 1.5, %a;"),
        "set.lt.f32.f32 %d, 0f3FC00000, %a;"
    );
    assert_eq!(
        printed("set.lt.u32.u32 %d, 0x10, %a"),
        "set.lt.u32.u32 %d, 16, %a;"
    );
}

// ---------------------------------------------------------------- selp / slct / alu

#[test]
fn selp_slct_types() {
    for t in [
        "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
    ] {
        ok(&format!("selp.{t} %d, %a, %b, %p;"));
        ok(&format!("slct.{t}.s32 %d, %a, %b, %c;"));
        ok(&format!("slct.ftz.{t}.f32 %d, %a, %b, %c;"));
    }
    // ptxas: "Unexpected instruction types specified for 'selp'" for f16/bf16/pred.
    for t in ["f16", "bf16", "pred", "f16x2"] {
        bad(
            &format!("selp.{t} %d, %a, %b, %p;"),
            "Unexpected instruction types specified for 'selp'",
        );
    }
    // Errata 18 / ptxas: "Illegal modifier '.ftz' for instruction 'slct'".
    let (col, tok) = bad(
        "slct.ftz.u32.s32 %r1, %r2, %r3, %r1;",
        "Illegal modifier '.ftz' for instruction 'slct'",
    );
    assert_eq!((col, tok.as_str()), (5, ".ftz"));
    // ptxas accepts .ftz after the types.
    assert!(matches!(
        ok("slct.u32.f32.ftz %r1, %r2, %r3, %r4;").op,
        Op::Slct(Slct { ftz: true, .. })
    ));
}

/// ptxas 11.8 over op x {b,u,s}{16,32,64}: the accepted type classes.
#[test]
fn alu_types() {
    let int = [
        "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64",
    ];
    for (op, allowed) in [
        ("mov", "bus"),
        ("add", "us"),
        ("sub", "us"),
        ("mul.lo", "us"),
        ("and", "b"),
        ("or", "b"),
        ("xor", "b"),
        ("shl", "b"),
        ("shr", "bus"),
    ] {
        for t in int {
            let text = if op == "mov" {
                format!("{op}.{t} %d, %a;")
            } else {
                format!("{op}.{t} %d, %a, %b;")
            };
            assert_eq!(accepted(&text), allowed.contains(&t[..1]), "{text}");
            if accepted(&text) {
                ok(&text);
            }
        }
    }
    let a = ok_as!("mov.u32 %r1, %laneid;", Alu);
    assert_eq!(
        (a.op, a.a, a.b),
        (AluOp::Mov, Operand::Special(SpecialReg::LaneId), None)
    );
    let a = ok_as!("mov.b32 %r1, %warpid;", Alu);
    assert_eq!(a.a, Operand::Special(SpecialReg::WarpId));
    // mov also copies f32/f64 (ptxas accepts `mov.f32 %r1, 1.0;`), bit for bit.
    let a = ok_as!("mov.f32 %r1, 1.0;", Alu);
    assert_eq!(a.a, Operand::Imm(0x3F80_0000));
    let a = ok_as!("mov.f64 %rd1, 0d3FF0000000000000;", Alu);
    assert_eq!(a.a, Operand::Imm(1f64.to_bits()));
    let a = ok_as!("mov.s16 %h1, -1;", Alu);
    assert_eq!(a.a, Operand::Imm(0xFFFF));
    let a = ok_as!("add.u32 %r1, 5, 6;", Int);
    assert_eq!((a.a, a.b), (Operand::Imm(5), Some(Operand::Imm(6))));
    let a = ok_as!("shl.b64 %rd1, %rd2, 40;", Alu);
    assert_eq!(a.b, Some(Operand::Imm(40)));
    let a = ok_as!("mul.lo.s32 %r1, %r2, %r3;", Int);
    assert_eq!(a.op, IntOp::Mul(MulMode::Lo));
}

// ---------------------------------------------------------------- syntax, guards, columns

#[test]
fn registers_guards_comments() {
    // Registers with or without '%', any identifier.
    let mut syms = Symbols::new();
    let i = parse_instruction("@!%g1 add.u32 r1, %r2, $x_1;", &mut syms).unwrap();
    assert_eq!(
        i.guard.map(|g| (syms.name(g.reg), g.negate)),
        Some(("%g1", true))
    );
    let Op::Int(a) = i.op else { panic!() };
    assert_eq!(syms.name(a.d), "r1");
    assert_eq!(a.b, Some(Operand::Reg(syms.get("$x_1").unwrap())));
    // ptxas accepts spaces after '@' and '!'.
    assert_eq!(
        ok("@ %g1 add.u32 %r1, %r2, %r3;").guard.map(|g| g.negate),
        Some(false)
    );
    assert_eq!(
        ok("@! %g1 add.u32 %r1, %r2, %r3;").guard.map(|g| g.negate),
        Some(true)
    );
    // Guards on every family.
    for t in [
        "@!%p vadd4.u32.u32.u32 %r1, %r2, %r3, %r4;",
        "@%p set.lt.u32.u32 %r1, %r2, %r3;",
        "@%p setp.lt.u32 %q, %r2, %r3;",
        "@!%p selp.u32 %r1, %r2, %r3, %q;",
        "@%p slct.u32.s32 %r1, %r2, %r3, %r4;",
        "@!%p mov.u32 %r1, %laneid;",
    ] {
        assert_eq!(printed(t), t);
        assert!(ok(t).guard.is_some());
    }
    // Comments, whitespace, optional ';' (printed with ';').
    let a = ok("vadd2.s32.s32.u32.sat %r1.h0, %r2.h10, %r3.h32, %r1;");
    let b = ok("  vadd2 /* op */ .s32.s32.u32.sat\t%r1.h0 ,%r2.h10,\n%r3.h32, %r1 // trailing\n");
    assert_eq!(a, b);
    assert_eq!(
        printed("vadd2.s32.s32.u32.sat %r1.h0,%r2.h10,%r3.h32,%r1"),
        "vadd2.s32.s32.u32.sat %r1.h0, %r2.h10, %r3.h32, %r1;"
    );
    ok("add .u32 %r1, %r2, %r3;");
}

#[test]
fn error_columns() {
    // Columns are 1-based characters within the given text.
    let cases: [(&str, usize, &str); 8] = [
        ("set.lo.s32.s32 %r1, %r2, %r3;", 4, ".lo"),
        ("  set.lt.ftz.s32.s32 %r1, %r2, %r3;", 9, ".ftz"),
        ("vadd4.u32.u32.u32 %r1.b02, %r2, %r3, %r4;", 22, ".b02"),
        ("frob.u32 %r1;", 1, "frob"),
        ("add.u32 %r1, %r2, #;", 19, "#"),
        ("set.lt.u16.u32 %r1, %r2, %r3;", 7, ".u16"),
        ("setp.lt.s32 %p1, %r2, %r3, %p4;", 1, "setp"),
        ("set.lt.u32.u32 %r1, %r2, 1.5;", 26, "1.5"),
    ];
    for (t, col, tok) in cases {
        let mut syms = Symbols::new();
        match parse_instruction(t, &mut syms) {
            Err(IsaError::Invalid { col: c, token, .. }) => {
                assert_eq!((c, token.as_str()), (col, tok), "{t}")
            }
            o => panic!("{t}: {o:?}"),
        }
    }
    // Non-ASCII text counts characters, not bytes, and never splits one.
    let (col, tok) = bad("/*é*/ add.u32 %r1, %r2, ü;", "syntax error");
    assert_eq!((col, tok.as_str()), (25, "ü"));
}

// ---------------------------------------------------------------- gating (errata 19)

fn unsupported(text: &str, target: Target, version: Option<PtxVersion>) -> (String, Requirement) {
    let mut syms = Symbols::new();
    match parse_for_target(text, &mut syms, target, version) {
        Err(IsaError::Unsupported { what, need }) => (what, need),
        o => panic!("{text}: {o:?}"),
    }
}

fn supported(text: &str, target: Target, version: Option<PtxVersion>) {
    let mut syms = Symbols::new();
    parse_for_target(text, &mut syms, target, version)
        .unwrap_or_else(|e| panic!("{text} on {target}: {e}"));
}

#[test]
fn gating() {
    let sm = |s: &str| Target::parse(s).unwrap();
    let v = |a, b| Some(PtxVersion::new(a, b));
    let vid = "vadd4.u32.u32.u32 %r1, %r2, %r3, %r4;";
    assert_eq!(unsupported(vid, sm("sm_20"), None).1, Requirement::Sm(30));
    assert_eq!(
        unsupported(vid, sm("sm_30"), v(2, 3)).1,
        Requirement::Ptx(PtxVersion::new(3, 0))
    );
    supported(vid, sm("sm_30"), v(3, 0));
    let f64s = [
        "set.lt.u32.f64 %r1, %a, %b;",
        "setp.lt.f64 %p, %a, %b;",
        "selp.f64 %d, %a, %b, %p;",
        "slct.f64.s32 %d, %a, %b, %c;",
    ];
    for t in f64s {
        assert_eq!(
            unsupported(t, sm("sm_12"), None).1,
            Requirement::Sm(13),
            "{t}"
        );
        supported(t, sm("sm_13"), v(1, 0));
    }
    let f16 = "set.lt.f16.f16 %h, %a, %b;";
    assert_eq!(unsupported(f16, sm("sm_52"), None).1, Requirement::Sm(53));
    assert_eq!(
        unsupported(f16, sm("sm_53"), v(4, 1)).1,
        Requirement::Ptx(PtxVersion::new(4, 2))
    );
    supported(f16, sm("sm_53"), v(4, 2));
    supported("set.lt.f16.f32 %h, %a, %b;", sm("sm_53"), v(4, 2));
    for t in [
        "set.lt.u16.f16 %d, %a, %b;",
        "set.lt.s32.f16x2 %d, %a, %b;",
        "set.lt.u32.f16 %d, %a, %b;",
    ] {
        assert_eq!(
            unsupported(t, sm("sm_53"), v(6, 4)).1,
            Requirement::Ptx(PtxVersion::new(6, 5)),
            "{t}"
        );
        supported(t, sm("sm_53"), v(6, 5));
    }
    supported("set.lt.f16x2.f16x2 %d, %a, %b;", sm("sm_53"), v(4, 2));
    for t in [
        "set.lt.u32.bf16 %d, %a, %b;",
        "set.lt.bf16x2.bf16x2 %d, %a, %b;",
        "set.lt.bf16.f32 %d, %a, %b;",
        "set.lt.bf16.bf16 %d, %a, %b;",
        "set.lt.u16.bf16 %d, %a, %b;",
    ] {
        let (what, need) = unsupported(t, sm("sm_89"), None);
        assert_eq!(need, Requirement::Sm(90), "{t}");
        assert!(what.contains("bf16"), "{what}");
        assert_eq!(
            unsupported(t, sm("sm_90"), v(7, 7)).1,
            Requirement::Ptx(PtxVersion::new(7, 8))
        );
        supported(t, sm("sm_90"), v(7, 8));
        supported(t, sm("sm_90a"), None);
    }
    // The wording.
    let mut syms = Symbols::new();
    let e =
        parse_for_target("set.lt.u32.bf16 %d, %a, %b;", &mut syms, sm("sm_53"), None).unwrap_err();
    assert_eq!(e.to_string(), "set with a bf16 source needs sm_90");
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    // Target is checked before version.
    assert_eq!(
        unsupported("set.lt.u32.bf16 %d, %a, %b;", sm("sm_53"), v(6, 0)).1,
        Requirement::Sm(90)
    );
    // Plain forms need nothing.
    supported("set.lt.u32.f32 %d, %a, %b;", sm("sm_10"), v(1, 0));
    supported("selp.u32 %d, %a, %b, %p;", sm("sm_10"), v(1, 0));
    // Invalid wins over unsupported.
    let e = parse_for_target(
        "vadd4.s32.s32.s32.sat.add %r1, %r2, %r3, %r4;",
        &mut syms,
        sm("sm_20"),
        None,
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid);
    let i = parse_instruction(f16, &mut syms).unwrap();
    assert!(check_target(&i, Target::SM_53, None).is_ok());
}

// ---------------------------------------------------------------- robustness

#[test]
fn never_panics_on_garbage() {
    let pieces = [
        "vadd4",
        "set",
        "setp",
        "selp",
        "slct",
        "mov",
        ".s32",
        ".u32",
        ".f16",
        ".bf16x2",
        ".lt",
        ".and",
        ".ftz",
        ".sat",
        ".add",
        ".h10",
        ".b3210",
        ".b7",
        "%r1",
        "_",
        "|",
        "!",
        "@",
        ",",
        ";",
        "-",
        "0f",
        "0f3F800000",
        "0d",
        "0x",
        "99999999999999999999999",
        "1e",
        "1.5e+",
        "/*",
        "*/",
        "//",
        "é",
        "\u{0}",
        " ",
        ".",
        "%laneid",
        "..",
        "0b",
        "08",
        "0U",
        "1.5.5",
    ];
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut syms = Symbols::new();
    for _ in 0..20000 {
        let mut s = String::new();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let n = (seed % 12) as usize;
        for k in 0..n {
            let r = seed.rotate_left(5 * k as u32);
            s.push_str(pieces[(r % pieces.len() as u64) as usize]);
            if r & 64 != 0 {
                s.push(' ');
            }
        }
        if let Ok(i) = parse_instruction(&s, &mut syms) {
            let p = i.display(&syms).to_string();
            assert_eq!(parse_instruction(&p, &mut syms).ok(), Some(i), "{s} -> {p}");
        }
    }
}

/// ptxas 11.8 accepts a sink as `set`'s second destination (`%r1|_`) and
/// rejects a second real register (`%r1|%r2`); found by the xtask validity
/// differential (docs/validation.md).
#[test]
fn set_accepts_sink_second_destination() {
    let mut syms = sim_isa::Symbols::new();
    let with_sink =
        sim_isa::parse::parse_instruction("set.eq.f32.b64 %r1|_, %rd1, %rd2;", &mut syms).unwrap();
    let plain =
        sim_isa::parse::parse_instruction("set.eq.f32.b64 %r1, %rd1, %rd2;", &mut syms).unwrap();
    assert_eq!(with_sink, plain);
    let err = sim_isa::parse::parse_instruction("set.eq.f32.b64 %r1|%r2, %rd1, %rd2;", &mut syms)
        .unwrap_err();
    assert_eq!(err.kind(), sim_isa::ErrorKind::Invalid);
}
