//! One SM's view of the global space during an epoch: the space as the
//! epoch began, with the SM's own writes on top.
//!
//! SMs run their epochs side by side (on host threads), so none may see
//! another's writes before the epoch ends: that would make a result depend
//! on which host thread got where first. Each SM writes into its
//! [`Overlay`] (pages copied from the global space on first write, with
//! which bytes it wrote), reads its own writes back from there, and at the
//! epoch's end the overlays are written into the global space in SM order
//! ([`Overlay::merge_into`]). Two SMs writing one byte in one epoch (a
//! race on the GPU too) leave the higher-numbered SM's value.

use crate::global::{Global, Region};
use rustc_hash::FxHashMap;
use sim_isa::exec::FaultKind;
use sim_isa::WARP_SIZE;

/// Bytes per overlay page. A page is copied from the global space when
/// first written and kept, with its mask, until the epoch's merge: at
/// 4,096 bytes, the sampled 1024^3 SGEMM's first epoch (every untimed SM
/// writing 256 rows of 128 bytes of C, each in a page of its own) held
/// 146 MB of pages (peak RSS 237 MB; 130 MB at 1,024 bytes, 112 MB at
/// 512). Smaller pages cost a dense writer more pages to copy and merge:
/// the 128^3 SGEMM's full launch +0.26% host instructions at 512 bytes,
/// +0.02% at 1,024 (docs/speed.md).
const PAGE: u64 = 1024;

/// A page of the global space an SM wrote this epoch.
struct Page {
    bytes: Box<[u8; PAGE as usize]>,
    /// Which of its bytes the SM wrote, a bit each.
    written: Box<[u64; (PAGE / 64) as usize]>,
}

/// One SM's writes to the global space this epoch.
#[derive(Default)]
pub struct Overlay {
    pages: FxHashMap<u64, Page>,
    /// Pages of earlier epochs, for reuse.
    spare: Vec<Page>,
}

impl Overlay {
    /// No writes this epoch.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Whether any of `total` bytes from `addrs[l]` of the lanes in
    /// `lanes` lies in a page written this epoch.
    pub fn touches(&self, lanes: u32, addrs: &[u64; WARP_SIZE], total: u64) -> bool {
        if self.pages.is_empty() {
            return false;
        }
        let mut last = u64::MAX;
        for (l, &a) in addrs.iter().enumerate() {
            if lanes >> l & 1 == 0 {
                continue;
            }
            let (p, q) = (a / PAGE, a.saturating_add(total.max(1) - 1) / PAGE);
            for k in p..=q.min(p + 1) {
                if k != last && self.pages.contains_key(&k) {
                    return true;
                }
                last = k;
            }
        }
        false
    }

    /// Whether any of the `len` (at most a page's) bytes from `addr` lies
    /// in a page written this epoch: [`Self::touches`] of a run of
    /// consecutive bytes (a warp's 32 words, or one), with at most two
    /// lookups and no lane walked.
    pub fn touches_run(&self, addr: u64, len: u64) -> bool {
        if self.pages.is_empty() {
            return false;
        }
        let (p, q) = (addr / PAGE, addr.saturating_add(len.max(1) - 1) / PAGE);
        self.pages.contains_key(&p) || q != p && self.pages.contains_key(&q)
    }

    /// Reads `n` bytes at `addr` (little-endian), the SM's writes first.
    pub fn load(&self, base: &Global, addr: u64, n: u32) -> Result<u64, FaultKind> {
        let (r, off) = find(base, addr, n)?;
        let mut v = 0u64;
        for k in (0..u64::from(n)).rev() {
            let a = addr + k;
            let b = match self.pages.get(&(a / PAGE)) {
                Some(p) => p.bytes[(a % PAGE) as usize],
                None => r.bytes[off + k as usize],
            };
            v = v << 8 | u64::from(b);
        }
        Ok(v)
    }

    /// Writes `n` bytes of `v` at `addr` (little-endian) into the overlay.
    pub fn store(&mut self, base: &Global, addr: u64, n: u32, v: u64) -> Result<(), FaultKind> {
        find(base, addr, n)?;
        let i = (addr % PAGE) as usize;
        if i + n as usize <= PAGE as usize {
            // Within one page (every aligned access): one lookup for all
            // its bytes.
            let p = self.page(base, addr / PAGE);
            for (k, b) in p.bytes[i..i + n as usize].iter_mut().enumerate() {
                *b = (v >> (8 * k)) as u8;
                p.written[(i + k) / 64] |= 1 << ((i + k) % 64);
            }
            return Ok(());
        }
        for k in 0..u64::from(n) {
            let a = addr + k;
            let p = self.page(base, a / PAGE);
            let i = (a % PAGE) as usize;
            p.bytes[i] = (v >> (8 * k)) as u8;
            p.written[i / 64] |= 1 << (i % 64);
        }
        Ok(())
    }

    /// A warp's store of `n` elements of `B` bytes (`vals[k][l]`'s low
    /// bytes at `addrs[l] + k * B`) for the lanes of `lanes`, when every
    /// access is aligned to `B` and all lie in one allocation: the
    /// writes of [`Self::store`] lane by lane, with a page looked up once
    /// for the lanes that share it. `false`, nothing written, otherwise
    /// (the caller then goes access by access, faults included).
    pub fn store_lanes<const B: usize>(
        &mut self,
        base: &Global,
        lanes: u32,
        addrs: &[u64; WARP_SIZE],
        n: usize,
        vals: &[[u64; WARP_SIZE]],
    ) -> bool {
        let (mut lo, mut hi, mut low_bits) = (u64::MAX, 0u64, 0u64);
        for (l, &a) in addrs.iter().enumerate() {
            if lanes >> l & 1 == 1 {
                lo = lo.min(a);
                hi = hi.max(a);
                low_bits |= a;
            }
        }
        let total = (B * n) as u64;
        let Some(end) = hi.checked_add(total) else {
            return false;
        };
        if lanes == 0 || low_bits % B as u64 != 0 || vals.len() < n {
            return false;
        }
        match base.region_at(lo) {
            Some(r) if end <= r.base + r.bytes.len() as u64 => {}
            _ => return false,
        }
        // Aligned to `B` (a power of two up to 8): no element crosses a
        // page or a 64-bit word of `written`. Accesses in lane order, each
        // lane's elements in order; a page looked up once per run of
        // accesses in it.
        let next = |l: usize, k: usize| -> Option<(usize, usize)> {
            let (l, k) = if k + 1 < n { (l, k + 1) } else { (l + 1, 0) };
            let rest = lanes.checked_shr(l as u32).unwrap_or(0);
            (rest != 0).then(|| (l + rest.trailing_zeros() as usize, k))
        };
        let mut at = Some((lanes.trailing_zeros() as usize, 0));
        while let Some((l0, k0)) = at {
            let key = (addrs[l0] + (k0 * B) as u64) / PAGE;
            let p = self.page(base, key);
            while let Some((l, k)) = at {
                let a = addrs[l] + (k * B) as u64;
                if a / PAGE != key {
                    break;
                }
                let i = (a % PAGE) as usize;
                p.bytes[i..i + B].copy_from_slice(&vals[k][l].to_le_bytes()[..B]);
                p.written[i / 64] |= (u64::MAX >> (64 - B)) << (i % 64);
                at = next(l, k);
            }
        }
        true
    }

    /// Writes `bytes` at `addr` into the overlay, the caller having found
    /// them inside one allocation of `base`: what [`Self::store`] of each
    /// byte writes, with a page looked up once for the bytes in it (a
    /// warp's 32 consecutive words, `shload`).
    pub fn store_run(&mut self, base: &Global, addr: u64, bytes: &[u8]) {
        let mut done = 0;
        while let Some(rest) = bytes.get(done..).filter(|r| !r.is_empty()) {
            let a = addr + done as u64;
            let i = (a % PAGE) as usize;
            let n = rest.len().min(PAGE as usize - i);
            let p = self.page(base, a / PAGE);
            p.bytes[i..i + n].copy_from_slice(&rest[..n]);
            // Bits `i..i + n` of `written`, a 64-bit word at a time.
            let mut b = i;
            while b < i + n {
                let k = (i + n - b).min(64 - b % 64);
                p.written[b / 64] |= (u64::MAX >> (64 - k)) << (b % 64);
                b += k;
            }
            done += n;
        }
    }

    /// Page `key`, copied from the global space on first use.
    fn page(&mut self, base: &Global, key: u64) -> &mut Page {
        let spare = &mut self.spare;
        self.pages.entry(key).or_insert_with(|| {
            let mut p = spare.pop().unwrap_or_else(|| Page {
                bytes: Box::new([0; PAGE as usize]),
                written: Box::new([0; (PAGE / 64) as usize]),
            });
            p.written.fill(0);
            let start = key * PAGE;
            let first = base
                .regions
                .partition_point(|r| r.base + r.bytes.len() as u64 <= start);
            for r in base.regions[first..]
                .iter()
                .take_while(|r| r.base < start + PAGE)
            {
                let lo = r.base.max(start);
                let hi = (r.base + r.bytes.len() as u64).min(start + PAGE);
                if lo < hi {
                    p.bytes[(lo - start) as usize..(hi - start) as usize]
                        .copy_from_slice(&r.bytes[(lo - r.base) as usize..(hi - r.base) as usize]);
                }
            }
            p
        })
    }

    /// Writes this epoch's bytes into `base` and empties the overlay.
    pub fn merge_into(&mut self, base: &mut Global) {
        // Most SMs write nothing in most epochs: a drain walks the whole
        // table (as large as the most pages an epoch wrote) even so.
        if self.pages.is_empty() {
            return;
        }
        for (key, p) in self.pages.drain() {
            let start = key * PAGE;
            // The allocation of the last byte written, while the next bytes
            // lie in it (one lookup a page, not one a byte, as a rule).
            let mut held: Option<Held> = None;
            for (w, &bits) in p.written.iter().enumerate() {
                if bits == u64::MAX && copy_run(base, &mut held, start, w, &p.bytes) {
                    continue;
                }
                let mut bits = bits;
                while bits != 0 {
                    let i = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let a = start + i as u64;
                    if !held.is_some_and(|h| h.holds(a)) {
                        held = Held::find(base, a);
                    }
                    if let Some(h) = held {
                        if let Some(b) = base
                            .regions
                            .get_mut(h.index)
                            .and_then(|r| r.bytes.get_mut((a - h.base) as usize))
                        {
                            *b = p.bytes[i];
                        }
                    }
                }
            }
            self.spare.push(p);
        }
    }
}

/// Copies the 64 written bytes of word `w` of the page at `start` in one
/// go when one allocation holds them all (a warp's stores write whole
/// runs: a byte at a time, as the other words go, they were most of the
/// merge); `false`, nothing written, otherwise.
fn copy_run(
    base: &mut Global,
    held: &mut Option<Held>,
    start: u64,
    w: usize,
    bytes: &[u8; PAGE as usize],
) -> bool {
    let first = start + (w * 64) as u64;
    if !held.is_some_and(|h| h.holds(first)) {
        *held = Held::find(base, first);
    }
    let Some(h) = held.filter(|h| h.holds(first + 63)) else {
        return false;
    };
    let at = (first - h.base) as usize;
    let dst = base
        .regions
        .get_mut(h.index)
        .and_then(|r| r.bytes.get_mut(at..at + 64));
    match (dst, bytes.get(w * 64..w * 64 + 64)) {
        (Some(d), Some(s)) => {
            d.copy_from_slice(s);
            true
        }
        _ => false,
    }
}

/// The allocation holding a byte, and the addresses `[base, end)` it
/// holds for certain (its bytes, below the next allocation's base).
#[derive(Clone, Copy)]
struct Held {
    index: usize,
    base: u64,
    end: u64,
}

impl Held {
    /// The allocation holding `addr`: the last starting at or below it,
    /// if `addr` lies in its bytes.
    fn find(global: &Global, addr: u64) -> Option<Held> {
        let index = global.index_at(addr)?;
        let r = global.regions.get(index)?;
        let next = global.regions.get(index + 1).map_or(u64::MAX, |n| n.base);
        let end = (r.base + r.bytes.len() as u64).min(next);
        (addr < end).then_some(Held {
            index,
            base: r.base,
            end,
        })
    }

    fn holds(&self, addr: u64) -> bool {
        (self.base..self.end).contains(&addr)
    }
}

/// The allocation holding `[addr, addr + n)` and the offset in it.
fn find(base: &Global, addr: u64, n: u32) -> Result<(&Region, usize), FaultKind> {
    let r = base.region_at(addr).ok_or(FaultKind::OutOfBounds)?;
    Ok((r, r.offset(addr, u64::from(n))?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space() -> Global {
        let mut g = Global::default();
        g.alloc("a", (0..100u8).collect());
        g.alloc("b", vec![7; 5000]);
        g
    }

    #[test]
    fn an_sm_reads_its_writes_and_the_space_sees_them_after_the_merge() {
        let mut g = space();
        let (a, b) = (g.regions[0].base, g.regions[1].base);
        let mut o = Overlay::default();
        o.store(&g, a + 4, 4, 0xdead_beef).unwrap();
        o.store(&g, b + 4094, 4, 0x0102_0304).unwrap();
        assert_eq!(o.load(&g, a + 4, 4), Ok(0xdead_beef));
        assert_eq!(
            o.load(&g, a + 8, 1),
            Ok(8),
            "unwritten bytes read the space"
        );
        assert_eq!(o.load(&g, b + 4094, 4), Ok(0x0102_0304), "across a page");
        assert_eq!(g.regions[0].bytes[4], 4, "the space waits for the merge");
        assert!(o.touches(1, &[a + 4; WARP_SIZE], 4));
        assert_eq!(o.store(&g, a + 98, 4, 0), Err(FaultKind::OutOfBounds));
        o.merge_into(&mut g);
        assert!(o.is_empty());
        assert_eq!(&g.regions[0].bytes[4..8], &0xdead_beefu32.to_le_bytes());
        assert_eq!(
            &g.regions[1].bytes[4094..4098],
            &0x0102_0304u32.to_le_bytes()
        );
        assert_eq!(g.regions[0].bytes[8], 8);
    }

    /// A run of bytes touches a written page exactly where its
    /// consecutive words (lane by lane, as `touches` walks them) do: on
    /// either side of a page boundary, a word of the run in the page or
    /// none.
    #[test]
    fn a_run_touches_what_its_words_touch() {
        let g = space();
        let b = g.regions[1].base;
        let mut o = Overlay::default();
        assert!(!o.touches_run(b, 128), "nothing written");
        // The page holding `b + 4000` (the second `b` reaches).
        o.store(&g, b + 4000, 4, 1).unwrap();
        let page = (b + 4000) / PAGE * PAGE;
        for a in (page - 200..page + 4200).step_by(4) {
            let words: [u64; WARP_SIZE] = std::array::from_fn(|l| a + 4 * l as u64);
            let want = o.touches(u32::MAX, &words, 4);
            assert_eq!(o.touches_run(a, 128), want, "{a:#x}");
            assert_eq!(o.touches_run(a, 4), o.touches(1, &words, 4), "{a:#x}");
        }
        assert!(o.touches_run(page - 4, 8) && !o.touches_run(page - 8, 8));
        assert!(o.touches_run(page + PAGE - 4, 8) && !o.touches_run(page + PAGE, 8));
    }

    #[test]
    fn a_merge_writes_only_the_bytes_written() {
        let mut g = space();
        let a = g.regions[0].base;
        let (mut o1, mut o2) = (Overlay::default(), Overlay::default());
        o1.store(&g, a, 1, 0xaa).unwrap();
        o2.store(&g, a + 1, 1, 0xbb).unwrap();
        o1.merge_into(&mut g);
        o2.merge_into(&mut g);
        assert_eq!(&g.regions[0].bytes[..3], &[0xaa, 0xbb, 2]);
    }

    /// Whole written runs (copied at once) and partial ones (byte by
    /// byte) land where they were written, and nothing else changes.
    #[test]
    fn a_merge_copies_whole_runs_and_partial_ones() {
        let mut g = space();
        let b = g.regions[1].base;
        let mut o = Overlay::default();
        // Words of four bytes over [200, 4500), then one byte at 4600.
        for k in (200..4500u64).step_by(4) {
            o.store(&g, b + k, 4, k * 0x0101_0101).unwrap();
        }
        o.store(&g, b + 4600, 1, 0x5a).unwrap();
        o.merge_into(&mut g);
        let bytes = &g.regions[1].bytes;
        for (i, &x) in bytes.iter().enumerate() {
            let k = i as u64 & !3;
            let want = match i {
                200..4500 => (k * 0x0101_0101).to_le_bytes()[i % 4],
                4600 => 0x5a,
                _ => 7,
            };
            assert_eq!(x, want, "byte {i}");
        }
    }
}
