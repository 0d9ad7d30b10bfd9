//! The async copies (`cp.async`, `cp.async.commit_group`, `wait_group`,
//! `wait_all`, `mbarrier`, and sm_90's `cp.async.bulk` and transaction
//! count, whose values are `bulk_copy.rs`'s): the parser and the gates against ptxas 13.0.88's verdicts
//! (`tests/data/async-ptxas.txt`, made by `tools/ptxas_grid/async_grid.py`),
//! printing, the lowering keys against the machine code ptxas emits
//! (`tests/data/async-sass.txt`, made by the same script), what the
//! database says they do, and the copy's bytes on a hand-made memory (zero
//! fill computed by hand from the manual's definition). Their values in a
//! launch are sim-kernel's (`tests/it/async_copy.rs`).

use crate::grid;
use sim_isa::db;
use sim_isa::exec::{execute_mem, FaultKind};
use sim_isa::parse::parse_instruction;
use sim_isa::{ExecCtx, Instruction, RegId, Space, Symbols, Target, WarpRegs};
use std::collections::BTreeMap;

const GRID: &str = include_str!("../data/async-ptxas.txt");
const SASS: &str = include_str!("../data/async-sass.txt");

fn parse(t: &str) -> (Instruction, Symbols) {
    let mut syms = Symbols::new();
    let i = parse_instruction(t, &mut syms).unwrap_or_else(|e| panic!("{t}: {e}"));
    (i, syms)
}

/// Valid PTX simcli does not run: the cache hint, the bulk prefetch, a
/// bulk copy to a `.shared::cta` destination.
fn not_run(t: &str) -> bool {
    t.contains(".L2::cache_hint") || t.contains("bulk.prefetch") || t.contains("bulk.shared::cta")
}

/// The parser accepts what ptxas 13.0 accepts (but `not_run`, which it
/// calls unimplemented) and calls `Invalid` what it rejects.
#[test]
fn agrees_with_ptxas_on_the_grid() {
    let (counts, wrong) = grid::verdicts(GRID, &not_run);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(counts, [127, 115, 0]);
}

/// Every accepted statement prints as text that parses back to itself.
#[test]
fn accepted_statements_print_and_reparse() {
    let wrong = grid::reparse_failures(GRID, &not_run);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let (i, syms) = parse("cp.async.cg.shared::cta.global.L2::256B [sm+16], [%rd1+32], 16, %r2;");
    assert_eq!(
        i.display(&syms).to_string(),
        "cp.async.cg.shared::cta.global.L2::256B [sm+16], [%rd1+32], 16, %r2;"
    );
}

/// `check_target` refuses a form exactly where ptxas refuses it for the
/// target or `.version` (sm_80 and PTX 7.0; `.L2::` 7.4; ignore-src 7.5;
/// `mbarrier` sm_80 and 7.0, `.parity` and the sink `_` 7.1,
/// `.shared::cta` 7.8, orders 8.0, `try_wait` and a count without
/// `.noComplete` sm_90 and 7.8; the bulk copies, their group statements,
/// the transaction count and `.shared::cluster` sm_90 and 8.0).
#[test]
fn gates_agree_with_ptxas() {
    assert_eq!(grid::gates_agree(GRID), 190);
}

/// Each lowering key names one machine-code sequence: every form ptxas
/// 13.0.88 assembled for sm_90 (`async-sass.txt`: `LDGSTS` with its size,
/// `.BYPASS` for `.cg`, `.LTC128B` for the prefetch, `.ZFILL`; `LDGDEPBAR`;
/// `DEPBAR.LE SB0, N`) maps by its key to the same opcodes, `.L2::`'s
/// cache modifier aside (a hint to the L2, not an instruction).
#[test]
fn lowering_keys_name_the_machine_code() {
    let mut by_key: BTreeMap<String, (String, &str)> = BTreeMap::new();
    let mut n = 0;
    for l in SASS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (text, sass) = l.split_once('\t').expect("TEXT<tab>SASS");
        let (i, _) = parse(text);
        let key = db::lowering_key(&i);
        // Opcodes with their modifiers, prefetch hints left out.
        let ops: Vec<String> = sass
            .split(" ; ")
            .map(|x| {
                let mut w = x.split_whitespace();
                let first = w.next().unwrap_or("");
                // `@!PT LDS RZ, [RZ]`: the opcode after a predicate.
                let op = if first.starts_with('@') {
                    w.next().unwrap_or("")
                } else {
                    first
                };
                op.replace(".LTC64B", "")
                    .replace(".LTC128B", "")
                    .replace(".LTC256B", "")
            })
            .collect();
        let ops = ops.join(" ");
        if let Some((seen, at)) = by_key.get(&key) {
            assert_eq!(seen, &ops, "{key}: `{at}` and `{text}` differ");
        }
        by_key.insert(key, (ops, text));
        n += 1;
    }
    assert_eq!(n, 54);
    for (key, ops) in [
        ("async.cp.cg.16", "LDS LDS LDS LDGSTS.E.BYPASS.128"),
        ("async.wait_all", "LDGDEPBAR DEPBAR.LE"),
        (
            "async.cp.ca.8.zfill.reg",
            "IADD3 LOP3.LUT IADD3 IMAD.X LDS LDS LDS LDGSTS.E.64.ZFILL",
        ),
        (
            "async.mbarrier.try_wait.parity",
            "SHF.L.U32 SYNCS.PHASECHK.TRANS64.TRYWAIT SEL STG.E",
        ),
        (
            "async.mbarrier.arrive.count",
            "SYNCS.ARRIVE.TRANS64.ART0 STG.E.64",
        ),
        // The bulk copies (TMA 1D): `UBLKCP` after an `ELECT` of one lane.
        (
            "async.bulk.g2s",
            "PLOP3.LUT UMOV ELECT UBLKCP.S.G PLOP3.LUT PLOP3.LUT BRA.U.ANY",
        ),
        (
            "async.bulk.s2g.reg",
            "USHF.R.U32.HI MOV UPRMT UBLKCP.G.S NOP",
        ),
        ("async.bulk.commit_group", "UTMACMDFLUSH"),
        ("async.bulk.wait_group", "DEPBAR.LE CCTL.IVALL"),
        ("async.mbarrier.expect_tx", "SYNCS.ARRIVE.TRANS64.RED.A0TR"),
        (
            "async.mbarrier.complete_tx",
            "SYNCS.ARRIVE.TRANS64.RED.A0TX",
        ),
    ] {
        assert_eq!(by_key.get(key).map(|v| v.0.as_str()), Some(ops), "{key}");
    }
    assert_eq!(by_key.len(), 39, "{:?}", by_key.keys());
}

/// What the database says each form does: a copy is a global load that
/// needs a launch, writes the warp's token register and is a fence; the
/// waits read the token; none is a barrier.
#[test]
fn effects() {
    let (copy, syms) = parse("cp.async.ca.shared.global [%r1], [%rd1], 16, %r2;");
    let token = syms.get(sim_isa::ASYNC_TOKEN).unwrap();
    assert_eq!(
        db::memory(&copy),
        Some(db::MemAccess {
            kind: db::MemKind::Load,
            space: Space::Global
        })
    );
    assert!(db::needs_launch(&copy) && db::runs_with_memory(&copy));
    assert!(db::has_effect(&copy) && db::is_fence(&copy) && db::barrier(&copy).is_none());
    let writes: Vec<RegId> = copy.reg_uses().writes().map(|u| u.reg).collect();
    assert_eq!(writes, [token]);
    for t in [
        "cp.async.wait_group 1",
        "cp.async.wait_all",
        "cp.async.commit_group",
    ] {
        let mut s = syms.clone();
        let i = parse_instruction(t, &mut s).unwrap();
        assert!(!db::needs_launch(&i) && db::memory(&i).is_none(), "{t}");
        assert!(db::has_effect(&i) && db::is_fence(&i), "{t}");
        let reads: Vec<RegId> = i.reg_uses().reads().map(|u| u.reg).collect();
        let want: &[RegId] = if t.contains("commit") { &[] } else { &[token] };
        assert_eq!(reads, want, "{t}");
        assert_eq!(i.reg_uses().writes().count(), 0, "{t}");
    }
}

/// A flat memory: global bytes at 0.., shared bytes at 0.. of their own
/// (the variable `sm` at shared 0x100).
pub(crate) struct Flat {
    pub(crate) global: Vec<u8>,
    pub(crate) shared: Vec<u8>,
}

impl Flat {
    fn bytes(&mut self, space: Space, addr: u64, n: u32) -> Result<&mut [u8], FaultKind> {
        let b = match space {
            Space::Global => &mut self.global,
            Space::Shared => &mut self.shared,
            _ => return Err(FaultKind::ReadOnly),
        };
        b.get_mut(addr as usize..addr as usize + n as usize)
            .ok_or(FaultKind::OutOfBounds)
    }
}

crate::bytes::byte_memory!(Flat, 0x100);

/// Runs `text` with `%r1` = lane * `cp-size` (shared), `%rd1` = 0x40 +
/// lane * `cp-size` (global), `%r2` = `src` per lane, `%p1` = lanes of
/// `p`; shared starts as 0xee everywhere, global byte `k` is `k`.
fn copy(text: &str, size: u64, src: impl Fn(u64) -> u64, p: u32) -> Result<Vec<u8>, FaultKind> {
    let (i, syms) = parse(text);
    let mut regs = WarpRegs::new(syms.len());
    for l in 0..32u64 {
        let set = |regs: &mut WarpRegs, name: &str, v: u64| {
            if let Some(r) = syms.get(name) {
                regs.set_lane(r, l as usize, v);
            }
        };
        set(&mut regs, "%r1", l * size);
        set(&mut regs, "%rd1", 0x40 + l * size);
        set(&mut regs, "%r2", src(l));
        set(&mut regs, "%p1", u64::from(p >> l & 1));
    }
    let mut mem = Flat {
        global: (0..1024u32).map(|k| k as u8).collect(),
        shared: vec![0xee; 1024],
    };
    let ctx = ExecCtx::new(Target::SM_90, 0);
    let acc = execute_mem(&i, &ctx, &mut regs, u32::MAX, &mut mem).map_err(|f| f.kind)?;
    let acc = acc.expect("a copy accesses memory");
    assert_eq!(
        (acc.space, acc.bytes, acc.lanes),
        (Space::Global, size as u32, u32::MAX)
    );
    assert_eq!(acc.addrs[3], 0x40 + 3 * size);
    Ok(mem.shared)
}

/// Bytes copied, bytes past `src-size` zero (the manual: "the remaining
/// bytes ... are filled with zeros"), none where `ignore-src` holds, and
/// misaligned addresses refused.
#[test]
fn copies_and_zero_fills() {
    // Full 16-byte copies: shared byte k of lane l is global byte 0x40 + k.
    let s = copy("cp.async.cg.shared.global [%r1], [%rd1], 16;", 16, |_| 0, 0).unwrap();
    assert_eq!(
        &s[..512],
        &(0x40..0x240u32).map(|k| k as u8).collect::<Vec<_>>()[..]
    );
    assert_eq!(s[512], 0xee);
    // src-size = lane % 17: the first lane % 17 bytes, then zeros.
    let s = copy(
        "cp.async.ca.shared.global [%r1], [%rd1], 16, %r2;",
        16,
        |l| l % 17,
        0,
    )
    .unwrap();
    for l in 0..32usize {
        for k in 0..16usize {
            let want = if k < l % 17 {
                (0x40 + 16 * l + k) as u8
            } else {
                0
            };
            assert_eq!(s[16 * l + k], want, "lane {l} byte {k}");
        }
    }
    // An immediate src-size of 3 on a 4-byte copy.
    let s = copy(
        "cp.async.ca.shared.global [%r1], [%rd1], 4, 3;",
        4,
        |_| 0,
        0,
    )
    .unwrap();
    assert_eq!(&s[8..12], &[0x48, 0x49, 0x4a, 0]);
    // ignore-src on the odd lanes: zeros there.
    let s = copy(
        "cp.async.ca.shared.global [%r1], [%rd1], 8, %p1;",
        8,
        |_| 0,
        0xaaaa_aaaa,
    )
    .unwrap();
    assert_eq!(&s[0..8], &[0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47]);
    assert_eq!(&s[8..16], &[0; 8]);
    // A shared variable as the destination: every lane writes its bytes
    // there (the last lane's stay).
    let s = copy("cp.async.ca.shared.global [sm+16], [%rd1], 4;", 4, |_| 0, 0).unwrap();
    assert_eq!(&s[0x110..0x114], &[0xbc, 0xbd, 0xbe, 0xbf]);
    // A destination that is not a multiple of cp-size.
    let e = copy(
        "cp.async.ca.shared.global [%r1+4], [%rd1], 16;",
        16,
        |_| 0,
        0,
    );
    assert_eq!(e, Err(FaultKind::Misaligned));
}

/// `mbarrier` on one lane against a hand-computed object (the layout the
/// module doc of `exec/mbarrier.rs` reads off ptxas's machine code; the
/// behaviour the PTX manual's "mbarrier" section defines: a phase
/// completes when its pending count reaches zero, the count then restarts
/// from the expected count, which `arrive_drop` lowers).
#[test]
fn mbarrier_vectors() {
    use sim_isa::exec::{mbar_arrive, mbar_init, mbar_pending, mbar_phase_done};
    // init(3): 2^20 - 3 = 0xffffd in bits 43.. and 1..
    let o = mbar_init(3);
    assert_eq!(o, 0xffffd << 43 | 0xffffd << 1);
    assert_eq!(o, 0x7fff_e800_001f_fffa);
    assert_eq!(mbar_pending(o), 3);
    let s1 = o;
    let o = mbar_arrive(o, 1, false);
    assert_eq!((mbar_pending(o), o >> 63), (2, 0));
    assert!(!mbar_phase_done(o, s1));
    let o = mbar_arrive(o, 2, false);
    // Phase 0 done: parity 1, pending back to 3.
    assert_eq!((mbar_pending(o), o >> 63), (3, 1));
    assert_eq!(o, 0xffffd << 43 | 1 << 63 | 0xffffd << 1);
    assert!(mbar_phase_done(o, s1));
    // arrive_drop: this phase needs 3, the next only 2.
    let o = mbar_arrive(o, 1, true);
    assert_eq!(mbar_pending(o), 2);
    let o = mbar_arrive(mbar_arrive(o, 1, false), 1, false);
    assert_eq!((mbar_pending(o), o >> 63), (2, 0));
    // The largest count.
    assert_eq!(mbar_pending(mbar_init((1 << 20) - 1)), (1 << 20) - 1);
}

/// The statements on a warp against the flat memory: every lane arrives
/// (32 arrivals on an object expecting 64 leave 32 pending), each lane's
/// state is the object as it found it, `pending_count` reads those, and
/// the waits see the phase complete only after the second 32.
#[test]
fn mbarrier_statements_on_a_warp() {
    let mut syms = Symbols::new();
    let mut parse = |t: &str| parse_instruction(t, &mut syms).unwrap();
    let init = parse("mbarrier.init.shared.b64 [sm], 64;");
    let arrive = parse("mbarrier.arrive.shared.b64 %rd2, [sm];");
    let count = parse("mbarrier.pending_count.b64 %r3, %rd2;");
    let wait = parse("mbarrier.test_wait.shared.b64 %p1, [sm], %rd2;");
    let parity = parse("mbarrier.try_wait.parity.shared.b64 %p2, [sm], 0;");
    let drop = parse("mbarrier.arrive_drop.noComplete.shared.b64 _, [sm], 1;");
    let mut regs = WarpRegs::new(syms.len());
    let mut mem = Flat {
        global: vec![0; 64],
        shared: vec![0; 512],
    };
    let ctx = ExecCtx::new(Target::SM_90, 0);
    let run = |i: &Instruction, regs: &mut WarpRegs, mem: &mut Flat| {
        execute_mem(i, &ctx, regs, u32::MAX, mem).unwrap();
        sim_isa::execute(i, &ctx, regs, u32::MAX);
    };
    let word = |m: &Flat| u64::from_le_bytes(m.shared[0x100..0x108].try_into().unwrap());
    run(&init, &mut regs, &mut mem);
    assert_eq!(word(&mem), (0x100000 - 64) << 43 | (0x100000 - 64) << 1);
    run(&arrive, &mut regs, &mut mem);
    run(&count, &mut regs, &mut mem);
    let (rd2, r3) = (syms.get("%rd2").unwrap(), syms.get("%r3").unwrap());
    for l in 0..32 {
        assert_eq!(regs.lane(r3, l), 64 - l as u64, "lane {l}");
        assert_eq!(regs.lane(rd2, l) >> 63, 0);
    }
    let (p1, p2) = (syms.get("%p1").unwrap(), syms.get("%p2").unwrap());
    run(&wait, &mut regs, &mut mem);
    run(&parity, &mut regs, &mut mem);
    assert_eq!((regs.lane(p1, 5), regs.lane(p2, 5)), (0, 0));
    run(&arrive, &mut regs, &mut mem);
    // The second warp of arrivals completed phase 0 (lane 31's): the
    // object restarted at 64 pending, parity 1.
    assert_eq!(
        word(&mem),
        1 << 63 | (0x100000 - 64) << 43 | (0x100000 - 64) << 1
    );
    run(&wait, &mut regs, &mut mem);
    run(&parity, &mut regs, &mut mem);
    // Lanes 0-30 hold states of phase 0, which has completed; so does 31.
    assert_eq!((regs.lane(p1, 31), regs.lane(p2, 0)), (1, 1));
    run(&drop, &mut regs, &mut mem);
    assert_eq!(mbar_pending_of(word(&mem)), 32);
    assert_eq!(word(&mem) >> 1 & 0xfffff, 0x100000 - 32);
}

fn mbar_pending_of(o: u64) -> u64 {
    sim_isa::exec::mbar_pending(o)
}
