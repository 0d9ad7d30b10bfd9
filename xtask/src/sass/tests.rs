//! Unit tests of the interpreter: the opcode cases in `opcode_cases.txt`
//! (one instruction or a short sequence on hand-set registers), the pure
//! helpers, and listings run end to end.

use super::decode::parse_line;
use super::logic::{lop3, prmt};
use super::*;

/// A state value: hex, decimal, or negative decimal as two's complement.
fn value(s: &str) -> u32 {
    let v = match s.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => s.parse::<i64>().ok().map(|v| v as u32),
    };
    v.unwrap_or_else(|| panic!("bad value '{s}'"))
}

/// Applies (`set`) or checks (`!set`) `Rn=v`, `URn=v` and `Pn=0|1` items.
fn state(m: &mut Machine, items: &str, set: bool, case: &str) {
    fn store(slot: &mut u32, v: u32, set: bool) -> u32 {
        if set {
            *slot = v;
        }
        *slot
    }
    for item in items.split_whitespace() {
        let (name, v) = item
            .split_once('=')
            .unwrap_or_else(|| panic!("{case}: bad state item '{item}'"));
        let v = value(v);
        let num = |prefix: &str| {
            name.strip_prefix(prefix)
                .and_then(|n| n.parse::<usize>().ok())
        };
        let got = if let Some(n) = num("UR") {
            store(&mut m.ur[n], v, set)
        } else if let Some(n) = num("R") {
            store(&mut m.r[n], v, set)
        } else if let Some(n) = num("P") {
            if set {
                m.p[n] = v != 0;
            }
            u32::from(m.p[n])
        } else {
            panic!("{case}: unknown state item '{item}'")
        };
        assert_eq!(got, v, "{case}: {name}");
    }
}

#[test]
fn opcode_cases() {
    let table = include_str!("opcode_cases.txt");
    let mut n = 0;
    for line in table.lines() {
        let case = line.split('#').next().unwrap_or("").trim();
        if case.is_empty() {
            continue;
        }
        let [insts, before, after] = case.split('|').collect::<Vec<_>>()[..] else {
            panic!("need three |-separated columns: {line}");
        };
        let mut m = Machine::new(vec![0; 64], 64);
        state(&mut m, before, true, line);
        for text in insts.split(';') {
            let i = parse_line(&format!("/*0000*/ {} ;", text.trim()))
                .unwrap_or_else(|e| panic!("{line}: {e:#}"))
                .expect("an instruction");
            if let Some((p, not)) = i.guard {
                if !((p == PT || m.p[p as usize]) ^ not) {
                    continue;
                }
            }
            m.step(&i).unwrap_or_else(|e| panic!("{line}: {e:#}"));
        }
        state(&mut m, after, false, line);
        n += 1;
    }
    assert!(n >= 49, "only {n} cases read");
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
}

#[test]
fn lop3_tables() {
    assert_eq!(lop3(0xf0f0, 0xff00, 0, 0xc0), 0xf000); // a & b
    assert_eq!(lop3(0xf0f0, 0xff00, 0x0ff0, 0x96), 0xf0f0 ^ 0xff00 ^ 0x0ff0);
    assert_eq!(lop3(0x1, 0x2, 0, 0xfc), 0x3); // a | b
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

/// Branches go to the instruction after their label; a guarded one falls
/// through when its predicate is false (the shape of `fns`'s code).
#[test]
fn branches_follow_labels() {
    let text = "\
.text.k1:
    /*0000*/                   LDC.64 R2, c[0x0][0x218] ;
    /*0010*/                   ISETP.EQ.AND P1, PT, R0, RZ, PT ;
    /*0020*/               @P1 BRA `(.L_x_0) ;
    /*0030*/                   IMAD.MOV.U32 R5, RZ, RZ, 0x7 ;
    /*0040*/                   BRA `(.L_x_1) ;
.L_x_0:
    /*0050*/                   IMAD.MOV.U32 R5, RZ, RZ, 0x9 ;
.L_x_1:
    /*0060*/                   STG.E desc[UR4][R2.64], R5 ;
    /*0070*/                   EXIT ;
.L_x_2:
    /*0080*/                   BRA `(.L_x_2);
";
    let prog = &parse_listing(text).unwrap()[0].1;
    let targets: Vec<_> = prog.iter().map(|i| i.target).collect();
    assert_eq!(targets[2], Some(5));
    assert_eq!(targets[4], Some(6));
    assert_eq!(targets[8], Some(8));
    for (r0, want) in [(0u32, 9u8), (5, 7)] {
        let mut m = Machine::new(vec![], 8);
        m.r[0] = r0;
        m.run(prog).unwrap();
        assert_eq!(m.output[0], want, "R0 = {r0}");
    }
    // A loop that never exits is an error, not a hang.
    let spin = ".text.k2:\n.L_x_0:\n /*0000*/ BRA `(.L_x_0) ;\n";
    let prog = &parse_listing(spin).unwrap()[0].1;
    let e = Machine::new(vec![], 8).run(prog).unwrap_err();
    assert!(e.to_string().contains("without EXIT"), "{e}");
}
