//! Unit tests of the interpreter: opcodes on hand-set registers, and a
//! listing run end to end.

use super::decode::parse_line;
use super::logic::{lop3, prmt};
use super::*;

fn run1(line: &str, setup: &[(u8, u32)], preds: &[(u8, bool)]) -> Machine {
    let i = parse_line(&format!("/*0000*/ {line} ;")).unwrap().unwrap();
    let mut m = Machine::new(vec![0; 64], 64);
    for &(r, v) in setup {
        m.r[r as usize] = v;
    }
    for &(p, v) in preds {
        m.p[p as usize] = v;
    }
    if let Some((p, not)) = i.guard {
        if !((p == PT || m.p[p as usize]) ^ not) {
            return m;
        }
    }
    m.step(&i).unwrap();
    m
}

#[test]
fn prmt_plain_and_sign_replicate() {
    assert_eq!(prmt(0x8899_aabb, 0x3210, 0x1122_3344), 0x8899_aabb);
    assert_eq!(prmt(0x8899_aabb, 0x7654, 0x1122_3344), 0x1122_3344);
    assert_eq!(prmt(0x0000_0080, 0x8880, 0), 0xffff_ff80);
    assert_eq!(prmt(0x0000_007f, 0x8880, 0), 0x0000_007f);
    assert_eq!(prmt(0x1234_8001, 0x9910, 0), 0xffff_8001);
    assert_eq!(prmt(0x1234_7001, 0x9910, 0), 0x0000_7001);
    assert_eq!(prmt(0xaabb_ccdd, 0x7650, 0), 0x0000_00dd);
    assert_eq!(prmt(0x0000_00ff, 0x0054, 0x0000_1234), 0xffff_1234);
    let m = run1(
        "PRMT R5, R0, 0x7214, R3",
        &[(0, 0x4433_2211), (3, 0x8877_6655)],
        &[],
    );
    assert_eq!(m.r[5], 0x8833_2255);
}

#[test]
fn lop3_tables() {
    assert_eq!(lop3(0xf0f0, 0xff00, 0, 0xc0), 0xf000); // a & b
    assert_eq!(lop3(0xf0f0, 0xff00, 0x0ff0, 0x96), 0xf0f0 ^ 0xff00 ^ 0x0ff0);
    assert_eq!(lop3(0x1, 0x2, 0, 0xfc), 0x3); // a | b
    let m = run1(
        "LOP3.LUT R9, R9, 0xffff, R0, 0xf8, !PT",
        &[(9, 0x1234_0000), (0, 0xabcd_5678)],
        &[],
    );
    assert_eq!(m.r[9], 0x1234_5678); // a | (b & c)
    let m = run1("LOP3.LUT P0, RZ, R4, 0x1, RZ, 0xc0, !PT", &[(4, 3)], &[]);
    assert!(m.p[0]);
}

#[test]
fn integer_adds_and_shifts() {
    let m = run1("IADD3 R5, R0, -R1, R2", &[(0, 10), (1, 3), (2, 100)], &[]);
    assert_eq!(m.r[5], 107);
    let m = run1("IMAD.IADD R5, R0, 0x1, -R1", &[(0, 1), (1, 3)], &[]);
    assert_eq!(m.r[5], (-2i32) as u32);
    let m = run1("IMAD.MOV.U32 R5, RZ, RZ, R1", &[(1, 0xdead)], &[]);
    assert_eq!(m.r[5], 0xdead);
    let m = run1("SHF.R.U32.HI R5, RZ, 0x10, R4", &[(4, 0xabcd_1234)], &[]);
    assert_eq!(m.r[5], 0xabcd);
    let m = run1("SHF.R.S32.HI R5, RZ, 0x1, R4", &[(4, 0xffff_fffd)], &[]);
    assert_eq!(m.r[5], 0xffff_fffe);
    let m = run1(
        "LEA.HI R0, R0, -R5, RZ, 0x10",
        &[(0, 0x0003_0000), (5, 1)],
        &[],
    );
    assert_eq!(m.r[0], 2);
    let m = run1(
        "LEA.HI.SX32 R9, R9, R0, 0x1f",
        &[(9, (-7i32) as u32), (0, 100)],
        &[],
    );
    assert_eq!(m.r[9], 96, "c + (a >> 1), arithmetic");
    let m = run1("LEA R0, R1, R2, 0x2", &[(1, 3), (2, 1)], &[]);
    assert_eq!(m.r[0], 13);
}

#[test]
fn compares_selects_minmax() {
    let m = run1(
        "ISETP.LT.AND P0, P1, R0, R5, PT",
        &[(0, (-1i32) as u32), (5, 0)],
        &[],
    );
    assert!(m.p[0] && !m.p[1]);
    let m = run1(
        "ISETP.LT.U32.AND P0, PT, R0, R5, PT",
        &[(0, (-1i32) as u32), (5, 0)],
        &[],
    );
    assert!(!m.p[0]);
    let m = run1(
        "ISETP.LT.XOR P0, PT, R0, R5, P0",
        &[(0, 1), (5, 2)],
        &[(0, true)],
    );
    assert!(!m.p[0]);
    let m = run1(
        "ISETP.LT.AND.EX P0, PT, R1, R3, PT, P2",
        &[(1, 5), (3, 5)],
        &[(2, true)],
    );
    assert!(m.p[0]);
    let m = run1("SEL R5, RZ, 0xffffffff, !P0", &[], &[(0, false)]);
    assert_eq!(m.r[5], 0, "a when the predicate holds");
    let m = run1("SEL R5, RZ, 0xffffffff, !P0", &[], &[(0, true)]);
    assert_eq!(m.r[5], 0xffff_ffff);
    let m = run1("FSEL R3, -R2, 1, P0", &[(2, 0x3566_bc72)], &[(0, true)]);
    assert_eq!(m.r[3], 0xb566_bc72, "float negation flips the sign bit");
    let m = run1("FSEL R3, -R2, 1, P0", &[(2, 0x3566_bc72)], &[(0, false)]);
    assert_eq!(m.r[3], 0x3f80_0000);
    let m = run1(
        "VIMNMX R6, R6, R7, !PT",
        &[(6, (-5i32) as u32), (7, 3)],
        &[],
    );
    assert_eq!(m.r[6], 3);
    let m = run1(
        "VIMNMX.U32 R6, R6, R7, PT",
        &[(6, (-5i32) as u32), (7, 3)],
        &[],
    );
    assert_eq!(m.r[6], 3);
    let m = run1("VIMNMX R6, R6, R7, PT", &[(6, (-5i32) as u32), (7, 3)], &[]);
    assert_eq!(m.r[6], (-5i32) as u32);
    let m = run1("@P0 IADD3 R8, R8, 0x1, RZ", &[(8, 4)], &[(0, false)]);
    assert_eq!(m.r[8], 4);
}

#[test]
fn conversions() {
    let m = run1("I2I.U8.S32.SAT R9, R9", &[(9, (-7i32) as u32)], &[]);
    assert_eq!(m.r[9], 0);
    let m = run1("I2I.S8.S32.SAT R9, R9", &[(9, 300)], &[]);
    assert_eq!(m.r[9], 127);
    let m = run1("I2I.S8.S32.SAT R9, R9", &[(9, (-300i32) as u32)], &[]);
    assert_eq!(m.r[9], (-128i32) as u32);
    let m = run1("I2I.S16.S32.SAT R4, R4", &[(4, 40000)], &[]);
    assert_eq!(m.r[4], 32767);
    let m = run1("IABS R0, R0", &[(0, (-1i32) as u32)], &[]);
    assert_eq!(m.r[0], 1);
    let m = run1("I2F.F16 R0, R0", &[(0, 1)], &[]);
    assert_eq!(m.r[0], 0x3c00);
    let m = run1("I2F.BF16 R0, R0", &[(0, 1)], &[]);
    assert_eq!(m.r[0], 0x3f80);
    let m = run1("I2FP.F32.S32 R0, R0", &[(0, 1)], &[]);
    assert_eq!(m.r[0], 0x3f80_0000);
    let m = run1("HFMA2.MMA R7, -RZ, RZ, 0, 5.9604644775390625e-08", &[], &[]);
    assert_eq!(m.r[7], 1);
    let m = run1("HFMA2.MMA R7, -RZ, RZ, 1.875, 0", &[], &[]);
    assert_eq!(m.r[7], 0x3f80_0000);
    let mut m = Machine::new(vec![], 0);
    for l in [
        "UMOV UR4, 0xffffffff",
        "ULOP3.LUT UR4, UR4, 0x1, URZ, 0xc0, !UPT",
        "IADD3 R7, R7, UR4, R2",
    ] {
        m.step(&parse_line(&format!("/*0000*/ {l} ;")).unwrap().unwrap())
            .unwrap();
    }
    assert_eq!(m.ur[4], 1);
    assert_eq!(m.r[7], 1);
    let m = run1("FADD.FTZ R0, R5, -RZ", &[(5, 0x8000_0001)], &[]);
    assert_eq!(m.r[0], 0x8000_0000);
}

#[test]
fn float_compares() {
    let m = run1("FSETP.GE.AND P0, PT, R5, RZ, PT", &[(5, 0x8000_0000)], &[]);
    assert!(m.p[0], "-0 >= 0");
    let m = run1("FSETP.GE.AND P0, PT, R5, RZ, PT", &[(5, 0x7fc0_0000)], &[]);
    assert!(!m.p[0], "NaN is unordered");
    let m = run1(
        "FSETP.GT.FTZ.AND P0, PT, R0, R5, PT",
        &[(0, 1), (5, 0)],
        &[],
    );
    assert!(!m.p[0], "subnormal flushed");
    let m = run1(
        "FSET.BF.LTU.AND R5, R0, R5, PT",
        &[(0, 0x7fc0_0000), (5, 0)],
        &[],
    );
    assert_eq!(m.r[5], 0x3f80_0000);
    let mut m = Machine::new(vec![], 0);
    for l in [
        "UMOV UR6, 0x552416fb",
        "UMOV UR7, 0x16f9b56e",
        "DSETP.GTU.AND P0, PT, R2, -UR6, PT",
    ] {
        m.step(&parse_line(&format!("/*0000*/ {l} ;")).unwrap().unwrap())
            .unwrap();
    }
    assert!(m.p[0], "0 > -(positive tiny)");
    let m = run1(
        "DSETP.LT.OR P0, PT, R2, R4, !P0",
        &[(3, 0xbff0_0000), (5, 0)],
        &[(0, true)],
    );
    assert!(m.p[0]);
    let m = run1(
        "HSET2.BF.LT.AND R5, R0, R5, PT",
        &[(0, 0x3c00_bc00), (5, 0x3c00_0000)],
        &[],
    );
    assert_eq!(m.r[5], 0x0000_3c00);
    let m = run1(
        "HSET2.NUM.AND R0, R0.H0_H0, R5.H0_H0, PT",
        &[(0, 0x1), (5, 0x7e00_0000)],
        &[],
    );
    assert_eq!(m.r[0], 0xffff_ffff);
    let m = run1(
        "HSET2.BF16_V2.BF.LT.AND R5, R0, R5, PT",
        &[(0, 0xbf80_0000), (5, 0)],
        &[],
    );
    assert_eq!(m.r[5], 0x3f80_0000);
    let m = run1(
        "HSET2.BF.LT.FTZ.AND R5, R0, R5, PT",
        &[(0, 0x0000_8001), (5, 0x0000_0000)],
        &[],
    );
    assert_eq!(m.r[5], 0, "-subnormal flushed to -0, not < 0");
}

#[test]
fn per_thread_prologue() {
    let text = "\
.text.k0:
    /*0000*/                   S2UR UR4, SR_CTAID.X ;
    /*0010*/                   LDC R7, c[0x0][RZ] ;
    /*0020*/                   S2R R0, SR_TID.X ;
    /*0030*/                   IMAD R7, R7, UR4, R0 ;
    /*0040*/                   ULDC UR4, c[0x0][0x220] ;
    /*0050*/                   ISETP.GE.U32.AND P0, PT, R7, UR4, PT ;
    /*0060*/               @P0 EXIT ;
    /*0070*/                   LDC.64 R4, c[0x0][0x218] ;
    /*0080*/                   IMAD.WIDE.U32 R4, R7, 0x8, R4 ;
    /*0090*/                   STG.E desc[UR4][R4.64], R7 ;
    /*00a0*/                   EXIT ;
";
    let prog = &parse_listing(text).unwrap()[0].1;
    let mut m = Machine::new(vec![], 64);
    m.thread = [3, 1, 4, 8]; // thread 1 * 4 + 3 = 7 of 8
    m.run(prog).unwrap();
    assert_eq!(m.output[56], 7);
    let mut m = Machine::new(vec![], 64);
    m.thread = [0, 2, 4, 8]; // thread 8: past the end, exits before storing
    m.run(prog).unwrap();
    assert!(m.output.iter().all(|&b| b == 0));
}

#[test]
fn vabsdiff4() {
    let m = run1(
        "VABSDIFF4.U8 R5, R0, R5, R7",
        &[(0, 0x00ff_1080), (5, 0xff00_2070), (7, 0x1234)],
        &[],
    );
    assert_eq!(m.r[5], 0xffff_1010);
    let m = run1(
        "VABSDIFF4.U8.ACC R5, R0, R5, R7",
        &[(0, 0x00ff_1080), (5, 0xff00_2070), (7, 1)],
        &[],
    );
    assert_eq!(m.r[5], 1 + 255 + 255 + 16 + 16);
    // Without .U8 the bytes are signed: |0x80 - 0x7f| = |-128 - 127| = 255.
    let m = run1(
        "VABSDIFF4 R5, R0, R5, R7",
        &[(0, 0x0000_0080), (5, 0x0000_007f), (7, 0)],
        &[],
    );
    assert_eq!(m.r[5], 0xff);
    let m = run1(
        "VABSDIFF4 R5, R0, R5, R7",
        &[(0, 0x0000_00ff), (5, 0x0000_0001), (7, 0)],
        &[],
    );
    assert_eq!(m.r[5], 2, "|-1 - 1|");
}

#[test]
fn memory_and_listing() {
    let text = "\
.text.k7:
    /*0000*/                   LDC R1, c[0x0][0x28] ;
    /*0010*/                   LDC.64 R4, c[0x0][0x210] ;
    /*0020*/                   ULDC.64 UR4, c[0x0][0x208] ;
    /*0030*/                   LDG.E R6, desc[UR4][R4.64+0x4] ;
    /*0040*/                   LDG.E.U16 R7, desc[UR4][R4.64+0x8] ;
    /*0050*/                   LDC.64 R2, c[0x0][0x218] ;
    /*0060*/                   IADD3 R6, R6, R7, RZ ;
    /*0070*/                   STG.E desc[UR4][R2.64+0x8], R6 ;
    /*0080*/                   EXIT ;
    /*0090*/                   BRA `(.L_x_0);
";
    let l = parse_listing(text).unwrap();
    assert_eq!(l[0].0, "k7");
    let mut input = vec![0u8; 16];
    input[4..8].copy_from_slice(&5u32.to_le_bytes());
    input[8..10].copy_from_slice(&0xfffeu16.to_le_bytes());
    let mut m = Machine::new(input, 16);
    m.run(&l[0].1).unwrap();
    assert_eq!(
        u32::from_le_bytes(m.output[8..12].try_into().unwrap()),
        5 + 0xfffe
    );
}
