//! The common `.f32` forms on the host's own IEEE operations: `add sub
//! mul fma` rounding to nearest (`.rn`, or no modifier, PTX's default),
//! without `.sat`, with or without `.ftz`.
//!
//! [`lane32`](super::lane32) computes these exactly in `f64` and rounds
//! once to `f32`; the host's `f32` `+ - *` and [`f32::mul_add`] (a fused
//! multiply-add, rounded once) are correctly rounded to nearest even too,
//! so the value is the same: these loops give its bits, the H100's NaN
//! (`0x7fffffff` for every NaN result) and `.ftz`'s flushes of sources and
//! result applied as there. They read no target: `lane32` does not either
//! (the f32 flush of sm_1x applies to comparisons and `slct`, not here).
//! Held to [`super::float_lane`] bit for bit by the property tests
//! (`tests/it/float_fast.rs`).

// Index loops over fixed 32-lane arrays, as in `lanes.rs`.
#![allow(clippy::needless_range_loop)]

use super::NAN32;
use crate::exec::lanes::{blend, src, Lanes, Reg};
use crate::exec::simd;
use crate::exec::{ExecCtx, WarpRegs, WARP_SIZE};
use crate::inst::{FloatArith, FloatOp, Operand, RegId, Rnd, Type};
use bytemuck::cast_ref;

/// A form [`Fast32Plan::new`] accepts, decoded once: the operands (a
/// missing one as the immediate 0, as the general path reads it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fast32Plan {
    op: FloatOp,
    ftz: bool,
    d: RegId,
    a: Operand,
    b: Operand,
    c: Operand,
    /// Whether every source the operation reads is a register, as in nearly
    /// every execution: the kernel compiled for that case reads `srcs` in
    /// place, with no operand to decode and no call, so it needs no stack
    /// frame.
    in_regs: bool,
    /// The registers of `a b c` (`c` read as `a` where the operation has
    /// no `c`) when `in_regs`; unused otherwise.
    srcs: [RegId; 3],
}

/// A fast form's kernel: the lane loop with its operation and `.ftz`
/// fixed, written into the lanes of `d` selected by `exec`.
pub(crate) type Fast32Kernel = fn(&Fast32Plan, &ExecCtx, &mut WarpRegs, u32);

impl Fast32Plan {
    /// `x` if it is one of the fast forms: `.f32` `add sub mul fma`, round
    /// to nearest (`.rn` or none), no `.sat`, no `.approx`.
    #[inline(always)]
    pub(crate) fn new(x: &FloatArith) -> Option<Self> {
        let fast = x.ty == Type::F32
            && x.approx.is_none()
            && !x.sat
            && matches!(x.rnd, None | Some(Rnd::Rn))
            && matches!(
                x.op,
                FloatOp::Add | FloatOp::Sub | FloatOp::Mul | FloatOp::Fma
            );
        if !fast {
            return None;
        }
        let (a, b) = (x.a, x.b.unwrap_or(Operand::Imm(0)));
        let c = x.c.unwrap_or(Operand::Imm(0));
        let reg = |o: Operand| match o {
            Operand::Reg(r) => Some(r),
            Operand::Imm(_) | Operand::Special(_) => None,
        };
        let srcs = match (reg(a), reg(b)) {
            (Some(ra), Some(rb)) if x.op == FloatOp::Fma => reg(c).map(|rc| [ra, rb, rc]),
            (Some(ra), Some(rb)) => Some([ra, rb, ra]),
            _ => None,
        };
        Some(Fast32Plan {
            op: x.op,
            ftz: x.ftz,
            d: x.d,
            a,
            b,
            c,
            in_regs: srcs.is_some(),
            srcs: srcs.unwrap_or([RegId(0); 3]),
        })
    }

    /// The kernel for this plan, compiled for its operation, `.ftz` and
    /// whether its sources are all registers.
    pub(crate) fn kernel(&self) -> Fast32Kernel {
        let (ftz, regs) = (self.ftz, self.in_regs);
        match self.op {
            FloatOp::Add => kernel_for::<ADD>(ftz, regs),
            FloatOp::Sub => kernel_for::<SUB>(ftz, regs),
            FloatOp::Mul => kernel_for::<MUL>(ftz, regs),
            // `fma`, the one other fast operation (`new`).
            _ if simd::wide() => kernel_for::<FMA>(ftz, regs),
            _ => kernel_for::<FMA_SOFT>(ftz, regs),
        }
    }
}

/// [`Fast32Plan::kernel`] for the operation `OP`.
fn kernel_for<const OP: u8>(ftz: bool, regs: bool) -> Fast32Kernel {
    match (ftz, regs) {
        (false, false) => kernel::<OP, false>,
        (false, true) => kernel_in_regs::<OP, false>,
        (true, false) => kernel::<OP, true>,
        (true, true) => kernel_in_regs::<OP, true>,
    }
}

const ADD: u8 = 0;
const SUB: u8 = 1;
const MUL: u8 = 2;
const FMA: u8 = 3;
/// `fma` where the CPU has no FMA instruction ([`simd::wide`] says no):
/// `f32::mul_add` is then a call to the software `fmaf`, so the lanes'
/// low words are narrowed first and it runs once a lane, not once a word
/// ([`lanes`]).
const FMA_SOFT: u8 = 4;

/// `v` with a subnormal flushed to the zero of its sign when `FTZ` (a zero
/// stays itself): `ftz32` on bits, branch-free.
#[inline(always)]
fn flush<const FTZ: bool>(v: u32) -> u32 {
    if FTZ && v & 0x7F80_0000 == 0 {
        v & 0x8000_0000
    } else {
        v
    }
}

/// One lane: the low words of the sources, the result's bits.
#[inline(always)]
fn lane<const OP: u8, const FTZ: bool>(a: u32, b: u32, c: u32) -> u32 {
    let f = |v: u32| f32::from_bits(flush::<FTZ>(v));
    let (a, b, c) = (f(a), f(b), f(c));
    let r = match OP {
        ADD => a + b,
        SUB => a - b,
        MUL => a * b,
        _ => a.mul_add(b, c),
    };
    // A NaN source gives a NaN result, as any NaN result: the one NaN.
    if r.is_nan() {
        NAN32
    } else {
        flush::<FTZ>(r.to_bits())
    }
}

/// A register's lanes as their 32-bit words in memory order.
type Words = [u32; 2 * WARP_SIZE];

/// The index parity of a lane's low word in [`Words`].
const LOW: usize = if cfg!(target_endian = "big") { 1 } else { 0 };

/// The lane loop over a warp's sources. It runs on every 32-bit word of
/// the registers as they sit, the high words too, and zeroes the high
/// words' results: the loop is then plain 8-word vectors (two loads, the
/// operation, the NaN's compare and blend, a blend with zero, a store for
/// 4 lanes), where narrowing the 64-bit lanes to 32 and widening back
/// took a shuffle a source and two more for the result and NaN mask (75
/// instructions to 56 a warp's `fma` on x86-64-v3). Operating on a high
/// word has no effect beyond its dropped result.
#[inline(always)]
fn lanes<const OP: u8, const FTZ: bool>(a: &Lanes, b: &Lanes, c: &Lanes) -> Lanes {
    if OP == FMA_SOFT {
        let mut o = [0u64; WARP_SIZE];
        for l in 0..WARP_SIZE {
            o[l] = u64::from(lane::<OP, FTZ>(a[l] as u32, b[l] as u32, c[l] as u32));
        }
        return o;
    }
    let (a, b, c): (&Words, &Words, &Words) = (cast_ref(a), cast_ref(b), cast_ref(c));
    let mut o: Words = [0; 2 * WARP_SIZE];
    for i in 0..2 * WARP_SIZE {
        let r = lane::<OP, FTZ>(a[i], b[i], c[i]);
        o[i] = if i % 2 == LOW { r } else { 0 };
    }
    bytemuck::cast(o)
}

crate::exec::simd::wide_kernel! {
/// A plan whose sources are not all registers (`!in_regs`).
fn kernel [const OP: u8, const FTZ: bool] [OP, FTZ] (
    p: &Fast32Plan,
    ctx: &ExecCtx,
    regs: &mut WarpRegs,
    exec: u32,
) {
    src!(a, p.a, ctx, regs);
    src!(b, p.b, ctx, regs);
    let out = if OP == FMA || OP == FMA_SOFT {
        src!(c, p.c, ctx, regs);
        lanes::<OP, FTZ>(a, b, c)
    } else {
        lanes::<OP, FTZ>(a, b, a)
    };
    blend(regs.get_mut(p.d), exec, &out);
}
}

crate::exec::simd::wide_kernel! {
/// A plan `in_regs`, nearly every execution: the copies take the registers
/// as aligned [`Reg`]s, so that they read and write whole vectors.
fn kernel_in_regs [const OP: u8, const FTZ: bool] [OP, FTZ] (
    p: &Fast32Plan,
    _ctx: &ExecCtx,
    regs: &mut WarpRegs,
    exec: u32,
) as (p: &Fast32Plan = p, file: &mut [Reg] = regs.file_mut(), exec: u32 = exec) {
    let [a, b, c] = p.srcs.map(|r| &file[r.0 as usize].0);
    let out = lanes::<OP, FTZ>(a, b, c);
    blend(&mut file[p.d.0 as usize].0, exec, &out);
}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Target;

    /// The `fma` kernel for CPUs without FMA (`FMA_SOFT`, never chosen on
    /// a CPU with it, so the property tests do not reach it there) writes
    /// what the FMA one writes: edge values with stale high words, with
    /// and without `.ftz`, `c` a register or an immediate, some lanes off.
    #[test]
    fn soft_fma_kernel_matches_fma_kernel() {
        const EDGES: [u32; 8] = [
            0x0000_0000,
            0x8000_0000,
            0x0000_0001,
            0x807F_FFFF,
            0x3F80_0000,
            0x7F80_0000,
            0x7FC0_0001,
            0xFF7F_FFFF,
        ];
        let mut regs = WarpRegs::new(4);
        for r in 0..3 {
            for l in 0..WARP_SIZE {
                let v = EDGES[(l * (r + 3) + l / 8 + r) % 8];
                regs.set_lane(
                    RegId(r as u32),
                    l,
                    u64::from(v) | (0xDEAD_BEEF_0000_0000 >> r),
                );
            }
        }
        // Lane 0: 1 * 1 + 1 = 2; lane 1: a NaN source gives the one NaN.
        for (r, v) in [(0, 0x3F80_0000), (1, 0x3F80_0000), (2, 0x3F80_0000)] {
            regs.set_lane(RegId(r), 0, v);
            regs.set_lane(RegId(r), 1, if r == 0 { 0xFFC0_0000 } else { v });
        }
        let ctx = ExecCtx::new(Target::SM_90, 0);
        for ftz in [false, true] {
            for c in [Operand::Reg(RegId(2)), Operand::Imm(0x3F80_0000)] {
                let in_regs = matches!(c, Operand::Reg(_));
                let plan = Fast32Plan {
                    op: FloatOp::Fma,
                    ftz,
                    d: RegId(3),
                    a: Operand::Reg(RegId(0)),
                    b: Operand::Reg(RegId(1)),
                    c,
                    in_regs,
                    srcs: [RegId(0), RegId(1), RegId(2)],
                };
                let run = |k: Fast32Kernel| {
                    let mut out = regs.clone();
                    k(&plan, &ctx, &mut out, 0xFFFF_0FF3);
                    out
                };
                let hard = run(kernel_for::<FMA>(ftz, in_regs));
                assert_eq!(hard.lane(RegId(3), 0), 0x4000_0000);
                assert_eq!(hard.lane(RegId(3), 1), u64::from(NAN32));
                assert_eq!(
                    hard,
                    run(kernel_for::<FMA_SOFT>(ftz, in_regs)),
                    "ftz {ftz}, c {c:?}"
                );
            }
        }
    }
}
