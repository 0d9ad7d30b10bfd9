//! Unit tests of the warp opcodes (`LDSM STSM MOVM HMMA IMMA DMMA`, shared
//! memory, lockstep), each on values worked out by hand from the PTX
//! manual's fragment tables (written out here as the manual words them, not
//! as `exec_mma` computes them).

use super::decode::parse_line;
use super::*;

fn inst(t: &str) -> SInst {
    parse_line(&format!("/*0000*/ {t} ;"))
        .unwrap_or_else(|e| panic!("{t}: {e:#}"))
        .expect("an instruction")
}

fn warp() -> Warp {
    Warp::new(vec![0; 16], 16)
}

/// Sets register `r` of every lane to `f(lane)`.
fn set(w: &mut Warp, r: usize, f: impl Fn(usize) -> u32) {
    for (l, m) in w.lanes.iter_mut().enumerate() {
        m.r[r] = f(l);
    }
}

fn run(w: &mut Warp, t: &str) {
    w.step(&inst(t), u32::MAX)
        .unwrap_or_else(|e| panic!("{t}: {e:#}"));
}

/// Shared memory from 0x400: 16-bit element `i` holds `i`, so element
/// `(k, row, col)` of the 8x8 matrix `k` whose row `r` lane `8k + r` names
/// (at 0x400 + 16 (8k + r)) is `64k + 8row + col`.
fn numbered() -> Warp {
    let mut w = warp();
    for i in 0..256u16 {
        w.shared[0x400 + 2 * i as usize..][..2].copy_from_slice(&i.to_le_bytes());
    }
    set(&mut w, 0, |l| 16 * l as u32);
    for m in &mut w.lanes {
        m.ur[4] = 0x400;
    }
    w
}

#[test]
fn decode_shared_and_fragment_operands() {
    let i = inst("LDSM.16.M88.4 R8, [R8+UR4+0x10]");
    assert_eq!(i.ops[1], Opnd::MemUr(8, 4, 0x10));
    assert_eq!(inst("STS [UR4+-0x8], R2").ops[0], Opnd::MemUr(RZ, 4, -8));
    let i = inst("IMMA.16832.S8.S8 R8, R8.ROW, R6.COL, R12");
    assert!(matches!(i.ops[1], Opnd::Reg { r: 8, .. }));
    assert!(matches!(i.ops[2], Opnd::Reg { r: 6, .. }));
}

#[test]
fn ldsm_rows_and_transposes() {
    let mut w = numbered();
    run(&mut w, "LDSM.16.M88.4 R4, [R0+UR4]");
    // Lane 5: row 1, columns 2 and 3 of each matrix.
    assert_eq!(
        w.lanes[5].r[4..8],
        [0x000b_000a, 0x004b_004a, 0x008b_008a, 0x00cb_00ca]
    );
    run(&mut w, "LDSM.16.MT88.2 R4, [R0+UR4]");
    // Lane 5 of the transpose: matrix 1's rows 2 and 3, column 1.
    assert_eq!(w.lanes[5].r[4..6], [0x0019_0011, 0x0059_0051]);
    run(&mut w, "LDSM.16.M88 R9, [R0+UR4]");
    assert_eq!(w.lanes[31].r[9], 0x003f_003e);
}

#[test]
fn stsm_writes_rows_and_inverts_ldsm() {
    let mut w = numbered();
    set(&mut w, 4, |l| 0x1000_0000 | l as u32);
    set(&mut w, 5, |l| 0x2000_0000 | l as u32);
    run(&mut w, "STSM.16.M88.2 [R0+UR4], R4");
    // Lane 6 holds row 1, columns 4 and 5: of matrix 0 at 0x410 + 8, of
    // matrix 1 at 0x490 + 8.
    assert_eq!(w.sload(0x418, 4).unwrap(), 0x1000_0006);
    assert_eq!(w.sload(0x498, 4).unwrap(), 0x2000_0006);
    // Matrices 2 and 3 are untouched.
    assert_eq!(w.sload(0x500, 2).unwrap(), 128);
    run(&mut w, "STSM.16.MT88.4 [R0+UR4], R4");
    run(&mut w, "LDSM.16.MT88.4 R8, [R0+UR4]");
    for (l, m) in w.lanes.iter().enumerate() {
        assert_eq!(m.r[8..10], m.r[4..6], "lane {l}");
    }
}

#[test]
fn movm_transposes_the_warp_matrix() {
    let mut w = warp();
    // Element (r, c) = 8r + c lives in lane 4r + c/2, half c % 2.
    set(&mut w, 1, |l| (2 * l as u32) | (2 * l as u32 + 1) << 16);
    run(&mut w, "MOVM.16.MT88 R2, R1");
    // Lane 5 gets row 1 of the transpose, columns 2 and 3: (2, 1) and (3, 1).
    assert_eq!(w.lanes[5].r[2], 17 | 25 << 16);
    run(&mut w, "MOVM.16.MT88 R3, R2");
    assert!(w.lanes.iter().all(|m| m.r[3] == m.r[1]));
}

fn f16(x: f64) -> u32 {
    // Small integers only, exact in f16.
    let bits = (x as f32).to_bits();
    if x == 0.0 {
        return 0;
    }
    let e = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    (bits >> 16) & 0x8000 | (e as u32) << 10 | (bits >> 13) & 0x3ff
}

/// The manual's m16n8k16 `.f16` fragment tables, as it words them: lane
/// `l` (groupID `l >> 2`, threadID_in_group `l % 4`) holds `a0..a7`,
/// `b0..b3`, `c0..c3` at these (row, col).
fn a_pos(l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l >> 2, l % 4);
    let row = if i < 2 || (4..6).contains(&i) {
        g
    } else {
        g + 8
    };
    let col = if i < 4 {
        t * 2 + (i & 1)
    } else {
        t * 2 + (i & 1) + 8
    };
    (row, col)
}
fn b_pos(l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l >> 2, l % 4);
    let row = if i < 2 {
        t * 2 + (i & 1)
    } else {
        t * 2 + (i & 1) + 8
    };
    (row, g)
}
fn c_pos(l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l >> 2, l % 4);
    (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1))
}

#[test]
fn hmma_16816_f32_on_small_integers() {
    let a = |i: usize, k: usize| ((i * 3 + k * 5) % 7) as f64 - 3.0;
    let b = |k: usize, j: usize| ((k + 2 * j) % 5) as f64 - 2.0;
    let c = |i: usize, j: usize| (i * 8 + j) as f64 / 4.0;
    let mut w = warp();
    for (l, m) in w.lanes.iter_mut().enumerate() {
        for i in 0..8 {
            let (r, k) = a_pos(l, i);
            m.r[i / 2] |= f16(a(r, k)) << (16 * (i % 2));
        }
        for i in 0..4 {
            let (k, j) = b_pos(l, i);
            m.r[4 + i / 2] |= f16(b(k, j)) << (16 * (i % 2));
        }
        for i in 0..4 {
            let (r, j) = c_pos(l, i);
            m.r[12 + i] = (c(r, j) as f32).to_bits();
        }
    }
    run(&mut w, "HMMA.16816.F32 R8, R0, R4, R12");
    for (l, m) in w.lanes.iter().enumerate() {
        for i in 0..4 {
            let (r, j) = c_pos(l, i);
            let want = (0..16).map(|k| a(r, k) * b(k, j)).sum::<f64>() + c(r, j);
            assert_eq!(f32::from_bits(m.r[8 + i]), want as f32, "lane {l} d{i}");
        }
    }
}

#[test]
fn hmma_f16_accumulator_and_nan() {
    let mut w = warp();
    // A all 1.0 but lane 0's a0 (row 0, column 0) NaN; B all 2.0; C 0.5.
    set(
        &mut w,
        0,
        |l| if l == 0 { 0x3c00_7e00 } else { 0x3c00_3c00 },
    );
    set(&mut w, 1, |_| 0x3c00_3c00);
    set(&mut w, 4, |_| 0x4000_4000);
    set(&mut w, 6, |_| 0x3800_3800);
    set(&mut w, 7, |_| 0x3800_3800);
    run(&mut w, "HMMA.1688.F16 R8, R0, R4, R6");
    // Row 0 (lanes 0-3, register 0) is NaN; row 8 is 8 * 2 + 0.5 = 16.5.
    assert_eq!(w.lanes[2].r[8], 0x7fff_7fff);
    assert_eq!(w.lanes[2].r[9], 0x4c20_4c20);
    assert_eq!(w.lanes[4].r[8], 0x4c20_4c20);
}

#[test]
fn imma_saturates_or_wraps() {
    let mut w = warp();
    // A all -1 (s8), B all 255 (u8): each dot product is 32 * -255.
    set(&mut w, 0, |_| u32::MAX);
    for r in 1..4 {
        set(&mut w, r, |_| u32::MAX);
    }
    set(&mut w, 4, |_| u32::MAX);
    set(&mut w, 5, |_| u32::MAX);
    let c = i32::MIN + 100;
    for r in 12..16 {
        set(&mut w, r, |_| c as u32);
    }
    run(&mut w, "IMMA.16832.S8.U8.SAT R8, R0.ROW, R4.COL, R12");
    assert!(w.lanes.iter().all(|m| m.r[8..12] == [i32::MIN as u32; 4]));
    run(&mut w, "IMMA.16832.S8.U8 R8, R0.ROW, R4.COL, R12");
    let wrapped = c.wrapping_add(-32 * 255) as u32;
    assert!(w.lanes.iter().all(|m| m.r[8..12] == [wrapped; 4]));
    // Read as u8 x s8 the same bits are 32 * 255 * -1 as well.
    run(&mut w, "IMMA.16832.U8.S8 R8, R0.ROW, R4.COL, R12");
    assert_eq!(w.lanes[0].r[8], wrapped);
}

#[test]
fn dmma_8x8x4() {
    // A row g column t; B row t column g; C/D row g columns 2t, 2t + 1.
    let a = |i: usize, k: usize| (i + 2 * k) as f64;
    let b = |k: usize, j: usize| (k * j) as f64 - 1.5;
    let mut w = warp();
    for (l, m) in w.lanes.iter_mut().enumerate() {
        let (g, t) = (l >> 2, l % 4);
        let put = |m: &mut Machine, r: usize, v: f64| {
            m.r[r] = v.to_bits() as u32;
            m.r[r + 1] = (v.to_bits() >> 32) as u32;
        };
        put(m, 0, a(g, t));
        put(m, 2, b(t, g));
        put(m, 4, 0.25);
        put(m, 6, -0.25);
    }
    run(&mut w, "DMMA.8x8x4 R8, R0, R2, R4");
    for (l, m) in w.lanes.iter().enumerate() {
        let (g, t) = (l >> 2, l % 4);
        for (h, c) in [(0, 0.25), (1, -0.25)] {
            let want = (0..4).map(|k| a(g, k) * b(k, 2 * t + h)).sum::<f64>() + c;
            let got = u64::from(m.r[9 + 2 * h]) << 32 | u64::from(m.r[8 + 2 * h]);
            assert_eq!(f64::from_bits(got), want, "lane {l} d{h}");
        }
    }
}

#[test]
fn lockstep_runs_lanes_and_refuses_divergence() {
    let text = "\
.text.k:
    /*0000*/                   S2R R0, SR_TID.X ;
    /*0010*/                   S2UR UR4, SR_CgaCtaId ;
    /*0020*/                   ISETP.GE.U32.AND P0, PT, R0, 0x10, PT ;
    /*0030*/               @P0 EXIT ;
    /*0040*/                   LEA R2, R0, UR4, 0x2 ;
    /*0050*/                   STS [R2+0x4], R0 ;
    /*0060*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
    /*0070*/                   LDS R1, [R2+0x8] ;
    /*0080*/                   EXIT ;
";
    let prog = &parse_listing(text).unwrap()[0].1;
    let mut w = warp();
    w.run(prog).unwrap();
    // Lanes 0-15 each stored their id at 4 + 4 id and read the next
    // lane's; 16-31 exited first and stored nothing.
    assert_eq!(w.lanes[3].r[1], 4);
    assert_eq!(w.lanes[15].r[1], 0);
    assert_eq!(w.lanes[20].r[2], 0);
    let text = "\
.text.k:
    /*0000*/                   S2R R0, SR_TID.X ;
    /*0010*/                   ISETP.GE.U32.AND P0, PT, R0, 0x10, PT ;
    /*0020*/               @P0 BRA `(.L_x_0) ;
    /*0030*/                   EXIT ;
.L_x_0:
    /*0040*/                   EXIT ;
";
    let prog = &parse_listing(text).unwrap()[0].1;
    let e = warp().run(prog).unwrap_err();
    assert!(format!("{e:#}").contains("divergent branch"), "{e:#}");
    // An .aligned opcode needs every lane.
    let e = warp()
        .step(&inst("MOVM.16.MT88 R2, R1"), 0xffff)
        .unwrap_err();
    assert!(format!("{e:#}").contains(".aligned"), "{e:#}");
}

/// The manual's m16n8k4 `.tf32` tables: `a0` row `g`, `a1` row `g + 8`,
/// both column `t`; `b0` row `t`, column `g`; C/D as m16n8k16's. Each
/// source carries junk in its low 13 bits, which tf32 does not have.
#[test]
fn hmma_1684_tf32_drops_the_low_bits() {
    let a = |i: usize, k: usize| ((i * 3 + k * 5) % 7) as f32 - 3.0;
    let b = |k: usize, j: usize| ((k + 2 * j) % 5) as f32 - 2.0;
    let c = |i: usize, j: usize| (i * 8 + j) as f32 / 4.0;
    let junk = |v: f32, l: usize| v.to_bits() | (0x1fff & (0x0a5b * (l as u32 + 1)));
    let mut w = warp();
    for (l, m) in w.lanes.iter_mut().enumerate() {
        let (g, t) = (l >> 2, l % 4);
        m.r[0] = junk(a(g, t), l);
        m.r[1] = junk(a(g + 8, t), l);
        m.r[2] = junk(b(t, g), l);
        for i in 0..4 {
            let (r, j) = c_pos(l, i);
            m.r[4 + i] = c(r, j).to_bits();
        }
    }
    run(&mut w, "HMMA.1684.F32.TF32 R8, R0, R2, R4");
    for (l, m) in w.lanes.iter().enumerate() {
        for i in 0..4 {
            let (r, j) = c_pos(l, i);
            let want = (0..4).map(|k| a(r, k) * b(k, j)).sum::<f32>() + c(r, j);
            assert_eq!(f32::from_bits(m.r[8 + i]), want, "lane {l} d{i}");
        }
    }
    // Row 0, column 0: 2^24 + 1 + 1 + 1 is 2^24 + 2 toward zero (f32's
    // step there is 2; nearest even would give 2^24 + 4).
    let mut w = warp();
    set(&mut w, 0, |l| if l < 3 { 0x3f80_0000 } else { 0 });
    set(&mut w, 2, |l| if l < 4 { 0x3f80_0000 } else { 0 });
    w.lanes[0].r[4] = 0x4b80_0000;
    run(&mut w, "HMMA.1684.F32.TF32 R8, R0, R2, R4");
    assert_eq!(w.lanes[0].r[8], 0x4b80_0001);
}

/// The manual's m8n8k16 `.s8` tables: `a` row `g`, columns `4t..4t+3`
/// (byte `j` column `4t + j`); `b` column `g`, rows `4t..4t+3`; `c`/`d`
/// row `g`, columns `2t`, `2t + 1`.
#[test]
fn imma_8816_s8() {
    let a = |i: usize, k: usize| (i as i32 * 5 + k as i32 * 3) % 11 - 5;
    let b = |k: usize, j: usize| (k as i32 + 3 * j as i32) % 9 - 4;
    let mut w = warp();
    for (l, m) in w.lanes.iter_mut().enumerate() {
        let (g, t) = (l >> 2, l % 4);
        m.r[0] = (0..4).fold(0, |v, j| v | (a(g, 4 * t + j) as u8 as u32) << (8 * j));
        m.r[1] = (0..4).fold(0, |v, j| v | (b(4 * t + j, g) as u8 as u32) << (8 * j));
        m.r[2] = 1000;
        m.r[3] = (-1000i32) as u32;
    }
    run(&mut w, "IMMA.8816.S8.S8 R4, R0.ROW, R1.COL, R2");
    for (l, m) in w.lanes.iter().enumerate() {
        let (g, t) = (l >> 2, l % 4);
        for (h, c) in [(0, 1000), (1, -1000)] {
            let want = (0..16).map(|k| a(g, k) * b(k, 2 * t + h)).sum::<i32>() + c;
            assert_eq!(m.r[4 + h] as i32, want, "lane {l} d{h}");
        }
    }
}

/// The manual's m8n8k128 `.b1` tables: `a` row `g`, bits `32t..32t+31`
/// (bit `j` column `32t + j`); `b` column `g`, rows `32t..`; `c`/`d` row
/// `g`, columns `2t`, `2t + 1`. `d = c + popc(a AND b)` summed over `k`
/// (`XOR`), wrapping.
#[test]
fn bmma_88128_and_xor_popc() {
    let areg = |l: usize| 0x9e37_79b9u32.rotate_left(l as u32) ^ l as u32;
    let breg = |l: usize| 0x85eb_ca6bu32.rotate_right(3 * l as u32);
    let mut w = warp();
    set(&mut w, 0, areg);
    set(&mut w, 1, breg);
    set(&mut w, 2, |_| i32::MAX as u32 - 40);
    set(&mut w, 3, |_| 7);
    for (op, f) in [
        ("AND", (|x, y| x & y) as fn(u32, u32) -> u32),
        ("XOR", |x, y| x ^ y),
    ] {
        run(
            &mut w,
            &format!("BMMA.88128.{op}.POPC R4, R0.ROW, R1.COL, R2"),
        );
        for (l, m) in w.lanes.iter().enumerate() {
            let (g, t) = (l >> 2, l % 4);
            for (h, c) in [(0, i32::MAX as u32 - 40), (1, 7)] {
                // Row g is lanes 4g..4g+3's words; column 2t + h is lanes
                // 4 (2t + h) ..'s.
                let ones: u32 = (0..4)
                    .map(|q| f(areg(4 * g + q), breg(4 * (2 * t + h) + q)).count_ones())
                    .sum();
                assert_eq!(m.r[4 + h], c.wrapping_add(ones), "{op} lane {l} d{h}");
            }
        }
    }
    // Some row of A AND its column has over 40 ones: the sum wrapped.
    assert!(w.lanes.iter().any(|m| m.r[4] >= 0x8000_0000));
}

/// DMMA's directed roundings, each fused step rounded: `1 + 4 * 2^-60`
/// added `2^-60` at a time from `c` = 1 and -1 (a = b = 2^-30).
#[test]
fn dmma_directed_roundings() {
    let mut w = warp();
    let put = |m: &mut Machine, r: usize, v: f64| {
        m.r[r] = v.to_bits() as u32;
        m.r[r + 1] = (v.to_bits() >> 32) as u32;
    };
    for m in &mut w.lanes {
        put(m, 0, 2f64.powi(-30));
        put(m, 2, 2f64.powi(-30));
        put(m, 4, 1.0);
        put(m, 6, -1.0);
    }
    let (up, down) = (1.0 + 4.0 * 2f64.powi(-52), -1.0 + 4.0 * 2f64.powi(-53));
    for (op, pos, neg) in [
        ("DMMA.8x8x4", 1.0, -1.0),
        ("DMMA.8x8x4.RZ", 1.0, down),
        ("DMMA.8x8x4.RM", 1.0, -1.0),
        ("DMMA.8x8x4.RP", up, down),
    ] {
        run(&mut w, &format!("{op} R8, R0, R2, R4"));
        for m in &w.lanes {
            let d = |r: usize| f64::from_bits(u64::from(m.r[r + 1]) << 32 | u64::from(m.r[r]));
            assert_eq!((d(8), d(10)), (pos, neg), "{op}");
        }
    }
}

#[test]
fn hadd2_f32_widens_a_half() {
    let mut w = warp();
    set(&mut w, 1, |l| match l {
        0 => 0xc000_3c00,
        1 => 0x7c00_7e00,
        2 => 0x0000_8000,
        _ => 0x0001,
    });
    run(&mut w, "HADD2.F32 R2, -RZ, R1.H0_H0");
    run(&mut w, "HADD2.F32 R3, -RZ, R1.H1_H1");
    let got: Vec<[u32; 2]> = w.lanes[..4].iter().map(|m| [m.r[2], m.r[3]]).collect();
    // 1 and -2; NaN (the f32 NaN) and inf; -0 (-0 + -0) and +0; 2^-24.
    assert_eq!(
        got,
        [
            [0x3f80_0000, 0xc000_0000],
            [0x7fff_ffff, 0x7f80_0000],
            [0x8000_0000, 0],
            [0x3380_0000, 0]
        ]
    );
}

/// The 64-bit adds of WMMA's address arithmetic: `IADD3` with a carry out
/// and `IADD3.X`, `LEA` with a carry out and `LEA.HI.X`.
#[test]
fn carries_of_64_bit_address_arithmetic() {
    let mut w = warp();
    set(&mut w, 0, |_| 0xe000_0000);
    set(&mut w, 1, |_| 1);
    set(&mut w, 2, |_| 0x8000_0000);
    set(&mut w, 3, |_| 2);
    run(&mut w, "IADD3 R4, P0, R0, R2, RZ");
    run(&mut w, "IADD3.X R5, R1, R3, RZ, P0, !PT");
    // 0x1_e000_0000 + 0x2_8000_0000.
    assert_eq!(w.lanes[7].r[4..6], [0x6000_0000, 4]);
    run(&mut w, "LEA R4, P0, R0, R2, 0x2");
    run(&mut w, "LEA.HI.X R5, R0, R3, R1, 0x2, P0");
    // 0x1_e000_0000 * 4 + 0x2_8000_0000 = 0x7_8000_0000 + 0x2_8000_0000.
    assert_eq!(w.lanes[7].r[4..6], [0, 0xa]);
}

/// `PLOP3` on sign bits (the 4-bit `.satfinite` overflow test): entry
/// `4a + 2b + c` of the table.
#[test]
fn plop3_reads_sign_bits() {
    let mut w = warp();
    set(&mut w, 5, |_| 1);
    set(&mut w, 6, |l| if l == 0 { 0x7fff_ffff } else { 5 });
    set(&mut w, 9, |l| {
        1u32.wrapping_add(if l == 0 { 0x7fff_ffff } else { 5 })
    });
    run(
        &mut w,
        "PLOP3.LUT P2, PT, R5.SIGN, R6.SIGN, R9.reuse.SIGN, 0x2, 0x0",
    );
    assert!(w.lanes[0].p[2] && !w.lanes[1].p[2]);
}

/// `LDG.E.128`/`STG.E.128`: four registers, 16 bytes.
#[test]
fn wide_global_loads_and_stores() {
    let input: Vec<u8> = (0..64).collect();
    let mut w = Warp::new(input, 64);
    for (l, m) in w.lanes.iter_mut().enumerate() {
        let (lo, hi) = (
            IN_BASE + 16 * (l as u64 % 4),
            OUT_BASE + 16 * (l as u64 % 4),
        );
        m.r[2] = lo as u32;
        m.r[3] = (lo >> 32) as u32;
        m.r[10] = hi as u32;
        m.r[11] = (hi >> 32) as u32;
    }
    run(&mut w, "LDG.E.128 R4, desc[UR4][R2.64]");
    assert_eq!(
        w.lanes[1].r[4..8],
        [0x1312_1110, 0x1716_1514, 0x1b1a_1918, 0x1f1e_1d1c]
    );
    run(&mut w, "STG.E.128 desc[UR4][R10.64], R4");
    assert_eq!(w.output, (0..64).collect::<Vec<u8>>());
}

/// `SR_LANEID`, and a call into a routine ptxas appends and its return
/// through the address register the caller set.
#[test]
fn lane_ids_calls_and_returns() {
    let text = "\
.text.k:
    /*0000*/                   S2R R0, SR_LANEID ;
    /*0010*/                   MOV R2, 0x40 ;
    /*0020*/                   CALL.REL.NOINC `($__internal_0_f) ;
    /*0030*/                   IADD3 R1, R1, 0x100, RZ ;
    /*0040*/                   EXIT ;
        .weak           $__internal_0_f
        .type           $__internal_0_f,@function
$__internal_0_f:
    /*0050*/                   IADD3 R1, R0, 0x1, RZ ;
    /*0060*/                   RET.REL.NODEC R2 `(k) ;
";
    let prog = &parse_listing(text).unwrap()[0].1;
    let mut w = warp();
    w.run(prog).unwrap();
    // The return lands on 0x40 (EXIT), skipping the add at 0x30.
    assert!(w
        .lanes
        .iter()
        .enumerate()
        .all(|(l, m)| m.r[1] == l as u32 + 1));
}
