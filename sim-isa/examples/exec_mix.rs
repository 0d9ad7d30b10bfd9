//! Host cost per warp-instruction of the benchmark trace's instruction
//! forms (those `sim-trace`'s generator emits), through `execute_fitted` or
//! through a prepared form. For callgrind: `exec_mix <fitted|prepared>
//! <case> <n>` runs case `<case>` `n` times; the difference of two runs
//! (`n` and 0) over `n` is the cost per execution. `exec_mix list` prints
//! the cases.

use sim_isa::exec::{execute_fitted, execute_prepared, Prepared};
use sim_isa::parse::parse_for_target;
use sim_isa::{ExecCtx, RegId, Symbols, Target, Type, WarpRegs, WARP_SIZE};
use std::hint::black_box;

/// The generator's forms (`sim-trace/src/gen.rs`), `{d}` as `%r0`.
const CASES: &[&str] = &[
    "vadd4.u32.u32.u32.sat %r0, %r0, %k0, %k1;",
    "vsub4.s32.s32.s32.sat %r0, %r0, %k0, %k1;",
    "vabsdiff4.u32.u32.u32.add %r0, %r0, %k0, %r0;",
    "vmin4.u32.u32.u32 %r0, %r0, %k0, %k1;",
    "vmax4.s32.s32.s32 %r0, %r0, %k1, %k0;",
    "vavrg2.u32.u32.u32 %r0, %r0, %k0, %k1;",
    "vadd2.s32.s32.s32.sat %r0, %r0, %k1, %k0;",
    "vset4.u32.u32.lt %r0, %r0, %k0, %k1;",
    "set.lt.u32.u32 %r0, %r0, %k0;",
    "set.gt.s32.s32 %r0, %r0, %k1;",
    "set.ne.u32.u32 %r0, %r0, %k1;",
    "set.lt.u32.f16x2 %r0, %r0, %k0;",
    "set.gtu.f16x2.f16x2 %r0, %r0, %k1;",
    "set.eq.s32.f16x2 %r0, %r0, %k0;",
    "selp.b32 %r0, %r0, %k0, %q;",
    "slct.u32.s32 %r0, %r0, %k0, %k1;",
    "add.u32 %r0, %r0, %k0;",
    "xor.b32 %r0, %r0, %k1;",
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("list") {
        for (i, c) in CASES.iter().enumerate() {
            println!("{i} {c}");
        }
        println!(
            "size_of::<Prepared>() = {}",
            std::mem::size_of::<Prepared>()
        );
        return;
    }
    let mode = args.get(1).cloned().unwrap_or_default();
    let case: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let n: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let target = Target::SM_90;
    let mut syms = Symbols::new();
    for r in ["%r0", "%k0", "%k1"] {
        syms.declare(r, Type::B32);
    }
    syms.declare("%q", Type::Pred);
    let text = CASES[case];
    let inst =
        parse_for_target(text, &mut syms, target, None).unwrap_or_else(|e| panic!("`{text}`: {e}"));
    let mut regs = WarpRegs::new(syms.len().max(8));
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for r in 0..regs.len() {
        for l in 0..WARP_SIZE {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            regs.set_lane(RegId(r as u32), l, x & 0xFFFF_FFFF);
        }
    }
    // The predicate: 0/1 lanes.
    if let Some(q) = syms.get("%q") {
        for l in 0..WARP_SIZE {
            regs.set_lane(q, l, (l as u64 * 7 / 3) & 1);
        }
    }
    let ctx = ExecCtx::new(target, 0);
    let prepared = Prepared::new(&inst, target);
    // One loop per path, each in a function of its own (so the paths'
    // inlining does not depend on the other's), the mode not tested per
    // execution.
    if mode == "prepared" {
        run_prepared(&prepared, &ctx, &mut regs, n);
    } else {
        run_fitted(&inst, &ctx, &mut regs, n);
    }
    println!("{}", regs.lane(RegId(0), 5));
}

#[inline(never)]
fn run_fitted(inst: &sim_isa::Instruction, ctx: &ExecCtx, regs: &mut WarpRegs, n: u64) {
    for _ in 0..n {
        execute_fitted(black_box(inst), ctx, black_box(&mut *regs), u32::MAX);
    }
}

#[inline(never)]
fn run_prepared(p: &Prepared, ctx: &ExecCtx, regs: &mut WarpRegs, n: u64) {
    for _ in 0..n {
        execute_prepared(black_box(p), ctx, black_box(&mut *regs), u32::MAX);
    }
}
