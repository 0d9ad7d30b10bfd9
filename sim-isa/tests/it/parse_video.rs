//! Parser, validator and Display for the SIMD video instructions and the
//! spec's Examples blocks. "ptxas:" comments record what ptxas 11.8
//! (`-arch=sm_90`, `.version 7.8` unless noted) said about the text.

use super::parse::{bad, ok, printed, set, setp, video, SEL};
use sim_isa::parse::parse_for_target;
use sim_isa::*;

// ---------------------------------------------------------------- spec Examples blocks

#[test]
fn examples_simd_video() {
    let v = video("vadd2.s32.s32.u32.sat  r1, r2, r3, r1;");
    assert!(v.dsigned && v.asigned && !v.bsigned && v.sat && !v.add);
    assert_eq!((v.mask, v.asel, v.bsel), (0b11, [0, 1, 0, 0], [2, 3, 0, 0]));
    let v = video("vsub2.s32.s32.s32.sat  r1.h0, r2.h10, r3.h32, r1;");
    assert_eq!(
        (v.mask, v.mask_explicit, v.asel_explicit),
        (0b01, true, true)
    );
    let v = video("vmin2.s32.u32.u32.add  r1.h10, r2.h00, r3.h22, r1;");
    assert_eq!((v.asel, v.bsel, v.add), ([0, 0, 0, 0], [2, 2, 0, 0], true));
    let v = video("vadd4.s32.s32.u32.sat  r1, r2, r3, r1;");
    assert_eq!(
        (v.mask, v.asel, v.bsel),
        (0b1111, [0, 1, 2, 3], [4, 5, 6, 7])
    );
    let v = video("vsub4.s32.s32.s32.sat  r1.b0, r2.b3210, r3.b7654, r1;");
    assert_eq!(v.mask, 0b0001);
    // Errata 9 / ptxas: "Incorrect video selector for operand 0".
    let (col, tok) = bad(
        "vmin4.s32.u32.u32.add  r1.b00, r2.b0000, r3.b2222, r1;",
        SEL,
    );
    assert_eq!((col, tok.as_str()), (26, ".b00"));
    // Without the bad mask the rest of that example is fine.
    let v = video("vmin4.s32.u32.u32.add  r1, r2.b0000, r3.b2222, r1;");
    assert_eq!((v.asel, v.bsel), ([0; 4], [2; 4]));
}

#[test]
fn examples_vset() {
    let v = video("vset2.s32.u32.lt      r1, r2, r3, r0;");
    assert_eq!(
        (v.op, v.asigned, v.bsigned, v.dsigned),
        (VideoOp::Set(CmpOp::Lt), true, false, false)
    );
    let v = video("vset2.u32.u32.ne.add  r1, r2, r3, r0;");
    assert!(v.add && v.op == VideoOp::Set(CmpOp::Ne));
    let v = video("vset4.s32.u32.lt      r1, r2, r3, r0;");
    assert_eq!(v.simd, Simd::X4);
    // Errata 9 / ptxas: "Illegal secondary operation for video instruction 'vset4'".
    let (col, tok) = bad(
        "vset4.u32.u32.ne.max  r1, r2, r3, r0;",
        "Illegal secondary operation for video instruction 'vset4'",
    );
    assert_eq!((col, tok.as_str()), (17, ".max"));
}

#[test]
fn examples_set_setp_selp_slct() {
    let i = ok("@p  set.lt.and.f32.s32  d,a,b,r;");
    assert!(matches!(i.guard, Some(Guard { negate: false, .. })));
    let Op::Set(s) = i.op else { panic!() };
    assert_eq!((s.cmp, s.dtype, s.stype), (CmpOp::Lt, Type::F32, Type::S32));
    assert!(matches!(
        s.bool_op,
        Some((BoolOp::And, PredSrc::Reg { negate: false, .. }))
    ));
    let s = set("    set.eq.u32.u32      d,i,n;");
    assert_eq!((s.cmp, s.bool_op), (CmpOp::Eq, None));
    let s = setp("    setp.lt.and.s32  p|q,a,b,r;");
    assert!(s.p.is_some() && matches!(s.q, Some(Some(_))));
    let i = ok("@q  setp.eq.u32      p,i,n;");
    assert!(i.guard.is_some());
    ok("    selp.s32  r0,r,g,p;");
    ok("@q  selp.f32  f0,t,x,xp;");
    ok("slct.u32.s32  x, y, z, val;");
    let i = ok("slct.ftz.u64.f32  A, B, C, fval;");
    assert!(matches!(
        i.op,
        Op::Slct(Slct {
            ftz: true,
            dtype: Type::U64,
            ctype: Type::F32,
            ..
        })
    ));
}

#[test]
fn examples_half_set() {
    for (text, d, s) in [
        ("set.lt.and.f16.f16  d,a,b,r;", Type::F16, Type::F16),
        ("set.eq.f16x2.f16x2  d,i,n;", Type::F16x2, Type::F16x2),
        ("set.eq.u32.f16x2    d,i,n;", Type::U32, Type::F16x2),
        ("set.lt.and.u16.f16  d,a,b,r;", Type::U16, Type::F16),
        ("set.ltu.or.bf16.f16    d,u,v,s;", Type::Bf16, Type::F16),
        ("set.equ.bf16x2.bf16x2  d,j,m;", Type::Bf16x2, Type::Bf16x2),
        ("set.geu.s32.bf16x2     d,j,m;", Type::S32, Type::Bf16x2),
        ("set.num.xor.s32.bf16   d,u,v,s;", Type::S32, Type::Bf16),
    ] {
        let st = set(text);
        assert_eq!((st.dtype, st.stype), (d, s), "{text}");
        let mut syms = Symbols::new();
        assert!(
            parse_for_target(text, &mut syms, Target::SM_90, Some(PtxVersion::new(7, 8))).is_ok()
        );
    }
}

// ---------------------------------------------------------------- video variants

const ARITH2: [&str; 6] = ["vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2"];
const ARITH4: [&str; 6] = ["vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4"];
const MASKS2: [(&str, u8); 3] = [("h0", 1), ("h1", 2), ("h10", 3)];
/// Errata 10: the 15 listed 4-way masks.
const MASKS4: [&str; 15] = [
    "b0", "b1", "b10", "b2", "b20", "b21", "b210", "b3", "b30", "b31", "b310", "b32", "b320",
    "b321", "b3210",
];

fn mask_bits(m: &str) -> u8 {
    m[1..].bytes().fold(0, |acc, d| acc | 1 << (d - b'0'))
}

#[test]
fn every_legal_video_variant() {
    let tys = ["u32", "s32"];
    let mut n = 0;
    for simd in [Simd::X2, Simd::X4] {
        let (ops, masks): (&[&str], Vec<(String, u8)>) = match simd {
            Simd::X2 => (
                &ARITH2,
                MASKS2.iter().map(|(m, b)| (m.to_string(), *b)).collect(),
            ),
            Simd::X4 => (
                &ARITH4,
                MASKS4
                    .iter()
                    .map(|m| (m.to_string(), mask_bits(m)))
                    .collect(),
            ),
        };
        let (asel, bsel, sa, sb) = match simd {
            Simd::X2 => (".h21", ".h03", [1, 2, 0, 0], [3, 0, 0, 0]),
            Simd::X4 => (".b7150", ".b0123", [0, 5, 1, 7], [3, 2, 1, 0]),
        };
        let vset = if simd == Simd::X2 { "vset2" } else { "vset4" };
        for op in ops.iter().copied().chain(std::iter::once(vset)) {
            let is_set = op.starts_with("vset");
            let dts: &[&str] = if is_set { &[""] } else { &tys };
            let seconds: &[&str] = if is_set {
                &["", ".add"]
            } else {
                &["", ".sat", ".add"]
            };
            let cmps: &[&str] = if is_set {
                &[".eq", ".ne", ".lt", ".le", ".gt", ".ge"]
            } else {
                &[""]
            };
            for dt in dts {
                for at in tys {
                    for bt in tys {
                        for cmp in cmps {
                            for sec in seconds {
                                for (mask, mbits) in masks
                                    .iter()
                                    .map(|(m, b)| (format!(".{m}"), *b))
                                    .chain([(String::new(), (1 << simd.lanes()) - 1)])
                                {
                                    for explicit in [false, true] {
                                        let d = if dt.is_empty() {
                                            String::new()
                                        } else {
                                            format!(".{dt}")
                                        };
                                        let (xa, xb) =
                                            if explicit { (asel, bsel) } else { ("", "") };
                                        let text = format!("{op}{d}.{at}.{bt}{cmp}{sec} %r1{mask}, %r2{xa}, %r3{xb}, %r4;");
                                        let v = video(&text);
                                        assert_eq!(v.simd, simd);
                                        assert_eq!(v.mask, mbits, "{text}");
                                        assert_eq!(v.mask_explicit, !mask.is_empty());
                                        assert_eq!(
                                            (v.asigned, v.bsigned),
                                            (at == "s32", bt == "s32")
                                        );
                                        assert_eq!(v.dsigned, *dt == "s32");
                                        assert_eq!(
                                            (v.sat, v.add),
                                            (*sec == ".sat", *sec == ".add")
                                        );
                                        // Errata 11 defaults: a .h10/.b3210, b .h32/.b7654.
                                        let want = if explicit {
                                            (sa, sb)
                                        } else if simd == Simd::X2 {
                                            ([0, 1, 0, 0], [2, 3, 0, 0])
                                        } else {
                                            ([0, 1, 2, 3], [4, 5, 6, 7])
                                        };
                                        assert_eq!((v.asel, v.bsel), want, "{text}");
                                        assert_eq!(
                                            (v.asel_explicit, v.bsel_explicit),
                                            (explicit, explicit)
                                        );
                                        assert_eq!(v.op == VideoOp::Set(CmpOp::Eq), *cmp == ".eq");
                                        assert_eq!(printed(&text), text, "canonical form");
                                        n += 1;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(n > 5000, "{n}");
}

#[test]
fn video_modifier_orders() {
    // Errata 12; ptxas also accepts `.sat` between the types and `.add`/the
    // compare anywhere (`vadd4.add.s32.s32.s32`, `vset4.lt.u32.u32`, `vset4.u32.lt.u32`).
    let v = video("vadd4.sat.s32.s32.s32 %r1, %r2, %r3, %r4;");
    assert!(v.sat && v.sat_first);
    assert_eq!(
        printed("vadd4.sat.s32.s32.s32 %r1, %r2, %r3, %r4;"),
        "vadd4.sat.s32.s32.s32 %r1, %r2, %r3, %r4;"
    );
    assert!(video("vadd4.s32.sat.s32.s32 %r1, %r2, %r3, %r4;").sat);
    assert!(video("vadd4.add.s32.s32.s32 %r1, %r2, %r3, %r4;").add);
    assert_eq!(
        video("vset4.lt.u32.u32 r1, r2, r3, r0;"),
        video("vset4.u32.u32.lt r1, r2, r3, r0;")
    );
    assert_eq!(
        video("vset4.u32.lt.u32 r1, r2, r3, r0;"),
        video("vset4.u32.u32.lt r1, r2, r3, r0;")
    );
    assert_eq!(
        video("vset4.add.u32.u32.lt r1, r2, r3, r0;"),
        video("vset4.u32.u32.lt.add r1, r2, r3, r0;")
    );
    // ptxas accepts a repeated flag.
    assert!(video("vadd4.sat.sat.s32.s32.s32 %r1, %r2, %r3, %r4;").sat);
    // ptxas accepts whitespace before a selector (`%r1 .h1`) but not after the dot.
    assert_eq!(video("vadd2.s32.s32.s32 %r1 .h1, %r2, %r3, %r4;").mask, 2);
}

#[test]
fn video_illegal_neighbours() {
    // Errata 6 / ptxas, in every order.
    for t in [
        "vadd4.s32.s32.s32.sat.add %r1, %r2, %r3, %r4;",
        "vadd4.s32.s32.s32.add.sat %r1, %r2, %r3, %r4;",
        "vadd4.sat.s32.s32.s32.add %r1, %r2, %r3, %r4;",
        "vmin2.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;",
    ] {
        bad(t, "Illegal combination of .sat and .add modifiers");
    }
    let (col, tok) = bad(
        "vadd4.s32.s32.s32.sat.add %r1, %r2, %r3, %r4;",
        "Illegal combination",
    );
    assert_eq!((col, tok.as_str()), (22, ".add"));
    // Errata 9: masks exactly the listed ones (ptxas: "Incorrect video selector for operand 0").
    for m in ["h01", "h00", "h11", "h2", "h210"] {
        bad(&format!("vadd2.s32.s32.s32 %r1.{m}, %r2, %r3, %r4;"), SEL);
    }
    for m in ["b00", "b01", "b02", "b03", "b33", "b4", "b0123", "h10"] {
        bad(&format!("vadd4.u32.u32.u32 %r1.{m}, %r2, %r3, %r4;"), SEL);
    }
    // Errata 11: half-word selector on a quad-byte op and the reverse; wrong lengths.
    let (col, _) = bad(
        "vadd2.s32.s32.s32 %r1.h1, %r2.b3210, %r3, %r4;",
        "Incorrect video selector for operand 1",
    );
    assert_eq!(col, 30);
    bad(
        "vadd4.s32.s32.s32.lt %r1, %r2, %r3, %r4;",
        // ptxas wording.
        "Comparison qualifier is not allowed for instruction 'vadd4'",
    );
}
