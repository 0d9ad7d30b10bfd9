//! Acceptance 3: every instruction in the Examples blocks of
//! `shared/spec/*.md` is accepted on a suitable target and executed with
//! values worked out by hand from the Semantics blocks and ERRATA.md, or
//! rejected for the erratum's reason. The vset2/vset4 files repeat the video
//! file's vset examples, so each text is tested once.

use super::model::{parse_err, parse_on, Run};
use sim_isa::parse::check_target;
use sim_isa::{ErrorKind, IsaError, PtxVersion, Requirement, Symbols, Target};

const SM_20: Target = Target {
    sm: 20,
    suffix: None,
};
const SM_52: Target = Target {
    sm: 52,
    suffix: None,
};
const SM_80: Target = Target {
    sm: 80,
    suffix: None,
};
const SM_89: Target = Target {
    sm: 89,
    suffix: None,
};

/// Accepted on `ok`, refused on `below` as unsupported, naming `sm_{need}`.
fn gated(text: &str, ok: Target, below: Target, need: u32) {
    let (inst, _) = parse_on(text, ok);
    match check_target(&inst, below, None) {
        Err(e @ IsaError::Unsupported { need: n, .. }) => {
            assert_eq!(e.kind(), ErrorKind::Unsupported);
            assert_eq!(n, Requirement::Sm(need), "`{text}` on {below}: {e}");
        }
        other => panic!("`{text}` on {below}: expected Unsupported(sm_{need}), got {other:?}"),
    }
}

/// Accepted with `.version` `ok`, refused with `old` naming PTX `need`.
fn version_gated(text: &str, target: Target, ok: PtxVersion, old: PtxVersion, need: PtxVersion) {
    let (inst, _) = parse_on(text, target);
    check_target(&inst, target, Some(ok)).unwrap_or_else(|e| panic!("`{text}` with PTX {ok}: {e}"));
    match check_target(&inst, target, Some(old)) {
        Err(e @ IsaError::Unsupported { need: n, .. }) => {
            assert_eq!(n, Requirement::Ptx(need), "`{text}` with PTX {old}: {e}")
        }
        other => panic!("`{text}` with PTX {old}: expected Unsupported(PTX {need}), got {other:?}"),
    }
}

/// Asserts an Invalid error whose token is found at its column and matches `token_has`,
/// with a message that mentions one of `reason`.
fn invalid(text: &str, token_has: &str, reason: &[&str]) {
    let e = parse_err(text);
    assert_eq!(e.kind(), ErrorKind::Invalid, "`{text}`: {e}");
    let IsaError::Invalid {
        col,
        token,
        reason: msg,
    } = &e
    else {
        unreachable!()
    };
    assert!(
        token.contains(token_has),
        "`{text}`: token {token:?} should name {token_has:?}"
    );
    assert!(
        *col >= 1 && text[col - 1..].starts_with(token.as_str()),
        "`{text}`: column {col} does not point at {token:?}"
    );
    let m = msg.to_string().to_lowercase();
    assert!(
        reason.iter().any(|r| m.contains(r)),
        "`{text}`: message {msg:?} should say one of {reason:?}"
    );
}

// ------------------------------------------------------------ 9.7.18.2 video

#[test]
fn vadd2_s32_s32_u32_sat() {
    let text = "vadd2.s32.s32.u32.sat  r1, r2, r3, r1;";
    gated(text, Target::SM_30, SM_20, 30);
    version_gated(
        text,
        Target::SM_30,
        PtxVersion::new(3, 0),
        PtxVersion::new(2, 3),
        PtxVersion::new(3, 0),
    );
    let mut r = Run::new(text, Target::SM_30);
    // lane 0: a = (0x7FFF, 0x8000 = -32768) signed, b = (1, 0xFFFF = 65535) unsigned.
    //   lane1 32767+1 = 32768 -> 32767; lane0 -32768+65535 = 32767.
    r.set("r2", 0, 0x7FFF_8000)
        .set("r3", 0, 0x0001_FFFF)
        .set("r1", 0, 0xDEAD_BEEF);
    // lane 1: a = (-32768, 5), b = (0, 3): -32768 stays, 8.
    r.set("r2", 1, 0x8000_0005)
        .set("r3", 1, 0x0000_0003)
        .set("r1", 1, 0x1234_5678);
    r.exec(Target::SM_30, 0b11);
    assert_eq!(r.get("r1", 0), 0x7FFF_7FFF);
    assert_eq!(r.get("r1", 1), 0x8000_0008);
}

#[test]
fn vsub2_s32_s32_s32_sat_h0() {
    let text = "vsub2.s32.s32.s32.sat  r1.h0, r2.h10, r3.h32, r1;";
    gated(text, Target::SM_30, SM_20, 30);
    let mut r = Run::new(text, Target::SM_30);
    // Only half 0 is written; half 1 comes from c = r1 (ERRATA 1, 2).
    // lane 0: -32768 - 1 = -32769 -> -32768 (0x8000).
    r.set("r2", 0, 0x1234_8000)
        .set("r3", 0, 0x5678_0001)
        .set("r1", 0, 0xCAFE_BABE);
    // lane 1: 32767 - (-1) = 32768 -> 32767.
    r.set("r2", 1, 0x0000_7FFF)
        .set("r3", 1, 0x0000_FFFF)
        .set("r1", 1, 0x1111_2222);
    r.exec(Target::SM_30, 0b11);
    assert_eq!(r.get("r1", 0), 0xCAFE_8000);
    assert_eq!(r.get("r1", 1), 0x1111_7FFF);
}

#[test]
fn vmin2_s32_u32_u32_add() {
    let text = "vmin2.s32.u32.u32.add  r1.h10, r2.h00, r3.h22, r1;";
    gated(text, Target::SM_30, SM_20, 30);
    let mut r = Run::new(text, Target::SM_30);
    // asel .h00: both lanes take a's half 0; bsel .h22: both take b's half 0.
    // lane 0: min(5, 3) twice: d = 0x10 + 6.
    r.set("r2", 0, 0x0000_0005)
        .set("r3", 0, 0xFFFF_0003)
        .set("r1", 0, 0x10);
    // lane 1: min(65535, 65534) twice = 131068 at full precision (ERRATA 3):
    // 0xFFFFFFFF + 0x1FFFC mod 2^32 = 0x1FFFB.
    r.set("r2", 1, 0x1234_FFFF)
        .set("r3", 1, 0x0000_FFFE)
        .set("r1", 1, 0xFFFF_FFFF);
    r.exec(Target::SM_30, 0b11);
    assert_eq!(r.get("r1", 0), 0x16);
    assert_eq!(r.get("r1", 1), 0x0001_FFFB);
}

#[test]
fn vset2_s32_u32_lt() {
    let text = "vset2.s32.u32.lt      r1, r2, r3, r0;";
    gated(text, Target::SM_30, SM_20, 30);
    let mut r = Run::new(text, Target::SM_30);
    // lane 0: a = (-1, 2) signed, b = (0, 1): -1 < 0 -> 1, 2 < 1 -> 0. ERRATA 8: 1/0 per lane.
    r.set("r2", 0, 0xFFFF_0002)
        .set("r3", 0, 0x0000_0001)
        .set("r0", 0, 0xAAAA_AAAA)
        .set("r1", 0, 0x5555_5555);
    // lane 1: a = (0, 32767), b = (0, 65535) unsigned: 0 < 0 -> 0, 32767 < 65535 -> 1.
    r.set("r2", 1, 0x0000_7FFF)
        .set("r3", 1, 0x0000_FFFF)
        .set("r0", 1, 0xAAAA_AAAA);
    r.exec(Target::SM_30, 0b11);
    assert_eq!(r.get("r1", 0), 0x0001_0000);
    assert_eq!(r.get("r1", 1), 0x0000_0001);
}

#[test]
fn vset2_u32_u32_ne_add() {
    let text = "vset2.u32.u32.ne.add  r1, r2, r3, r0;";
    gated(text, Target::SM_30, SM_20, 30);
    let mut r = Run::new(text, Target::SM_30);
    // lane 0: (1 != 1) + (2 != 3) = 1; 0xFFFFFFFF + 1 wraps to 0.
    r.set("r2", 0, 0x0001_0002)
        .set("r3", 0, 0x0001_0003)
        .set("r0", 0, 0xFFFF_FFFF);
    // lane 1: both differ: 0x100 + 2.
    r.set("r2", 1, 0x1234_5678)
        .set("r3", 1, 0x4321_8765)
        .set("r0", 1, 0x100);
    r.exec(Target::SM_30, 0b11);
    assert_eq!(r.get("r1", 0), 0);
    assert_eq!(r.get("r1", 1), 0x102);
}

#[test]
fn vadd4_s32_s32_u32_sat() {
    let text = "vadd4.s32.s32.u32.sat  r1, r2, r3, r1;";
    gated(text, Target::SM_30, SM_20, 30);
    let mut r = Run::new(text, Target::SM_30);
    // lane 0: a = (127, -128, 1, -1) signed, b = (1, 255, 128, 0) unsigned (byte 3 first):
    // 128 -> 127, 127, 129 -> 127, -1 -> 0xFF.
    r.set("r2", 0, 0x7F80_01FF)
        .set("r3", 0, 0x01FF_8000)
        .set("r1", 0, 0);
    // lane 1: a = (-128, -128, 16, 0), b = (0, 127, 5, 0): -128, -1, 21, 0.
    r.set("r2", 1, 0x8080_1000)
        .set("r3", 1, 0x007F_0500)
        .set("r1", 1, 0);
    r.exec(Target::SM_30, 0b11);
    assert_eq!(r.get("r1", 0), 0x7F7F_7FFF);
    assert_eq!(r.get("r1", 1), 0x80FF_1500);
}

#[test]
fn vsub4_s32_s32_s32_sat_b0() {
    let text = "vsub4.s32.s32.s32.sat  r1.b0, r2.b3210, r3.b7654, r1;";
    gated(text, Target::SM_30, SM_20, 30);
    let mut r = Run::new(text, Target::SM_30);
    // Only byte 0 written; bytes 3..1 from c = r1.
    // lane 0: -128 - 1 -> -128 (0x80).
    r.set("r2", 0, 0x1122_3380)
        .set("r3", 0, 0x4455_6601)
        .set("r1", 0, 0xAABB_CCDD);
    // lane 1: 127 - (-1) = 128 -> 127.
    r.set("r2", 1, 0x0000_007F)
        .set("r3", 1, 0x0000_00FF)
        .set("r1", 1, 0x0102_0304);
    r.exec(Target::SM_30, 0b11);
    assert_eq!(r.get("r1", 0), 0xAABB_CC80);
    assert_eq!(r.get("r1", 1), 0x0102_037F);
}

#[test]
fn vmin4_b00_mask_is_rejected_errata_9() {
    // ERRATA 9: `.b00` is not a mask ("Incorrect video selector").
    invalid(
        "vmin4.s32.u32.u32.add  r1.b00, r2.b0000, r3.b2222, r1;",
        "b00",
        &["selector", "mask"],
    );
    // With a listed mask the rest of the example is fine. `.b2222` picks
    // element 2, which is byte 2 of a (ERRATA 11: elements 0-3 are a's).
    let mut r = Run::new(
        "vmin4.s32.u32.u32.add  r1.b0, r2.b0000, r3.b2222, r1;",
        Target::SM_30,
    );
    // lane 0: min(a.byte0 = 9, a.byte2 = 5) = 5; 0x10 + 5.
    r.set("r2", 0, 0x0005_0009)
        .set("r3", 0, 0xFFFF_FFFF)
        .set("r1", 0, 0x10);
    r.exec(Target::SM_30, 1);
    assert_eq!(r.get("r1", 0), 0x15);
}

#[test]
fn vset4_s32_u32_lt() {
    let text = "vset4.s32.u32.lt      r1, r2, r3, r0;";
    gated(text, Target::SM_30, SM_20, 30);
    let mut r = Run::new(text, Target::SM_30);
    // a = (-1, 1, -128, 127) signed, b = (0, 1, 255, 128) unsigned (byte 3 first):
    // 1, 0, 1, 1.
    r.set("r2", 0, 0xFF01_807F)
        .set("r3", 0, 0x0001_FF80)
        .set("r0", 0, 0xFFFF_FFFF);
    r.exec(Target::SM_30, 1);
    assert_eq!(r.get("r1", 0), 0x0100_0101);
}

#[test]
fn vset4_max_is_rejected_errata_9() {
    // ERRATA 9: "Illegal secondary operation for video instruction 'vset4'".
    invalid(
        "vset4.u32.u32.ne.max  r1, r2, r3, r0;",
        "max",
        &["secondary", "max"],
    );
}

// ------------------------------------------------------------ 9.7.6 set/setp/selp/slct

#[test]
fn set_lt_and_f32_s32_guarded() {
    let text = "@p  set.lt.and.f32.s32  d,a,b,r;";
    let mut r = Run::new(text, SM_20);
    for lane in 0..5 {
        r.set("d", lane, 0x1234_5678);
    }
    // lane 0: -5 < 3 and 1 -> 1.0f
    r.set("p", 0, 1)
        .set("a", 0, 0xFFFF_FFFB)
        .set("b", 0, 3)
        .set("r", 0, 1);
    // lane 1: -5 < 3 and 0 -> 0
    r.set("p", 1, 1)
        .set("a", 1, 0xFFFF_FFFB)
        .set("b", 1, 3)
        .set("r", 1, 0);
    // lane 2: 7 < 3 false -> 0
    r.set("p", 2, 1)
        .set("a", 2, 7)
        .set("b", 2, 3)
        .set("r", 2, 1);
    // lane 3: guard false: nothing written (ERRATA 21: not even a conversion)
    r.set("p", 3, 0)
        .set("a", 3, 0xFFFF_FFFB)
        .set("b", 3, 3)
        .set("r", 3, 1);
    // lane 4: would write 1.0f but is inactive
    r.set("p", 4, 1)
        .set("a", 4, 0xFFFF_FFFB)
        .set("b", 4, 3)
        .set("r", 4, 1);
    r.exec(SM_20, 0b01111);
    assert_eq!(r.get("d", 0), 0x3F80_0000);
    assert_eq!(r.get("d", 1), 0);
    assert_eq!(r.get("d", 2), 0);
    assert_eq!(r.get("d", 3), 0x1234_5678);
    assert_eq!(r.get("d", 4), 0x1234_5678);
}

#[test]
fn set_eq_u32_u32() {
    let mut r = Run::new("    set.eq.u32.u32      d,i,n;", SM_20);
    r.set("i", 0, 0xFFFF_FFFF).set("n", 0, 0xFFFF_FFFF);
    r.set("i", 1, 1).set("n", 1, 2).set("d", 1, 7);
    r.exec(SM_20, 0b11);
    assert_eq!(r.get("d", 0), 0xFFFF_FFFF);
    assert_eq!(r.get("d", 1), 0);
}

#[test]
fn setp_lt_and_s32_pq() {
    let mut r = Run::new("    setp.lt.and.s32  p|q,a,b,r;", SM_20);
    // p = t & r, q = !t & r
    r.set("a", 0, 0xFFFF_FFFF).set("b", 0, 0).set("r", 0, 1);
    r.set("a", 1, 1).set("b", 1, 0).set("r", 1, 1);
    r.set("a", 2, 0xFFFF_FFFF)
        .set("b", 2, 0)
        .set("r", 2, 0)
        .set("p", 2, 1)
        .set("q", 2, 1);
    r.exec(SM_20, 0b111);
    assert_eq!((r.get("p", 0), r.get("q", 0)), (1, 0));
    assert_eq!((r.get("p", 1), r.get("q", 1)), (0, 1));
    assert_eq!((r.get("p", 2), r.get("q", 2)), (0, 0));
}

#[test]
fn setp_eq_u32_guarded() {
    let mut r = Run::new("@q  setp.eq.u32      p,i,n;", SM_20);
    r.set("q", 0, 1).set("i", 0, 5).set("n", 0, 5);
    r.set("q", 1, 1)
        .set("i", 1, 5)
        .set("n", 1, 6)
        .set("p", 1, 1);
    r.set("q", 2, 0)
        .set("i", 2, 5)
        .set("n", 2, 5)
        .set("p", 2, 0);
    r.exec(SM_20, 0b111);
    assert_eq!(r.get("p", 0), 1);
    assert_eq!(r.get("p", 1), 0);
    assert_eq!(r.get("p", 2), 0, "false guard writes nothing");
}

#[test]
fn selp_s32() {
    let mut r = Run::new("    selp.s32  r0,r,g,p;", SM_20);
    r.set("r", 0, 0x8000_0000).set("g", 0, 7).set("p", 0, 1);
    r.set("r", 1, 0x8000_0000).set("g", 1, 7).set("p", 1, 0);
    r.exec(SM_20, 0b11);
    assert_eq!(r.get("r0", 0), 0x8000_0000);
    assert_eq!(r.get("r0", 1), 7);
}

#[test]
fn selp_f32_guarded_copies_bits() {
    let mut r = Run::new("@q  selp.f32  f0,t,x,xp;", SM_20);
    // ERRATA 16: NaN payloads and -0.0 are copied unchanged.
    r.set("q", 0, 1)
        .set("t", 0, 0x7FC0_1234)
        .set("x", 0, 0x8000_0000)
        .set("xp", 0, 1);
    r.set("q", 1, 1)
        .set("t", 1, 0x7FC0_1234)
        .set("x", 1, 0x8000_0000)
        .set("xp", 1, 0);
    r.set("q", 2, 0)
        .set("t", 2, 1)
        .set("x", 2, 2)
        .set("xp", 2, 1)
        .set("f0", 2, 0xABCD);
    r.exec(SM_20, 0b111);
    assert_eq!(r.get("f0", 0), 0x7FC0_1234);
    assert_eq!(r.get("f0", 1), 0x8000_0000);
    assert_eq!(r.get("f0", 2), 0xABCD);
}

#[test]
fn slct_u32_s32() {
    let mut r = Run::new("slct.u32.s32  x, y, z, val;", SM_20);
    for (lane, c) in [0u64, 0xFFFF_FFFF, 0x7FFF_FFFF, 0x8000_0000]
        .into_iter()
        .enumerate()
    {
        r.set("y", lane, 0x1111)
            .set("z", lane, 0x2222)
            .set("val", lane, c);
    }
    r.exec(SM_20, 0b1111);
    assert_eq!(r.get("x", 0), 0x1111);
    assert_eq!(r.get("x", 1), 0x2222);
    assert_eq!(r.get("x", 2), 0x1111);
    assert_eq!(r.get("x", 3), 0x2222);
}

#[test]
fn slct_ftz_u64_f32() {
    let mut r = Run::new("slct.ftz.u64.f32  A, B, C, fval;", SM_20);
    let (b, c) = (0x1122_3344_5566_7788u64, 0xFFEE_DDCC_BBAA_9988u64);
    // ERRATA 15: negative subnormal flushed to -0 -> a; NaN -> b; -0 -> a.
    let fvals = [
        0x8000_0001u64,
        0x7FC0_0000,
        0xBF80_0000,
        0x8000_0000,
        0x0000_0000,
        0x0000_0001,
    ];
    let want = [b, c, c, b, b, b];
    for (lane, f) in fvals.into_iter().enumerate() {
        r.set("B", lane, b).set("C", lane, c).set("fval", lane, f);
    }
    r.exec(SM_20, 0b11_1111);
    for (lane, w) in want.into_iter().enumerate() {
        assert_eq!(r.get("A", lane), w, "lane {lane}");
    }
}

// ------------------------------------------------------------ 9.7.7.1 half set

#[test]
fn set_lt_and_f16_f16() {
    let text = "set.lt.and.f16.f16  d,a,b,r;";
    gated(text, Target::SM_53, SM_52, 53);
    version_gated(
        text,
        Target::SM_53,
        PtxVersion::new(4, 2),
        PtxVersion::new(4, 1),
        PtxVersion::new(4, 2),
    );
    let mut r = Run::new(text, Target::SM_53);
    // f16 destination: 1.0 = 0x3C00 (ERRATA 17).
    r.set("a", 0, 0x3C00).set("b", 0, 0x4000).set("r", 0, 1); // 1 < 2
    r.set("a", 1, 0x7E00)
        .set("b", 1, 0x4000)
        .set("r", 1, 1)
        .set("d", 1, 0x1234); // NaN
    r.set("a", 2, 0x8001).set("b", 2, 0x0000).set("r", 2, 1); // -subnormal < 0 without .ftz
    r.set("a", 3, 0x3C00)
        .set("b", 3, 0x4000)
        .set("r", 3, 0)
        .set("d", 3, 0x1234); // and 0
    r.exec(Target::SM_53, 0b1111);
    assert_eq!(r.get("d", 0), 0x3C00);
    assert_eq!(r.get("d", 1), 0);
    assert_eq!(r.get("d", 2), 0x3C00);
    assert_eq!(r.get("d", 3), 0);
}

#[test]
fn set_eq_f16x2_f16x2() {
    let text = "set.eq.f16x2.f16x2  d,i,n;";
    gated(text, Target::SM_53, SM_52, 53);
    let mut r = Run::new(text, Target::SM_53);
    // lane 0: hi -0 == +0 -> 1.0; lo 1.0 vs 1.0009765625 -> 0.
    r.set("i", 0, 0x8000_3C00).set("n", 0, 0x0000_3C01);
    // lane 1: hi NaN == NaN -> 0; lo -inf == -inf -> 1.0.
    r.set("i", 1, 0x7E00_FC00).set("n", 1, 0x7E00_FC00);
    r.exec(Target::SM_53, 0b11);
    assert_eq!(r.get("d", 0), 0x3C00_0000);
    assert_eq!(r.get("d", 1), 0x0000_3C00);
}

#[test]
fn set_eq_u32_f16x2() {
    let text = "set.eq.u32.f16x2    d,i,n;";
    gated(text, Target::SM_53, SM_52, 53);
    version_gated(
        text,
        Target::SM_53,
        PtxVersion::new(6, 5),
        PtxVersion::new(6, 4),
        PtxVersion::new(6, 5),
    );
    let mut r = Run::new(text, Target::SM_53);
    // ERRATA 17: u32 destination with an x2 source: 0xFFFF per half.
    r.set("i", 0, 0x8000_3C00).set("n", 0, 0x0000_3C01);
    r.set("i", 1, 0x7E00_FC00).set("n", 1, 0x7E00_FC00);
    r.exec(Target::SM_53, 0b11);
    assert_eq!(r.get("d", 0), 0xFFFF_0000);
    assert_eq!(r.get("d", 1), 0x0000_FFFF);
}

#[test]
fn set_lt_and_u16_f16() {
    let text = "set.lt.and.u16.f16  d,a,b,r;";
    gated(text, Target::SM_53, SM_52, 53);
    version_gated(
        text,
        Target::SM_53,
        PtxVersion::new(6, 5),
        PtxVersion::new(6, 4),
        PtxVersion::new(6, 5),
    );
    let mut r = Run::new(text, Target::SM_53);
    // u16 destination: 0xFFFF (ERRATA 17).
    r.set("a", 0, 0xC000).set("b", 0, 0xBC00).set("r", 0, 1); // -2 < -1
    r.set("a", 1, 0xC000)
        .set("b", 1, 0xBC00)
        .set("r", 1, 0)
        .set("d", 1, 0x5555);
    r.set("a", 2, 0x7C00)
        .set("b", 2, 0x7BFF)
        .set("r", 2, 1)
        .set("d", 2, 0x5555); // inf < max
    r.exec(Target::SM_53, 0b111);
    assert_eq!(r.get("d", 0), 0xFFFF);
    assert_eq!(r.get("d", 1), 0);
    assert_eq!(r.get("d", 2), 0);
}

#[test]
fn set_ltu_or_bf16_f16() {
    let text = "set.ltu.or.bf16.f16    d,u,v,s;";
    gated(text, Target::SM_90, SM_89, 90);
    version_gated(
        text,
        Target::SM_90,
        PtxVersion::new(7, 8),
        PtxVersion::new(7, 7),
        PtxVersion::new(7, 8),
    );
    let mut r = Run::new(text, Target::SM_90);
    // bf16 destination: 1.0 = 0x3F80 (ERRATA 17).
    r.set("u", 0, 0x7C01).set("v", 0, 0).set("s", 0, 0); // signalling NaN: ltu true
    r.set("u", 1, 0x3C00)
        .set("v", 1, 0x3800)
        .set("s", 1, 0)
        .set("d", 1, 0x1111); // 1 < 0.5 false
    r.set("u", 2, 0x3C00).set("v", 2, 0x3800).set("s", 2, 1); // or true
    r.exec(Target::SM_90, 0b111);
    assert_eq!(r.get("d", 0), 0x3F80);
    assert_eq!(r.get("d", 1), 0);
    assert_eq!(r.get("d", 2), 0x3F80);
}

#[test]
fn set_equ_bf16x2_bf16x2() {
    let text = "set.equ.bf16x2.bf16x2  d,j,m;";
    gated(text, Target::SM_90, SM_80, 90);
    let mut r = Run::new(text, Target::SM_90);
    // lane 0: hi NaN -> equ true; lo 1.0 == 1.0: 0x3F80 in each half.
    r.set("j", 0, 0x7FC1_3F80).set("m", 0, 0x0000_3F80);
    // lane 1: hi -0 vs the smallest bf16 subnormal (kept: no .ftz) -> 0; lo 2 vs 1 -> 0.
    r.set("j", 1, 0x8000_4000)
        .set("m", 1, 0x0001_3F80)
        .set("d", 1, 0x1234_5678);
    r.exec(Target::SM_90, 0b11);
    assert_eq!(r.get("d", 0), 0x3F80_3F80);
    assert_eq!(r.get("d", 1), 0);
}

#[test]
fn set_geu_s32_bf16x2() {
    let text = "set.geu.s32.bf16x2     d,j,m;";
    gated(text, Target::SM_90, SM_89, 90);
    let mut r = Run::new(text, Target::SM_90);
    // s32 destination, x2 source: 0xFFFF per half (ERRATA 17).
    r.set("j", 0, 0x3F80_BF80).set("m", 0, 0x3F80_0000); // 1 >= 1, -1 >= 0
    r.set("j", 1, 0xFF80_7F81).set("m", 1, 0); // -inf >= 0, NaN
    r.exec(Target::SM_90, 0b11);
    assert_eq!(r.get("d", 0), 0xFFFF_0000);
    assert_eq!(r.get("d", 1), 0x0000_FFFF);
}

#[test]
fn set_num_xor_s32_bf16() {
    let text = "set.num.xor.s32.bf16   d,u,v,s;";
    gated(text, Target::SM_90, SM_89, 90);
    let mut r = Run::new(text, Target::SM_90);
    // ERRATA 17: sign-extended 0xFFFFFFFF.
    r.set("u", 0, 0x3F80).set("v", 0, 0x7F80).set("s", 0, 0); // num true ^ 0
    r.set("u", 1, 0x3F80).set("v", 1, 0x7F80).set("s", 1, 1); // true ^ 1
    r.set("u", 2, 0x7FC0).set("v", 2, 0).set("s", 2, 1); // false ^ 1
    r.set("u", 3, 0x7FC0)
        .set("v", 3, 0)
        .set("s", 3, 0)
        .set("d", 3, 0x77); // false ^ 0
    r.exec(Target::SM_90, 0b1111);
    assert_eq!(r.get("d", 0), 0xFFFF_FFFF);
    assert_eq!(r.get("d", 1), 0);
    assert_eq!(r.get("d", 2), 0xFFFF_FFFF);
    assert_eq!(r.get("d", 3), 0);
}

// ------------------------------------------------------------ FORMAT.md's examples

#[test]
fn format_md_vectors() {
    // FORMAT.md's second example (a guarded setp) is not used: its `%p2: true` contradicts
    // q = BoolOp(!t, c) = 0 & 1, which public.jsonl's own setp vectors confirm.
    // {"arch":"sm_30","ptx":"vadd2.u32.s32.u32 %r1.h10, %r2.h10, %r3.h30, %r1;",...,"out":{"%r1":"0xa1700002"}}
    let mut r = Run::new(
        "vadd2.u32.s32.u32 %r1.h10, %r2.h10, %r3.h30, %r1;",
        Target::SM_30,
    );
    r.set("%r2", 0, 0xa170_0001)
        .set("%r3", 0, 0x93bd)
        .set("%r1", 0, 0x7fff_7fff);
    r.exec(Target::SM_30, 1);
    assert_eq!(r.get("%r1", 0), 0xa170_0002);

    let mut syms = Symbols::new();
    let inst =
        sim_isa::parse::parse_instruction("set.eq.u32.bf16x2 %d, %a, %b;", &mut syms).unwrap();
    let e = check_target(&inst, Target::SM_30, None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert_eq!(
        parse_err("vset4.u32.u32.ne.max %r1, %r2, %r3, %r4;").kind(),
        ErrorKind::Invalid
    );
}
