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
        let bit = 1u8 << (k % 8);
        let Some(o) = self
            .open
            .iter_mut()
            .find(|o| o.leader == leader && o.mask & bit != 0)
        else {
            return false;
        };
        o.mask &= !bit;
        let w = u64::from(o.words[usize::from(k) % 4]);
        let member = code
            .preload
            .get(leader as usize)
            .and_then(|p| p.get(usize::from(k)));
        // The leader's broadcast ran on every lane.
        let Some(m) = member.filter(|_| mask == u32::MAX) else {
            return false;
        };
        // The file has the slot (it is sized to the kernel's slots): the
        // test in line, `ensure` (a call) only where it would grow.
        if regs.len() <= m.dest.0 as usize {
            regs.ensure(m.dest.0 as usize + 1);
        }
        // AVX2's 32-byte stores where the CPU has them: the baseline's
        // are 32 of 8 bytes.
        super::shload::broadcast(regs.reg_mut(m.dest), w);
        true
    }

    /// The leader at `pc` ran: what an earlier pass read for it is stale;
    /// `read`: it loaded from shared address `.0` of `.1` in every lane,
    /// so each member's word is read now.
    pub fn lead(&mut self, code: Tables<'_>, pc: usize, read: Option<(u64, &[u8])>) {
        let pc32 = pc as u32;
        let slot = match self.open.iter().position(|o| o.leader == pc32) {
            Some(i) => i,
            None => self.open.iter().position(|o| o.mask == 0).unwrap_or(0),
        };
        let o = &mut self.open[slot % OPEN];
        o.leader = pc32;
        o.mask = 0;
        let (Some((addr, shared)), Some(members)) = (read, code.preload.get(pc)) else {
            return;
        };
        for (k, m) in members.iter().enumerate().take(4) {
            let a = addr.wrapping_add(m.off);
            let Some(w) = usize::try_from(a)
                .ok()
                .and_then(|a| shared.get(a..a.checked_add(4)?))
            else {
                continue;
            };
            o.words[k] = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            o.mask |= 1 << k;
        }
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
    fn slot(&self, j: usize, slot: RegId) -> bool {
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
