//! Shared memory (`LDS`, `STS`), the async copies (`LDGSTS`, `LDGDEPBAR`)
//! and the `mbarrier` unit (`SYNCS.*`, `ARRIVES.LDGSTSBAR`): what ptxas
//! 13.0.88 emits for sm_90 for `cp.async*` and `mbarrier.*`
//! (sim-isa/tests/data/async-sass.txt).
//!
//! One thread runs, so a copy lands when it issues and `LDGDEPBAR` /
//! `DEPBAR` have nothing to wait for.
//!
//! `LDGSTS{.64,.128}{.ZFILL} [s], [g], P`: the copy of 4, 8 or 16 bytes.
//! ptxas encodes `src-size` in the global address, not in an operand: for a
//! register size it adds `(n - size) & (n - 1)` to the (n-aligned) source
//! and sets `P` to `size != 0`; for an immediate size the same offset is in
//! the instruction (`[R2.64+0x2]` for 2 of 4 bytes). So `.ZFILL` reads the
//! low address bits as the number of trailing zero bytes, copying the rest
//! from the aligned address, which is the manual's definition ("the first
//! src-size bytes ..., the rest zeros") and the only reading of the offset
//! that gives it. A false `P` (`ignore-src`, size 0) zeros all `n`.
//!
//! The `mbarrier` object is the 64-bit word `init` writes (`SYNCS.EXCH.64`
//! of a value ptxas computes with integer instructions) and
//! `pending_count` decodes (integer instructions again): bits 43..62 hold
//! `2^20 -` the pending arrivals, bit 63 the phase parity, bits 1..20
//! `2^20 -` the expected arrivals. What the sync unit does to it is not in
//! the code ptxas emits; the interpreter applies the PTX manual's
//! definition to that layout: an arrival of `n` lowers the pending count by
//! `n` (`.OPTOUT`, `arrive_drop`: the expected count too), and a phase whose
//! pending count and transaction count are both zero completes: the parity
//! flips and the pending count restarts at the expected one. Other bits are
//! left as found. `SYNCS.PHASECHK` takes a register whose bit 31 is the
//! phase asked about (`.parity`: ptxas shifts the parity there; a state:
//! its high word) and says whether that phase completed, i.e. the object's
//! parity differs.
//!
//! The transaction count's place in the word is not known (the manual calls
//! the object opaque, and no emitted instruction decodes it), so the
//! interpreter keeps it beside the word, per address: `cp.async.mbarrier
//! .arrive` raises it by one (`SYNCS.ARRIVE.TRANS64.RED.A0T1`) and its
//! `ARRIVES.LDGSTSBAR.64.TRANSCNT` lowers it again once the copies have
//! landed; `expect_tx`'s forms (`...TR`: a register's count of bytes) and
//! an arrival that would complete a phase with transactions pending are
//! errors, not guesses.

use super::decode::{Opnd, SInst};
use super::{Machine, RZ};
use anyhow::{bail, Context, Result};

/// Bytes of shared memory (the kernels' variables start at 0x400).
pub(super) const SHARED_BYTES: usize = 0x800;
/// A 20-bit count field.
const COUNT: u64 = 0xf_ffff;
/// A count field holds `WRAP -` its count.
const WRAP: u64 = 1 << 20;

impl Machine {
    /// The opcodes of this file.
    pub(super) fn step_async(&mut self, i: &SInst) -> Result<()> {
        match i.op.as_str() {
            "LDS" => self.lds(i),
            "STS" => self.sts(i),
            "LDGSTS" => self.ldgsts(i),
            // Copies land when they issue: nothing to commit or wait for.
            "LDGDEPBAR" => Ok(()),
            "SYNCS" => self.syncs(i),
            "ARRIVES" => self.arrives(i),
            // The uniform address `SYNCS` takes, from a vector register.
            "R2UR" => {
                i.need(2)?;
                let Opnd::UReg(d, false) = i.ops[0] else {
                    bail!("R2UR destination")
                };
                if d != RZ {
                    self.ur[(d & 63) as usize] = self.int(&i.ops[1])?;
                }
                Ok(())
            }
            // `FENCE.VIEW.ASYNC.S` after `init`: orders the object's store
            // before the sync unit's accesses; one thread has nothing to order.
            "FENCE" if i.has("VIEW") && i.has("ASYNC") => Ok(()),
            // `try_wait`'s suspend-time hint: a back-off, no state; and
            // `.release.cluster`'s `ERRBAR` / `CGAERRBAR` (wait for earlier
            // stores' errors, in the block and the cluster): nothing pends.
            "NANOSLEEP" | "ERRBAR" | "CGAERRBAR" => Ok(()),
            "RPCMOV" => self.rpcmov(i),
            other => bail!("{other} is not an async opcode"),
        }
    }

    /// A shared-memory address: `[R+off]` (32 bits) or `[R+UR+off]`.
    fn saddr(&self, o: &Opnd) -> Result<u32> {
        let (r, ur, off) = match *o {
            Opnd::Mem(r, off) => (r, RZ, off),
            Opnd::MemUr(r, ur, off) => (r, ur, off),
            _ => bail!("expected a shared-memory operand, got {o:?}"),
        };
        let u = if ur == RZ {
            0
        } else {
            self.ur[(ur & 63) as usize]
        };
        Ok(self.reg(r).wrapping_add(u).wrapping_add(off as u32))
    }

    /// Reads (`write` None) or writes `n` little-endian bytes of shared memory.
    fn shared_access(&mut self, a: u32, n: usize, write: Option<&[u8]>) -> Result<Vec<u8>> {
        let at = a as usize;
        if at + n > self.shared.len() || !at.is_multiple_of(n) {
            bail!("shared access of {n} bytes at {a:#x}: outside or misaligned");
        }
        if let Some(b) = write {
            self.shared[at..at + n].copy_from_slice(b);
        }
        Ok(self.shared[at..at + n].to_vec())
    }

    /// The 64-bit word at shared address `a`.
    fn word(&mut self, a: u32) -> Result<u64> {
        let b = self.shared_access(a, 8, None)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    fn set_word(&mut self, a: u32, v: u64) -> Result<()> {
        self.shared_access(a, 8, Some(&v.to_le_bytes()))?;
        Ok(())
    }

    /// A 64-bit source: a register pair or a uniform pair.
    fn pair(&self, o: &Opnd) -> Result<u64> {
        let (lo, hi) = match *o {
            Opnd::Reg { r, .. } if r == RZ => (0, 0),
            Opnd::Reg { r, .. } => (self.reg(r), self.reg(r + 1)),
            Opnd::UReg(u, false) if u == RZ => (0, 0),
            Opnd::UReg(u, false) => (self.ur[(u & 63) as usize], self.ur[((u + 1) & 63) as usize]),
            _ => bail!("expected a 64-bit source, got {o:?}"),
        };
        Ok(u64::from(hi) << 32 | u64::from(lo))
    }

    /// Writes a 64-bit result to a register or uniform pair (RZ/URZ: none).
    fn set_pair(&mut self, o: &Opnd, v: u64) -> Result<()> {
        match *o {
            Opnd::Reg { r, .. } if r != RZ => {
                self.set(r, v as u32);
                self.set(r + 1, (v >> 32) as u32);
            }
            Opnd::UReg(u, false) if u != RZ => {
                self.ur[(u & 63) as usize] = v as u32;
                self.ur[((u + 1) & 63) as usize] = (v >> 32) as u32;
            }
            Opnd::Reg { .. } | Opnd::UReg(..) => {}
            _ => bail!("expected a 64-bit destination, got {o:?}"),
        }
        Ok(())
    }

    /// `LDS`: 1, 2 (zero- or sign-extended), 4, 8 or 16 bytes into registers.
    fn lds(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let d = Self::dst(&i.ops[0])?;
        let (n, signed) = Self::width(i);
        let b = self.shared_access(self.saddr(&i.ops[1])?, n, None)?;
        if n < 4 {
            let mut v = b.iter().rev().fold(0u32, |acc, &x| acc << 8 | u32::from(x));
            if signed {
                let sh = 32 - 8 * n as u32;
                v = ((v << sh) as i32 >> sh) as u32;
            }
            self.set(d, v);
            return Ok(());
        }
        for (k, w) in b.chunks(4).enumerate() {
            self.set(d + k as u8, u32::from_le_bytes(w.try_into().expect("4")));
        }
        Ok(())
    }

    /// `STS`: the low bytes of a register, or 2 or 4 registers' worth.
    fn sts(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let a = self.saddr(&i.ops[0])?;
        let (n, _) = Self::width(i);
        let Opnd::Reg { r, .. } = i.ops[1] else {
            bail!("store source")
        };
        let bytes: Vec<u8> = (0..n.div_ceil(4))
            .flat_map(|k| {
                let reg = if r == RZ { RZ } else { r + k as u8 };
                self.reg(reg).to_le_bytes()
            })
            .take(n)
            .collect();
        self.shared_access(a, n, Some(&bytes))?;
        Ok(())
    }

    /// `LDGSTS`: the module doc's reading of `.ZFILL` and the predicate.
    fn ldgsts(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let (n, _) = Self::width(i);
        let dst = self.saddr(&i.ops[0])?;
        let src = self.addr(&i.ops[1])?;
        let read = match i.ops.get(2) {
            Some(p) => self.pred(p)?,
            None => true,
        };
        let fill = if i.has("ZFILL") {
            (src % n as u64) as usize
        } else if src % n as u64 != 0 {
            bail!("LDGSTS source {src:#x} not aligned to {n}")
        } else {
            0
        };
        let mut bytes = vec![0u8; n];
        if read {
            let base = src - fill as u64;
            for (k, b) in bytes.iter_mut().take(n - fill).enumerate() {
                *b = self.access(base + k as u64, 1, None)? as u8;
            }
        }
        self.shared_access(dst, n, Some(&bytes))?;
        Ok(())
    }

    /// `SYNCS.EXCH.64`, `SYNCS.ARRIVE.TRANS64`, `SYNCS.PHASECHK.TRANS64`,
    /// `SYNCS.CCTL.IV`.
    fn syncs(&mut self, i: &SInst) -> Result<()> {
        let kind = i.mods.first().map(String::as_str).unwrap_or("");
        match kind {
            "EXCH" => {
                i.need(3)?;
                let a = self.saddr(&i.ops[1])?;
                let new = self.pair(&i.ops[2])?;
                let old = self.word(a)?;
                self.set_word(a, new)?;
                self.set_pair(&i.ops[0], old)
            }
            "ARRIVE" => {
                i.need(3)?;
                let a = self.saddr(&i.ops[1])?;
                let mode = i
                    .mods
                    .iter()
                    .find(|m| m.len() == 4 && m.starts_with('A') && &m[2..3] == "T")
                    .map(String::as_str)
                    .unwrap_or("A1TR");
                let arrivals = match &mode[1..2] {
                    "0" => 0,
                    "1" => 1,
                    _ => u64::from(self.int(&i.ops[2])?),
                };
                let tx = match &mode[3..4] {
                    "0" => 0,
                    "1" => 1,
                    _ => bail!("SYNCS.ARRIVE.{mode}: the transaction count's place in the object is not known"),
                };
                let old = self.word(a)?;
                let new = self.mbar_step(a, old, arrivals, i.has("OPTOUT"), tx)?;
                self.set_word(a, new)?;
                // `.TMASK` (ptxas's `.noComplete` arrival, aggregated over
                // the warp): the low word is the arriving lanes' mask, here
                // this thread's; the code then adds its rank's arrivals to
                // the high word.
                let got = match i.has("TMASK") {
                    true => old & !0xffff_ffff | 1 << (self.thread[0] & 31),
                    false => old,
                };
                self.set_pair(&i.ops[0], got)
            }
            "PHASECHK" => {
                i.need(3)?;
                let Opnd::Pred { p, not: false } = i.ops[0] else {
                    bail!("PHASECHK destination")
                };
                let obj = self.word(self.saddr(&i.ops[1])?)?;
                let asked = self.int(&i.ops[2])? >> 31;
                if p != super::PT {
                    self.p[p as usize] = (obj >> 63) as u32 != asked;
                }
                Ok(())
            }
            // Invalidation: the sync unit forgets the object; the code
            // stores nothing, so the bytes stay.
            "CCTL" if i.has("IV") => {
                i.need(1)?;
                let a = self.saddr(&i.ops[0])?;
                self.tx.retain(|(at, _)| *at != a);
                Ok(())
            }
            other => bail!("SYNCS.{other} not modelled"),
        }
    }

    /// `RPCMOV.32 Rpc.HI, R9` / `RPCMOV.32 R9, Rpc.HI`: the return-address
    /// register as a scratch word.
    fn rpcmov(&mut self, i: &SInst) -> Result<()> {
        i.need(2)?;
        let half = |o: &Opnd| match o {
            Opnd::Special(s) if s == "Rpc.LO" => Some(0),
            Opnd::Special(s) if s == "Rpc.HI" => Some(1),
            _ => None,
        };
        match (half(&i.ops[0]), half(&i.ops[1])) {
            (Some(h), None) => self.rpc[h] = self.int(&i.ops[1])?,
            (None, Some(h)) => self.set(Self::dst(&i.ops[0])?, self.rpc[h]),
            _ => bail!("RPCMOV needs one Rpc half and one register"),
        }
        Ok(())
    }

    /// `ARRIVES.LDGSTSBAR.64.ARVCNT` (`.noinc`: one arrival once this
    /// thread's copies land) and `.TRANSCNT` (the transaction the
    /// preceding `A0T1` raised, done).
    fn arrives(&mut self, i: &SInst) -> Result<()> {
        i.need(1)?;
        if !i.has("LDGSTSBAR") {
            bail!("ARRIVES without LDGSTSBAR not modelled");
        }
        let a = self.saddr(&i.ops[0])?;
        let old = self.word(a)?;
        let new = if i.has("ARVCNT") {
            self.mbar_step(a, old, 1, false, 0)?
        } else if i.has("TRANSCNT") {
            self.mbar_step(a, old, 0, false, -1)?
        } else {
            bail!("ARRIVES.LDGSTSBAR needs ARVCNT or TRANSCNT")
        };
        self.set_word(a, new)
    }

    /// The object at `a` (`old`) after `arrivals` arrivals (`drop`: the
    /// expected count falls with them) and a transaction-count change.
    fn mbar_step(&mut self, a: u32, old: u64, arrivals: u64, drop: bool, tx: i64) -> Result<u64> {
        let pending = WRAP - (old >> 43 & COUNT);
        let mut expected = WRAP - (old >> 1 & COUNT);
        if arrivals > pending {
            bail!("{arrivals} arrivals on an object with {pending} pending (undefined)");
        }
        if drop {
            expected = expected
                .checked_sub(arrivals)
                .filter(|&e| e > 0)
                .context("arrive_drop leaving no arrival expected (undefined)")?;
        }
        let slot = match self.tx.iter().position(|(at, _)| *at == a) {
            Some(k) => k,
            None => {
                self.tx.push((a, 0));
                self.tx.len() - 1
            }
        };
        self.tx[slot].1 += tx;
        let txc = self.tx[slot].1;
        let left = pending - arrivals;
        let (phase, left) = match (left, txc) {
            (0, 0) => ((old >> 63) ^ 1, expected),
            (0, _) => {
                bail!("a phase held by {txc} pending transactions: its encoding is not known")
            }
            _ => (old >> 63, left),
        };
        let keep = old & !(1 << 63 | COUNT << 43 | COUNT << 1);
        Ok(keep | phase << 63 | (WRAP - left) << 43 | ((WRAP - expected) & COUNT) << 1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::decode::parse_line;
    use super::super::IN_BASE;
    use super::*;

    fn run(m: &mut Machine, text: &str) -> Result<()> {
        let i = parse_line(&format!("/*0000*/ {text} ;"))?.expect("an instruction");
        m.step(&i)
    }

    /// An object in the layout `init` writes: `pending` of `expected`
    /// arrivals left, phase parity `phase`.
    fn obj(pending: u64, expected: u64, phase: u64) -> u64 {
        phase << 63 | (WRAP - pending) << 43 | (WRAP - expected) << 1
    }

    fn machine() -> Machine {
        let mut m = Machine::new((0..64u8).map(|k| 0x40 + k).collect(), 8);
        m.r[15] = 0x400;
        m.ur[4] = 0x400;
        m
    }

    #[test]
    fn shared_loads_and_stores() {
        let mut m = machine();
        m.r[4] = 0x4433_2211;
        m.r[5] = 0x8877_6655;
        run(&mut m, "STS.64 [R15+0x8], R4").unwrap();
        assert_eq!(m.word(0x408).unwrap(), 0x8877_6655_4433_2211);
        run(&mut m, "LDS.U8 R6, [R15+0xf]").unwrap();
        run(&mut m, "LDS.S16 R7, [R15+0xe]").unwrap();
        run(&mut m, "LDS R8, [UR4+0xc]").unwrap();
        assert_eq!((m.r[6], m.r[7], m.r[8]), (0x88, 0xffff_8877, 0x8877_6655));
        run(&mut m, "STS.128 [R15+URZ], R4").unwrap();
        run(&mut m, "LDS.128 R8, [R15]").unwrap();
        // R6 and R7 hold the loads above.
        assert_eq!(m.r[8..12], [0x4433_2211, 0x8877_6655, 0x88, 0xffff_8877]);
        assert!(run(&mut m, "LDS.64 R8, [R15+0x4]").is_err(), "misaligned");
    }

    #[test]
    fn ldgsts_copies_and_zero_fills() {
        let mut m = machine();
        m.r[2] = IN_BASE as u32 + 16;
        m.r[3] = (IN_BASE >> 32) as u32;
        run(&mut m, "LDGSTS.E.128 [R15], desc[UR4][R2.64]").unwrap();
        assert_eq!(
            &m.shared[0x400..0x410],
            &(0x50..0x60).collect::<Vec<u8>>()[..]
        );
        // src-size 2 of 4: ptxas's offset 2 means two zero bytes at the end.
        run(&mut m, "LDGSTS.E.ZFILL [R15+0x10], desc[UR4][R2.64+0x2]").unwrap();
        assert_eq!(&m.shared[0x410..0x414], &[0x50, 0x51, 0, 0]);
        // A false predicate (ignore-src, src-size 0): all zeros.
        m.shared[0x418..0x420].fill(0xee);
        run(
            &mut m,
            "LDGSTS.E.BYPASS.64 [R15+0x18], desc[UR4][R2.64], P0",
        )
        .unwrap();
        assert_eq!(&m.shared[0x418..0x420], &[0; 8]);
        m.p[0] = true;
        run(
            &mut m,
            "LDGSTS.E.64.ZFILL [R15+0x18], desc[UR4][R2.64+0x7], P0",
        )
        .unwrap();
        assert_eq!(&m.shared[0x418..0x420], &[0x50, 0, 0, 0, 0, 0, 0, 0]);
        assert!(run(&mut m, "LDGSTS.E.128 [R15], desc[UR4][R2.64+0x4]").is_err());
        run(&mut m, "LDGDEPBAR").unwrap();
        run(&mut m, "DEPBAR.LE SB0, 0x0").unwrap();
    }

    #[test]
    fn syncs_exch_arrive_and_phase_check() {
        let mut m = machine();
        // init(3), as ptxas computes it: (2^20 - 3) << 11 high, << 1 low.
        m.ur[6] = 0x400;
        m.ur[4] = (WRAP as u32 - 3) << 1;
        m.ur[5] = (WRAP as u32 - 3) << 11;
        run(&mut m, "SYNCS.EXCH.64 URZ, [UR6], UR4").unwrap();
        assert_eq!(m.word(0x400).unwrap(), obj(3, 3, 0));
        run(&mut m, "SYNCS.ARRIVE.TRANS64.A1T0 R2, [UR6], RZ").unwrap();
        assert_eq!(u64::from(m.r[3]) << 32 | u64::from(m.r[2]), obj(3, 3, 0));
        assert_eq!(m.word(0x400).unwrap(), obj(2, 3, 0));
        // Phase 0 not complete: state's bit 63 (R3 bit 31) equals the parity.
        run(&mut m, "SYNCS.PHASECHK.TRANS64 P0, [UR6], R3").unwrap();
        assert!(!m.p[0]);
        m.r[7] = 2;
        run(&mut m, "SYNCS.ARRIVE.TRANS64.ART0 R4, [UR6], R7").unwrap();
        assert_eq!(m.word(0x400).unwrap(), obj(3, 3, 1), "phase 0 completes");
        assert_eq!(u64::from(m.r[5]) << 32 | u64::from(m.r[4]), obj(2, 3, 0));
        run(&mut m, "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR6], R3").unwrap();
        assert!(m.p[0]);
        // Parity 1 (shifted to bit 31) is the current phase: not complete.
        m.r[0] = 1 << 31;
        run(&mut m, "SYNCS.PHASECHK.TRANS64 P1, [UR6], R0").unwrap();
        assert!(!m.p[1]);
        // arrive_drop: one of three arrives and the next phase expects two.
        run(&mut m, "SYNCS.ARRIVE.TRANS64.OPTOUT.A1T0 RZ, [UR6], RZ").unwrap();
        assert_eq!(m.word(0x400).unwrap(), obj(2, 2, 1));
        m.r[7] = 3;
        assert!(run(&mut m, "SYNCS.ARRIVE.TRANS64.ART0 R4, [UR6], R7").is_err());
        assert!(
            run(&mut m, "SYNCS.ARRIVE.TRANS64 R4, [UR6], R7").is_err(),
            "expect_tx"
        );
        // Invalidation stores nothing.
        run(&mut m, "SYNCS.CCTL.IV [UR6]").unwrap();
        assert_eq!(m.word(0x400).unwrap(), obj(2, 2, 1));
    }

    #[test]
    fn uniform_moves_and_fences() {
        let mut m = machine();
        m.r[0] = 0x408;
        run(&mut m, "R2UR UR5, R0").unwrap();
        run(&mut m, "R2UR URZ, R0").unwrap();
        assert_eq!(m.ur[5], 0x408);
        run(&mut m, "FENCE.VIEW.ASYNC.S").unwrap();
        assert!(run(&mut m, "FENCE.VIEW.ASYNC.G.X").is_ok());
        assert!(run(&mut m, "FENCE.SC.GPU").is_err());
    }

    /// ptxas's `.noComplete` arrival: `TMASK` returns the lane mask in the
    /// low word, and the code after it (run here as ptxas emits it) adds
    /// `popc(mask & lanes below) * count` to the high word's count.
    #[test]
    fn tmask_arrival_and_rpc_scratch() {
        let mut m = machine();
        m.thread[0] = 32 + 3; // lane 3
        m.set_word(0x400, obj(5, 6, 1)).unwrap();
        m.r[15] = 0x400;
        m.r[14] = 2;
        let code = [
            "SYNCS.ARRIVE.TRANS64.TMASK.ART0 R8, [R15+URZ], R14",
            "RPCMOV.32 Rpc.HI, R9",
            "RPCMOV.32 Rpc.LO, R8",
            "S2R R9, SR_LTMASK",
            "LOP3.LUT R8, R8, R9, RZ, 0x40, !PT",
            "RPCMOV.32 R9, Rpc.HI",
            "POPC R8, R8",
            "SHF.L.U32 R8, R8, 0xb, RZ",
            "IMAD R9, R8, R14, R9",
            "RPCMOV.32 R8, Rpc.LO",
            "NANOSLEEP.SYNCS R11",
            "ERRBAR",
            "CGAERRBAR",
        ];
        for c in code {
            run(&mut m, c).unwrap();
        }
        assert_eq!(m.word(0x400).unwrap(), obj(3, 6, 1));
        // No lower lane arrived: the high word as found; the low word the mask.
        assert_eq!((m.r[8], m.r[9]), (1 << 3, (obj(5, 6, 1) >> 32) as u32));
        assert_eq!(m.rpc, [1 << 3, (obj(5, 6, 1) >> 32) as u32]);
        assert!(run(&mut m, "RPCMOV.32 R9, R8").is_err());
    }

    #[test]
    fn ldgstsbar_arrivals() {
        let mut m = machine();
        m.set_word(0x400, obj(1, 4, 0) | 1).unwrap();
        // Without .noinc: a transaction raised and done, no net change.
        run(&mut m, "SYNCS.ARRIVE.TRANS64.RED.A0T1 RZ, [UR4], RZ").unwrap();
        assert_eq!(m.tx, [(0x400, 1)]);
        run(&mut m, "ARRIVES.LDGSTSBAR.64.TRANSCNT [UR4]").unwrap();
        assert_eq!((m.word(0x400).unwrap(), m.tx[0].1), (obj(1, 4, 0) | 1, 0));
        // .noinc: one arrival, the last pending: phase 0 completes; bit 0,
        // not a count, is kept.
        run(&mut m, "ARRIVES.LDGSTSBAR.64.ARVCNT [UR4]").unwrap();
        assert_eq!(m.word(0x400).unwrap(), obj(4, 4, 1) | 1);
        // A transaction pending when the last arrival comes: refused.
        m.set_word(0x400, obj(1, 4, 0)).unwrap();
        run(&mut m, "SYNCS.ARRIVE.TRANS64.RED.A0T1 RZ, [UR4], RZ").unwrap();
        assert!(run(&mut m, "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR4], RZ").is_err());
    }
}
