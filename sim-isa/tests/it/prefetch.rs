//! `prefetch{.space}.level [a]` and `prefetchu.L1 [a]`: ptxas's verdicts
//! per target and PTX version, what the database says of them, and a run
//! that asks no memory (a hint, which faults nowhere).

use crate::grid;
use sim_isa::exec::{execute_mem, Access, FaultKind, Memory};
use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::*;

const GRID: &str = include_str!("../data/prefetch-ptxas.txt");

/// Each line of `tests/data/prefetch-ptxas.txt` (made by
/// `tools/ptxas_grid/prefetch_grid.py`: ptxas 11.8 on sm_70, 13.0.88 on
/// sm_75, sm_80, sm_90) against the parser and `check_target`, the
/// `.version` gate on the lowest accepting target: the eviction priorities'
/// 7.4 on sm_80, refused at 7.3 (6.0 is sm_70's lowest: nothing below it is
/// asked), and `.tensormap`'s 8.0 on sm_90 (7.8 not asked).
#[test]
fn agrees_with_ptxas_per_target() {
    let below = |v: &str, _: usize, _: &[&str]| match v {
        "6.0" | "8.0" => None,
        "7.4" => PtxVersion::parse("7.3"),
        _ => panic!("no version below {v} in the grid"),
    };
    let targets = ["sm_70", "sm_75", "sm_80", "sm_90"];
    let (n, accepted, wrong) = grid::check_targets_below(GRID, &targets, &below);
    // 6 spaces x 7 level words, prefetchu's 4, .tensormap's 3, 10 address
    // forms: ptxas takes the manual's `prefetch` forms (no space and
    // `.global` at 4 levels, `.local` at 2), `prefetchu.L1`, `.tensormap`
    // on sm_90 (3) and 5 address forms.
    assert_eq!((n, accepted), (59, 19));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// ptxas's words for the rules the grid's comments quote.
#[test]
fn messages_are_ptxas_words() {
    grid::messages_are_ptxas(
        GRID,
        &[
            ("prefetch.global.L3 [%rd1];", "Unknown modifier '.L3'"),
            (
                "prefetchu.L2 [%rd1];",
                "Illegal modifier '.L2' for instruction 'prefetchu'",
            ),
        ],
    );
}

/// The gates: every form from sm_20 and PTX 2.0 (the PTX ISA's notes; the
/// oldest ptxas here, 11.8, knows nothing below sm_50 and PTX 6.0), the
/// eviction priorities from sm_80 and PTX 7.4.
#[test]
fn gates() {
    let t = |s: &str| Target::parse(s).unwrap();
    let v = |s: &str| PtxVersion::parse(s);
    let plain = parse_instruction("prefetch.global.L2 [%rd1];", &mut Symbols::new()).unwrap();
    assert!(check_target(&plain, t("sm_20"), v("2.0")).is_ok());
    for text in [
        "prefetch.global.L2::evict_last [%rd1];",
        "prefetch.L2::evict_normal [%rd1];",
    ] {
        let i = parse_instruction(text, &mut Symbols::new()).unwrap();
        assert!(check_target(&i, t("sm_80"), v("7.4")).is_ok(), "{text}");
        assert!(check_target(&i, t("sm_80"), v("7.3")).is_err(), "{text}");
        assert!(check_target(&i, t("sm_75"), None).is_err(), "{text}");
    }
}

/// What the database says: a memory instruction of the load path (the
/// LSU issues it), kept (ptxas keeps it), a launch's, keyed by its level,
/// printed as written.
#[test]
fn facts() {
    for (text, key) in [
        ("prefetch.global.L2 [%rd1+8];", "mem.prefetch.global.L2"),
        ("prefetch.global.L1 [%rd1];", "mem.prefetch.global.L1"),
        ("prefetch.local.L1 [%r1];", "mem.prefetch.local.L1"),
        ("prefetch.L2 [%rd1];", "mem.prefetch.generic.L2"),
        (
            "prefetch.global.L2::evict_last [%rd1];",
            "mem.prefetch.global.L2::evict_last",
        ),
        (
            "prefetch.L2::evict_normal [%rd1];",
            "mem.prefetch.generic.L2::evict_normal",
        ),
        ("prefetchu.L1 [%rd1+4];", "mem.prefetchu.generic.L1"),
    ] {
        let mut syms = Symbols::new();
        let i = parse_instruction(text, &mut syms).unwrap();
        assert_eq!(i.display(&syms).to_string(), text);
        assert_eq!(db::lowering_key(&i), key, "{text}");
        assert_eq!(db::mnemonic(&i), &key[4..key[4..].find('.').unwrap() + 4]);
        let m = db::memory(&i).unwrap();
        assert_eq!(m.kind, db::MemKind::Load, "{text}");
        assert!(db::has_effect(&i) && db::needs_launch(&i), "{text}");
        assert!(!db::is_warp_wide(&i) && db::barrier(&i).is_none(), "{text}");
        // The address is read; nothing is written.
        let u = i.reg_uses();
        assert_eq!(u.writes().count(), 0, "{text}");
        assert_eq!(u.reads().count(), 1, "{text}");
    }
}

/// A memory that refuses every access: a prefetch asks it nothing.
struct Refuses;

impl Memory for Refuses {
    fn load(&mut self, _: Access) -> Result<u64, FaultKind> {
        Err(FaultKind::OutOfBounds)
    }
    fn store(&mut self, _: Access, _: u64) -> Result<(), FaultKind> {
        Err(FaultKind::OutOfBounds)
    }
    fn var(&self, _: u32) -> Result<(Space, u64), FaultKind> {
        Err(FaultKind::OutOfBounds)
    }
    fn to_generic(&self, _: Space, a: u64) -> u64 {
        a
    }
    fn generic_to_space(&self, _: Space, a: u64) -> u64 {
        a
    }
}

/// Addresses outside any allocation (a memory that refuses everything):
/// no fault, no register changes, and the lanes' addresses as the
/// accesses a timing model sees.
#[test]
fn runs_without_asking_memory() {
    let mut syms = Symbols::new();
    let i = parse_instruction("prefetch.global.L2 [%rd1+64];", &mut syms).unwrap();
    let rd1 = syms.get("%rd1").unwrap();
    let mut regs = WarpRegs::new(syms.len());
    for l in 0..WARP_SIZE {
        regs.set_lane(rd1, l, 0xdead_0000_0000 + 4096 * l as u64);
    }
    let before = regs.clone();
    let ctx = ExecCtx::new(Target::SM_90, 0);
    let acc = execute_mem(&i, &ctx, &mut regs, 0x0000_ff0f, &mut Refuses)
        .unwrap()
        .unwrap();
    assert_eq!(regs, before);
    assert_eq!(
        (acc.lanes, acc.bytes, acc.space),
        (0xff0f, 1, Space::Global)
    );
    assert_eq!(acc.addrs[0], 0xdead_0000_0040);
    assert_eq!(acc.addrs[15], 0xdead_0000_0040 + 15 * 4096);
    assert_eq!(acc.addrs[4], 0);
}
