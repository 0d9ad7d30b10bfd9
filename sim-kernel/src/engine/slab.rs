//! The addresses of a warp's memory steps between execution and timing.
//!
//! A step's addresses wait until the SM issues it: up to the reorder
//! window (`reorder::WINDOW`) plus a feed's steps ahead, dozens per warp,
//! and a full GPU holds thousands of warps. Each waits packed: the
//! addresses' shared upper 32 bits once and each lane's lower 32 bits,
//! 144 bytes instead of `Accesses`' 272. The rare access whose lanes span
//! more than one 4 GiB window (a generic pointer into two spaces) keeps
//! its `Accesses` whole in `wide`, under the same slot number.

use sim_isa::exec::Accesses;
use sim_isa::{Space, WARP_SIZE};

/// One step's addresses, packed.
#[derive(Clone, Copy)]
struct Packed {
    lanes: u32,
    bytes: u32,
    /// The upper 32 bits of every accessing lane's address.
    hi: u32,
    space: Space,
    /// Held whole in `Slab::wide` instead.
    wide: bool,
    /// A shared access of one wavefront: timing needs nothing else, so
    /// `lo` is not written ([`Slab::keep`]).
    one_wave: bool,
    lo: [u32; WARP_SIZE],
}

/// What [`Slab::take`] lends.
pub(crate) enum Lent<'a> {
    /// A shared access of one wavefront (`memtime::one_wave_shared`):
    /// its lanes and bytes a lane (for the counters).
    OneWave(u32, u32),
    /// The addresses.
    Addrs(&'a Accesses),
}

/// Slots of packed addresses, reused through a free list.
pub(crate) struct Slab {
    packed: Vec<Packed>,
    /// Whole accesses of the slots marked `wide` (indexed by slot; grown
    /// only by a warp that has one).
    wide: Vec<Accesses>,
    free: Vec<u32>,
    /// Where an access's addresses are taken (see [`Slab::keep`]).
    pub scratch: Accesses,
    /// Where [`Slab::take`] unpacks the slot it lends.
    lent: Accesses,
    /// Whether a kept access is kept: not for a warp whose steps nothing
    /// times or records (an SM that `--sample` runs functionally), whose
    /// memory steps need only say that they accessed memory. Then
    /// [`Slab::keep`] packs nothing and returns [`UNKEPT`].
    pub keeps: bool,
}

/// The slot of an access that was not kept (`Slab::keeps`): freeing it
/// does nothing, and it holds no addresses.
const UNKEPT: u32 = u32::MAX;

/// An empty access.
fn blank() -> Accesses {
    Accesses {
        lanes: 0,
        addrs: [0; WARP_SIZE],
        bytes: 0,
        space: Space::Generic,
    }
}

impl Default for Slab {
    fn default() -> Slab {
        Slab {
            packed: Vec::new(),
            wide: Vec::new(),
            free: Vec::new(),
            scratch: blank(),
            lent: blank(),
            keeps: true,
        }
    }
}

impl Slab {
    /// Frees every slot (the allocations stay).
    pub fn clear(&mut self) {
        self.packed.clear();
        self.free.clear();
    }

    /// Keeps a shared access of one wavefront (what [`Slab::keep`] keeps
    /// of one, without its addresses): for a caller that knows it is one
    /// (`shload`'s path: every lane, one or 32 consecutive words), which
    /// then asks nothing of the scratch. In line: a call of its own
    /// cost more than the work at the step loop's commonest memory step,
    /// and an untimed warp's (`keeps` false) is then a test.
    #[inline(always)]
    pub fn keep_one_wave(&mut self, lanes: u32, bytes: u32, space: sim_isa::Space) -> u32 {
        if !self.keeps {
            return UNKEPT;
        }
        let mark = |p: &mut Packed| {
            (p.lanes, p.bytes, p.space, p.wide, p.one_wave) = (lanes, bytes, space, false, true);
        };
        match self.free.pop() {
            Some(k) => {
                if let Some(p) = self.packed.get_mut(k as usize) {
                    mark(p);
                }
                k
            }
            None => self.push(Packed {
                lanes,
                bytes,
                hi: 0,
                space,
                wide: false,
                one_wave: true,
                lo: [0; WARP_SIZE],
            }),
        }
    }

    /// Keeps `scratch` in a slot and returns it. With `compact`, a shared
    /// access of one wavefront keeps only that (most shared accesses: no
    /// 32 addresses to pack now and unpack at issue; `one_word` and
    /// `broadcast` as `memtime::one_wave_shared` takes them); without, the addresses are
    /// kept whole, for [`Slab::get`].
    pub fn keep(&mut self, compact: bool, one_word: bool, broadcast: bool) -> u32 {
        if !self.keeps {
            return UNKEPT;
        }
        let a = &self.scratch;
        if compact && crate::memtime::one_wave_shared(a, one_word, broadcast) {
            return self.keep_one_wave(a.lanes, a.bytes, a.space);
        }
        // `Accesses` holds 0 for lanes outside `lanes`: only the accessing
        // lanes' upper bits must agree.
        let first = a.addrs[a.lanes.trailing_zeros().min(31) as usize];
        let hi = (first >> 32) as u32;
        let mut differ = 0u64;
        let mut lo = [0u32; WARP_SIZE];
        if a.lanes == u32::MAX {
            // Every lane (the usual case): no mask, whole vectors.
            for (&x, o) in a.addrs.iter().zip(lo.iter_mut()) {
                differ |= (x >> 32) ^ u64::from(hi);
                *o = x as u32;
            }
        } else {
            for (l, (&x, o)) in a.addrs.iter().zip(lo.iter_mut()).enumerate() {
                let on = 0u64.wrapping_sub(u64::from(a.lanes >> l & 1));
                differ |= ((x >> 32) ^ u64::from(hi)) & on;
                *o = x as u32;
            }
        }
        let p = Packed {
            lanes: a.lanes,
            bytes: a.bytes,
            hi,
            space: a.space,
            wide: differ != 0,
            one_wave: false,
            lo,
        };
        let k = match self.free.pop() {
            Some(k) => {
                self.packed[k as usize] = p;
                k
            }
            None => self.push(p),
        };
        if p.wide {
            let i = k as usize;
            if self.wide.len() <= i {
                self.wide.resize_with(i + 1, blank);
            }
            self.wide[i] = self.scratch;
        }
        k
    }

    /// A new slot holding `p`.
    fn push(&mut self, p: Packed) -> u32 {
        // Grown a few slots at a time, not doubled: the most steps in
        // flight, times every resident warp, is the footprint.
        if self.packed.len() == self.packed.capacity() {
            self.packed.reserve_exact(8);
        }
        self.packed.push(p);
        (self.packed.len() - 1) as u32
    }

    /// The addresses in slot `k`.
    pub fn get(&self, k: u32) -> Accesses {
        let mut a = blank();
        unpack(&self.packed, &self.wide, k, &mut a);
        a
    }

    /// Frees slot `k` and lends what it holds (addresses unpacked; the
    /// slot is not reused before the borrow ends).
    #[inline(always)]
    pub fn take(&mut self, k: u32) -> Lent<'_> {
        self.free.push(k);
        if let Some(p) = self.packed.get(k as usize).filter(|p| p.one_wave) {
            return Lent::OneWave(p.lanes, p.bytes);
        }
        self.unpacked(k)
    }

    /// [`Slab::take`]'s addresses, unpacked: out of line, so that the
    /// usual one-wavefront take (most shared accesses) saves no registers
    /// for the unpacking loops.
    #[inline(never)]
    fn unpacked(&mut self, k: u32) -> Lent<'_> {
        unpack(&self.packed, &self.wide, k, &mut self.lent);
        Lent::Addrs(&self.lent)
    }

    /// Frees slot `k`.
    #[inline(always)]
    pub fn free(&mut self, k: u32) {
        if k != UNKEPT {
            self.free.push(k);
        }
    }
}

/// Unpacks slot `k` of `packed` (or `wide`) into `a`.
#[inline]
fn unpack(packed: &[Packed], wide: &[Accesses], k: u32, a: &mut Accesses) {
    let Some(p) = packed.get(k as usize) else {
        *a = blank();
        return;
    };
    if p.wide {
        *a = wide.get(k as usize).copied().unwrap_or_else(blank);
        return;
    }
    let hi = u64::from(p.hi) << 32;
    if p.lanes == u32::MAX {
        for (x, &lo) in a.addrs.iter_mut().zip(p.lo.iter()) {
            *x = hi | u64::from(lo);
        }
    } else {
        for (l, (x, &lo)) in a.addrs.iter_mut().zip(p.lo.iter()).enumerate() {
            let on = 0u64.wrapping_sub(u64::from(p.lanes >> l & 1));
            *x = (hi | u64::from(lo)) & on;
        }
    }
    a.lanes = p.lanes;
    a.bytes = p.bytes;
    a.space = p.space;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(lanes: u32, f: impl Fn(usize) -> u64) -> Accesses {
        let mut a = blank();
        a.lanes = lanes;
        a.bytes = 4;
        a.space = Space::Global;
        for l in 0..WARP_SIZE {
            if lanes >> l & 1 == 1 {
                a.addrs[l] = f(l);
            }
        }
        a
    }

    fn round_trip(a: Accesses) {
        let mut s = Slab {
            scratch: a,
            ..Slab::default()
        };
        let k = s.keep(false, false, false);
        let Lent::Addrs(&b) = s.take(k) else {
            panic!("addresses kept whole")
        };
        assert_eq!(
            (b.lanes, b.addrs, b.bytes, b.space),
            (a.lanes, a.addrs, a.bytes, a.space)
        );
    }

    #[test]
    fn packed_and_wide_accesses_come_back_whole() {
        // One 4 GiB window, lanes off.
        round_trip(acc(0xF0F0_F0F1, |l| 0x7_0000_1000 + 4 * l as u64));
        // Two windows (a generic pointer into two spaces): kept whole.
        round_trip(acc(u32::MAX, |l| {
            ((l as u64 % 2 + 1) << 32) | (8 * l as u64)
        }));
        // No lanes, and the last lane only.
        round_trip(acc(0, |_| 0));
        round_trip(acc(1 << 31, |_| u64::MAX - 3));
    }

    #[test]
    fn a_slab_that_keeps_nothing_packs_and_frees_nothing() {
        let mut s = Slab {
            scratch: acc(u32::MAX, |l| 0x7_0000_1000 + 4 * l as u64),
            keeps: false,
            ..Slab::default()
        };
        let k = s.keep(false, false, false);
        let w = s.keep_one_wave(u32::MAX, 4, Space::Shared);
        assert_eq!((k, w), (UNKEPT, UNKEPT));
        s.free(k);
        s.free(w);
        assert_eq!((s.packed.len(), s.free.len()), (0, 0));
        // Kept again, the first access takes the first slot.
        s.keeps = true;
        assert_eq!(s.keep(false, false, false), 0);
    }

    #[test]
    fn one_wavefront_shared_accesses_keep_only_that() {
        let mut s = Slab::default();
        let mut shared = acc(u32::MAX, |l| 64 + 4 * l as u64);
        shared.space = Space::Shared;
        s.scratch = shared;
        let k = s.keep(true, false, false);
        assert!(matches!(s.take(k), Lent::OneWave(u32::MAX, b) if b == shared.bytes));
        // Two words in one bank: the addresses, for the bank walk.
        s.scratch = acc(u32::MAX, |l| 128 * l as u64);
        s.scratch.space = Space::Shared;
        let k = s.keep(true, false, false);
        assert!(matches!(s.take(k), Lent::Addrs(a) if a.addrs[1] == 128));
        // Not compact: whole (a recording needs the addresses).
        s.scratch = shared;
        let k = s.keep(false, false, false);
        assert!(matches!(s.take(k), Lent::Addrs(a) if a.addrs[1] == 68));
    }

    #[test]
    fn slots_are_reused() {
        let mut s = Slab {
            scratch: acc(1, |_| 64),
            ..Slab::default()
        };
        let a = s.keep(true, false, false);
        s.free(a);
        s.scratch = acc(3, |l| 128 + l as u64);
        let b = s.keep(true, false, false);
        assert_eq!(a, b);
        assert_eq!(s.get(b).addrs[1], 129);
    }
}
