//! The tensor-core family (`mma.sync`, `ldmatrix`, `stmatrix`,
//! `movmatrix`): the parser and the gates against ptxas 13.0.88's verdicts
//! (`tests/data/mma-ptxas.txt`, made by `tools/ptxas_grid/mma_grid.py`),
//! printing, and the values on hand-made warps: matrices of small integers
//! and powers of two (exact under any order of summation) loaded into the
//! fragments with `ldmatrix` as a CUDA kernel does, multiplied, and
//! compared with the product computed here; then a few cases that pin the
//! f16/bf16 rounding model ("model, not measured on a GPU").

// Lanes and matrix indices address several parallel arrays.
#![allow(clippy::needless_range_loop)]

use crate::grid;
use sim_isa::exec::{execute_mem, mma_dot, Access, FaultKind, Memory, MmaModel};
use sim_isa::parse::parse_instruction;
use sim_isa::{
    db, execute, ExecCtx, Instruction, RegId, Space, Symbols, Target, WarpRegs, WARP_SIZE,
};

const GRID: &str = include_str!("../data/mma-ptxas.txt");

/// Valid PTX (ptxas accepts it) that the simulator refuses as
/// `Unimplemented`: other types and shapes, immediate fragment elements.
fn unimplemented_form(t: &str) -> bool {
    [
        ".tf32",
        ".e4m3",
        "m8n8k4.row.col.f32.f16",
        "{0f00000000",
        ", 1}",
    ]
    .iter()
    .any(|w| t.contains(w))
}

/// The parser accepts what ptxas accepts (or says it does not run it, for
/// the forms [`unimplemented_form`] names) and calls `Invalid` what it
/// rejects; every accepted statement the simulator runs prints as text
/// that parses back to itself; `check_target` refuses a form exactly where
/// ptxas 13.0.88 refuses it for the target or `.version` (`grid::check_gated`).
#[test]
fn agrees_with_ptxas_on_the_grid() {
    grid::check_gated(GRID, &unimplemented_form, [58, 59, 0], 31);
    let accepted = grid::of_kind(GRID, "accept");
    let runs = accepted.iter().filter(|t| !unimplemented_form(t)).count();
    assert_eq!(runs, 53);
}

/// What each form does to the machine, as the database says.
#[test]
fn effects() {
    let p = |t: &str| parse_instruction(t, &mut Symbols::new()).unwrap();
    let ld = p("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5]");
    assert_eq!(db::memory(&ld).map(|m| m.kind), Some(db::MemKind::Load));
    assert!(db::is_warp_wide(&ld) && db::is_fence(&ld) && !db::has_effect(&ld));
    let st = p("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r5], {%r1}");
    assert_eq!(db::memory(&st).map(|m| m.kind), Some(db::MemKind::Store));
    assert!(db::has_effect(&st) && db::needs_launch(&st));
    let mma = p("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 \
                 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}");
    assert!(db::is_warp_wide(&mma) && !db::needs_launch(&mma) && db::memory(&mma).is_none());
    assert_eq!(mma.reg_uses().writes().count(), 4);
    assert_eq!(mma.reg_uses().reads().count(), 10);
    assert_eq!(db::warp_machine_opcode(&mma), Some(("HMMA", ".16816.F32")));
    assert_eq!(db::lowering_key(&mma), "mma.m16n8k16.f32.f16.f16.f32");
    let mv = p("movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2");
    assert_eq!(db::warp_machine_opcode(&mv), Some(("MOVM", ".16.MT88")));
}

const SASS: &str = include_str!("../data/mma-sass-sm90.txt");

/// The machine opcode the database names for each `mma`/`movmatrix` (what
/// sim-core's pipe rules time it by) is the one ptxas 13.0.88 emits for
/// sm_90, its modifiers a prefix of ptxas's (`tests/data/mma-sass-sm90.txt`,
/// `tools/lowering/mma_sass.py`); `ldmatrix`/`stmatrix` (LDSM, STSM) are
/// memory instructions and have none.
#[test]
fn machine_opcodes_are_ptxas_s() {
    let rows: Vec<(&str, &str)> = SASS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_once('\t').unwrap())
        .collect();
    assert_eq!(rows.len(), 18);
    for (ptx, sass) in rows {
        let i = parse_instruction(ptx, &mut Symbols::new()).unwrap();
        match db::warp_machine_opcode(&i) {
            Some((op, mods)) => {
                let (sop, smods) = sass.split_once('.').unwrap();
                assert_eq!(op, sop, "{ptx}");
                assert!(
                    format!(".{smods}").starts_with(mods),
                    "{ptx}: {mods} vs {sass}"
                );
            }
            None => {
                assert!(
                    sass.starts_with("LDSM") || sass.starts_with("STSM"),
                    "{ptx}"
                );
                assert!(db::memory(&i).is_some(), "{ptx}");
            }
        }
    }
}

/// A shared memory of 4 KiB for one warp.
struct Shared(Vec<u8>);

impl Memory for Shared {
    fn load(&mut self, acc: Access) -> Result<u64, FaultKind> {
        let a = acc.addr as usize;
        let s = self
            .0
            .get(a..a + acc.bytes as usize)
            .ok_or(FaultKind::OutOfBounds)?;
        Ok(crate::bytes::read_le(s))
    }
    fn store(&mut self, acc: Access, v: u64) -> Result<(), FaultKind> {
        let a = acc.addr as usize;
        let s = self
            .0
            .get_mut(a..a + acc.bytes as usize)
            .ok_or(FaultKind::OutOfBounds)?;
        crate::bytes::write_le(s, v);
        Ok(())
    }
    fn var(&self, _: u32) -> Result<(Space, u64), FaultKind> {
        Err(FaultKind::UnknownVariable)
    }
    fn to_generic(&self, _: Space, a: u64) -> u64 {
        a
    }
    fn generic_to_space(&self, _: Space, a: u64) -> u64 {
        a
    }
}

/// A warp with `syms`' registers; `set` writes one register in every lane.
struct Warp {
    syms: Symbols,
    regs: WarpRegs,
    ctx: ExecCtx,
}

impl Warp {
    fn new() -> Self {
        Warp {
            syms: Symbols::new(),
            regs: WarpRegs::new(64),
            ctx: ExecCtx::new(Target::SM_90, 0),
        }
    }
    fn inst(&mut self, t: &str) -> Instruction {
        parse_instruction(t, &mut self.syms).unwrap_or_else(|e| panic!("{t}: {e}"))
    }
    fn reg(&mut self, name: &str) -> RegId {
        self.syms.intern(name)
    }
    fn set(&mut self, name: &str, f: impl Fn(usize) -> u64) {
        let r = self.reg(name);
        self.regs.ensure(r.0 as usize + 1);
        let v = self.regs.get_mut(r);
        for l in 0..WARP_SIZE {
            v[l] = f(l);
        }
    }
    fn get(&mut self, name: &str) -> [u64; WARP_SIZE] {
        let r = self.reg(name);
        *self.regs.get(r)
    }
    fn run(&mut self, t: &str) {
        let i = self.inst(t);
        execute(&i, &self.ctx, &mut self.regs, u32::MAX);
    }
    fn run_mem(&mut self, t: &str, mem: &mut Shared) {
        let i = self.inst(t);
        execute_mem(&i, &self.ctx, &mut self.regs, u32::MAX, mem).unwrap();
    }
    /// Loads the m16n8k16 fragments as a CUDA kernel does: A's four 8x8
    /// matrices from the rows `%ra` names, B's two (transposed) from `%rb`.
    fn load_k16(&mut self, mem: &mut Shared) {
        self.run_mem(
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%a0, %a1, %a2, %a3}, [%ra]",
            mem,
        );
        self.run_mem(
            "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%b0, %b1}, [%rb]",
            mem,
        );
    }
}

fn f16(x: f64) -> u64 {
    // Small integers and powers of two only: exact in f16.
    let bits = (x as f32).to_bits();
    let sign = (bits >> 16) & 0x8000;
    if x == 0.0 {
        return u64::from(sign);
    }
    let e = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&e), "{x}");
    u64::from(sign | (e as u32) << 10 | (bits >> 13) & 0x3ff)
}

fn bf16(x: f64) -> u64 {
    u64::from((x as f32).to_bits() >> 16)
}

/// An `m16 x k` matrix of 16-bit elements row-major at 0 and a `k x 8`
/// one row-major at 1024 (as a CUDA kernel keeps tiles in shared memory),
/// loaded with `ldmatrix` (A: `.x4`/`.x2`, B: `.trans`), multiplied with
/// `c` (f32) by `mma`, and `D` read back by the C/D fragment layout.
fn run_half(
    shape: &str,
    k: usize,
    bf: bool,
    a: &[[f64; 16]; 16],
    b: &[[f64; 8]; 16],
    c: f32,
) -> [[f32; 8]; 16] {
    let enc = |x: f64| if bf { bf16(x) } else { f16(x) };
    let mut mem = Shared(vec![0; 4096]);
    for i in 0..16 {
        for j in 0..k {
            let v = enc(a[i][j]);
            mem.0[2 * (i * k + j)..][..2].copy_from_slice(&(v as u16).to_le_bytes());
        }
    }
    for i in 0..k {
        for j in 0..8 {
            let v = enc(b[i][j]);
            mem.0[1024 + 2 * (i * 8 + j)..][..2].copy_from_slice(&(v as u16).to_le_bytes());
        }
    }
    let mut w = Warp::new();
    // A: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15),
    // (rows 8-15, k 8-15): lane l names row l % 16 at column 8 (l / 16).
    w.set("%ra", |l| ((l % 16) * k * 2 + (l / 16) * 16) as u64);
    // B: rows k of the k x 8 tile, lane l names row l % k (.trans).
    w.set("%rb", |l| (1024 + (l % k) * 16) as u64);
    let ty = if bf { "bf16" } else { "f16" };
    if k == 16 {
        w.load_k16(&mut mem);
    } else {
        w.run_mem(
            "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%a0, %a1}, [%ra]",
            &mut mem,
        );
        w.run_mem(
            "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%b0}, [%rb]",
            &mut mem,
        );
    }
    for r in ["%c0", "%c1", "%c2", "%c3"] {
        w.set(r, |_| u64::from(c.to_bits()));
    }
    let (af, bfr) = if k == 16 {
        ("{%a0, %a1, %a2, %a3}", "{%b0, %b1}")
    } else {
        ("{%a0, %a1}", "{%b0}")
    };
    w.run(&format!(
        "mma.sync.aligned.{shape}.row.col.f32.{ty}.{ty}.f32 {{%d0, %d1, %d2, %d3}}, {af}, {bfr}, {{%c0, %c1, %c2, %c3}}"
    ));
    let mut d = [[0f32; 8]; 16];
    for i in 0..4 {
        let v = w.get(&format!("%d{i}"));
        for l in 0..WARP_SIZE {
            let (g, t) = (l / 4, l % 4);
            d[g + 8 * (i / 2)][2 * t + (i % 2)] = f32::from_bits(v[l] as u32);
        }
    }
    d
}

fn reference(k: usize, a: &[[f64; 16]; 16], b: &[[f64; 8]; 16], c: f32) -> [[f32; 8]; 16] {
    let mut d = [[0f32; 8]; 16];
    for i in 0..16 {
        for j in 0..8 {
            d[i][j] = ((0..k).map(|x| a[i][x] * b[x][j]).sum::<f64>() + f64::from(c)) as f32;
        }
    }
    d
}

/// Small integers (|x| <= 4): every partial sum is exact.
#[test]
fn m16n8k16_and_k8_multiply_small_integers_exactly() {
    let mut a = [[0f64; 16]; 16];
    let mut b = [[0f64; 8]; 16];
    for i in 0..16 {
        for j in 0..16 {
            a[i][j] = ((i * 3 + j * 5) % 9) as f64 - 4.0;
        }
    }
    for i in 0..16 {
        for j in 0..8 {
            b[i][j] = ((i * 3 + j * 2) % 7) as f64 - 3.0;
        }
    }
    for bf in [false, true] {
        for (shape, k) in [("m16n8k16", 16), ("m16n8k8", 8)] {
            let got = run_half(shape, k, bf, &a, &b, 0.5);
            assert_eq!(got, reference(k, &a, &b, 0.5), "{shape} bf16={bf}");
        }
    }
    // One row by hand: row 0 of A is -4, 1, -3, 2, -2, 3, -1, 4, 0, -4,
    // 1, -3, 2, -2, 3, -1; column 0 of B is -3, 0, 3, -1, 2, -2, 1, -3, 0,
    // 3, -1, 2, -2, 1, -3, 0.
    let got = run_half("m16n8k16", 16, false, &a, &b, 0.5);
    let products = [
        12, 0, -9, -2, -4, -6, -1, -12, 0, -12, -1, -6, -4, -2, -9, 0,
    ];
    assert_eq!(products.iter().sum::<i32>(), -56);
    assert_eq!(got[0][0], -55.5);
}

/// The f16 accumulator form and `stmatrix` writing `D` back as the
/// 16 x 8 tile (two 8x8 matrices), which a host reads row-major.
#[test]
fn f16_accumulators_store_back_with_stmatrix() {
    let mut w = Warp::new();
    let mut mem = Shared(vec![0; 4096]);
    // A = I (16 x 16) and B[k][n] = k + n: D = B's first 16 rows plus C = 1.
    for i in 0..16 {
        mem.0[2 * (i * 16 + i)..][..2].copy_from_slice(&(f16(1.0) as u16).to_le_bytes());
        for j in 0..8 {
            let v = f16((i + j) as f64) as u16;
            mem.0[1024 + 2 * (i * 8 + j)..][..2].copy_from_slice(&v.to_le_bytes());
        }
    }
    w.set("%ra", |l| ((l % 16) * 32 + (l / 16) * 16) as u64);
    w.set("%rb", |l| (1024 + (l % 16) * 16) as u64);
    w.set("%rd", |l| (2048 + (l % 16) * 16) as u64);
    let one = f16(1.0);
    w.set("%c0", |_| one | one << 16);
    w.set("%c1", |_| one | one << 16);
    w.load_k16(&mut mem);
    w.run("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%d0, %d1}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1}");
    w.run_mem(
        "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%rd], {%d0, %d1}",
        &mut mem,
    );
    for i in 0..16 {
        for j in 0..8 {
            let at = 2048 + 2 * (i * 8 + j);
            let got = u16::from_le_bytes([mem.0[at], mem.0[at + 1]]);
            assert_eq!(u64::from(got), f16((i + j + 1) as f64), "D[{i}][{j}]");
        }
    }
}

/// `ldmatrix`'s and `movmatrix`'s fragments, by the manual's figure:
/// lane `l` holds row `l / 4`, columns `2 (l % 4)` and `+1`.
#[test]
fn ldmatrix_and_movmatrix_fragments() {
    let mut mem = Shared(vec![0; 4096]);
    // Element (r, c) of the 8x8 matrix at 256 (rows 32 bytes apart) is
    // 100 + 8r + c.
    for r in 0..8 {
        for c in 0..8 {
            let v = (100 + 8 * r + c) as u16;
            mem.0[256 + 32 * r + 2 * c..][..2].copy_from_slice(&v.to_le_bytes());
        }
    }
    let mut w = Warp::new();
    w.set("%ra", |l| (256 + 32 * (l % 8)) as u64);
    w.run_mem(
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%x}, [%ra]",
        &mut mem,
    );
    w.run_mem(
        "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%t}, [%ra]",
        &mut mem,
    );
    w.run("movmatrix.sync.aligned.m8n8.trans.b16 %m, %x");
    let (x, t, m) = (w.get("%x"), w.get("%t"), w.get("%m"));
    let pair = |a: usize, b: usize| (a | b << 16) as u64;
    for l in 0..WARP_SIZE {
        let (r, c) = (l / 4, 2 * (l % 4));
        assert_eq!(x[l], pair(100 + 8 * r + c, 100 + 8 * r + c + 1), "lane {l}");
        // Transposed: element (r, c) of the transpose is (c, r).
        let tr = pair(100 + 8 * c + r, 100 + 8 * (c + 1) + r);
        assert_eq!(t[l], tr, "lane {l}");
        assert_eq!(m[l], tr, "lane {l}");
    }
    // A row address that is not 16-byte aligned faults.
    w.set("%ra", |l| (258 + 32 * (l % 8)) as u64);
    let i = w.inst("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%x}, [%ra]");
    let e = execute_mem(&i, &w.ctx, &mut w.regs, u32::MAX, &mut mem).unwrap_err();
    assert_eq!((e.kind, e.lane, e.addr), (FaultKind::Misaligned, 0, 258));
}

/// `m16n8k32` with s8/u8 (and `.satfinite`) and `m16n8k16` with s8: exact.
#[test]
fn integer_mma_by_hand() {
    let mut w = Warp::new();
    // Every byte of A is -1 (s8) or 255 (u8); every byte of B is 2.
    for r in ["%a0", "%a1", "%a2", "%a3"] {
        w.set(r, |_| 0xffff_ffff);
    }
    w.set("%b0", |_| 0x0202_0202);
    w.set("%b1", |_| 0x0202_0202);
    for r in ["%c0", "%c1", "%c2", "%c3"] {
        w.set(r, |l| l as u64);
    }
    let frag = "{%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3}";
    w.run(&format!(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {frag}"
    ));
    // 32 products of -1 * 2, plus the lane's c.
    let d0 = w.get("%d0");
    for l in 0..WARP_SIZE {
        assert_eq!(d0[l] as u32 as i32, l as i32 - 64);
    }
    w.run(&format!(
        "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {frag}"
    ));
    assert_eq!(w.get("%d3")[5], 32 * 255 * 2 + 5);
    // Saturation: c near the top of the range.
    for r in ["%c0", "%c1", "%c2", "%c3"] {
        w.set(r, |_| 0x7fff_f000);
    }
    w.run(&format!(
        "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {frag}"
    ));
    assert_eq!(
        w.get("%d1")[0],
        (0x7fff_f000u32 + 16320) as u64 & 0xffff_ffff
    );
    w.run(&format!(
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32 {frag}"
    ));
    assert_eq!(w.get("%d1")[0], 0x7fff_ffff);
    // m16n8k16: 16 products.
    for r in ["%c0", "%c1", "%c2", "%c3"] {
        w.set(r, |_| 0);
    }
    w.run("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%d0, %d1, %d2, %d3}, {%a0, %a1}, {%b0}, {%c0, %c1, %c2, %c3}");
    assert_eq!(w.get("%d2")[9] as u32 as i32, -32);
}

/// `m8n8k4.f64`: D[i][j] = sum_k A[i][k] B[k][j] + C, exact for these.
#[test]
fn f64_mma_by_hand() {
    let mut w = Warp::new();
    // A[g][t] = g + t, B[t][g] = t - g (lane l = 4g + t holds both).
    w.set("%a", |l| ((l / 4 + l % 4) as f64).to_bits());
    w.set("%b", |l| ((l % 4) as f64 - (l / 4) as f64).to_bits());
    w.set("%c0", |_| 0.25f64.to_bits());
    w.set("%c1", |_| 0.25f64.to_bits());
    w.run("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%d0, %d1}, {%a}, {%b}, {%c0, %c1}");
    let (d0, d1) = (w.get("%d0"), w.get("%d1"));
    for l in 0..WARP_SIZE {
        let (g, t) = (l / 4, l % 4);
        for (j, d) in [(2 * t, d0[l]), (2 * t + 1, d1[l])] {
            let want: f64 = (0..4)
                .map(|k| (g + k) as f64 * (k as f64 - j as f64))
                .sum::<f64>()
                + 0.25;
            assert_eq!(f64::from_bits(d), want, "lane {l} col {j}");
        }
    }
}

/// Model, not measured on a GPU (MMA-Sim's, `exec/mma.rs`): the f16 sum
/// is truncated to multiples of `2^(E - 25)` on sm_90 (`E` the largest
/// term's exponent; 24 bits on sm_80, whose `m16n8k16` adds its halves in
/// two steps) and normalised toward zero. With a product of 1: `c =
/// 2^-30` and a product `2^-28` are lost; `2^-24 + 2^-24` are kept (1 +
/// 2^-23, exact in f32); `2^-24 + 2^-25` is normalised toward zero (1.0,
/// where round to nearest gives 1 + 2^-23); `c = -2^-25` gives 0x3f7fffff
/// on sm_90 (round to nearest even: 1.0) but is lost on sm_80 (1.0);
/// `c = -2^-26` is lost on sm_90 too.
#[test]
fn f16_rounding_model_cases() {
    let parse = |t: &str| match parse_instruction(t, &mut Symbols::new()).unwrap().op {
        sim_isa::Op::Mma(m) => m,
        other => panic!("not an mma: {other:?}"),
    };
    let k8 = parse("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1}, {%b0}, {%c0, %c1, %c2, %c3}");
    let hopper = MmaModel::of(Target::SM_90);
    let ampere = MmaModel::of(Target::parse("sm_80").unwrap());
    assert_eq!((hopper.frac_bits, hopper.split_k16), (25, false));
    assert_eq!((ampere.frac_bits, ampere.split_k16), (24, true));
    let p2 = |e: i32| f16(2f64.powi(e));
    let dot = |model, a: &[u64], b: &[u64], c: f32| {
        f32::from_bits(mma_dot(&k8, model, a, b, u64::from(c.to_bits())) as u32)
    };
    let one = f16(1.0);
    let mut a = [0u64; 8];
    let mut b = [0u64; 8];
    a[0] = one;
    b[0] = one;
    a[1] = p2(-14);
    b[1] = p2(-14);
    assert_eq!(dot(hopper, &a, &b, 2f32.powi(-30)), 1.0);
    a[1] = p2(-12);
    b[1] = p2(-12);
    assert_eq!(dot(hopper, &a, &b, 2f32.powi(-24)), 1.0 + 2f32.powi(-23));
    assert_eq!(dot(hopper, &a, &b, 2f32.powi(-25)), 1.0);
    a[1] = 0;
    let below_one = f32::from_bits(0x3f7f_ffff);
    assert_eq!(dot(hopper, &a, &b, -(2f32.powi(-25))), below_one);
    assert_eq!(dot(ampere, &a, &b, -(2f32.powi(-25))), 1.0);
    assert_eq!(dot(ampere, &a, &b, -(2f32.powi(-24))), below_one);
    assert_eq!(dot(hopper, &a, &b, -(2f32.powi(-26))), 1.0);
    // Specials: a NaN anywhere, or both infinities, give 0x7fffffff.
    assert_eq!(dot(hopper, &a, &b, f32::NAN).to_bits(), 0x7fff_ffff);
    a[2] = 0x7c00; // +inf
    b[2] = one;
    a[3] = 0xfc00; // -inf
    b[3] = one;
    assert_eq!(dot(hopper, &a, &b, 0.0).to_bits(), 0x7fff_ffff);
    a[3] = 0;
    assert_eq!(dot(hopper, &a, &b, 0.0), f32::INFINITY);
    // Four products of 2^-25 and one of 1: in one step on sm_90 they make
    // 1 + 2^-23 exactly; sm_80 adds m16n8k16's halves of k in two steps
    // at 24 bits, and each loses its 2^-25s: 1.0.
    let k16 = parse("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3}");
    let mut a = [0u64; 16];
    let mut b = [0u64; 16];
    a[0] = one;
    b[0] = one;
    for x in [1, 2, 8, 9] {
        a[x] = p2(-12);
        b[x] = f16(2f64.powi(-13));
    }
    let d = |model| f32::from_bits(mma_dot(&k16, model, &a, &b, 0) as u32);
    assert_eq!(d(hopper), 1.0 + 2f32.powi(-23));
    assert_eq!(d(ampere), 1.0);
}
