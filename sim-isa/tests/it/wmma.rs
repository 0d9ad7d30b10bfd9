//! The WMMA statements (`wmma.load`, `wmma.store`, `wmma.mma`): the parser
//! and the gates against ptxas 13.0.88's verdicts (`tests/data/wmma-ptxas.txt`,
//! made by `tools/ptxas_grid/wmma_grid.py`), printing, what the database
//! says of them, and the layout: lane 5's elements as read from ptxas
//! 13.0.88's sm_90 machine code (docs/wmma.md). The values in a launch:
//! sim-kernel's `tests/it/wmma.rs`.

use crate::grid;
use sim_isa::inst::{MmaShape, MmaType};
use sim_isa::parse::parse_instruction;
use sim_isa::{db, wmma_element, Symbols, WmmaFrag};

const GRID: &str = include_str!("../data/wmma-ptxas.txt");

/// Valid PTX the simulator refuses as `Unimplemented`: immediate fragment
/// elements.
fn unimplemented_form(t: &str) -> bool {
    [", 5}", ", 1}", "{0f00000000"]
        .iter()
        .any(|w| t.contains(w))
}

/// The verdicts, the printing and the gates against ptxas's
/// (`grid::check_gated`).
#[test]
fn agrees_with_ptxas_on_the_grid() {
    // With the tf32 (m16n16k8), b1 (m8n8k128) and f64 rounding forms,
    // all of them run.
    grid::check_gated(GRID, &unimplemented_form, [336, 126, 0], 95);
}

/// What each form does to the machine, as the database says.
#[test]
fn effects() {
    let p = |t: &str| parse_instruction(t, &mut Symbols::new()).unwrap();
    let ld = p("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 \
                {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], %r9");
    assert_eq!(db::memory(&ld).map(|m| m.kind), Some(db::MemKind::Load));
    assert!(db::is_warp_wide(&ld) && db::needs_launch(&ld) && !db::has_effect(&ld));
    // Eight fragment registers written; the address and the stride read.
    assert_eq!(ld.reg_uses().writes().count(), 8);
    assert_eq!(ld.reg_uses().reads().count(), 2);
    let st = p(
        "wmma.store.d.sync.aligned.col.m16n16k16.shared.f32 [%rd1], \
                {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, 24",
    );
    assert_eq!(db::memory(&st).map(|m| m.kind), Some(db::MemKind::Store));
    assert!(db::has_effect(&st));
    assert_eq!(st.reg_uses().reads().count(), 9);
    let mma = p("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 \
                 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, \
                 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, \
                 {%r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18}, \
                 {%f11, %f12, %f13, %f14, %f15, %f16, %f17, %f18}");
    assert!(db::is_warp_wide(&mma) && !db::needs_launch(&mma) && db::memory(&mma).is_none());
    // `a` and `b`: only the registers the two HMMAs read (0-3).
    assert_eq!(mma.reg_uses().writes().count(), 8);
    assert_eq!(mma.reg_uses().reads().count(), 16);
    assert_eq!(db::warp_machine_opcode(&mma), Some(("HMMA", ".16816.F32")));
    assert_eq!(db::mnemonic(&mma), "wmma.mma");
    assert_eq!(db::mnemonic(&ld), "wmma.load");
    // m32n8k16 with f32 accumulators: all eight of `a`, `b`'s two (the
    // `HMMA`s' shared `B`), eight of `c`: 26 registers and the guard.
    let big = p("@%p1 wmma.mma.sync.aligned.row.col.m32n8k16.f32.f32 \
                 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, \
                 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, \
                 {%r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18}, \
                 {%f11, %f12, %f13, %f14, %f15, %f16, %f17, %f18}");
    assert_eq!(big.reg_uses().writes().count(), 8);
    assert_eq!(big.reg_uses().reads().count(), 19);
    let int = p(
        "wmma.mma.sync.aligned.row.col.m8n32k16.s32.u8.u8.s32.satfinite \
                 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9}, \
                 {%r11, %r12, %r13, %r14}, {%r21, %r22, %r23, %r24, %r25, %r26, %r27, %r28}",
    );
    assert_eq!(db::warp_machine_opcode(&int), Some(("IMMA", ".16816")));
    let dmma = p("wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 \
                  {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6}");
    assert_eq!(db::warp_machine_opcode(&dmma), Some(("DMMA", ".8x8x4")));
    assert!(dmma.reg_uses().iter().all(|u| u.bits == 64));
    // tf32: four `HMMA.1684.F32.TF32`; b1: `BMMA.88128.AND.POPC` (two for
    // `.xor.popc`), each timed as one.
    let tf = p("wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32 \
                {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2, %r3, %r4}, \
                {%r11, %r12, %r13, %r14}, {%f11, %f12, %f13, %f14, %f15, %f16, %f17, %f18}");
    assert_eq!(
        db::warp_machine_opcode(&tf),
        Some(("HMMA", ".1684.F32.TF32"))
    );
    assert_eq!(tf.reg_uses().reads().count(), 16);
    let b1 = p(
        "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 \
                {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6}",
    );
    assert_eq!(
        db::warp_machine_opcode(&b1),
        Some(("BMMA", ".88128.AND.POPC"))
    );
    assert_eq!(b1.reg_uses().reads().count(), 4);
    let ldd = p("wmma.load.c.sync.aligned.col.m8n8k4.global.f64 {%fd1, %fd2}, [%rd1]");
    assert_eq!(
        ldd.reg_uses().writes().map(|u| u.bits).collect::<Vec<_>>(),
        [64, 64]
    );
}

/// Lane 5 (`g` 1, `t` 1): the elements docs/wmma.md reads from the machine
/// code, (row, column) of each register's low half.
#[test]
fn lane_five_holds_what_ptxas_loads() {
    let sh = MmaShape::M16n16k16;
    let low = |f, f32: bool, k| {
        let t = match (f, f32) {
            (_, true) => MmaType::F32,
            (_, false) => MmaType::F16,
        };
        wmma_element(sh, f, t, k, 5, 0)
    };
    // a: LDG at +0, +0x100 (8 rows), +0x10 (8 columns), +0x110; 4-7 repeat.
    let a: Vec<_> = (0..8).map(|k| low(WmmaFrag::A, false, k)).collect();
    assert_eq!(
        a,
        [
            (1, 2),
            (9, 2),
            (1, 10),
            (9, 10),
            (1, 2),
            (9, 2),
            (1, 10),
            (9, 10)
        ]
    );
    // b (k, n): +0, +0x10 (8 k on), +0x100 (8 n on), +0x110.
    let b: Vec<_> = (0..4).map(|k| low(WmmaFrag::B, false, k)).collect();
    assert_eq!(b, [(2, 1), (10, 1), (2, 9), (10, 9)]);
    // c f32: LDG.E.64 pairs at +0, +0x200 (8 rows), +0x20 (8 columns), +0x220.
    let c: Vec<_> = (0..8).map(|k| low(WmmaFrag::C, true, k)).collect();
    assert_eq!(
        c,
        [
            (1, 2),
            (1, 3),
            (9, 2),
            (9, 3),
            (1, 10),
            (1, 11),
            (9, 10),
            (9, 11)
        ]
    );
    // c f16: as a; the high half is the next column.
    assert_eq!(wmma_element(sh, WmmaFrag::C, MmaType::F16, 1, 5, 1), (9, 3));
}

/// The tf32 and b1 layouts, lane 5 (`g` 1, `t` 1), as ptxas 13.0.88's
/// sm_90 loads give them (docs/wmma.md).
#[test]
fn lane_five_tf32_and_b1() {
    let el = |sh, f, t, k| wmma_element(sh, f, t, k, 5, 0);
    let tf = MmaShape::Wm16n16k8;
    // a (16 x 8) row-major: `LDG` at element 8g + t, +0x40 (8 rows),
    // +4 (4 columns), +0x44.
    let a: Vec<_> = (0..4)
        .map(|k| el(tf, WmmaFrag::A, MmaType::Tf32, k))
        .collect();
    assert_eq!(a, [(1, 1), (9, 1), (1, 5), (9, 5)]);
    // b (8 x 16) row-major: element 16t + g, +0x40 (4 rows), +8 (8
    // columns), +0x48.
    let b: Vec<_> = (0..4)
        .map(|k| el(tf, WmmaFrag::B, MmaType::Tf32, k))
        .collect();
    assert_eq!(b, [(1, 1), (5, 1), (1, 9), (5, 9)]);
    // c f32 as m16n16k16's: `LDG.E.64` at +0, +0x200, +0x20, +0x220.
    assert_eq!(el(tf, WmmaFrag::C, MmaType::F32, 6), (9, 10));
    // b1: one `LDG.E` at word 4g + t: bits 32t on of row g (column g).
    let bs = MmaShape::Wm8n8k128;
    assert_eq!(wmma_element(bs, WmmaFrag::A, MmaType::B1, 0, 5, 7), (1, 39));
    assert_eq!(
        wmma_element(bs, WmmaFrag::B, MmaType::B1, 0, 5, 31),
        (63, 1)
    );
    // c s32: `LDG.E.64` at element 8g + 2t.
    assert_eq!(el(bs, WmmaFrag::C, MmaType::S32, 1), (1, 3));
}
