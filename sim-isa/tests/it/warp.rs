//! The warp collectives and block reductions (`bar.warp.sync`, `redux.sync`,
//! `match.sync`, `bar.red`, `nanosleep`, `elect.sync`): the parser and the
//! gates against ptxas's verdicts (`tests/data/warp-ptxas.txt`, made by
//! `tools/ptxas_grid/warp_grid.py`), printing, and the lane semantics on
//! hand-made warps. Their values in launches, against a reference, are
//! sim-kernel's (`tests/it/warp_coll.rs`).

use crate::grid;
use sim_isa::db;
use sim_isa::exec::{bar_red_deliver, bar_red_share, BarRedShare};
use sim_isa::parse::parse_instruction;
use sim_isa::{execute, ErrorKind, ExecCtx, Instruction, Op, Symbols, Target, WarpRegs};

const GRID: &str = include_str!("../data/warp-ptxas.txt");

/// The parser accepts what ptxas 13.0 accepts, calls `Invalid` what it
/// rejects, and leaves target-only refusals (`redux.f32`, sm_100a's) as
/// valid PTX it does not run.
#[test]
fn agrees_with_ptxas_on_the_grid() {
    let (counts, wrong) = grid::verdicts(GRID, &|_| false);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(counts, [77, 69, 2]);
}

/// Every accepted statement prints as text that parses back to itself.
#[test]
fn accepted_statements_print_and_reparse() {
    let wrong = grid::reparse_failures(GRID, &|_| false);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `check_target` refuses a form exactly where ptxas (13.0.88 from sm_75,
/// 11.8 below) refuses it for the target or `.version`.
#[test]
fn gates_agree_with_ptxas() {
    assert_eq!(grid::gates_agree(GRID), 34);
}

/// What each form does to the machine, as the database says.
#[test]
fn effects() {
    let p = |t: &str| parse_instruction(t, &mut Symbols::new()).unwrap();
    let red = p("bar.red.popc.u32 %r1, 0, %p1");
    assert_eq!(db::barrier(&red), Some(db::BarrierKind::Sync));
    assert_eq!(db::barrier_reduction(&red), Some(sim_isa::BarRedOp::Popc));
    assert!(db::needs_launch(&red) && db::is_fence(&red) && db::has_effect(&red));
    for t in [
        "bar.warp.sync -1",
        "redux.sync.add.u32 %r1, %r2, -1",
        "match.any.sync.b64 %r1, %rd2, -1",
        "nanosleep.u32 %r1",
        "elect.sync _|%p1, -1",
    ] {
        let i = p(t);
        assert!(db::barrier(&i).is_none() && !db::needs_launch(&i), "{t}");
        assert!(
            db::is_warp_wide(&i) && db::is_fence(&i) && db::has_effect(&i),
            "{t}"
        );
    }
    // `match.b64` reads its source at 64 bits; `bar.red.and` writes a predicate.
    let m = p("match.all.sync.b64 %r1|%p1, %rd2, -1");
    let widths: Vec<_> = m.reg_uses().iter().map(|u| u.bits).collect();
    assert!(widths.contains(&64), "{widths:?}");
    let and = p("bar.red.and.pred %p2, 0, !%p1");
    assert_eq!(
        and.reg_uses().writes().map(|u| u.bits).collect::<Vec<_>>(),
        [1]
    );
}

/// Runs `text` over a warp whose registers `%r2` (or `%rd2`) hold `a` per
/// lane and `%p1` holds `p`, with `exec` lanes active; returns the warp.
fn run(text: &str, a: &[u64; 32], p: u32, exec: u32) -> (WarpRegs, Symbols) {
    let mut syms = Symbols::new();
    let inst: Instruction = parse_instruction(text, &mut syms).unwrap();
    let mut regs = WarpRegs::new(syms.len());
    for (name, v) in [("%r2", a), ("%rd2", a)] {
        if let Some(r) = syms.get(name) {
            *regs.get_mut(r) = *v;
        }
    }
    if let Some(r) = syms.get("%p1") {
        for l in 0..32 {
            regs.set_lane(r, l, u64::from(p >> l & 1));
        }
    }
    execute(&inst, &ExecCtx::new(Target::SM_90, 0), &mut regs, exec);
    (regs, syms)
}

fn reg(regs: &WarpRegs, syms: &Symbols, name: &str) -> [u64; 32] {
    *regs.get(syms.get(name).unwrap())
}

/// `redux.sync` over the lanes both active and in the mask, by hand.
#[test]
fn redux_over_partial_masks() {
    let mut a = [0u64; 32];
    for (l, v) in a.iter_mut().enumerate() {
        *v = u64::from((l as u32).wrapping_mul(0x9E37_79B9) ^ (0x8000_0000 * (l as u32 & 1)));
    }
    let exec = 0xF0F0_F0F3;
    let mask = 0x0FFF_FF0F_u32;
    let members = exec & mask;
    let vals: Vec<u32> = (0..32)
        .filter(|l| members >> l & 1 == 1)
        .map(|l| a[l] as u32)
        .collect();
    let cases: [(&str, u32); 8] = [
        ("add.u32", vals.iter().fold(0u32, |s, &v| s.wrapping_add(v))),
        ("min.u32", *vals.iter().min().unwrap()),
        ("max.u32", *vals.iter().max().unwrap()),
        (
            "min.s32",
            vals.iter().map(|&v| v as i32).min().unwrap() as u32,
        ),
        (
            "max.s32",
            vals.iter().map(|&v| v as i32).max().unwrap() as u32,
        ),
        ("and.b32", vals.iter().fold(!0, |s, &v| s & v)),
        ("or.b32", vals.iter().fold(0, |s, &v| s | v)),
        ("xor.b32", vals.iter().fold(0, |s, &v| s ^ v)),
    ];
    for (form, want) in cases {
        let text = format!("redux.sync.{form} %r1, %r2, {mask}");
        let (regs, syms) = run(&text, &a, 0, exec);
        let d = reg(&regs, &syms, "%r1");
        for (l, &got) in d.iter().enumerate() {
            let w = if exec >> l & 1 == 1 {
                u64::from(want)
            } else {
                0
            };
            assert_eq!(got, w, "{text} lane {l}");
        }
    }
}

/// `match.any` groups lanes by value; `match.all` is the member mask and
/// true only when every member holds one value (64-bit values compared
/// whole: lanes differing only in the high word do not match).
#[test]
fn match_any_and_all() {
    let mut a = [0u64; 32];
    for (l, v) in a.iter_mut().enumerate() {
        *v = (l as u64 % 3) | ((l as u64 % 2) << 40);
    }
    let exec = 0x7FFF_FFFE;
    let (regs, syms) = run("match.any.sync.b64 %r1, %rd2, -1", &a, 0, exec);
    let d = reg(&regs, &syms, "%r1");
    for l in 1..31 {
        let want = (1..31)
            .filter(|&j| a[j] == a[l])
            .fold(0u64, |m, j| m | 1 << j);
        assert_eq!(d[l], want, "lane {l}");
    }
    // As .b32 the high word is not read: lanes group by l % 3.
    let (regs, syms) = run("match.any.sync.b32 %r1, %r2, -1", &a, 0, exec);
    let d = reg(&regs, &syms, "%r1");
    assert_eq!(
        d[1],
        (1..31).filter(|j| j % 3 == 1).fold(0, |m, j| m | 1 << j)
    );
    let (regs, syms) = run("match.all.sync.b32 %r1|%p2, %r2, 0x49", &a, 0, exec);
    // Members 0x49 & exec = lanes 3 and 6: both hold 0.
    assert_eq!(reg(&regs, &syms, "%r1")[3], 0x48);
    assert_eq!(reg(&regs, &syms, "%p2")[6], 1);
    let (regs, syms) = run("match.all.sync.b32 %r1|%p2, %r2, 0x4A", &a, 0, exec);
    assert_eq!(reg(&regs, &syms, "%r1")[3], 0);
    assert_eq!(reg(&regs, &syms, "%p2")[3], 0);
}

/// `elect.sync`: one leader among the members, its lane number to all.
#[test]
fn elect_names_one_leader() {
    let (regs, syms) = run("elect.sync %r1|%p2, 0xFFFF0000", &[0; 32], 0, 0x00F0_F0F0);
    let (d, p) = (reg(&regs, &syms, "%r1"), reg(&regs, &syms, "%p2"));
    assert_eq!(d[4], 20);
    assert_eq!((0..32).filter(|&l| p[l] == 1).collect::<Vec<_>>(), [20]);
}

/// `bar.red`'s shares add over a block; each result is the block's.
#[test]
fn bar_red_shares_and_results() {
    let mut syms = Symbols::new();
    let insts: Vec<Instruction> = [
        "bar.red.popc.u32 %r1, 0, %p1",
        "bar.red.and.pred %p2, 0, !%p1",
        "bar.red.or.pred %p3, 0, %p1",
    ]
    .iter()
    .map(|t| parse_instruction(t, &mut syms).unwrap())
    .collect();
    let mut regs = WarpRegs::new(syms.len());
    let p1 = syms.get("%p1").unwrap();
    let pred = 0x0000_00F1_u32;
    for l in 0..32 {
        regs.set_lane(p1, l, u64::from(pred >> l & 1));
    }
    let lanes = 0x0000_FFFF;
    let ws = |i: &Instruction| {
        let Op::Warp(w) = i.op else {
            panic!("not of the warp family")
        };
        w
    };
    let share = bar_red_share(&ws(&insts[0]), &regs, lanes);
    assert_eq!(
        share,
        BarRedShare {
            count: 5,
            threads: 16
        }
    );
    // Another warp brought 7 of 32.
    let other = BarRedShare {
        count: 7,
        threads: 32,
    };
    bar_red_deliver(&ws(&insts[0]), &mut regs, lanes, share.add(other));
    assert_eq!(regs.lane(syms.get("%r1").unwrap(), 3), 12);
    assert_eq!(
        regs.lane(syms.get("%r1").unwrap(), 20),
        0,
        "lane not arriving"
    );
    let neg = bar_red_share(&ws(&insts[1]), &regs, lanes);
    assert_eq!(
        neg,
        BarRedShare {
            count: 11,
            threads: 16
        }
    );
    bar_red_deliver(&ws(&insts[1]), &mut regs, lanes, neg);
    assert_eq!(regs.lane(syms.get("%p2").unwrap(), 0), 0);
    bar_red_deliver(
        &ws(&insts[1]),
        &mut regs,
        lanes,
        BarRedShare {
            count: 48,
            threads: 48,
        },
    );
    assert_eq!(regs.lane(syms.get("%p2").unwrap(), 0), 1);
    bar_red_deliver(
        &ws(&insts[2]),
        &mut regs,
        lanes,
        BarRedShare {
            count: 0,
            threads: 48,
        },
    );
    assert_eq!(regs.lane(syms.get("%p3").unwrap(), 0), 0);
}

/// Each lane reduces, matches and votes over the members its own mask
/// names: cooperative-groups tiles pass each tile its own mask.
#[test]
fn each_lane_uses_its_own_member_mask() {
    let mut syms = Symbols::new();
    let text = [
        "redux.sync.add.u32 %r1, %r2, %r3",
        "match.any.sync.b32 %r4, %r5, %r3",
        "vote.sync.ballot.b32 %r6, %p1, %r3",
        "elect.sync %r7|%p2, %r3",
    ];
    let insts: Vec<Instruction> = text
        .iter()
        .map(|t| parse_instruction(t, &mut syms).unwrap())
        .collect();
    let mut regs = WarpRegs::new(syms.len());
    let r = |n: &str| syms.get(n).unwrap();
    for l in 0..32u32 {
        let tile = 0xFFu64 << (l & !7);
        regs.set_lane(r("%r2"), l as usize, u64::from(l));
        regs.set_lane(r("%r3"), l as usize, tile);
        regs.set_lane(r("%r5"), l as usize, u64::from(l % 3));
        regs.set_lane(r("%p1"), l as usize, u64::from(l % 5 == 0));
    }
    let exec = 0xFFFF_FFEF; // lane 4 sits out
    for i in &insts {
        execute(i, &ExecCtx::new(Target::SM_90, 0), &mut regs, exec);
    }
    for l in (0..32u32).filter(|&l| exec >> l & 1 == 1) {
        let members = exec & (0xFFu32 << (l & !7));
        let lanes = || (0..32u32).filter(move |j| members >> j & 1 == 1);
        let lane = |n: &str| regs.lane(r(n), l as usize);
        assert_eq!(lane("%r1"), u64::from(lanes().sum::<u32>()), "lane {l}");
        let same = lanes()
            .filter(|j| j % 3 == l % 3)
            .fold(0, |m, j| m | 1 << j);
        assert_eq!(lane("%r4"), same, "lane {l}");
        let ballot = lanes().filter(|j| j % 5 == 0).fold(0, |m, j| m | 1 << j);
        assert_eq!(lane("%r6"), ballot, "lane {l}");
        assert_eq!(lane("%r7"), u64::from(members.trailing_zeros()), "lane {l}");
        assert_eq!(
            lane("%p2"),
            u64::from(members.trailing_zeros() == l),
            "lane {l}"
        );
    }
}

mod random {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Over random values, executing lanes and per-lane member masks
        /// (each lane's own, as a tile's), every `redux.sync` form and
        /// `match.any/all.sync` give each executing lane what a plain fold
        /// over its members gives; other lanes keep their registers.
        #[test]
        fn redux_and_match_fold_over_each_lanes_members(
            vals in proptest::array::uniform32(prop_oneof![0u32..4, any::<u32>()]),
            masks in proptest::array::uniform32(prop_oneof![Just(u32::MAX), any::<u32>()]),
            exec in prop_oneof![Just(u32::MAX), any::<u32>()],
        ) {
            let forms = ["add.u32", "min.u32", "max.u32", "min.s32", "max.s32", "and.b32", "or.b32", "xor.b32"];
            for form in forms {
                for text in [
                    format!("redux.sync.{form} %r1, %r2, %r3"),
                    "match.any.sync.b32 %r1, %r2, %r3".to_string(),
                    "match.all.sync.b32 %r1|%p1, %r2, %r3".to_string(),
                ] {
                    let mut syms = Symbols::new();
                    let inst = parse_instruction(&text, &mut syms).unwrap();
                    let mut regs = WarpRegs::new(syms.len());
                    let r = |n: &str| syms.get(n).unwrap();
                    for l in 0..32 {
                        regs.set_lane(r("%r1"), l, 0xDEAD);
                        regs.set_lane(r("%r2"), l, u64::from(vals[l]));
                        regs.set_lane(r("%r3"), l, u64::from(masks[l]));
                    }
                    execute(&inst, &ExecCtx::new(Target::SM_90, 0), &mut regs, exec);
                    for l in 0..32 {
                        let got = regs.lane(r("%r1"), l);
                        if exec >> l & 1 == 0 {
                            prop_assert_eq!(got, 0xDEAD);
                            continue;
                        }
                        let m = exec & masks[l];
                        let ms: Vec<u32> = (0..32).filter(|j| m >> j & 1 == 1).map(|j| vals[j as usize]).collect();
                        let want: u64 = if text.starts_with("match.any") {
                            (0..32).filter(|&j| m >> j & 1 == 1 && vals[j as usize] == vals[l]).fold(0, |a, j| a | 1 << j)
                        } else if text.starts_with("match.all") {
                            let uniform = !ms.is_empty() && ms.iter().all(|&v| v == ms[0]);
                            prop_assert_eq!(regs.lane(r("%p1"), l), u64::from(uniform));
                            if uniform { u64::from(m) } else { 0 }
                        } else {
                            let s = |v: u32| v as i32;
                            u64::from(match form {
                                "add.u32" => ms.iter().fold(0u32, |a, &v| a.wrapping_add(v)),
                                "min.u32" => ms.iter().copied().min().unwrap_or(u32::MAX),
                                "max.u32" => ms.iter().copied().max().unwrap_or(0),
                                "min.s32" => ms.iter().map(|&v| s(v)).min().unwrap_or(i32::MAX) as u32,
                                "max.s32" => ms.iter().map(|&v| s(v)).max().unwrap_or(i32::MIN) as u32,
                                "and.b32" => ms.iter().fold(u32::MAX, |a, &v| a & v),
                                "or.b32" => ms.iter().fold(0, |a, &v| a | v),
                                _ => ms.iter().fold(0, |a, &v| a ^ v),
                            })
                        };
                        prop_assert_eq!(got, want, "{} lane {}", text, l);
                    }
                }
            }
        }
    }
}

/// `vote` with its mode before `.sync` (`vote.ballot.sync.b32`, as CUB's
/// radix sort writes it; ptxas 13.0.88 accepts every mode so on sm_90 at
/// PTX 8.0) is the same instruction as the manual's order, and prints in
/// it; a mode ptxas does not know stays invalid.
#[test]
fn vote_takes_its_mode_before_sync() {
    let parse = |t: &str| parse_instruction(t, &mut Symbols::new());
    let printed = |t: &str| {
        let mut syms = Symbols::new();
        let i = parse_instruction(t, &mut syms).unwrap();
        let s = i.display(&syms).to_string();
        s
    };
    for (cub, manual) in [
        (
            "vote.ballot.sync.b32 %r1, %p1, 0xffffffff;",
            "vote.sync.ballot.b32 %r1, %p1, 0xffffffff;",
        ),
        (
            "vote.all.sync.pred %p2, %p1, 0xffffffff;",
            "vote.sync.all.pred %p2, %p1, 0xffffffff;",
        ),
        (
            "vote.any.sync.pred %p2, %p1, 0xffffffff;",
            "vote.sync.any.pred %p2, %p1, 0xffffffff;",
        ),
        (
            "vote.uni.sync.pred %p2, %p1, 0xffffffff;",
            "vote.sync.uni.pred %p2, %p1, 0xffffffff;",
        ),
    ] {
        let a = parse(cub).unwrap_or_else(|e| panic!("{cub}: {e}"));
        let b = parse(manual).unwrap();
        assert_eq!(a, b, "{cub}");
        assert_eq!(printed(cub), printed(manual));
    }
    let bad = parse("vote.most.sync.pred %p2, %p1, 0xffffffff;").unwrap_err();
    assert_eq!(bad.kind(), ErrorKind::Invalid, "{bad}");
}
