//! The commonest memory statements of a tiled kernel, `ld.shared`,
//! `st.shared`, `ld.global` and `st.global` of one 32-bit word a lane at a
//! register plus an offset, run without the general memory path when the
//! warp's addresses take the common shapes.
//!
//! Through `execute_mem_into` such an access costs about 660 (a load) to
//! 850 (a store) host instructions (the instruction's kind asked again,
//! the registers grown, the guard, the memory behind a trait object, the
//! address shape found in a second pass, the rows cleared and blended or
//! the values read into rows). Whether a statement is one is decided once
//! ([`WordAccess::of`], in `Code::new`); each run then finds the
//! addresses' shape from the base register in one pass and copies the
//! words. Anything else (a partial warp, a misaligned or
//! out-of-range lane, addresses of any other shape) goes the general way,
//! which also reports the fault.

use crate::memory::{GlobalView, WarpMem};
use sim_isa::exec::simd::{twice, Twice};
use sim_isa::exec::Accesses;
use sim_isa::exec::Reg;
use sim_isa::{
    AddrBase, Instruction, MemOp, MemType, Op, Operand, RegId, Space, WarpRegs, WARP_SIZE,
};

/// A `ld.shared` or `ld.global` of one 32-bit word a lane (not
/// sign-extended) into `reg`, or a `st.shared` or `st.global` of one from
/// `reg`, unguarded, at register `base` plus `off`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WordAccess {
    base: RegId,
    off: u64,
    reg: RegId,
    /// `Shared` or `Global`.
    space: Space,
    /// Runs the access when every lane of the warp runs it and the lanes
    /// access 32 consecutive words (or, a load, one word) inside the
    /// block's shared memory or one global allocation (a load's where the
    /// SM has not written this epoch, see `global_bytes`; a store's go to
    /// its overlay then): the destination or the memory written, `out`
    /// set and `mem`'s `one_word`/`broadcast` noted as `execute_mem_into`
    /// with `WarpMem::load_lanes`/`store_lanes` would. `false`, nothing changed, otherwise. Called as
    /// `(w.run)(&w, regs, mask, mem, out)`: the loop compiled for the
    /// access's kind ([`WordAccess::run_timed`]), chosen once in
    /// [`WordAccess::of`], so that no run asks the kind again.
    pub run: WordKernel,
    /// A store (else a load): which of [`WordAccess::run_bare`]'s copies
    /// runs it.
    store: bool,
    /// How many statements back the first of a chain of word accesses in
    /// the same space on the same base register is, each the last such
    /// before the next with nothing between writing the register (0: none
    /// within 255): a bare warp that ran both in one straight line knows
    /// this one's shape from that one's ([`Shapes`]; set by
    /// [`link_bases`]).
    pub base_back: u8,
    /// A global load's entry in a bare warp's table of last addresses
    /// (`Warp::prefetch_next`): its place among the kernel's global word
    /// loads, modulo the table's size, so that the loads of a loop with
    /// no more than that many each keep an entry of their own (set by
    /// [`number_global_loads`]; 0 elsewhere).
    pub ahead: u8,
}

/// [`WordAccess::run`]'s type.
pub(crate) type WordKernel =
    fn(&WordAccess, &mut WarpRegs, u32, &mut WarpMem<'_>, &mut Accesses) -> bool;

impl WordAccess {
    /// `inst` (renamed) as one, if it is one.
    pub fn of(inst: &Instruction) -> Option<WordAccess> {
        let Op::Mem(m) = &inst.op else { return None };
        let AddrBase::Reg(base) = m.addr.base else {
            return None;
        };
        let word = m.ty.bytes() == 4 && !matches!(m.ty, MemType::S(_));
        let (reg, store) = match m.op {
            MemOp::Ld => (m.d[0], false),
            // A store's value from a register (its low 32 bits, as the
            // general path's `read_operand` masks them).
            MemOp::St => match m.vals[0] {
                Operand::Reg(r) => (r, true),
                Operand::Imm(_) | Operand::Special(_) => return None,
            },
            _ => return None,
        };
        // A copy of the loop for each kind, its tests constant.
        let run: WordKernel = match (m.space, store) {
            (Space::Shared, false) => Self::run_timed::<true, false>,
            (Space::Shared, true) => Self::run_timed::<true, true>,
            (Space::Global, false) => Self::run_timed::<false, false>,
            (Space::Global, true) => Self::run_timed::<false, true>,
            _ => return None,
        };
        (inst.guard.is_none() && m.vec == 1 && word).then_some(WordAccess {
            base,
            off: m.addr.offset as u64,
            reg,
            space: m.space,
            run,
            store,
            base_back: 0,
            ahead: 0,
        })
    }

    /// Accesses shared memory (then one wavefront whenever it runs).
    pub fn shared(self) -> bool {
        self.space == Space::Shared
    }

    /// [`Self::run`] for an untimed warp (`--sample`'s functional SMs): it
    /// leaves `out.addrs` past lane 0 as they were, as nothing but timing
    /// reads them (lane 0's is a merged group's leader's address,
    /// `Preloaded::lead`, or where a global access's L2 sectors start:
    /// `mem.broadcast` says whether it read one word or 32 consecutive
    /// ones). Its copy chosen by a test, not a pointer: the statement's
    /// record (`Stmt`) has no room for one. `shape`: the base register's,
    /// if known, else set where found (`run_as`).
    #[inline(always)]
    pub fn run_bare(
        &self,
        regs: &mut WarpRegs,
        mask: u32,
        mem: &mut WarpMem<'_>,
        (out, shape): (&mut Accesses, &mut Option<Known>),
    ) -> bool {
        // In line, not through `twice`: the bare loop that calls it is
        // compiled twice as a whole (`Warp::run_untimed`).
        let w = self;
        match (self.space, self.store) {
            (Space::Shared, false) => Self::run_in(RunAs::<true, false, false> {
                w,
                regs,
                mask,
                mem,
                out,
                shape,
            }),
            (Space::Shared, true) => Self::run_in(RunAs::<true, true, false> {
                w,
                regs,
                mask,
                mem,
                out,
                shape,
            }),
            (_, false) => Self::run_in(RunAs::<false, false, false> {
                w,
                regs,
                mask,
                mem,
                out,
                shape,
            }),
            (_, true) => Self::run_in(RunAs::<false, true, false> {
                w,
                regs,
                mask,
                mem,
                out,
                shape,
            }),
        }
    }

    /// A load from global memory.
    pub fn global_load(self) -> bool {
        self.space == Space::Global && !self.store
    }

    /// A load's destination, a store's value.
    pub fn reg(self) -> RegId {
        self.reg
    }

    /// [`Self::run`] for a shared access (`SHARED`) or a global one, a
    /// store (`STORE`) or a load (the `WordKernel` signature, as
    /// `run_bare`'s).
    #[inline(never)]
    fn run_timed<const SHARED: bool, const STORE: bool>(
        &self,
        regs: &mut WarpRegs,
        mask: u32,
        mem: &mut WarpMem<'_>,
        out: &mut Accesses,
    ) -> bool {
        self.run_as::<SHARED, STORE, true>(regs, mask, mem, out, &mut None)
    }

    /// [`Self::run_timed`]'s and [`Self::run_bare`]'s code: the latter's
    /// without `ADDRS` (lane 0's address alone). `shape`: the base
    /// register's, if known, else set to it where found.
    #[inline(always)]
    fn run_as<const SHARED: bool, const STORE: bool, const ADDRS: bool>(
        &self,
        regs: &mut WarpRegs,
        mask: u32,
        mem: &mut WarpMem<'_>,
        out: &mut Accesses,
        shape: &mut Option<Known>,
    ) -> bool {
        // The shape's 32 lanes at AVX2's width where the CPU has it: the
        // default build's baseline runs them at SSE's (docs/speed.md,
        // "Portable builds").
        twice(RunAs::<SHARED, STORE, ADDRS> {
            w: self,
            regs,
            mask,
            mem,
            out,
            shape,
        })
    }

    /// [`Self::run_as`]'s code, compiled twice ([`twice`]), on its
    /// arguments.
    #[inline(always)]
    fn run_in<const SHARED: bool, const STORE: bool, const ADDRS: bool>(
        a: RunAs<'_, '_, SHARED, STORE, ADDRS>,
    ) -> bool {
        let RunAs {
            w,
            regs,
            mask,
            mem,
            out,
            shape,
        } = a;
        if mask != u32::MAX || regs.len() <= w.base.0.max(w.reg.0) as usize {
            return false;
        }
        // A shared address is 32 bits wide, a global one 64
        // (`Space::addr_bits`). Lane `l`'s address less lane 0's is its
        // register less lane 0's (the offset cancels; for a shared one, in
        // the low words), so the shape is found from the registers alone,
        // with no address made or stored per lane; or known from an
        // access on the same register before it.
        let k = match *shape {
            Some(k) => k,
            None => {
                let src = regs.get(w.base);
                let (same, next) = if SHARED { shape32(src) } else { shape64(src) };
                let k = Known {
                    v0: src[0],
                    same: same == 0,
                    next: next == 0,
                };
                *shape = Some(k);
                k
            }
        };
        let width = if SHARED { 0xffff_ffff } else { u64::MAX };
        let a0 = (k.v0 & width).wrapping_add(w.off);
        // A store to one word is the general path's (lanes in order, the
        // last one's value kept).
        let broadcast = k.same && !STORE;
        // A shared address does not wrap at 32 bits: lane 31's low word
        // must be lane 0's plus 124 without the carry that `shape32`,
        // modulo 2^32, does not see.
        let wraps = SHARED && k.v0 & width > width - STEPS[WARP_SIZE - 1];
        if a0 & 3 != 0 || !broadcast && (!k.next || wraps) {
            return false;
        }
        let start = usize::try_from(a0).ok();
        // Each copy a function of its own on fixed-size arrays: inlined,
        // the branches' stores were merged into one tail and ran as scalar
        // moves on the x86-64-v2 baseline (docs/speed.md, "Portable
        // builds").
        if broadcast {
            let b = if SHARED {
                start.and_then(|s| mem.shared.get(s..))
            } else {
                global_bytes(&mem.global, a0, 4)
            };
            let Some(c) = b.and_then(|b| b.first_chunk::<4>()) else {
                return false;
            };
            fill(regs.reg_mut(w.reg), u64::from(u32::from_le_bytes(*c)));
            if ADDRS {
                fill(&mut *out, a0);
            }
        } else {
            if STORE {
                if !store_words::<SHARED>(mem, a0, regs.reg(w.reg)) {
                    return false;
                }
            } else {
                let b = if SHARED {
                    start.and_then(|s| mem.shared.get(s..))
                } else {
                    global_bytes(&mem.global, a0, RUN)
                };
                let Some(b) = b.and_then(|b| b.first_chunk::<{ 4 * WARP_SIZE }>()) else {
                    return false;
                };
                words_in(regs.reg_mut(w.reg), b);
            }
            if ADDRS {
                consecutive_into(&mut *out, a0);
            }
        }
        if !ADDRS {
            out.addrs[0] = a0;
        }
        let space = if SHARED { Space::Shared } else { Space::Global };
        (mem.one_word, mem.broadcast) = (true, broadcast);
        (out.lanes, out.bytes, out.space) = (u32::MAX, 4, space);
        true
    }
}

/// [`WordAccess::run_as`]'s arguments, for [`twice`].
struct RunAs<'a, 'm, const SHARED: bool, const STORE: bool, const ADDRS: bool> {
    w: &'a WordAccess,
    regs: &'a mut WarpRegs,
    mask: u32,
    mem: &'a mut WarpMem<'m>,
    out: &'a mut Accesses,
    shape: &'a mut Option<Known>,
}

/// What a word access found of its base register's lanes: lane 0's value,
/// and whether the lanes are all lane 0's, or lane 0's plus `4 l` (in the
/// low words for a shared access, the whole registers for a global one).
/// The same for every access on the register until it is written.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Known {
    v0: u64,
    same: bool,
    next: bool,
}

/// The shapes a bare warp's word accesses found in its current straight
/// line: the last one found on each base register, with its statement
/// (a table on the register modulo its size), which is what a later
/// access on the same register asks for (`WordAccess::base_back`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shapes {
    at: [(usize, Known); SHAPES],
}

/// Base registers a bare warp keeps shapes for: the SGEMM's tile loop
/// reads through two at a time (a row of one tile, a column of the
/// other), and stores through two others.
const SHAPES: usize = 8;

impl Default for Shapes {
    fn default() -> Self {
        Shapes {
            at: [(usize::MAX, Known::default()); SHAPES],
        }
    }
}

impl Shapes {
    /// A new straight line: nothing is known.
    #[inline(always)]
    pub fn clear(&mut self) {
        for e in &mut self.at {
            e.0 = usize::MAX;
        }
    }

    /// The shape of `w`'s base register that the first of its chain found
    /// in this straight line, if `w` is linked to one and it is kept.
    #[inline(always)]
    pub fn get(&self, w: &WordAccess, pc: usize) -> Option<Known> {
        // Below `pc`, so never `usize::MAX`, which marks an empty entry.
        let from = pc.checked_sub(usize::from(w.base_back).max(1))?;
        let e = self.at[w.base.0 as usize % SHAPES];
        (e.0 == from && w.base_back != 0).then_some(e.1)
    }

    /// Statement `pc`, an access through `w`'s base register, found `k`.
    #[inline(always)]
    pub fn put(&mut self, w: &WordAccess, pc: usize, k: Known) {
        self.at[w.base.0 as usize % SHAPES] = (pc, k);
    }
}

/// Sets each word access's [`WordAccess::base_back`] in `word` (by
/// statement): the first of the chain through the nearest earlier one in
/// the same space on the same base register, where no statement from it
/// up to this one writes the register (`writes(j, r)`) and every one
/// between is an instruction (`inst(j)`).
pub(crate) fn link_bases(
    word: &mut [Option<WordAccess>],
    inst: impl Fn(usize) -> bool,
    writes: impl Fn(usize, RegId) -> bool,
) {
    for i in 0..word.len() {
        let Some(w) = word[i] else { continue };
        let mut back = 0;
        for j in (i.saturating_sub(255)..i).rev() {
            if !inst(j) || writes(j, w.base) {
                break;
            }
            if word[j].is_some_and(|v| v.base == w.base && v.space == w.space) {
                back = i - j;
                break;
            }
        }
        // To the first of the chain: the one that finds the shape.
        let root = match back {
            0 => 0,
            b => b + usize::from(word[i - b].map_or(0, |v| v.base_back)),
        };
        if let Some(w) = word[i].as_mut() {
            w.base_back = u8::try_from(root).unwrap_or(0);
        }
    }
}

/// Global loads whose last address a bare warp keeps
/// (`Warp::prefetch_next`): a tile loop with no more loads than this keeps
/// each one's.
pub(crate) const LOADS_KEPT: usize = 16;

/// Numbers the global word loads of `word` in order, modulo `slots`, into
/// their [`WordAccess::ahead`]. (Numbered by statement, two loads of a
/// tile loop eight statements apart shared an entry and neither was
/// prefetched: the 1024^3 SGEMM's first and last, a quarter of its
/// loads.)
pub(crate) fn number_global_loads(word: &mut [Option<WordAccess>], slots: usize) {
    let loads = word.iter_mut().flatten().filter(|w| w.global_load());
    for (n, w) in loads.enumerate() {
        w.ahead = u8::try_from(n % slots.max(1)).unwrap_or(0);
    }
}

impl<const SHARED: bool, const STORE: bool, const ADDRS: bool> Twice
    for RunAs<'_, '_, SHARED, STORE, ADDRS>
{
    type Out = bool;
    #[inline(always)]
    fn run(self) -> bool {
        WordAccess::run_in(self)
    }
}

/// The bytes of 32 consecutive words.
const RUN: u64 = 4 * WARP_SIZE as u64;

/// `STEPS[l]`: how far lane `l`'s word is from lane 0's in 32
/// consecutive words.
const STEPS: [u64; WARP_SIZE] = {
    let mut t = [0u64; WARP_SIZE];
    let mut l = 0;
    while l < WARP_SIZE {
        t[l] = 4 * l as u64;
        l += 1;
    }
    t
};

/// Lane 0's and the other lanes' low words: `.0` is 0 where every lane
/// has lane 0's, `.1` where lane `l` has lane 0's plus `4 l` (modulo
/// 2^32). Twice the lanes of [`shape64`] to a vector.
#[inline(always)]
fn shape32(src: &[u64; WARP_SIZE]) -> (u64, u64) {
    let lo0 = src[0] as u32;
    let (mut same, mut next) = (0u32, 0u32);
    for (&v, &step) in src.iter().zip(&STEPS) {
        let d = (v as u32).wrapping_sub(lo0);
        same |= d;
        next |= d ^ step as u32;
    }
    (u64::from(same), u64::from(next))
}

/// As [`shape32`] for whole registers (modulo 2^64).
#[inline(always)]
fn shape64(src: &[u64; WARP_SIZE]) -> (u64, u64) {
    let (mut same, mut next) = (0u64, 0u64);
    for (&v, &step) in src.iter().zip(&STEPS) {
        let d = v.wrapping_sub(src[0]);
        same |= d;
        next |= d ^ step;
    }
    (same, next)
}

// The copies below are each compiled for the baseline and for AVX2
// ([`twice`]; the baseline's 8-byte lanes go two to a vector, or one at a
// time where the SLP vectoriser leaves them), each its own function: see
// `run_as`. A register is passed as the aligned `Reg`: the AVX2 copy,
// built with the baseline's generic tuning, splits each 32-byte access not
// known to be aligned into two 16-byte ones.

/// 32 lanes stored whole: a register or the recorded addresses (each
/// passed as what is known aligned).
trait Lanes32 {
    /// Every lane set to `v`.
    fn fill(&mut self, v: u64);
}

impl Lanes32 for &mut Reg {
    /// Stored as a whole `Reg`, whose type carries its alignment: stored
    /// through its `[u64; 32]`, the AVX2 copy wrote 16 halves of vectors.
    #[inline(always)]
    fn fill(&mut self, v: u64) {
        **self = Reg([v; WARP_SIZE]);
    }
}

impl Lanes32 for &mut Accesses {
    #[inline(always)]
    fn fill(&mut self, v: u64) {
        self.addrs = [v; WARP_SIZE];
    }
}

/// Sets every lane of `reg` to `v`: in line where the build has AVX2, else
/// a test and a call (the baseline's copy, 32 scalar stores, out of line).
#[inline(always)]
pub(crate) fn broadcast(reg: &mut Reg, v: u64) {
    twice(Fill(reg, v))
}

struct Fill<L>(L, u64);

impl<L: Lanes32> Twice for Fill<L> {
    type Out = ();
    #[inline(always)]
    fn run(mut self) {
        self.0.fill(self.1);
    }
}

/// Sets every lane to `v`.
#[inline(never)]
fn fill<L: Lanes32>(lanes: L, v: u64) {
    twice(Fill(lanes, v))
}

/// The addresses of 32 consecutive words from `a0`, into `out.addrs`.
#[inline(never)]
fn consecutive_into(out: &mut Accesses, a0: u64) {
    twice(Consecutive(out, a0))
}

struct Consecutive<'a>(&'a mut Accesses, u64);

impl Twice for Consecutive<'_> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        for (o, &s) in self.0.addrs.iter_mut().zip(&STEPS) {
            *o = self.1.wrapping_add(s);
        }
    }
}

/// 32 little-endian words into the lanes, zero-extended.
#[inline(never)]
fn words_in(reg: &mut Reg, b: &[u8; 4 * WARP_SIZE]) {
    twice(WordsIn(reg, b))
}

struct WordsIn<'a>(&'a mut Reg, &'a [u8; 4 * WARP_SIZE]);

impl Twice for WordsIn<'_> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        for (v, c) in self.0 .0.iter_mut().zip(self.1.as_chunks::<4>().0) {
            *v = u64::from(u32::from_le_bytes(*c));
        }
    }
}

/// The lanes' low words out as 32 little-endian words.
#[inline(never)]
fn words_out(b: &mut [u8; 4 * WARP_SIZE], reg: &Reg) {
    twice(WordsOut(b, reg))
}

struct WordsOut<'a>(&'a mut [u8; 4 * WARP_SIZE], &'a Reg);

impl Twice for WordsOut<'_> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        for (c, &v) in self.0.as_chunks_mut::<4>().0.iter_mut().zip(&self.1 .0) {
            *c = (v as u32).to_le_bytes();
        }
    }
}

/// Stores the lanes' low words as 32 consecutive words at `a0` in shared
/// memory (`SHARED`) or the global space where one allocation (or the
/// block's shared memory) holds them all: what `WarpMem::store_lanes`
/// writes, during an epoch into the SM's overlay. `false`, nothing
/// written, otherwise.
fn store_words<const SHARED: bool>(mem: &mut WarpMem<'_>, a0: u64, lanes: &Reg) -> bool {
    let dst = if SHARED {
        usize::try_from(a0)
            .ok()
            .and_then(|s| mem.shared.get_mut(s..))
    } else {
        match &mut mem.global {
            GlobalView::Direct(g) => g.find(a0, RUN).ok().and_then(|(b, off)| b.get_mut(off..)),
            // Written into the overlay whether or not the SM wrote there
            // before (as `Overlay::store_lanes` writes).
            GlobalView::Layered(g, o) => {
                if g.region_at(a0).is_none_or(|r| r.offset(a0, RUN).is_err()) {
                    return false;
                }
                let mut b = [0u8; 4 * WARP_SIZE];
                words_out(&mut b, lanes);
                o.store_run(g, a0, &b);
                return true;
            }
        }
    };
    let Some(b) = dst.and_then(|b| b.first_chunk_mut::<{ 4 * WARP_SIZE }>()) else {
        return false;
    };
    words_out(b, lanes);
    true
}

/// Asks the CPU for the 32 words at global address `a` where one
/// allocation holds them (changes nothing). The space as the epoch began:
/// the SM's own writes since are not asked after (a hint needs no
/// overlay lookup).
pub(crate) fn prefetch_global(g: &GlobalView<'_>, a: u64) {
    let base: &crate::global::Global = match g {
        GlobalView::Direct(g) => g,
        GlobalView::Layered(g, _) => g,
    };
    let Some(r) = base.region_at(a) else { return };
    if let Some(b) = r.offset(a, RUN).ok().and_then(|s| r.bytes.get(s..)) {
        sim_isa::exec::simd::prefetch(&b[..RUN as usize]);
    }
}

/// The `len` bytes at global address `a0` (a word, or 32 consecutive
/// ones) where one allocation holds them and (during an epoch) the SM
/// wrote none of them: as `WarpMem::plan` reads them. `None` otherwise.
fn global_bytes<'m>(g: &'m GlobalView<'_>, a0: u64, len: u64) -> Option<&'m [u8]> {
    let r = match g {
        GlobalView::Direct(g) => g.region_at(a0)?,
        GlobalView::Layered(g, o) => {
            if o.touches_run(a0, len) {
                return None;
            }
            g.region_at(a0)?
        }
    };
    let s = r.offset(a0, len).ok()?;
    r.bytes.get(s..)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::global::Global;
    use crate::overlay::Overlay;
    use sim_isa::exec::execute_mem_into;
    use sim_isa::{ExecCtx, Symbols, Target, Type};

    fn next(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// The registers of the tests' instructions: `%r1` is register 0.
    fn symbols() -> Symbols {
        let mut syms = Symbols::new();
        let regs = [
            ("%r1", Type::U32),
            ("%f1", Type::F32),
            ("%f2", Type::F32),
            ("%rd1", Type::U64),
            ("%p1", Type::Pred),
        ];
        for (name, ty) in regs {
            syms.declare(name, ty);
        }
        syms
    }

    /// The shapes are their definitions lane by lane: the low words'
    /// differences from lane 0's (modulo 2^32) and the whole registers'
    /// (modulo 2^64), against 0 and against `4 l`, on registers that are
    /// one word, 32 consecutive ones, or either with a lane moved, with
    /// stray high words and wrapping.
    #[test]
    fn shapes_are_their_lane_by_lane_definitions() {
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        for i in 0..4000 {
            let r = next(&mut x);
            let base = if i % 5 == 0 { u64::MAX - 60 } else { r >> 7 };
            let stride = [0, 4, 8, 4u64.wrapping_neg()][i % 4];
            let mut reg = Reg([0; WARP_SIZE]);
            for (l, v) in reg.0.iter_mut().enumerate() {
                *v = base.wrapping_add(stride.wrapping_mul(l as u64));
                if i % 3 == 1 {
                    *v ^= (r >> 32) << 32;
                }
            }
            if i % 7 == 0 {
                reg.0[r as usize % WARP_SIZE] ^= 1 << (r >> 58);
            }
            let (mut same32, mut next32, mut same64, mut next64) = (0, 0, 0, 0);
            for (l, &v) in reg.0.iter().enumerate() {
                let d32 = (v as u32).wrapping_sub(reg.0[0] as u32);
                same32 |= u64::from(d32);
                next32 |= u64::from(d32 ^ (4 * l as u32));
                let d64 = v.wrapping_sub(reg.0[0]);
                same64 |= d64;
                next64 |= d64 ^ (4 * l as u64);
            }
            assert_eq!(shape32(&reg.0), (same32, next32), "draw {i}");
            assert_eq!(shape64(&reg.0), (same64, next64), "draw {i}");
        }
    }

    /// No access recorded: what a declined fast path leaves.
    const BLANK: Accesses = Accesses {
        lanes: 0,
        addrs: [0; WARP_SIZE],
        bytes: 0,
        space: Space::Generic,
    };

    /// Mostly the whole warp; one draw in nine a partial one.
    fn draw_mask(r: u64) -> u32 {
        if (r >> 24).is_multiple_of(9) {
            r as u32 >> 1
        } else {
            u32::MAX
        }
    }

    /// Lane `l` of address register `reg` at `base + stride * l` (`high`
    /// set above the address), with one lane moved `far` on where draw
    /// `r` says (then the lanes are not consecutive). Whether it moved
    /// one, and the mask drawn.
    fn addresses(
        regs: &mut WarpRegs,
        reg: RegId,
        r: u64,
        at: (u64, u64, u64),
        far: u64,
    ) -> (bool, u32) {
        let (base, stride, high) = at;
        for (l, v) in regs.get_mut(reg).iter_mut().enumerate() {
            *v = (base + stride * l as u64) | high;
        }
        let odd = (r >> 8).is_multiple_of(7);
        if odd {
            regs.get_mut(reg)[(r >> 16) as usize % 32] += far;
        }
        (odd, draw_mask(r))
    }

    /// Draw `i` (`r`) of a shared access's addresses into register 0: a
    /// base mostly word-aligned and at most 152 bytes past the 2,048 of
    /// shared memory, a stride from `strides`, and bits above bit 31 (not
    /// part of a shared address). The base, the stride and `addresses`'.
    fn shared_draw(
        x: &mut u64,
        (i, r): (u64, u64),
        strides: [u64; 6],
        regs: &mut WarpRegs,
    ) -> (u64, u64, bool, u32) {
        let base = mostly_aligned(next(x) % 2200, i);
        let stride = strides[i as usize % 6];
        let at = (base, stride, (r & 1) << 40);
        let (odd, mask) = addresses(regs, RegId(0), r, at, 2048);
        (base, stride, odd, mask)
    }

    /// One draw of a shared access (`each_shared_draw`): its instruction
    /// and word access, the registers with its addresses, where lane 0
    /// reads (`a0`), the stride, whether one lane moved (`odd`), the mask
    /// and the case's name for messages.
    struct SharedDraw<'a> {
        inst: &'a Instruction,
        fast: WordAccess,
        regs: WarpRegs,
        a0: u64,
        stride: u64,
        odd: bool,
        mask: u32,
        what: String,
    }

    /// `each_draw` over shared accesses, each draw's addresses from
    /// `shared_draw` with `strides`, handed to `each` as a [`SharedDraw`].
    fn each_shared_draw(
        x: &mut u64,
        cases: &[(&str, u64)],
        strides: [u64; 6],
        mut each: impl FnMut(&mut u64, SharedDraw<'_>),
    ) {
        each_draw(x, cases, |x, text, inst, fast, off, i, r| {
            let mut regs = WarpRegs::new(5);
            let (base, stride, odd, mask) = shared_draw(x, (i, r), strides, &mut regs);
            let what = format!("{text} {base} {stride} {odd}");
            let a0 = base + off;
            each(
                x,
                SharedDraw {
                    inst,
                    fast,
                    regs,
                    a0,
                    stride,
                    odd,
                    mask,
                    what,
                },
            );
        });
    }

    fn parse(text: &str) -> Instruction {
        sim_isa::parse::parse_instruction(text, &mut symbols())
            .unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// Calls `each(x, text, inst, fast, off, i, r)` for 20,000 draws `i`
    /// of each case (an access's text and offset, parsed as `inst` and as
    /// the word access `fast`), `r` drawn from `x` for each.
    fn each_draw(
        x: &mut u64,
        cases: &[(&str, u64)],
        mut each: impl FnMut(&mut u64, &str, &Instruction, WordAccess, u64, u64, u64),
    ) {
        for &(text, off) in cases {
            let (inst, fast) = word_access(text);
            for i in 0..20_000u64 {
                let r = next(x);
                each(x, text, &inst, fast, off, i, r);
            }
        }
    }

    /// `v` as drawn in one draw `i` of seven, else its word: mostly
    /// word-aligned.
    fn mostly_aligned(v: u64, i: u64) -> u64 {
        v & if i % 7 == 3 { !0 } else { !3 }
    }

    /// `text` parsed, and its word access (it must be one).
    fn word_access(text: &str) -> (Instruction, WordAccess) {
        let inst = parse(text);
        let fast = WordAccess::of(&inst).unwrap_or_else(|| panic!("{text}: not one"));
        (inst, fast)
    }

    /// Each word access links to the first of its chain of accesses in the
    /// same space on the same register, and the chain breaks where a
    /// statement writes the register (the access that does too), where
    /// one is no instruction, and at 255 statements.
    #[test]
    fn word_accesses_link_to_their_chains_first() {
        let ld = |t: &str| Some(word_access(t).1);
        let mut word = vec![
            ld("ld.shared.f32 %f1, [%r1];"),
            None,
            ld("ld.shared.f32 %f2, [%r1+4];"),
            ld("ld.global.f32 %f1, [%rd1];"),
            ld("st.shared.f32 [%r1+8], %f1;"),
            None,
            ld("ld.shared.f32 %f1, [%r1+12];"),
            ld("ld.shared.u32 %r1, [%r1+16];"),
            ld("ld.shared.f32 %f1, [%r1+20];"),
            None,
            ld("ld.global.f32 %f2, [%rd1+4];"),
            ld("ld.shared.f32 %f1, [%r1+24];"),
            ld("ld.global.f32 %f2, [%rd1+8];"),
            ld("ld.shared.f32 %f1, [%r1+28];"),
        ];
        // Statement 5 writes %r1 (register 0); 7 loads into it (through
        // it, so 7 itself follows 6); 9 is no instruction.
        let writes = |j: usize, r: RegId| r == RegId(0) && (j == 5 || j == 7);
        link_bases(&mut word, |j| j != 9, writes);
        let back: Vec<u8> = word.iter().map(|w| w.map_or(0, |w| w.base_back)).collect();
        assert_eq!(back, [0, 0, 2, 0, 4, 0, 0, 1, 0, 0, 0, 0, 2, 2]);
        // A chain longer than 255 statements starts again.
        let mut long = vec![None; 300];
        long[0] = ld("ld.shared.f32 %f1, [%r1];");
        long[200] = ld("ld.shared.f32 %f1, [%r1+4];");
        long[299] = ld("ld.shared.f32 %f1, [%r1+8];");
        link_bases(&mut long, |_| true, |_, _| false);
        let back: Vec<u8> = [0, 200, 299]
            .map(|i| long[i].map_or(9, |w| w.base_back))
            .to_vec();
        assert_eq!(back, [0, 200, 0]);
    }

    /// Global word loads take the table's entries in turn, whatever the
    /// statements between them (the 1024^3 SGEMM's first and last loads
    /// of a tile are 24 statements apart); stores and shared loads take
    /// none.
    #[test]
    fn global_loads_take_entries_in_turn() {
        let ld = |t: &str| Some(word_access(t).1);
        let mut word = vec![None; 40];
        let loads = [0, 6, 9, 12, 15, 18, 21, 24, 30];
        for &i in &loads {
            word[i] = ld("ld.global.f32 %f1, [%rd1];");
        }
        word[3] = ld("st.global.f32 [%rd1], %f1;");
        word[4] = ld("ld.shared.f32 %f1, [%r1];");
        number_global_loads(&mut word, 8);
        let slots: Vec<u8> = loads
            .iter()
            .map(|&i| word[i].map_or(99, |w| w.ahead))
            .collect();
        assert_eq!(slots, [0, 1, 2, 3, 4, 5, 6, 7, 0]);
        assert_eq!([3, 4].map(|i| word[i].map_or(99, |w| w.ahead)), [0, 0]);
    }

    fn warp_mem<'a>(shared: &'a mut [u8], global: &'a mut Global) -> WarpMem<'a> {
        WarpMem {
            global: GlobalView::Direct(global),
            consts: &[],
            params: &[],
            shared,
            local: &mut [],
            vars: &[],
            one_word: false,
            broadcast: false,
        }
    }

    /// What the fast path left where it ran: the registers, the
    /// addresses for timing and the shape (`one_word`, `broadcast`).
    type Ran = (WarpRegs, Accesses, (bool, bool));

    /// Runs `fast` on a copy of `regs`: it runs exactly when `runs`
    /// says, and where it declines it changes nothing.
    fn run_fast(
        fast: WordAccess,
        regs: &WarpRegs,
        mask: u32,
        runs: bool,
        m: &mut WarpMem<'_>,
        what: &str,
    ) -> Option<Ran> {
        let mut fregs = regs.clone();
        let mut fout = BLANK;
        let ok = (fast.run)(&fast, &mut fregs, mask, m, &mut fout);
        assert_eq!(ok, runs, "{what} {mask:#x}");
        if !ok {
            assert!(fregs == *regs && fout == BLANK && !m.one_word, "{what}");
            return None;
        }
        Some((fregs, fout, (m.one_word, m.broadcast)))
    }

    /// The general path on `regs` leaves what the fast one left (`ran`).
    fn same_as_general(
        inst: &Instruction,
        mut regs: WarpRegs,
        mask: u32,
        m: &mut WarpMem<'_>,
        ran: &Ran,
        what: &str,
    ) {
        let ctx = ExecCtx::new(Target::SM_90, 0);
        let mut out = BLANK;
        let accessed = execute_mem_into(inst, &ctx, &mut regs, mask, m, &mut out);
        assert!(matches!(accessed, Ok(true)), "{what}");
        assert_eq!((m.one_word, m.broadcast), ran.2, "{what}");
        assert_eq!(regs, ran.0, "{what}");
        assert_eq!(out, ran.1, "{what}");
    }

    /// It runs exactly the whole warps that read one word or 32
    /// consecutive words inside shared memory, and leaves what the general
    /// path does: the destination, the addresses for timing, the shape.
    #[test]
    fn a_shared_load_is_what_the_general_path_does() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut shared: Vec<u8> = (0..2048).map(|_| next(&mut x) as u8).collect();
        let mut global = Global::default();
        let mut ran = [0; 2];
        let loads = [
            ("ld.shared.f32 %f1, [%r1+8];", 8),
            ("ld.shared.u32 %r1, [%r1];", 0),
            ("ld.shared.b32 %f1, [%r1+12];", 12),
        ];
        each_shared_draw(&mut x, &loads, [0, 4, 4, 8, 1, 0], |_, d| {
            let whole = if d.stride == 0 { 4 } else { 128 };
            let runs = d.mask == u32::MAX
                && !d.odd
                && (d.stride == 0 || d.stride == 4)
                && d.a0.is_multiple_of(4)
                && d.a0 + whole <= 2048;
            let mut fm = warp_mem(&mut shared, &mut global);
            let Some(got) = run_fast(d.fast, &d.regs, d.mask, runs, &mut fm, &d.what) else {
                return;
            };
            ran[usize::from(got.2 .1)] += 1;
            let mut gm = warp_mem(&mut shared, &mut global);
            same_as_general(d.inst, d.regs, d.mask, &mut gm, &got, &d.what);
        });
        assert!(ran[0] > 8_000 && ran[1] > 8_000, "{ran:?}");
    }

    /// Registers 1 and 2 (`%f1`, `%f2`), the stores' values, drawn wider
    /// than the word: only its low 32 bits land.
    fn stored_values(regs: &mut WarpRegs, x: &mut u64) {
        for l in 0..WARP_SIZE {
            regs.get_mut(RegId(1))[l] = next(x);
            regs.get_mut(RegId(2))[l] = next(x);
        }
    }

    /// A consecutive word store runs exactly where the general path would
    /// store every lane without a fault, and leaves what it leaves: the
    /// memory, the addresses for timing, the shape.
    #[test]
    fn a_shared_store_is_what_the_general_path_does() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let shared: Vec<u8> = (0..2048).map(|_| next(&mut x) as u8).collect();
        let mut global = Global::default();
        let mut ran = 0;
        let cases = [
            ("st.shared.f32 [%r1+8], %f1;", 8),
            ("st.shared.u32 [%r1], %r1;", 0),
            ("st.shared.b32 [%r1+12], %f2;", 12),
        ];
        each_shared_draw(&mut x, &cases, [0, 4, 4, 8, 1, 4], |x, mut d| {
            stored_values(&mut d.regs, x);
            let (a0, what) = (d.a0, &d.what);
            let runs = d.mask == u32::MAX
                && !d.odd
                && d.stride == 4
                && a0.is_multiple_of(4)
                && a0 + 128 <= 2048;
            let (mut fsh, mut gsh) = (shared.clone(), shared.clone());
            let mut fm = warp_mem(&mut fsh, &mut global);
            let Some(got) = run_fast(d.fast, &d.regs, d.mask, runs, &mut fm, what) else {
                assert!(fsh == shared, "{what}");
                return;
            };
            ran += 1;
            let mut gm = warp_mem(&mut gsh, &mut global);
            same_as_general(d.inst, d.regs, d.mask, &mut gm, &got, what);
            assert!(fsh == gsh && fsh != shared, "{what}");
        });
        assert!(ran > 8_000, "{ran}");
    }

    /// A global word load runs exactly where every lane reads one word or
    /// 32 consecutive words inside one allocation that the SM (during an
    /// epoch, through its overlay) has not written, and leaves what the
    /// general path does: the destination, the addresses, the shape.
    #[test]
    fn a_global_load_is_what_the_general_path_does() {
        let mut x = 0x1234_5678_9abc_def1u64;
        let mut global = Global::default();
        let a = global.alloc("a", (0..1024).map(|_| next(&mut x) as u8).collect());
        let b = global.alloc("b", (0..512).map(|_| next(&mut x) as u8).collect());
        // The SM's own write, in a page of `b`: loads there are the general
        // path's (they read the overlay).
        let mut written = Overlay::default();
        assert!(written.store(&global, b + 64, 4, 7).is_ok());
        let mut ran = [0; 2];
        let cases = [
            ("ld.global.f32 %f1, [%rd1+8];", 8),
            ("ld.global.nc.u32 %r1, [%rd1];", 0),
            ("ld.global.b32 %f2, [%rd1+12];", 12),
        ];
        each_draw(&mut x, &cases, |x, text, inst, fast, off, i, r| {
            // From below `a` to past `b`.
            let start = [a - 64, b - 64][i as usize % 2];
            let base = mostly_aligned(start + next(x) % 1200, i);
            let stride = [0u64, 4, 4, 8, 1, 0][(i / 2) as usize % 6];
            let mut regs = WarpRegs::new(5);
            let (odd, mask) = addresses(&mut regs, RegId(3), r, (base, stride, 0), 4096);
            let layered = (r >> 32) & 1 == 1;
            let a0 = base + off;
            let whole = if stride == 0 { 4 } else { 128 };
            let inside = |base: u64, len: u64| a0 >= base && a0 + whole <= base + len;
            let mut addrs = [0u64; WARP_SIZE];
            for (o, &v) in addrs.iter_mut().zip(regs.get(RegId(3))) {
                *o = v + off;
            }
            let touched = layered && written.touches(u32::MAX, &addrs, 4);
            let runs = !touched
                && mask == u32::MAX
                && !odd
                && (stride == 0 || stride == 4)
                && a0.is_multiple_of(4)
                && (inside(a, 1024) || inside(b, 512));
            let what = format!("{text} {base:#x} {stride} {odd} {layered}");
            let mut shared = [0u8; 16];
            let mut copy = global.clone();
            let mut fm = warp_mem(&mut shared, &mut copy);
            if layered {
                fm.global = GlobalView::Layered(&global, &mut written);
            }
            let Some(got) = run_fast(fast, &regs, mask, runs, &mut fm, &what) else {
                return;
            };
            ran[usize::from(got.2 .1)] += 1;
            let mut gm = warp_mem(&mut shared, &mut copy);
            if layered {
                gm.global = GlobalView::Layered(&global, &mut written);
            }
            same_as_general(inst, regs, mask, &mut gm, &got, &what);
        });
        assert!(ran[0] > 3_000 && ran[1] > 3_000, "{ran:?}");
    }

    /// The bytes of each of `g`'s allocations.
    fn bytes_of(g: &Global) -> Vec<&[u8]> {
        g.regions.iter().map(|r| &r.bytes[..]).collect()
    }

    /// A consecutive word store to global memory runs exactly where every
    /// lane's word lies inside one allocation, and leaves what the general
    /// path does: the space's bytes, or during an epoch the overlay's
    /// (which bytes it wrote too, the page written before or not), the
    /// addresses for timing, the shape.
    #[test]
    fn a_global_store_is_what_the_general_path_does() {
        let mut x = 0x0f1e_2d3c_4b5a_6978u64;
        let mut global = Global::default();
        // `b` crosses a page boundary (4,096 bytes from `a`).
        let a = global.alloc("a", (0..1024).map(|_| next(&mut x) as u8).collect());
        let b = global.alloc("b", (0..6000).map(|_| next(&mut x) as u8).collect());
        // The allocations again, other bytes: an overlay merged into it
        // shows which bytes it wrote.
        let mut sentinel = Global::default();
        sentinel.alloc("a", vec![0x5a; 1024]);
        sentinel.alloc("b", vec![0xa5; 6000]);
        let merged = |o: &mut Overlay| {
            let mut s = sentinel.clone();
            o.merge_into(&mut s);
            s
        };
        let mut ran = [0; 2];
        let cases = [
            ("st.global.f32 [%rd1+8], %f1;", 8),
            ("st.global.u32 [%rd1], %r1;", 0),
            ("st.global.b32 [%rd1+12], %f2;", 12),
        ];
        each_draw(&mut x, &cases, |x, text, inst, fast, off, i, r| {
            let (start, span) = [(a - 64, 1200), (b - 64, 6100)][i as usize % 2];
            let base = mostly_aligned(start + next(x) % span, i);
            let stride = [0u64, 4, 4, 8, 1, 4][(i / 2) as usize % 6];
            let mut regs = WarpRegs::new(5);
            let (odd, mask) = addresses(&mut regs, RegId(3), r, (base, stride, 0), 4096);
            for l in 0..WARP_SIZE {
                // Values wider than the word: only its low 32 bits land.
                for k in 0..3 {
                    regs.get_mut(RegId(k))[l] = next(x);
                }
            }
            let layered = (r >> 32) & 1 == 1;
            let a0 = base + off;
            let inside = |base: u64, len: u64| a0 >= base && a0 + 128 <= base + len;
            let runs = mask == u32::MAX
                && !odd
                && stride == 4
                && a0.is_multiple_of(4)
                && (inside(a, 1024) || inside(b, 6000));
            let what = format!("{text} {base:#x} {stride} {odd} {layered}");
            // Each path on its own space, and its own overlay holding an
            // earlier write in a page of `b`.
            let (mut fg, mut gg) = (global.clone(), global.clone());
            let (mut fo, mut go) = (Overlay::default(), Overlay::default());
            for o in [&mut fo, &mut go] {
                assert!(o.store(&global, b + 64, 4, 7).is_ok());
            }
            let mut shared = [0u8; 16];
            let mut fm = warp_mem(&mut shared, &mut fg);
            if layered {
                fm.global = GlobalView::Layered(&global, &mut fo);
            }
            let Some(got) = run_fast(fast, &regs, mask, runs, &mut fm, &what) else {
                let untouched = bytes_of(&merged(&mut fo)) == bytes_of(&merged(&mut go));
                assert!(untouched && bytes_of(&fg) == bytes_of(&global), "{what}");
                return;
            };
            ran[usize::from(layered)] += 1;
            let mut gm = warp_mem(&mut shared, &mut gg);
            if layered {
                gm.global = GlobalView::Layered(&global, &mut go);
            }
            same_as_general(inst, regs, mask, &mut gm, &got, &what);
            let (f, g) = (merged(&mut fo), merged(&mut go));
            assert!(bytes_of(&f) == bytes_of(&g), "{what}");
            assert!(bytes_of(&fg) == bytes_of(&gg), "{what}");
            let wrote = if layered {
                bytes_of(&f) != bytes_of(&merged(&mut Overlay::default()))
            } else {
                bytes_of(&fg) != bytes_of(&global)
            };
            assert!(wrote, "{what}");
        });
        assert!(ran[0] > 1_500 && ran[1] > 1_500, "{ran:?}");
    }

    /// An untimed warp's copy of a shared access (`run_bare`) runs
    /// exactly where the timed one does and leaves what it leaves but the
    /// addresses past lane 0 (a global one is the timed one).
    #[test]
    fn a_shared_access_runs_untimed_as_timed_but_for_its_addresses() {
        let mut x = 0x6a09_e667_f3bc_c908u64;
        let shared: Vec<u8> = (0..2048).map(|_| next(&mut x) as u8).collect();
        let mut global = Global::default();
        let mut ran = [0; 3];
        let cases = [
            ("ld.shared.f32 %f1, [%r1+8];", 8),
            ("ld.shared.u32 %r1, [%r1];", 0),
            ("st.shared.f32 [%r1+8], %f1;", 8),
            ("st.shared.b32 [%r1+12], %f2;", 12),
        ];
        each_shared_draw(&mut x, &cases, [0, 4, 4, 8, 1, 0], |x, mut d| {
            stored_values(&mut d.regs, x);
            // 0: timed; 1: bare, the shape found; 2: bare, the shape known
            // from a run before on the same registers (as an access on
            // the same base register at another offset finds it).
            let mut each = |how: u8| {
                let (mut regs, mut sh, mut out) = (d.regs.clone(), shared.clone(), BLANK);
                let mut known = None;
                if how == 2 {
                    let (mut r, mut sh2, mut o) = (d.regs.clone(), shared.clone(), BLANK);
                    let mut m = warp_mem(&mut sh2, &mut global);
                    d.fast
                        .run_bare(&mut r, d.mask, &mut m, (&mut o, &mut known));
                }
                let mut m = warp_mem(&mut sh, &mut global);
                let ok = if how == 0 {
                    (d.fast.run)(&d.fast, &mut regs, d.mask, &mut m, &mut out)
                } else {
                    d.fast
                        .run_bare(&mut regs, d.mask, &mut m, (&mut out, &mut known))
                };
                let shape = (m.one_word, m.broadcast);
                (ok, regs, sh, out, shape)
            };
            let (timed, bare, known) = (each(0), each(1), each(2));
            assert_eq!(
                (bare.0, &bare.1, &bare.2, bare.3, bare.4),
                (known.0, &known.1, &known.2, known.3, known.4),
                "{}",
                d.what
            );
            let mut want = timed.3;
            want.addrs[1..].fill(0);
            let what = &d.what;
            assert_eq!(
                (timed.0, &timed.1, timed.4),
                (bare.0, &bare.1, bare.4),
                "{what}"
            );
            assert!(timed.2 == bare.2 && want == bare.3, "{what}");
            if timed.0 {
                let store = usize::from(what.starts_with("st"));
                ran[2 * store + usize::from(timed.4 .1)] += 1;
            }
        });
        assert!(ran.iter().all(|&n| n > 4_000), "{ran:?}");
    }

    /// A shared address does not wrap at 32 bits: lanes whose low words
    /// are consecutive only modulo 2^32 (lane 16's is 0) go the general
    /// way, which faults, even where the offset brings lane 0's address
    /// to the start of shared memory.
    #[test]
    fn shared_words_consecutive_only_modulo_2_32_go_the_general_way() {
        // The offset is -(2^32 - 64): lane 0's address is 0.
        let text = "ld.shared.f32 %f1, [%r1+-4294967232];";
        let (inst, fast) = word_access(text);
        let mut shared = vec![0u8; 2048];
        let mut global = Global::default();
        let mut regs = WarpRegs::new(5);
        for (l, v) in regs.get_mut(RegId(0)).iter_mut().enumerate() {
            *v = (0xffff_ffc0 + 4 * l as u64) & 0xffff_ffff;
        }
        let before = regs.clone();
        let mut out = BLANK;
        let mut m = warp_mem(&mut shared, &mut global);
        assert!(!(fast.run)(&fast, &mut regs, u32::MAX, &mut m, &mut out));
        assert!(regs == before && out == BLANK && !m.one_word);
        let ctx = ExecCtx::new(Target::SM_90, 0);
        let general = execute_mem_into(&inst, &ctx, &mut regs, u32::MAX, &mut m, &mut out);
        assert!(general.is_err(), "{general:?}");
    }

    /// A guarded, signed, vector or wider access is not one, nor a local
    /// or generic one, nor a store of an immediate.
    #[test]
    fn only_plain_word_accesses_are_word_accesses() {
        for text in [
            "@%p1 ld.shared.f32 %f1, [%r1];",
            "ld.shared.s32 %r1, [%r1];",
            "ld.shared.v2.f32 {%f1, %f2}, [%r1];",
            "ld.shared.u64 %rd1, [%r1];",
            "st.shared.u32 [%r1], 7;",
            "@%p1 st.shared.f32 [%r1], %f1;",
            "@%p1 st.global.f32 [%rd1], %f1;",
            "st.global.v2.f32 [%rd1], {%f1, %f2};",
            "st.global.u64 [%rd1], %rd1;",
            "st.shared.v2.f32 [%r1], {%f1, %f2};",
            "st.shared.u64 [%r1], %rd1;",
        ] {
            assert!(WordAccess::of(&parse(text)).is_none(), "{text}");
        }
        assert!(WordAccess::of(&parse("ld.shared.f32 %f1, [%r1+4];")).is_some());
        assert!(WordAccess::of(&parse("st.shared.f32 [%r1+4], %f1;")).is_some());
        assert!(WordAccess::of(&parse("ld.global.f32 %f1, [%rd1];")).is_some());
        assert!(WordAccess::of(&parse("st.global.f32 [%rd1], %f1;")).is_some());
        assert!(WordAccess::of(&parse("ld.local.f32 %f1, [%rd1];")).is_none());
        assert!(WordAccess::of(&parse("ld.f32 %f1, [%rd1];")).is_none());
    }
}
