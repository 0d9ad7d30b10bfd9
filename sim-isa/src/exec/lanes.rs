//! The warp register file and the lane plumbing every family shares:
//! reading operands for 32 lanes, predicate lanes, and masked writes. The
//! scalar reference ([`super::execute_scalar`]) uses the plain forms
//! ([`read_operand`], [`write_lanes`]); the warp forms use the branch-free
//! ones ([`blend`], [`src!`]), which keep lanes in fixed arrays so the loops
//! vectorise and nothing allocates.

// Index loops over fixed 32-lane arrays read as what they are (one lane per
// step, several arrays in step) and vectorise without bounds checks.
#![allow(clippy::needless_range_loop)]

use super::{ExecCtx, WARP_SIZE};
use crate::inst::{Operand, PredSrc, RegId};

/// A warp's registers: one 32-lane array per [`RegId`]. Values are stored
/// zero-extended to 64 bits at the width last written; predicates are 0/1.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarpRegs {
    regs: Vec<Reg>,
}

/// One register's lanes, cache-line aligned, so that a kernel given the
/// registers as `&[Reg]` (see [`WarpRegs::file_mut`]) knows each 32-byte
/// quarter aligned: the portable build's AVX2 kernels (generic tuning)
/// split every 32-byte access not known to be aligned into two 16-byte
/// halves and fold no load into an `fma`.
/// Code outside sim-isa that stores whole registers takes them as `&mut
/// Reg` ([`WarpRegs::reg_mut`]) for the same reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Reg(pub [u64; WARP_SIZE]);

const ZERO: Reg = Reg([0; WARP_SIZE]);

impl WarpRegs {
    /// `n` registers, all zero.
    pub fn new(n: usize) -> Self {
        WarpRegs {
            regs: vec![ZERO; n],
        }
    }
    /// Number of registers.
    pub fn len(&self) -> usize {
        self.regs.len()
    }
    /// No registers.
    pub fn is_empty(&self) -> bool {
        self.regs.is_empty()
    }
    /// Grows the file to at least `n` registers (new ones zero).
    pub fn ensure(&mut self, n: usize) {
        if self.regs.len() < n {
            self.regs.resize(n, ZERO);
        }
    }
    /// All lanes of `r`.
    pub fn get(&self, r: RegId) -> &[u64; WARP_SIZE] {
        &self.regs[r.0 as usize].0
    }
    /// All lanes of `r`, mutably.
    pub fn get_mut(&mut self, r: RegId) -> &mut [u64; WARP_SIZE] {
        &mut self.regs[r.0 as usize].0
    }
    /// All lanes of `r` as the aligned register (see [`Reg`]).
    pub fn reg(&self, r: RegId) -> &Reg {
        &self.regs[r.0 as usize]
    }
    /// All lanes of `r` as the aligned register (see [`Reg`]), mutably.
    pub fn reg_mut(&mut self, r: RegId) -> &mut Reg {
        &mut self.regs[r.0 as usize]
    }
    /// One lane of `r`.
    pub fn lane(&self, r: RegId, lane: usize) -> u64 {
        self.regs[r.0 as usize].0[lane]
    }
    /// All registers, for a kernel to take as a parameter: only there does
    /// the compiler know them aligned (a reference parameter's attribute;
    /// nothing marks the pointer a `Vec` holds).
    pub(crate) fn file_mut(&mut self) -> &mut [Reg] {
        &mut self.regs
    }
    /// Sets one lane of `r`.
    pub fn set_lane(&mut self, r: RegId, lane: usize, v: u64) {
        self.regs[r.0 as usize].0[lane] = v;
    }
}

/// All-ones in the low `bits` bits (`bits` in 1..=64).
pub const fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// One register's 32 lanes.
pub(super) type Lanes = [u64; WARP_SIZE];

/// Reads a source operand for every lane at `bits` width: registers are
/// masked so stale high bits from a wider earlier write never leak in.
pub(super) fn read_operand(op: Operand, bits: u32, ctx: &ExecCtx, regs: &WarpRegs) -> Lanes {
    let m = width_mask(bits);
    let mut out = [0u64; WARP_SIZE];
    match op {
        Operand::Reg(r) => {
            for (o, v) in out.iter_mut().zip(regs.get(r)) {
                *o = v & m;
            }
        }
        Operand::Imm(v) => out = [v & m; WARP_SIZE],
        Operand::Special(s) => {
            out = ctx.thread.special_lanes(s, ctx.warp_id);
            for o in &mut out {
                *o &= m;
            }
        }
    }
    out
}

/// Lanes (as a bit mask) where a predicate register holds true.
#[inline]
pub(super) fn pred_bits(r: RegId, regs: &WarpRegs) -> u32 {
    let v = regs.get(r);
    let mut m = 0u32;
    for l in 0..WARP_SIZE {
        // A table of lane bits instead of `<< l` lets the loop vectorise.
        m |= BIT[l] & 0u32.wrapping_sub(v[l] as u32 & 1);
    }
    m
}

/// Lanes where a predicate source is true, `!` applied.
pub(super) fn pred_src_bits(p: PredSrc, regs: &WarpRegs) -> u32 {
    match p {
        PredSrc::Imm(b) => {
            if b {
                u32::MAX
            } else {
                0
            }
        }
        PredSrc::Reg { reg, negate } => pred_bits(reg, regs) ^ if negate { u32::MAX } else { 0 },
    }
}

/// Lanes where the guard lets `active` lanes execute. Always inlined: with
/// two executors calling it, a hint alone left it a call in each.
#[inline(always)]
pub(super) fn exec_mask(guard: Option<crate::inst::Guard>, regs: &WarpRegs, active: u32) -> u32 {
    active
        & match guard {
            None => u32::MAX,
            Some(g) => pred_bits(g.reg, regs) ^ if g.negate { u32::MAX } else { 0 },
        }
}

/// Writes `vals` to the lanes of `d` selected by `exec`.
pub(super) fn write_lanes(regs: &mut WarpRegs, d: RegId, exec: u32, vals: &Lanes) {
    if exec == u32::MAX {
        *regs.get_mut(d) = *vals;
        return;
    }
    for (l, (o, v)) in regs.get_mut(d).iter_mut().zip(vals).enumerate() {
        if exec >> l & 1 == 1 {
            *o = *v;
        }
    }
}

/// 32-bit lanes: the low words of a register, or 0/1 predicate results.
pub(super) type U32s = [u32; WARP_SIZE];

/// `BIT[l] = 1 << l`: testing a lane's bit against a table keeps the lane
/// loops free of per-lane variable shifts, which SSE2 cannot vectorise.
const BIT: [u32; WARP_SIZE] = {
    let mut t = [0u32; WARP_SIZE];
    let mut l = 0;
    while l < WARP_SIZE {
        t[l] = 1 << l;
        l += 1;
    }
    t
};

/// Writes `vals` to the lanes of `dst` selected by `exec`, branch-free.
#[inline]
pub(super) fn blend(dst: &mut Lanes, exec: u32, vals: &Lanes) {
    if exec == u32::MAX {
        *dst = *vals;
        return;
    }
    for l in 0..WARP_SIZE {
        let m = 0u64.wrapping_sub(u64::from(exec & BIT[l] != 0));
        dst[l] = (dst[l] & !m) | (vals[l] & m);
    }
}

/// As [`blend`] for the low words of `vals`, zero-extended.
#[inline(always)]
pub(super) fn blend_low32(dst: &mut Lanes, exec: u32, vals: &Lanes) {
    if exec == u32::MAX {
        for l in 0..WARP_SIZE {
            dst[l] = vals[l] & 0xFFFF_FFFF;
        }
        return;
    }
    for l in 0..WARP_SIZE {
        let m = 0u64.wrapping_sub(u64::from(exec & BIT[l] != 0));
        dst[l] = (dst[l] & !m) | (vals[l] & 0xFFFF_FFFF & m);
    }
}

/// As [`blend`] for 32-bit results, zero-extended.
#[inline(always)]
pub(super) fn blend32(dst: &mut Lanes, exec: u32, vals: &U32s) {
    if exec == u32::MAX {
        for l in 0..WARP_SIZE {
            dst[l] = u64::from(vals[l]);
        }
        return;
    }
    for l in 0..WARP_SIZE {
        let m = 0u64.wrapping_sub(u64::from(exec & BIT[l] != 0));
        dst[l] = (dst[l] & !m) | (u64::from(vals[l]) & m);
    }
}

/// Binds `$name: &Lanes` to a source operand's 32 lanes, unmasked: the
/// register's own array (no copy), or, for immediates and special
/// registers, a local filled only on that path (no zeroing up front).
macro_rules! src {
    ($name:ident, $op:expr, $ctx:expr, $regs:expr) => {
        let buf;
        let $name: &$crate::exec::lanes::Lanes = match $op {
            $crate::inst::Operand::Reg(r) => $regs.get(r),
            other => {
                buf = $crate::exec::lanes::read_operand(other, 64, $ctx, $regs);
                &buf
            }
        };
    };
}
pub(super) use src;

/// [`src!`] for a kernel given the registers as aligned [`Reg`]s (`file`,
/// see [`WarpRegs::file_mut`]): a register is read in place.
macro_rules! src_in {
    ($name:ident, $op:expr, $ctx:expr, $file:expr) => {
        let buf;
        let $name: &$crate::exec::lanes::Lanes = match $op {
            $crate::inst::Operand::Reg(r) => &$file[r.0 as usize].0,
            $crate::inst::Operand::Imm(v) => {
                buf = [v; $crate::exec::WARP_SIZE];
                &buf
            }
            $crate::inst::Operand::Special(s) => {
                buf = $ctx.thread.special_lanes(s, $ctx.warp_id);
                &buf
            }
        };
    };
}
pub(super) use src_in;

/// Low 32 bits of every lane.
#[inline(always)]
pub(super) fn low32(r: &Lanes) -> U32s {
    let mut o = [0u32; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = r[l] as u32;
    }
    o
}

/// 0/1 per lane of a predicate source, `!` applied.
#[inline(always)]
pub(super) fn pred01(p: PredSrc, regs: &WarpRegs) -> U32s {
    match p {
        PredSrc::Imm(b) => [u32::from(b); WARP_SIZE],
        PredSrc::Reg { reg, negate } => {
            let r = regs.get(reg);
            let n = u32::from(negate);
            let mut o = [0u32; WARP_SIZE];
            for l in 0..WARP_SIZE {
                o[l] = (r[l] as u32 & 1) ^ n;
            }
            o
        }
    }
}

/// The 64 16-bit halves of the lanes' low words, low half first.
#[inline]
pub(super) fn halves(r: &Lanes) -> [u16; 2 * WARP_SIZE] {
    // The low words viewed as halves: a cast, then in order on big-endian.
    let mut o: [u16; 2 * WARP_SIZE] = bytemuck::cast(low32(r));
    if cfg!(target_endian = "big") {
        for p in o.chunks_exact_mut(2) {
            p.swap(0, 1);
        }
    }
    o
}

/// A predicate's 0/1 lanes repeated for both halves of each lane.
#[inline]
pub(super) fn pred01_halves(p: PredSrc, regs: &WarpRegs) -> [u16; 2 * WARP_SIZE] {
    let c = pred01(p, regs);
    let mut o = [0u16; 2 * WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[2 * l] = c[l] as u16;
        o[2 * l + 1] = c[l] as u16;
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every register starts on a 64-byte boundary, after growth too: the
    /// portable build's AVX2 kernels rely on it for whole-vector accesses
    /// ([`Reg`]).
    #[test]
    fn registers_are_cache_line_aligned() {
        let mut regs = WarpRegs::new(3);
        regs.ensure(17);
        assert_eq!(regs.len(), 17);
        for r in 0..17 {
            let at = regs.get(RegId(r)).as_ptr() as usize;
            assert_eq!(at % 64, 0, "register {r} at {at:#x}");
        }
        assert_eq!(std::mem::size_of::<Reg>(), 8 * WARP_SIZE);
    }
}
