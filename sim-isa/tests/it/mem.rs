//! The memory and warp families (`ld`/`ldu`/`st`/`atom`/`red`/`cvta`/`mov`
//! of an address; `bar`/`barrier`/`membar`/`fence`/`shfl.sync`/`vote.sync`/
//! `activemask`): the parser against ptxas's verdicts, printing, and the
//! semantics against the PTX ISA manual.

use sim_isa::parse::parse_instruction;
use sim_isa::{ErrorKind, Symbols};

const GRID: &str = include_str!("../data/mem-ptxas.txt");

/// ptxas's verdict on one grid statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Accept,
    Reject,
    /// Refused only for the target (sm_100 features, 32-bit addressing).
    Arch,
}

/// The grid's statements with ptxas's verdict.
fn grid() -> Vec<(Verdict, &'static str)> {
    GRID.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (v, t) = l.split_once(' ').expect("verdict and text");
            let v = match v {
                "accept" => Verdict::Accept,
                "reject" => Verdict::Reject,
                "arch" => Verdict::Arch,
                _ => panic!("bad verdict: {l}"),
            };
            (v, t)
        })
        .collect()
}

/// Statements ptxas accepts that the simulator does not run: the parser
/// must say so (`Unimplemented`), never call them invalid.
const UNIMPLEMENTED: &[&str] = &[
    "ld.global.b128 %q1, [%rd1];",
    "st.global.b128 [%rd1], %q1;",
    "ld.shared::cluster.u32 %r1, [%rd1];",
    "ld.shared::cluster.u32 %r1, [svar+4];",
    "st.shared::cluster.u32 [%rd1+8], %r1;",
    "atom.global.add.noftz.f16 %h1, [%rd1], %h2;",
    "atom.global.add.noftz.f16x2 %r1, [%rd1], %r2;",
    "atom.global.v2.f32.add {%f1, %f2}, [%rd1], {%f3, %f4};",
    "atom.global.v4.f32.add {%f1, %f2, %f3, %f4}, [%rd1], {%f5, %f6, %f7, %f8};",
    "atom.shared::cluster.add.u32 %r1, [%rd1], %r2;",
    "atom.global.exch.b128 %q1, [%rd1], %q2;",
    "atom.global.cas.b128 %q1, [%rd1], %q2, %q3;",
    "cvta.shared::cluster.u64 %rd1, %rd2;",
];

/// Statements ptxas rejects for what the declarations say, which one
/// statement's text cannot show: a register of the wrong class (`%p1`
/// where a `.b32` belongs, `%rd2` for `shfl`'s `.b32` source), a variable as
/// `mov`'s destination, a store to a kernel's own parameter. The parser,
/// which sees no declarations, accepts them; the module reader must decide.
const NEEDS_DECLARATIONS: &[&str] = &[
    "st.param.u64 [pp], %rd1;",
    "mov.u64 gvar, %rd1;",
    "bar.sync %p1;",
    "shfl.sync.bfly.b32 %p1|%r1, %r2, 1, 31, -1;",
    "shfl.sync.idx.b32 %r1, %rd2, 1, 31, -1;",
    "vote.sync.any.pred %p1, %r2, -1;",
    "vote.sync.any.pred %r1, %p2, -1;",
];

/// The parser accepts what ptxas 13.0 accepts and calls `Invalid` what it
/// rejects, over the grid of `tests/data/mem-ptxas.txt` (made by
/// `tools/ptxas_grid/mem_grid.py`); target-only refusals are valid PTX (the
/// parser must not call them invalid), and the two lists above are the
/// only exceptions, each checked to behave as its list says.
#[test]
fn agrees_with_ptxas_on_the_grid() {
    let g = grid();
    assert_eq!(g.len(), 700);
    assert_eq!(g.iter().filter(|v| v.0 == Verdict::Accept).count(), 344);
    assert_eq!(g.iter().filter(|v| v.0 == Verdict::Arch).count(), 18);
    let mut wrong = Vec::new();
    for &(verdict, text) in &g {
        let got = parse_instruction(text, &mut Symbols::new());
        let kind = got.as_ref().err().map(|e| e.kind());
        let unimpl = UNIMPLEMENTED.contains(&text);
        let decl = NEEDS_DECLARATIONS.contains(&text);
        let ok = match verdict {
            Verdict::Accept if unimpl => kind == Some(ErrorKind::Unimplemented),
            Verdict::Accept => kind.is_none(),
            Verdict::Arch => kind != Some(ErrorKind::Invalid),
            Verdict::Reject if decl => kind.is_none(),
            Verdict::Reject => kind == Some(ErrorKind::Invalid),
        };
        if !ok {
            wrong.push(format!("{text}: ptxas {verdict:?}, parser: {got:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    for t in UNIMPLEMENTED {
        assert!(
            g.contains(&(Verdict::Accept, t)),
            "{t} is no accepted grid statement"
        );
    }
    for t in NEEDS_DECLARATIONS {
        assert!(
            g.contains(&(Verdict::Reject, t)),
            "{t} is no rejected grid statement"
        );
    }
}

/// Every grid statement the parser accepts prints as text that re-parses to
/// an equal instruction.
#[test]
fn accepted_grid_statements_print_and_reparse() {
    let mut n = 0;
    for (_, text) in grid() {
        let mut syms = Symbols::new();
        let Ok(i) = parse_instruction(text, &mut syms) else {
            continue;
        };
        let printed = i.display(&syms).to_string();
        let mut again = syms.clone();
        assert_eq!(
            parse_instruction(&printed, &mut again),
            Ok(i),
            "{text} printed as {printed}"
        );
        n += 1;
    }
    // 344 accepted less the 13 unimplemented, plus 13 of the 18 target-only
    // forms (the five 256-bit accesses are unimplemented) and the 7 the
    // parser cannot judge without declarations.
    assert_eq!(n, 344 - 13 + 13 + 7);
}

mod semantics {
    use proptest::prelude::*;
    use sim_isa::exec::{execute_mem, shfl_lane, FaultKind, MemFault, Memory};
    use sim_isa::parse::parse_instruction;
    use sim_isa::*;

    /// A test memory: 256 bytes per space (`.local` per lane), variables
    /// `gvar` (global 0x40), `svar` (shared 0x10), and generic addresses
    /// as `space window + address` (global at 0, shared at 0x1000_0000,
    /// local at 0x2000_0000, const at 0x3000_0000, param at 0x4000_0000).
    struct TestMem {
        global: Vec<u8>,
        shared: Vec<u8>,
        local: Vec<Vec<u8>>,
        loads: Vec<(u32, u64)>,
    }

    const WINDOWS: [(Space, u64); 5] = [
        (Space::Global, 0),
        (Space::Shared, 0x1000_0000),
        (Space::Local, 0x2000_0000),
        (Space::Const, 0x3000_0000),
        (Space::Param, 0x4000_0000),
    ];

    impl TestMem {
        fn new() -> Self {
            TestMem {
                global: vec![0; 256],
                shared: vec![0; 256],
                local: vec![vec![0; 256]; 32],
                loads: Vec::new(),
            }
        }
        fn bytes(&mut self, space: Space, lane: u32) -> Option<&mut Vec<u8>> {
            match space {
                Space::Global | Space::Generic => Some(&mut self.global),
                Space::Shared => Some(&mut self.shared),
                Space::Local => self.local.get_mut(lane as usize),
                Space::Const | Space::Param => None,
            }
        }
        fn range(
            &mut self,
            space: Space,
            lane: u32,
            addr: u64,
            n: u32,
        ) -> Result<&mut [u8], FaultKind> {
            let b = self.bytes(space, lane).ok_or(FaultKind::ReadOnly)?;
            let a = usize::try_from(addr).map_err(|_| FaultKind::OutOfBounds)?;
            b.get_mut(a..a.saturating_add(n as usize))
                .ok_or(FaultKind::OutOfBounds)
        }
        fn word(&self, addr: usize) -> u32 {
            u32::from_le_bytes(self.global[addr..addr + 4].try_into().unwrap())
        }
    }

    // The trait's signatures, which every `Memory` repeats: `duplicates`
    // pairs them with mem_lanes.rs's.
    impl Memory for TestMem {
        fn load(
            &mut self,
            space: Space,
            lane: u32,
            addr: u64,
            bytes: u32,
        ) -> Result<u64, FaultKind> {
            self.loads.push((lane, addr));
            let r = self.range(space, lane, addr, bytes)?;
            Ok(crate::bytes::read_le(r))
        }
        fn store(
            &mut self,
            space: Space,
            lane: u32,
            addr: u64,
            bytes: u32,
            value: u64,
        ) -> Result<(), FaultKind> {
            let r = self.range(space, lane, addr, bytes)?;
            crate::bytes::write_le(r, value);
            Ok(())
        }
        fn var(&self, id: u32) -> Result<(Space, u64), FaultKind> {
            match id {
                0 => Ok((Space::Global, 0x40)),
                1 => Ok((Space::Shared, 0x10)),
                _ => Err(FaultKind::UnknownVariable),
            }
        }
        fn to_generic(&self, space: Space, addr: u64) -> u64 {
            WINDOWS
                .iter()
                .find(|w| w.0 == space)
                .map_or(addr, |w| w.1 + addr)
        }
        fn generic_to_space(&self, space: Space, addr: u64) -> u64 {
            WINDOWS
                .iter()
                .find(|w| w.0 == space)
                .map_or(addr, |w| addr.wrapping_sub(w.1))
        }
    }

    /// A parsed instruction with its registers; variables `gvar` then
    /// `svar` are interned first so their ids are 0 and 1.
    struct Run {
        syms: Symbols,
        regs: WarpRegs,
    }

    impl Run {
        fn new() -> Self {
            let mut syms = Symbols::new();
            syms.intern_var("gvar");
            syms.intern_var("svar");
            Run {
                syms,
                regs: WarpRegs::new(0),
            }
        }
        fn reg(&mut self, name: &str) -> RegId {
            let r = self.syms.intern(name);
            self.regs.ensure(self.syms.len());
            r
        }
        /// Sets `name` in every lane to `f(lane)`.
        fn set(&mut self, name: &str, f: impl Fn(u64) -> u64) {
            let r = self.reg(name);
            for l in 0..WARP_SIZE {
                self.regs.set_lane(r, l, f(l as u64));
            }
        }
        fn get(&mut self, name: &str, lane: usize) -> u64 {
            let r = self.reg(name);
            self.regs.lane(r, lane)
        }
        fn exec(
            &mut self,
            text: &str,
            active: u32,
            mem: &mut TestMem,
        ) -> Result<Option<exec::Accesses>, MemFault> {
            self.exec_in(text, active, mem, ExecCtx::new(Target::SM_90, 0))
        }
        /// [`Run::exec`] on every lane, which must not fault.
        fn all(&mut self, text: &str, mem: &mut TestMem) -> Option<exec::Accesses> {
            self.exec(text, u32::MAX, mem)
                .unwrap_or_else(|e| panic!("{text}: {e:?}"))
        }
        fn exec_in(
            &mut self,
            text: &str,
            active: u32,
            mem: &mut TestMem,
            ctx: ExecCtx,
        ) -> Result<Option<exec::Accesses>, MemFault> {
            let i =
                parse_instruction(text, &mut self.syms).unwrap_or_else(|e| panic!("{text}: {e}"));
            self.regs.ensure(self.syms.len());
            execute_mem(&i, &ctx, &mut self.regs, active, mem)
        }
    }

    /// `ld` of `.u8/.s8/.u16/.s16`: "the value loaded is sign- or
    /// zero-extended to the destination register's width" (PTX ISA, Data
    /// Movement and Conversion Instructions: ld, Description); `.b8` loads
    /// zero-extend like `.u8`.
    #[test]
    fn loads_extend_by_type() {
        let mut mem = TestMem::new();
        mem.global[0..4].copy_from_slice(&[0x80, 0xff, 0x7f, 0x01]);
        let mut r = Run::new();
        r.set("%rd1", |_| 0);
        let cases = [
            ("ld.global.u8 %r1, [%rd1];", 0x80),
            ("ld.global.b8 %r1, [%rd1];", 0x80),
            ("ld.global.s8 %r1, [%rd1];", 0xffff_ff80),
            ("ld.global.s8 %r1, [%rd1+2];", 0x7f),
            ("ld.global.u16 %r1, [%rd1];", 0xff80),
            ("ld.global.s16 %r1, [%rd1];", 0xffff_ff80),
            ("ld.global.s16 %r1, [%rd1+2];", 0x017f),
            ("ld.global.u32 %r1, [%rd1];", 0x017f_ff80),
        ];
        for (text, want) in cases {
            r.exec(text, u32::MAX, &mut mem).unwrap();
            for l in [0, 17, 31] {
                assert_eq!(r.get("%r1", l) & 0xffff_ffff, want, "{text} lane {l}");
            }
        }
        // At 64 bits the sign reaches the top.
        r.exec("ld.global.s8 %rd2, [%rd1];", 1, &mut mem).unwrap();
        assert_eq!(r.get("%rd2", 0), 0xffff_ffff_ffff_ff80);
        r.exec("ld.global.u8 %rd2, [%rd1+1];", 1, &mut mem).unwrap();
        assert_eq!(r.get("%rd2", 0), 0xff);
    }

    /// Vector loads and stores move consecutive elements; `st` writes only
    /// the type's bytes, little-endian.
    #[test]
    fn vectors_and_stores() {
        let mut mem = TestMem::new();
        for (k, b) in mem.global.iter_mut().enumerate() {
            *b = k as u8;
        }
        let mut r = Run::new();
        r.set("%rd1", |l| 16 * (l % 4));
        r.all(
            "ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+16];",
            &mut mem,
        );
        assert_eq!(r.get("%r1", 0), 0x1312_1110);
        assert_eq!(r.get("%r4", 0), 0x1f1e_1d1c);
        assert_eq!(r.get("%r2", 1), 0x2726_2524);
        r.all("ld.global.v2.s8 {%r5, %r6}, [%rd1+0x80];", &mut mem);
        assert_eq!(r.get("%r5", 0) & 0xffff_ffff, 0xffff_ff80);
        assert_eq!(r.get("%r6", 0) & 0xffff_ffff, 0xffff_ff81);
        let mut mem = TestMem::new();
        r.set("%r7", |l| 0xaabb_cc00 + l);
        r.set("%rd1", |l| 8 * l);
        r.exec("st.global.v2.u16 [%rd1], {%r7, 0x1234};", 0b11, &mut mem)
            .unwrap();
        assert_eq!(
            &mem.global[0..12],
            &[0x00, 0xcc, 0x34, 0x12, 0, 0, 0, 0, 0x01, 0xcc, 0x34, 0x12]
        );
        r.exec("st.global.u8 [gvar+1], %r7;", 1, &mut mem).unwrap();
        assert_eq!(&mem.global[0x40..0x43], &[0, 0x00, 0]);
        r.set("%r7", |_| 0x1ff);
        r.exec("st.global.u8 [gvar+1], %r7;", 1, &mut mem).unwrap();
        assert_eq!(&mem.global[0x40..0x43], &[0, 0xff, 0]);
    }

    /// `atom` returns the old value and stores the operation's result (PTX
    /// ISA, Parallel Synchronization and Communication Instructions: atom,
    /// Semantics): `inc` gives `(old >= b) ? 0 : old+1`, `dec` gives
    /// `((old == 0) || (old > b)) ? b : old-1`, `cas` stores `c` when
    /// `old == b`. Each op on the types ptxas 13.0 takes for it.
    #[test]
    fn every_atomic_operation() {
        // (text, old, b, c, new memory value); the width comes from the type.
        let cases: &[(&str, u64, u64, u64, u64)] = &[
            ("atom.global.add.u32", 0xffff_fffe, 3, 0, 1),
            (
                "atom.global.add.s32",
                5,
                (-7i64) as u64,
                0,
                (-2i32) as u32 as u64,
            ),
            ("atom.global.add.u64", u64::MAX, 2, 0, 1),
            (
                "atom.global.add.f32",
                1.5f32.to_bits().into(),
                2.25f32.to_bits().into(),
                0,
                3.75f32.to_bits().into(),
            ),
            (
                "atom.global.add.f64",
                1.5f64.to_bits(),
                0.25f64.to_bits(),
                0,
                1.75f64.to_bits(),
            ),
            ("atom.global.min.u32", 0x8000_0000, 1, 0, 1),
            ("atom.global.min.s32", 0x8000_0000, 1, 0, 0x8000_0000),
            ("atom.global.max.u32", 0x8000_0000, 1, 0, 0x8000_0000),
            ("atom.global.max.s32", 0x8000_0000, 1, 0, 1),
            ("atom.global.min.u64", u64::MAX, 7, 0, 7),
            ("atom.global.min.s64", u64::MAX, 7, 0, u64::MAX),
            ("atom.global.max.s64", u64::MAX, 7, 0, 7),
            ("atom.global.max.u64", 1 << 63, 7, 0, 1 << 63),
            (
                "atom.global.exch.b32",
                0x1234_5678,
                0x9abc_def0,
                0,
                0x9abc_def0,
            ),
            ("atom.global.exch.b64", 1, u64::MAX - 1, 0, u64::MAX - 1),
            ("atom.global.cas.b32", 5, 5, 9, 9),
            ("atom.global.cas.b32", 5, 6, 9, 5),
            ("atom.global.cas.b64", 1 << 40, 1 << 40, 3, 3),
            ("atom.global.cas.b64", 1 << 40, 0, 3, 1 << 40),
            (
                "atom.global.and.b32",
                0xff00_ff00,
                0x0ff0_0ff0,
                0,
                0x0f00_0f00,
            ),
            (
                "atom.global.or.b32",
                0xff00_ff00,
                0x0ff0_0ff0,
                0,
                0xfff0_fff0,
            ),
            (
                "atom.global.xor.b32",
                0xff00_ff00,
                0x0ff0_0ff0,
                0,
                0xf0f0_f0f0,
            ),
            ("atom.global.and.b64", u64::MAX, 1 << 63, 0, 1 << 63),
            ("atom.global.or.b64", 1, 1 << 63, 0, (1 << 63) | 1),
            ("atom.global.xor.b64", u64::MAX, 1, 0, u64::MAX - 1),
            ("atom.global.inc.u32", 3, 5, 0, 4),
            ("atom.global.inc.u32", 5, 5, 0, 0),
            ("atom.global.inc.u32", 7, 5, 0, 0),
            (
                "atom.global.inc.u32",
                0xffff_fffe,
                0xffff_ffff,
                0,
                0xffff_ffff,
            ),
            ("atom.global.dec.u32", 3, 5, 0, 2),
            ("atom.global.dec.u32", 0, 5, 0, 5),
            ("atom.global.dec.u32", 7, 5, 0, 5),
            ("atom.global.dec.u32", 5, 5, 0, 4),
        ];
        for &(op, old, b, c, new) in cases {
            let wide = op.ends_with("64");
            let (d, rb, rc, n) = if wide {
                ("%rd5", "%rd6", "%rd7", 8)
            } else {
                ("%r5", "%r6", "%r7", 4)
            };
            let text = if op.contains(".cas.") {
                format!("{op} {d}, [%rd1+8], {rb}, {rc};")
            } else {
                format!("{op} {d}, [%rd1+8], {rb};")
            };
            let mut mem = TestMem::new();
            mem.global[8..8 + n].copy_from_slice(&old.to_le_bytes()[..n]);
            let mut r = Run::new();
            r.set("%rd1", |_| 0);
            r.set(rb, |_| b);
            r.set(rc, |_| c);
            r.exec(&text, 1 << 9, &mut mem).unwrap();
            let mut got = [0u8; 8];
            got[..n].copy_from_slice(&mem.global[8..8 + n]);
            assert_eq!(u64::from_le_bytes(got), new, "{text}: memory");
            let mask = if wide { u64::MAX } else { 0xffff_ffff };
            assert_eq!(r.get(d, 9) & mask, old, "{text}: old value");
            assert_eq!(r.get(d, 8), 0, "{text}: inactive lane written");
        }
    }

    /// `red` applies the operation without a destination; all 32 lanes'
    /// atomics on one address apply one after another, and each `atom`
    /// lane sees the value the lanes before it left (ascending lane order,
    /// the order `exec/mem.rs` documents; the PTX ISA leaves it open).
    #[test]
    fn reductions_and_conflicting_lanes() {
        let mut mem = TestMem::new();
        let mut r = Run::new();
        r.set("%rd1", |_| 4);
        r.set("%r2", |l| l + 1);
        r.all("red.global.add.u32 [%rd1], %r2;", &mut mem);
        assert_eq!(mem.word(4), (1..=32).sum::<u32>());
        r.all("red.global.max.s32 [%rd1+4], -5;", &mut mem);
        assert_eq!(mem.word(8), 0);
        r.exec("atom.global.add.u32 %r3, [%rd1+8], 1;", 0xf0, &mut mem)
            .unwrap();
        assert_eq!(mem.word(12), 4);
        assert_eq!(
            (4..8).map(|l| r.get("%r3", l)).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        // Plain stores to one address: the highest active lane's value stays.
        r.set("%r4", |l| 100 + l);
        r.exec("st.global.u32 [%rd1+12], %r4;", 0x00ff_ff00, &mut mem)
            .unwrap();
        assert_eq!(mem.word(16), 123);
        // Loads happen in lane order too.
        mem.loads.clear();
        r.exec("ld.global.u32 %r5, [%rd1];", 0b1010_0001, &mut mem)
            .unwrap();
        assert_eq!(mem.loads.iter().map(|x| x.0).collect::<Vec<_>>(), [0, 5, 7]);
    }

    /// A misaligned or out-of-range access names the lowest faulting lane,
    /// the address and the access size; an element's alignment is the
    /// whole vector's (PTX ISA, ld: "the address must be naturally aligned
    /// to a multiple of the access size").
    #[test]
    fn faults_name_the_lane() {
        let mut mem = TestMem::new();
        let mut r = Run::new();
        r.set("%rd1", |l| if l == 5 || l == 9 { 2 } else { 4 * l });
        let e = r
            .exec("ld.global.u32 %r1, [%rd1];", u32::MAX, &mut mem)
            .unwrap_err();
        assert_eq!(
            (e.kind, e.lane, e.addr, e.bytes),
            (FaultKind::Misaligned, 5, 2, 4)
        );
        assert!(e.to_string().contains("lane 5"), "{e}");
        // Lane 5 is not active: lane 9 faults.
        let e = r
            .exec("ld.global.u32 %r1, [%rd1];", !(1 << 5), &mut mem)
            .unwrap_err();
        assert_eq!(e.lane, 9);
        r.set("%rd1", |l| 8 * l);
        let e = r
            .exec(
                "ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];",
                0b10,
                &mut mem,
            )
            .unwrap_err();
        assert_eq!((e.kind, e.lane, e.addr), (FaultKind::Misaligned, 1, 8));
        // Lane l stores at 8l + 16: lane 30's 256 is past the 256 bytes.
        let e = r
            .exec("st.global.u64 [%rd1+16], %rd1;", u32::MAX, &mut mem)
            .unwrap_err();
        assert_eq!(
            (e.kind, e.lane, e.addr, e.bytes),
            (FaultKind::OutOfBounds, 30, 256, 8)
        );
        // Lanes below the faulting one have stored.
        assert_eq!(mem.global[8 * 29 + 16], 8 * 29);
        // The memory's refusal (this one's `.param` is read-only) is the fault.
        let e = r.exec("st.param.u32 [%rd1], 1;", 1, &mut mem);
        assert_eq!(e.unwrap_err().kind, FaultKind::ReadOnly);
        let e = r
            .exec("ld.shared.u32 %r1, [svar+0x200];", 1 << 3, &mut mem)
            .unwrap_err();
        assert_eq!(
            (e.kind, e.lane, e.addr, e.space),
            (FaultKind::OutOfBounds, 3, 0x210, Space::Shared)
        );
    }

    /// A guard predicate limits the access to its lanes; guarded-off lanes
    /// neither store nor fault nor load.
    #[test]
    fn guards_predicate_accesses() {
        let mut mem = TestMem::new();
        let mut r = Run::new();
        r.set("%p1", |l| u64::from(l % 2 == 0));
        r.set("%rd1", |l| if l % 2 == 0 { 4 * l } else { 3 });
        r.set("%r1", |l| l + 1);
        r.all("@%p1 st.global.u32 [%rd1], %r1;", &mut mem);
        for l in 0..32 {
            let want = if l % 2 == 0 { l as u32 + 1 } else { 0 };
            assert_eq!(mem.word(4 * l), want, "lane {l}");
        }
        r.set("%r2", |_| 77);
        mem.global[4..8].copy_from_slice(&[1, 2, 3, 4]);
        let acc = r
            .exec("@!%p1 ld.global.u32 %r2, [%rd1+1];", 0b110, &mut mem)
            .unwrap()
            .unwrap();
        assert_eq!(acc.lanes, 0b010);
        assert_eq!(acc.addrs[1], 4);
        assert_eq!((r.get("%r2", 1), r.get("%r2", 2)), (0x0403_0201, 77));
    }

    /// `cvta` between a space and generic addresses, `cvta.to` back, and
    /// `mov` of a variable's address in its own space (PTX ISA, cvta and
    /// mov, Description).
    #[test]
    fn address_conversions() {
        let mut mem = TestMem::new();
        let mut r = Run::new();
        r.set("%rd2", |l| 4 * l);
        r.all("cvta.shared.u64 %rd1, %rd2;", &mut mem);
        assert_eq!(r.get("%rd1", 3), 0x1000_000c);
        r.all("cvta.to.shared.u64 %rd3, %rd1;", &mut mem);
        assert_eq!(r.get("%rd3", 3), 12);
        r.exec("cvta.shared.u64 %rd4, svar+4;", 1, &mut mem)
            .unwrap();
        assert_eq!(r.get("%rd4", 0), 0x1000_0014);
        r.exec("mov.u64 %rd5, gvar+8;", 1, &mut mem).unwrap();
        assert_eq!(r.get("%rd5", 0), 0x48);
        let e = r.exec("mov.u64 %rd5, nothere;", 1, &mut mem).unwrap_err();
        assert_eq!(e.kind, FaultKind::UnknownVariable);
    }

    /// `shfl.sync`'s source lane (PTX ISA, Data Movement and Conversion
    /// Instructions: shfl.sync, Semantics), written out again from the
    /// pseudocode: `bval = b[4:0]`, `cval = c[4:0]`, `segmask = c[12:8]`,
    /// `maxLane = (lane & segmask) | (cval & ~segmask)`, `minLane = lane &
    /// segmask`; `.up`: `j = lane - bval`, in range if `j >= maxLane`;
    /// `.down`: `j = lane + bval`, `j <= maxLane`; `.bfly`: `j = lane ^ bval`;
    /// `.idx`: `j = minLane | (bval & ~segmask)`; out of range, `j = lane`.
    fn manual_shfl(mode: ShflMode, lane: i64, b: u32, c: u32) -> (u32, bool) {
        let bval = i64::from(b & 31);
        let cval = i64::from(c & 31);
        let seg = i64::from((c >> 8) & 31);
        let max_lane = (lane & seg) | (cval & !seg & 31);
        let min_lane = lane & seg;
        let (j, pval) = match mode {
            ShflMode::Up => (lane - bval, lane - bval >= max_lane),
            ShflMode::Down => (lane + bval, lane + bval <= max_lane),
            ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
            ShflMode::Idx => {
                let j = min_lane | (bval & !seg & 31);
                (j, j <= max_lane)
            }
        };
        if pval {
            (j as u32, true)
        } else {
            (lane as u32, false)
        }
    }

    const MODES: [ShflMode; 4] = [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// `shfl_lane` is the manual's pseudocode for every mode and lane.
        #[test]
        fn shfl_lane_is_the_manual(b in any::<u32>(), c in prop_oneof![any::<u32>(), 0u32..0x2000]) {
            for mode in MODES {
                for lane in 0..32 {
                    prop_assert_eq!(shfl_lane(mode, lane, b, c), manual_shfl(mode, i64::from(lane), b, c),
                        "{:?} lane {} b {:#x} c {:#x}", mode, lane, b, c);
                }
            }
        }
    }

    /// The usual clamp/segment encodings (CUDA's `width` as `c`): a
    /// butterfly within 8-lane segments, `up` by 2 with the clamp 0
    /// leaving lanes 0 and 1 alone, `idx` broadcasting each 16-lane
    /// segment's lane 3.
    #[test]
    fn shfl_segments() {
        let mut mem = TestMem::new();
        let mut r = Run::new();
        r.set("%r2", |l| 100 + l);
        // 8-wide segments: c = ((32 - 8) << 8) | 31.
        r.all("shfl.sync.bfly.b32 %r1|%p1, %r2, 4, 0x181f, -1;", &mut mem);
        assert_eq!(r.get("%r1", 0), 104);
        assert_eq!(r.get("%r1", 13), 109);
        assert_eq!(r.get("%p1", 13), 1);
        r.all("shfl.sync.up.b32 %r3|%p2, %r2, 2, 0, -1;", &mut mem);
        assert_eq!((r.get("%r3", 1), r.get("%p2", 1)), (101, 0));
        assert_eq!((r.get("%r3", 2), r.get("%p2", 2)), (100, 1));
        // 16-wide segments: c = (16 << 8) | 31.
        r.all("shfl.sync.idx.b32 %r4, %r2, 3, 0x101f, -1;", &mut mem);
        assert_eq!(
            (
                r.get("%r4", 0),
                r.get("%r4", 15),
                r.get("%r4", 16),
                r.get("%r4", 31)
            ),
            (103, 103, 119, 119)
        );
        // `down` past the segment's clamp keeps the lane's own value.
        r.all("shfl.sync.down.b32 %r5|%p3, %r2, 1, 0x1f, -1;", &mut mem);
        assert_eq!((r.get("%r5", 30), r.get("%p3", 30)), (131, 1));
        assert_eq!((r.get("%r5", 31), r.get("%p3", 31)), (131, 0));
    }

    /// `vote.sync` reduces over the active lanes in `membermask`; "an
    /// inactive thread in warp will contribute a 0 for its entry when
    /// participating in vote.ballot.b32" (PTX ISA, Parallel Synchronization
    /// and Communication Instructions: vote.sync, Description). `.uni` is
    /// true when all those lanes agree; inactive lanes keep their registers.
    #[test]
    fn votes_over_active_lanes() {
        let mut mem = TestMem::new();
        let mut r = Run::new();
        let active = 0x0000_ffff;
        // True on lanes 0..=16: lane 16 is inactive.
        r.set("%p1", |l| u64::from(l <= 16));
        r.set("%p2", |l| u64::from(l == 3));
        for (text, want) in [
            ("vote.sync.ballot.b32 %r1, %p1, -1;", 0xffff),
            ("vote.sync.ballot.b32 %r1, !%p1, -1;", 0),
            ("vote.sync.ballot.b32 %r1, %p2, -1;", 0b1000),
            ("vote.sync.ballot.b32 %r1, %p1, 0xff;", 0xff),
            ("vote.sync.all.pred %p3, %p1, -1;", 1),
            ("vote.sync.all.pred %p3, %p2, -1;", 0),
            ("vote.sync.any.pred %p3, %p2, -1;", 1),
            ("vote.sync.any.pred %p3, !%p1, -1;", 0),
            ("vote.sync.uni.pred %p3, %p1, -1;", 1),
            ("vote.sync.uni.pred %p3, !%p1, -1;", 1),
            ("vote.sync.uni.pred %p3, %p2, -1;", 0),
        ] {
            let d = if text.contains("ballot") {
                "%r1"
            } else {
                "%p3"
            };
            r.set(d, |_| 0x5a);
            r.exec(text, active, &mut mem).unwrap();
            for l in [0, 3, 15] {
                assert_eq!(r.get(d, l), want, "{text} lane {l}");
            }
            assert_eq!(r.get(d, 16), 0x5a, "{text}: inactive lane written");
        }
        // `activemask`: the lanes executing it, in each of them.
        r.set("%r2", |_| 0x5a);
        r.exec("activemask.b32 %r2;", 0xf0f0, &mut mem).unwrap();
        assert_eq!(
            (r.get("%r2", 4), r.get("%r2", 15), r.get("%r2", 0)),
            (0xf0f0, 0xf0f0, 0x5a)
        );
    }

    /// `%tid` unfolds a warp's linear thread index over a 3-D block, x
    /// fastest (PTX ISA, Special Registers: %tid); the lane masks are
    /// 32-bit masks relative to the lane (%lanemask_eq/le/lt/ge/gt).
    #[test]
    fn special_registers() {
        let t = ThreadCtx {
            first_thread: 32,
            ntid: [5, 3, 4],
            ctaid: [7, 8, 9],
            nctaid: [10, 11, 12],
            clock: 0x1_2345_6789,
            ..ThreadCtx::default()
        };
        // Lane l is thread 32 + l: x = t % 5, y = t / 5 % 3, z = t / 15.
        for l in 0..28u32 {
            let lin = 32 + l;
            assert_eq!(t.special(SpecialReg::Tid(0), l, 1), u64::from(lin % 5));
            assert_eq!(t.special(SpecialReg::Tid(1), l, 1), u64::from(lin / 5 % 3));
            assert_eq!(t.special(SpecialReg::Tid(2), l, 1), u64::from(lin / 15));
        }
        assert_eq!(
            [0, 1, 2].map(|k| t.special(SpecialReg::Tid(k), 0, 1)),
            [2, 0, 2]
        );
        assert_eq!(
            [0, 1, 2].map(|k| t.special(SpecialReg::Tid(k), 27, 1)),
            [4, 2, 3]
        );
        assert_eq!(t.special(SpecialReg::Ctaid(1), 0, 1), 8);
        assert_eq!(t.special(SpecialReg::Nctaid(2), 0, 1), 12);
        assert_eq!(t.special(SpecialReg::Ntid(0), 0, 1), 5);
        assert_eq!(t.special(SpecialReg::Clock, 0, 1), 0x2345_6789);
        assert_eq!(t.special(SpecialReg::ClockHi, 0, 1), 1);
        assert_eq!(t.special(SpecialReg::Clock64, 0, 1), 0x1_2345_6789);
        assert_eq!(t.special(SpecialReg::WarpId, 4, 1), 1);
        assert_eq!(t.special(SpecialReg::LaneId, 4, 1), 4);
        let m = |s, l| t.special(s, l, 0);
        assert_eq!(m(SpecialReg::LanemaskEq, 5), 0x20);
        assert_eq!(m(SpecialReg::LanemaskLe, 5), 0x3f);
        assert_eq!(m(SpecialReg::LanemaskLt, 5), 0x1f);
        assert_eq!(m(SpecialReg::LanemaskGe, 5), 0xffff_ffe0);
        assert_eq!(m(SpecialReg::LanemaskGt, 5), 0xffff_ffc0);
        assert_eq!(m(SpecialReg::LanemaskLt, 0), 0);
        assert_eq!(m(SpecialReg::LanemaskGt, 31), 0);
        assert_eq!(m(SpecialReg::LanemaskLe, 31), 0xffff_ffff);
        assert_eq!(m(SpecialReg::LanemaskGe, 0), 0xffff_ffff);
        // Through an instruction: `mov.u32 %r1, %tid.y` in warp 1.
        let mut r = Run::new();
        let ctx = ExecCtx {
            thread: t,
            ..ExecCtx::new(Target::SM_90, 1)
        };
        r.exec_in("mov.u32 %r1, %tid.y;", u32::MAX, &mut TestMem::new(), ctx)
            .unwrap();
        assert_eq!(
            (r.get("%r1", 0), r.get("%r1", 3), r.get("%r1", 27)),
            (0, 1, 2)
        );
        r.exec_in(
            "mov.u32 %r2, %lanemask_lt;",
            u32::MAX,
            &mut TestMem::new(),
            ctx,
        )
        .unwrap();
        assert_eq!(r.get("%r2", 9), 0x1ff);
    }
}

/// `mov` with a brace list packs registers (element 0 in the low bits) or
/// unpacks one (PTX ISA, `mov`: "d = a.x | (a.y << 32)" for `.b64` from two
/// `.b32`), as nvcc emits around 64-bit shuffles and half pairs.
#[test]
fn mov_packs_and_unpacks_registers() {
    use sim_isa::Space;
    let mut syms = Symbols::new();
    let pack = parse_instruction("mov.b64 %rd1, {%r1, %r2};", &mut syms).unwrap();
    let unpack = parse_instruction("mov.b64 {%r3, %r4}, %rd1;", &mut syms).unwrap();
    let pack4 = parse_instruction("mov.b32 %r5, {%h1, %h2};", &mut syms).unwrap();
    for (i, t) in [
        (&pack, "mov.b64 %rd1, {%r1, %r2};"),
        (&unpack, "mov.b64 {%r3, %r4}, %rd1;"),
        (&pack4, "mov.b32 %r5, {%h1, %h2};"),
    ] {
        assert_eq!(i.display(&syms).to_string(), t);
    }
    for bad in [
        "mov.b64 %rd1, {%r1, %r2, %r3};",
        "mov.f32 %f1, {%h1, %h2};",
        "mov.b16 %h1, {%r1, %r2, %r3, %r4};",
    ] {
        let e = parse_instruction(bad, &mut syms).unwrap_err();
        assert_eq!(e.kind(), sim_isa::ErrorKind::Invalid, "{bad}: {e}");
    }
    let mut regs = sim_isa::WarpRegs::new(syms.len());
    let r = |n: &str| syms.get(n).unwrap();
    regs.set_lane(r("%r1"), 0, 0x1111_2222);
    regs.set_lane(r("%r2"), 0, 0xaaaa_bbbb);
    regs.set_lane(r("%h1"), 0, 0x1234);
    regs.set_lane(r("%h2"), 0, 0xabcd);
    struct NoMem;
    impl sim_isa::exec::Memory for NoMem {
        fn load(
            &mut self,
            _: Space,
            _: u32,
            _: u64,
            _: u32,
        ) -> Result<u64, sim_isa::exec::FaultKind> {
            unreachable!()
        }
        fn store(
            &mut self,
            _: Space,
            _: u32,
            _: u64,
            _: u32,
            _: u64,
        ) -> Result<(), sim_isa::exec::FaultKind> {
            unreachable!()
        }
        fn var(&self, _: u32) -> Result<(Space, u64), sim_isa::exec::FaultKind> {
            unreachable!()
        }
        fn to_generic(&self, _: Space, a: u64) -> u64 {
            a
        }
        fn generic_to_space(&self, _: Space, a: u64) -> u64 {
            a
        }
    }
    let ctx = sim_isa::ExecCtx::new(sim_isa::Target::SM_90, 0);
    for i in [&pack, &unpack, &pack4] {
        sim_isa::exec::execute_mem(i, &ctx, &mut regs, 1, &mut NoMem).unwrap();
    }
    assert_eq!(regs.lane(r("%rd1"), 0), 0xaaaa_bbbb_1111_2222);
    assert_eq!(regs.lane(r("%r3"), 0), 0x1111_2222);
    assert_eq!(regs.lane(r("%r4"), 0), 0xaaaa_bbbb);
    assert_eq!(regs.lane(r("%r5"), 0), 0xabcd_1234);
}
