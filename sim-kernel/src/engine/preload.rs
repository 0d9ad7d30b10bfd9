//! A merged group's loads read at its leader, as the machine's one
//! vector load reads them (`vectorise`): when every lane of the leader
//! read one shared word (a tile row's broadcast), each other member's
//! word is read there too, once for the warp, and kept; the member's own
//! step then only writes it to its destination in every lane (it issues
//! nothing already: it is dead). Each member would otherwise run the
//! whole warp-wide load path (addresses, shape, bounds, blend: about 600
//! host instructions) for a value the leader's address already gives.
//!
//! Exact: between the leader and a member nothing writes shared memory
//! (`vectorise`) or the base (checked here on the renamed slots), so the
//! word is the one the member's own load would read, and it is written
//! where that load writes it. Another warp can write shared memory only
//! across a barrier (or in a race, where the machine's one vector load
//! reads at the leader too). A member whose word lies outside shared
//! memory, a signed load (it would extend), a member run on fewer lanes
//! than the leader, and recordings and replays (which log or answer each
//! load) execute member by member as before.

use sim_isa::{AddrBase, Instruction, MemType, Op, RegId, WarpRegs};

/// The merged groups' members that are read at their leader, as the
/// timing `Code` keeps them (its `preload` and `member_of`): this module
/// takes the two tables, not the `Code`, so it depends on nothing of the
/// engine's.
pub(crate) struct Tables<'a> {
    /// Per leader: its members read there.
    pub preload: &'a [Vec<Member>],
    /// Per statement: its leader and index in the leader's list.
    pub member_of: &'a [Option<(u32, u8)>],
}

/// A member that can be read at its leader.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Member {
    /// Its statement.
    pub pc: u32,
    /// Its word's offset from the leader's address, in bytes.
    pub off: u64,
    /// Its destination's slot.
    pub dest: RegId,
}

/// The groups whose members a warp has read at their leaders and not yet
/// reached. Several are open at once: an unrolled loop interleaves its
/// rows' loads (the SGEMM's tile loop has four groups open).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Preloaded {
    open: [Open; OPEN],
}

/// At most this many groups open at once; a further leader takes the
/// place of the first (whose members then load as before).
const OPEN: usize = 8;

/// One group read at its leader.
#[derive(Clone, Copy, Debug)]
struct Open {
    leader: u32,
    /// Bit `k`: member `k` (`Code::preload[leader][k]`, which
    /// `Code::member_of` names) is read and not yet reached.
    mask: u8,
    /// Member `k`'s word.
    words: [u32; 4],
}

impl Default for Preloaded {
    fn default() -> Self {
        let none = Open {
            leader: u32::MAX,
            mask: 0,
            words: [0; 4],
        };
        Preloaded { open: [none; OPEN] }
    }
}

impl Preloaded {
    /// Whether statement `pc`, run on lanes `mask`, is a member read at
    /// its leader; then writes its word to its destination (and forgets
    /// it: the next pass through the leader reads it again).
    // Always: in line in both step loops (a call of its own cost the
    // timed one's members).
    #[inline(always)]
    pub fn take(&mut self, code: Tables<'_>, pc: usize, mask: u32, regs: &mut WarpRegs) -> bool {
        let Some(&Some((leader, k))) = code.member_of.get(pc) else {
            return false;
        };
        let member = code
            .preload
            .get(leader as usize)
            .and_then(|p| p.get(usize::from(k)));
        match member {
            Some(m) => self.take_bare((leader, k), m.dest, mask, regs),
            None => {
                // Its word is spent all the same.
                self.claim(leader, k);
                false
            }
        }
    }

    /// Member `k`'s word of the open group led at `leader`, if it was read
    /// and not yet taken; taken now.
    #[inline(always)]
    fn claim(&mut self, leader: u32, k: u8) -> Option<u64> {
        let bit = 1u8 << (k % 8);
        let o = self
            .open
            .iter_mut()
            .find(|o| o.leader == leader && o.mask & bit != 0)?;
        o.mask &= !bit;
        Some(u64::from(o.words[usize::from(k) % 4]))
    }

    /// [`Self::take`] of a member whose leader and index (`leader`, `k`:
    /// `Code::member_of`'s) and destination (`dest`: its
    /// `Member::dest`) the caller has at hand: no table read.
    #[inline(always)]
    pub fn take_bare(
        &mut self,
        (leader, k): (u32, u8),
        dest: RegId,
        mask: u32,
        regs: &mut WarpRegs,
    ) -> bool {
        let Some(w) = self.claim(leader, k) else {
            return false;
        };
        // The leader's broadcast ran on every lane.
        if mask != u32::MAX {
            return false;
        }
        // The file has the slot (it is sized to the kernel's slots): the
        // test in line, `ensure` (a call) only where it would grow.
        if regs.len() <= dest.0 as usize {
            regs.ensure(dest.0 as usize + 1);
        }
        // AVX2's 32-byte stores where the CPU has them: the baseline's
        // are 32 of 8 bytes, and in line they went out as scalar stores.
        super::shload::broadcast(regs.reg_mut(dest), w);
        true
    }

    /// The slot of the group led at `pc`, emptied (the slot it had, or
    /// the first free one, or the first).
    #[inline(always)]
    fn open_for(&mut self, pc: u32) -> &mut Open {
        let slot = match self.open.iter().position(|o| o.leader == pc) {
            Some(i) => i,
            None => self.open.iter().position(|o| o.mask == 0).unwrap_or(0),
        };
        let o = &mut self.open[slot % OPEN];
        o.leader = pc;
        o.mask = 0;
        o
    }

    /// [`Self::lead`] with `read` of a leader whose `n` members are the
    /// `n` words after its own, in order (`Stmt::next_words`): their
    /// offsets known, no table read.
    pub fn lead_next(&mut self, pc: usize, addr: u64, shared: &[u8], n: u8) {
        let o = self.open_for(pc as u32);
        let n = usize::from(n).min(4);
        // Shared memory holds four words from there (the usual case): one
        // bounds test, and a copy of fixed size (of `n` words it was a
        // call of `memcpy`). Words past the `n`th are not marked read
        // (`mask`), so no take reads them.
        let all = usize::try_from(addr)
            .ok()
            .and_then(|a| shared.get(a.checked_add(4)?..)?.first_chunk::<16>());
        if let Some(b) = all {
            let b = b.as_chunks::<4>().0;
            o.words = [0, 1, 2, 3].map(|k| u32::from_le_bytes(b[k]));
            o.mask = (1u8 << n) - 1;
            return;
        }
        for k in 0..n {
            o.read(k, shared, addr.wrapping_add(4 * (k as u64 + 1)));
        }
    }

    /// The leader at `pc` ran: what an earlier pass read for it is stale;
    /// `read`: it loaded from shared address `.0` of `.1` in every lane,
    /// so each member's word is read now.
    pub fn lead(&mut self, code: Tables<'_>, pc: usize, read: Option<(u64, &[u8])>) {
        let o = self.open_for(pc as u32);
        let (Some((addr, shared)), Some(members)) = (read, code.preload.get(pc)) else {
            return;
        };
        for (k, m) in members.iter().enumerate().take(4) {
            o.read(k, shared, addr.wrapping_add(m.off));
        }
    }
}

impl Open {
    /// Member `k`'s word, read from shared address `a` where shared
    /// memory holds it (a member outside it loads as before).
    #[inline(always)]
    fn read(&mut self, k: usize, shared: &[u8], a: u64) {
        let Some(w) = usize::try_from(a)
            .ok()
            .and_then(|a| shared.get(a..a.checked_add(4)?))
        else {
            return;
        };
        self.words[k] = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        self.mask |= 1 << k;
    }
}

/// The slots each statement writes: its registers' (`uses`, original ids)
/// in `regs`, which are what its renamed instruction writes (`RegMap::new`
/// checks each renaming against them).
#[derive(Clone, Copy)]
pub(crate) struct Writes<'a> {
    pub uses: &'a crate::dead::Uses,
    pub regs: &'a crate::regalloc::RegMap,
}

impl Writes<'_> {
    /// Whether statement `j` writes slot `slot`.
    pub(crate) fn slot(&self, j: usize, slot: RegId) -> bool {
        let w = self.uses.writes(j);
        w.iter().any(|&r| self.regs.reg(RegId(r)) == slot)
    }
}

/// The members of the group led at `leader` (`members`: its statements,
/// the leader first, by word) that can be read at the leader (see the
/// module's conditions), on the timing code's renamed instructions `inst`
/// (`writes`: the slots each writes).
pub(crate) fn members(
    inst: &[Option<Instruction>],
    writes: Writes<'_>,
    leader: u32,
    members: &[u32],
) -> Vec<Member> {
    // A memory instruction's operands, as vectorise.rs reads them.
    let renamed = |pc: u32| {
        let Some(Some(i)) = inst.get(pc as usize) else {
            return None;
        };
        let Op::Mem(m) = &i.op else {
            return None;
        };
        Some(m)
    };
    let Some(lead) = renamed(leader) else {
        return Vec::new();
    };
    let base = match lead.addr.base {
        AddrBase::Reg(r) => Some(r),
        AddrBase::Var(_) | AddrBase::Abs => None,
    };
    // The first statement from the leader on that writes the base (or is
    // no instruction), up to the last member: nothing from the leader on,
    // before a member at or before it, writes the base (liveness may give
    // a register that dies on the way its slot). One scan for the group,
    // not one a member; and the writes are asked of the table, not of each
    // statement's `reg_uses` (a few hundred host instructions a call).
    let last = members.iter().copied().max().unwrap_or(leader);
    let stop = (leader..last)
        .find(|&j| match (inst.get(j as usize), base) {
            (Some(Some(_)), Some(b)) => writes.slot(j as usize, b),
            (Some(Some(_)), None) => false,
            _ => true,
        })
        .unwrap_or(last);
    let mut out = Vec::new();
    for &pc in members {
        let Some(m) = renamed(pc) else {
            continue;
        };
        if matches!(m.ty, MemType::S(_)) || pc <= leader || m.addr.base != lead.addr.base {
            continue;
        }
        let clear = pc <= stop;
        if clear && out.len() < 4 {
            out.push(Member {
                pc,
                // Both addresses are the base plus an offset (wrapping).
                off: m.addr.offset.wrapping_sub(lead.addr.offset) as u64,
                dest: m.d[0],
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn next(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// What a warp's open groups say: each slot's leader and the words
    /// marked read (the others no take reads).
    fn read(p: &Preloaded) -> Vec<(u32, u8, Vec<u32>)> {
        let words = |o: &Open| {
            (0..4)
                .filter(|k| o.mask >> k & 1 == 1)
                .map(|k| o.words[k])
                .collect()
        };
        p.open
            .iter()
            .map(|o| (o.leader, o.mask, words(o)))
            .collect()
    }

    /// `take_bare` is `take`, and `lead_next` is `lead` for a leader whose
    /// members are the next words, whatever the order of leaders (more
    /// groups than slots) and members, the masks, and members outside
    /// shared memory.
    #[test]
    fn the_bare_loops_take_and_lead_are_the_tables() {
        // Leader `4 i` (nine: one more than the slots) and its members
        // `4 i + 1 ..= 4 i + 3`, the next words, into slots 1 to 3.
        let mut preload = vec![Vec::new(); 36];
        let mut member_of = vec![None; 36];
        for i in 0..9u32 {
            preload[4 * i as usize] = (1..4u32)
                .map(|k| {
                    member_of[(4 * i + k) as usize] = Some((4 * i, (k - 1) as u8));
                    Member {
                        pc: 4 * i + k,
                        off: 4 * u64::from(k),
                        dest: RegId(k),
                    }
                })
                .collect();
        }
        let code = || Tables {
            preload: &preload,
            member_of: &member_of,
        };
        let mut x = 0xbb67_ae85_84ca_a73bu64;
        let shared: Vec<u8> = (0..256).map(|_| next(&mut x) as u8).collect();
        let (mut general, mut bare) = (Preloaded::default(), Preloaded::default());
        let (mut gregs, mut bregs) = (WarpRegs::new(4), WarpRegs::new(4));
        let mut took = 0;
        for _ in 0..200_000 {
            let r = next(&mut x);
            let leader = 4 * ((r >> 8) % 9) as usize;
            if r.is_multiple_of(3) {
                // Near the end: some members outside shared memory.
                let addr = ((r >> 16) % 264) & !3;
                general.lead(code(), leader, Some((addr, &shared)));
                bare.lead_next(leader, addr, &shared, 3);
            } else {
                let k = (r >> 4) % 3;
                let mask = if (r >> 32).is_multiple_of(5) {
                    r as u32 >> 1
                } else {
                    u32::MAX
                };
                let pc = leader + 1 + k as usize;
                let g = general.take(code(), pc, mask, &mut gregs);
                let dest = RegId(k as u32 + 1);
                let b = bare.take_bare((leader as u32, k as u8), dest, mask, &mut bregs);
                assert_eq!(g, b);
                took += usize::from(g);
            }
            assert_eq!(read(&general), read(&bare));
            assert!(gregs == bregs);
        }
        assert!(took > 20_000, "{took}");
    }
}
