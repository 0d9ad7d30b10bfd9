//! Hopper's bulk copies (`cp.async.bulk`, TMA 1D) and the `mbarrier`
//! transaction count (`expect_tx`, `complete_tx`, `arrive.expect_tx`):
//! the object's vectors computed by hand from the PTX manual's definition
//! ("a phase completes when the pending arrival count and the tx-count
//! both reach zero"), the copies' bytes and faults on a hand-made memory,
//! and what the database says they do. The grid and the gates are
//! `async_copy.rs`'s (one grid for the family); their values in a launch
//! are sim-kernel's (`tests/it/bulk_copy.rs`).

use crate::async_copy::Flat;
use sim_isa::db;
use sim_isa::exec::{
    execute_mem, mbar_arrive, mbar_expect, mbar_init, mbar_pending, mbar_tx, FaultKind,
};
use sim_isa::parse::parse_instruction;
use sim_isa::{ExecCtx, Instruction, RegId, Space, Symbols, Target, WarpRegs};

/// The object's transaction count against hand-computed values.
#[test]
fn transaction_count_vectors() {
    // init(2), expect 256 bytes: the count in bits 21.., nothing else moves.
    let o = mbar_expect(mbar_init(2), 256);
    assert_eq!(o, mbar_init(2) | 256 << 21);
    assert_eq!((mbar_tx(o), mbar_pending(o)), (256, 2));
    // Both arrivals: none pending, but 256 bytes are, so phase 0 holds
    // (parity 0) with a count field of 0.
    let o = mbar_arrive(mbar_arrive(o, 1, false), 1, false);
    assert_eq!(o >> 63, 0);
    assert_eq!(o >> 43 & 0xfffff, 0);
    // 192 bytes land, then 64: the phase completes on the last.
    let o = mbar_expect(o, -192);
    assert_eq!((mbar_tx(o), o >> 63), (64, 0));
    let o = mbar_expect(o, -64);
    assert_eq!(o, mbar_init(2) | 1 << 63);
    // A copy landing before its expect_tx (libcu++'s order): the count
    // goes negative, an arrival alone does not complete, the expect does.
    let o = mbar_expect(mbar_init(1), -1024);
    assert_eq!(mbar_tx(o), -1024);
    assert_eq!(o >> 21 & 0x3f_ffff, (1 << 22) - 1024);
    let early = mbar_arrive(o, 1, false);
    assert_eq!(early >> 63, 0);
    assert_eq!(mbar_expect(early, 1024), mbar_init(1) | 1 << 63);
    // The other order: expect, then arrive (arrive.expect_tx), then copy.
    let o = mbar_arrive(mbar_expect(mbar_init(1), 1024), 1, false);
    assert_eq!((o >> 63, mbar_tx(o)), (0, 1024));
    assert_eq!(mbar_expect(o, -1024), mbar_init(1) | 1 << 63);
}

fn parse(t: &str, syms: &mut Symbols) -> Instruction {
    parse_instruction(t, syms).unwrap_or_else(|e| panic!("{t}: {e}"))
}

/// A warp's registers: `%r1` = 0x20 (shared), `%rd1` = `src` (global),
/// `%r2` = `size`.
fn regs(syms: &Symbols, src: u64, size: u64) -> WarpRegs {
    let mut regs = WarpRegs::new(syms.len());
    for (name, v) in [("%r1", 0x20), ("%rd1", src), ("%r2", size)] {
        if let Some(r) = syms.get(name) {
            for l in 0..32 {
                regs.set_lane(r, l, v);
            }
        }
    }
    regs
}

/// Global byte `k` is `k`; shared is 0xee but the object at `sm` (0x100):
/// one arrival expected and made, `tx` bytes expected.
fn memory(tx: i64) -> Flat {
    let mut shared = vec![0xee; 512];
    let o = mbar_expect(mbar_arrive(mbar_init(2), 1, false), tx);
    shared[0x100..0x108].copy_from_slice(&o.to_le_bytes());
    Flat {
        global: (0..1024u32).map(|k| k as u8).collect(),
        shared,
    }
}

fn object(m: &Flat) -> u64 {
    u64::from_le_bytes(m.shared[0x100..0x108].try_into().unwrap())
}

/// A copy to shared memory by lane 0: `size` bytes from global, then the
/// barrier's count falls by them; the access timing sees is the global
/// source, `size` bytes. Misaligned sizes and addresses fault.
#[test]
fn a_copy_to_shared_memory_completes_its_bytes() {
    let text = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes \
                [%r1], [%rd1], %r2, [sm];";
    let mut syms = Symbols::new();
    let i = parse(text, &mut syms);
    let ctx = ExecCtx::new(Target::SM_90, 0);
    let mut mem = memory(64);
    let mut r = regs(&syms, 0x40, 64);
    let acc = execute_mem(&i, &ctx, &mut r, 1, &mut mem).unwrap().unwrap();
    assert_eq!((acc.space, acc.bytes, acc.lanes), (Space::Global, 64, 1));
    assert_eq!(acc.addrs[0], 0x40);
    let want: Vec<u8> = (0x40..0x80).collect();
    assert_eq!(&mem.shared[0x20..0x60], &want[..]);
    assert_eq!((mem.shared[0x1f], mem.shared[0x60]), (0xee, 0xee));
    // 64 bytes landed on a phase with one arrival pending: not complete.
    assert_eq!((mbar_tx(object(&mem)), object(&mem) >> 63), (0, 0));
    assert_eq!(mbar_pending(object(&mem)), 1);
    // A phase whose arrivals are in completes on the copy.
    let mut mem = memory(64);
    let o = mbar_arrive(object(&mem), 1, false);
    mem.shared[0x100..0x108].copy_from_slice(&o.to_le_bytes());
    execute_mem(&i, &ctx, &mut r, 1, &mut mem).unwrap();
    assert_eq!(object(&mem), mbar_init(2) | 1 << 63);
    // 24 bytes: no multiple of 16; a source 8 bytes off.
    let e = execute_mem(&i, &ctx, &mut regs(&syms, 0x40, 24), 1, &mut memory(0));
    assert_eq!(e.unwrap_err().kind, FaultKind::BulkSize);
    let e = execute_mem(&i, &ctx, &mut regs(&syms, 0x48, 32), 1, &mut memory(0));
    let e = e.unwrap_err();
    assert_eq!(
        (e.kind, e.space, e.addr),
        (FaultKind::Misaligned, Space::Global, 0x48)
    );
}

/// A store to global memory: shared bytes to global, no barrier; the
/// access is the global destination. Shared to shared: the barrier's too.
#[test]
fn a_store_and_a_shared_copy() {
    let ctx = ExecCtx::new(Target::SM_90, 0);
    let mut syms = Symbols::new();
    let st = parse(
        "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 32;",
        &mut syms,
    );
    let mut mem = memory(0);
    for k in 0..32 {
        mem.shared[0x20 + k] = k as u8 ^ 0x5a;
    }
    let acc = execute_mem(&st, &ctx, &mut regs(&syms, 0x80, 0), 1, &mut mem);
    let acc = acc.unwrap().unwrap();
    assert_eq!(
        (acc.space, acc.bytes, acc.addrs[0]),
        (Space::Global, 32, 0x80)
    );
    let want: Vec<u8> = (0..32u8).map(|k| k ^ 0x5a).collect();
    assert_eq!(&mem.global[0x80..0xa0], &want[..]);
    assert_eq!((mem.global[0x7f], mem.global[0xa0]), (0x7f, 0xa0));
    let s2s = parse(
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes \
         [%r1+128], [%r1], 16, [sm];",
        &mut syms,
    );
    let acc = execute_mem(&s2s, &ctx, &mut regs(&syms, 0, 0), 1, &mut mem);
    let acc = acc.unwrap().unwrap();
    assert_eq!(
        (acc.space, acc.bytes, acc.addrs[0]),
        (Space::Shared, 16, 0x20)
    );
    assert_eq!(&mem.shared[0xa0..0xb0], &want[..16]);
    assert_eq!(mbar_tx(object(&mem)), -16);
}

/// What the database says: the copies write the warp's token and need a
/// launch, a load of their source (a store to global memory for the
/// store); `wait_group` reads the token, `commit_group` nothing; the
/// transaction statements are atomics on their object.
#[test]
fn effects() {
    let mut syms = Symbols::new();
    let mut p = |t: &str| parse(t, &mut syms);
    let g2s = p("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3];");
    let s2g = p("cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], %r2;");
    let wait = p("cp.async.bulk.wait_group.read 0;");
    let commit = p("cp.async.bulk.commit_group;");
    let expect = p("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], %r2;");
    let token = syms.get(sim_isa::ASYNC_TOKEN).unwrap();
    let access = |i: &Instruction| db::memory(i).map(|m| (m.kind, m.space));
    assert_eq!(access(&g2s), Some((db::MemKind::Load, Space::Global)));
    assert_eq!(access(&s2g), Some((db::MemKind::Store, Space::Global)));
    assert_eq!(access(&expect), Some((db::MemKind::Atomic, Space::Shared)));
    assert_eq!((access(&wait), access(&commit)), (None, None));
    for i in [&g2s, &s2g] {
        assert!(db::needs_launch(i) && db::is_fence(i) && db::has_effect(i));
        let writes: Vec<RegId> = i.reg_uses().writes().map(|u| u.reg).collect();
        assert_eq!(writes, [token]);
    }
    let reads = |i: &Instruction| -> Vec<RegId> { i.reg_uses().reads().map(|u| u.reg).collect() };
    let r = |n: &str| syms.get(n).unwrap();
    // The destination, the barrier, the size, the source.
    assert_eq!(reads(&g2s), [r("%r1"), r("%r3"), r("%r2"), r("%rd1")]);
    assert_eq!(reads(&wait), [token]);
    assert!(reads(&commit).is_empty() && !db::needs_launch(&wait));
    assert!(db::is_fence(&wait) && db::is_fence(&commit));
}
