//! `execute_mem` hands a warp's `ld`/`st` to the memory whole
//! (`Memory::load_lanes`/`store_lanes`, lanes below the first misaligned
//! one) and runs atomics lane by lane. Held here to the lane-by-lane loop
//! it replaced, written out as the model below: for random loads, stores
//! and atomics of every width and vector size in every space, on addresses
//! in and out of bounds, misaligned, across windows, the two must make the
//! same memory calls in the same order, leave the same memory and
//! registers, and report the same fault (lane, address, kind) or the same
//! accesses.

// Lanes index several parallel arrays.
#![allow(clippy::needless_range_loop)]

use proptest::prelude::*;
use sim_isa::exec::{execute_mem, Access, Accesses, FaultKind, MemFault, Memory};
use sim_isa::parse::parse_instruction;
use sim_isa::*;

const SHARED_WINDOW: u64 = 0x1_0000_0000;
const LOCAL_WINDOW: u64 = 0x2_0000_0000;
const GLOBAL_BASE: u64 = 0x1000;

/// One memory call: store?, the access, value stored.
type Call = (bool, Access, u64);

/// Small spaces (global at `GLOBAL_BASE`, the windows for generic
/// addresses) that log every call; the warp-wide methods are the
/// trait's defaults.
#[derive(Clone, Debug, PartialEq)]
struct LogMem {
    global: Vec<u8>,
    shared: Vec<u8>,
    local: Vec<Vec<u8>>,
    params: Vec<u8>,
    log: Vec<Call>,
}

impl LogMem {
    fn new(seed: u64) -> Self {
        let mut x = seed | 1;
        let mut bytes = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect()
        };
        LogMem {
            global: bytes(512),
            shared: bytes(256),
            local: (0..WARP_SIZE).map(|_| bytes(64)).collect(),
            params: bytes(64),
            log: Vec::new(),
        }
    }

    fn range(&mut self, acc: Access, store: bool) -> Result<&mut [u8], FaultKind> {
        let (space, lane, addr, n) = (acc.space, acc.lane, acc.addr, acc.bytes);
        let (space, addr) = match space {
            Space::Generic if addr.wrapping_sub(SHARED_WINDOW) < 1 << 32 => {
                (Space::Shared, addr - SHARED_WINDOW)
            }
            Space::Generic if addr.wrapping_sub(LOCAL_WINDOW) < 1 << 32 => {
                (Space::Local, addr - LOCAL_WINDOW)
            }
            Space::Generic => (Space::Global, addr),
            s => (s, addr),
        };
        let (b, addr) = match space {
            Space::Global | Space::Generic => (&mut self.global, addr.wrapping_sub(GLOBAL_BASE)),
            Space::Shared => (&mut self.shared, addr),
            Space::Local => (&mut self.local[lane as usize], addr),
            Space::Param | Space::Const if store => return Err(FaultKind::ReadOnly),
            Space::Param | Space::Const => (&mut self.params, addr),
        };
        let a = usize::try_from(addr).map_err(|_| FaultKind::OutOfBounds)?;
        let e = a.checked_add(n as usize).ok_or(FaultKind::OutOfBounds)?;
        b.get_mut(a..e).ok_or(FaultKind::OutOfBounds)
    }
}

impl Memory for LogMem {
    fn load(&mut self, a: Access) -> Result<u64, FaultKind> {
        self.log.push((false, a, 0));
        let r = self.range(a, false)?;
        Ok(crate::bytes::read_le(r))
    }
    fn store(&mut self, a: Access, value: u64) -> Result<(), FaultKind> {
        self.log.push((true, a, value));
        let r = self.range(a, true)?;
        crate::bytes::write_le(r, value);
        Ok(())
    }
    fn var(&self, id: u32) -> Result<(Space, u64), FaultKind> {
        match id {
            0 => Ok((Space::Global, GLOBAL_BASE + 0x40)),
            _ => Err(FaultKind::UnknownVariable),
        }
    }
    fn to_generic(&self, _: Space, addr: u64) -> u64 {
        addr
    }
    fn generic_to_space(&self, _: Space, addr: u64) -> u64 {
        addr
    }
}

/// The lane-by-lane loop `execute_mem` ran before the warp-wide calls:
/// each lane in ascending order checks its alignment, then accesses its
/// elements in order; the first failure ends the instruction.
// A reference written apart from `exec/mem.rs` on purpose (its loop is
// that file's shape); only the fault record is made by the same
// `MemFault::maker`.
fn model(m: &Mem, exec: u32, regs: &mut WarpRegs, mem: &mut LogMem) -> Result<Accesses, MemFault> {
    let eb = m.ty.bytes();
    let fault = MemFault::maker(m.space, eb);
    let base: [u64; WARP_SIZE] = match m.addr.base {
        AddrBase::Reg(r) => {
            let mask = width_mask(m.space.addr_bits());
            std::array::from_fn(|l| regs.lane(r, l) & mask)
        }
        AddrBase::Var(id) => [mem.var(id).map_err(|k| fault(k, 0, 0))?.1; WARP_SIZE],
        AddrBase::Abs => [0; WARP_SIZE],
    };
    let vbits = m.ty.bits().max(16);
    let val = |k: usize, l: usize| match m.vals[k] {
        Operand::Reg(r) => regs.lane(r, l) & width_mask(vbits),
        Operand::Imm(v) => v & width_mask(vbits),
        Operand::Special(_) => unreachable!(),
    };
    let extend = |v: u64| match m.ty {
        MemType::S(b) if b < 64 => (((v << (64 - b)) as i64) >> (64 - b)) as u64,
        _ => v,
    };
    let mut out = Accesses {
        lanes: exec,
        addrs: [0; WARP_SIZE],
        bytes: eb * u32::from(m.vec),
        space: m.space,
    };
    let mut loaded = [[0u64; WARP_SIZE]; 4];
    for l in 0..WARP_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let a = base[l].wrapping_add(m.addr.offset as u64);
        out.addrs[l] = a;
        let lane = l as u32;
        if !a.is_multiple_of(u64::from(eb * u32::from(m.vec))) {
            return Err(fault(FaultKind::Misaligned, a, lane));
        }
        for k in 0..usize::from(m.vec) {
            let ak = a.wrapping_add(k as u64 * u64::from(eb));
            let err = |e| fault(e, ak, lane);
            let at = Access::new(m.space, lane, ak, eb);
            match m.op {
                MemOp::Ld | MemOp::Ldu => {
                    loaded[k][l] = extend(mem.load(at).map_err(err)?);
                }
                MemOp::St => mem.store(at, val(k, l)).map_err(err)?,
                MemOp::Atom(op) | MemOp::Red(op) => {
                    let old = mem.load(at).map_err(err)?;
                    let new = exec::atom_lane(op, m.ty, m.space, old, val(0, l), val(1, l));
                    mem.store(at, new).map_err(err)?;
                    loaded[0][l] = extend(old);
                }
                _ => unreachable!(),
            }
        }
    }
    for (&r, vals) in m.d[..m.dests()].iter().zip(&loaded) {
        for l in 0..WARP_SIZE {
            if exec >> l & 1 == 1 {
                regs.set_lane(r, l, vals[l]);
            }
        }
    }
    Ok(out)
}

/// The statement: `ld`/`st` of a type and vector size, or an atomic.
fn statement() -> impl Strategy<Value = String> {
    let space = prop::sample::select(vec!["", ".global", ".shared", ".local", ".param", ".const"]);
    let ty = prop::sample::select(vec![
        "u8", "s8", "u16", "s16", "u32", "s32", "f32", "b32", "u64", "s64", "f64", "b64",
    ]);
    let vec_ = prop::sample::select(vec![1usize, 2, 4]);
    // Mostly aligned for every access size; now and then anything.
    let off = prop_oneof![
        4 => (-4i64..4).prop_map(|k| k * 16),
        1 => prop::sample::select(vec![4i64, 8, -4, -8]),
        1 => -64i64..64,
    ];
    let ld = (space.clone(), vec_.clone(), ty.clone(), off.clone()).prop_map(|(s, n, t, o)| {
        let (v, d) = vector(1, n);
        format!("ld{s}{v}.{t} {d}, [%rd1+{o}];")
    });
    let st = (space.clone(), vec_, ty, off.clone()).prop_map(|(s, n, t, o)| {
        let (v, d) = vector(5, n);
        format!("st{s}{v}.{t} [%rd1+{o}], {d};")
    });
    let atom_space = prop::sample::select(vec!["", ".global", ".shared"]);
    let atom = (
        atom_space,
        prop::sample::select(vec![
            "atom{s}.add.u32 %r1, [%rd1+{o}], %r5;",
            "atom{s}.exch.b64 %r1, [%rd1+{o}], %r5;",
            "atom{s}.cas.b32 %r1, [%rd1+{o}], %r5, %r6;",
            "red{s}.add.f32 [%rd1+{o}], %r5;",
            "atom{s}.max.s32 %r1, [%rd1+{o}], 7;",
        ]),
        off,
    )
        .prop_map(|(s, t, o)| t.replace("{s}", s).replace("{o}", &o.to_string()));
    let var = Just("ld.global.u32 %r1, [gvar+4];".to_string());
    prop_oneof![4 => ld, 3 => st, 2 => atom, 1 => var]
}

/// An access's vector suffix (`.vN`, none for one element) and its `n`
/// registers from `%r{first}` (braced when more than one).
fn vector(first: usize, n: usize) -> (String, String) {
    let regs: Vec<String> = (first..first + n).map(|k| format!("%r{k}")).collect();
    if n == 1 {
        (String::new(), regs[0].clone())
    } else {
        (format!(".v{n}"), format!("{{{}}}", regs.join(", ")))
    }
}

/// Per-lane addresses: a base (in a space, a window, or anywhere), a
/// stride, and a few lanes sent elsewhere.
fn addresses() -> impl Strategy<Value = [u64; WARP_SIZE]> {
    let base = prop_oneof![
        Just(0u64),
        Just(GLOBAL_BASE),
        Just(SHARED_WINDOW),
        Just(LOCAL_WINDOW),
        Just(SHARED_WINDOW - 8),
        Just(LOCAL_WINDOW - 8),
        Just(u64::MAX - 15),
        any::<u64>(),
    ];
    let start = prop_oneof![
        4 => (0u64..40).prop_map(|k| k * 16),
        1 => 0u64..600,
    ];
    let stride = prop::sample::select(vec![0i64, 1, 2, 4, 8, 16, -4, -8]);
    let odd = prop::collection::vec((0usize..WARP_SIZE, any::<u64>(), 0u64..600), 0..3);
    (base, start, stride, odd).prop_map(|(base, start, stride, odd)| {
        let mut a: [u64; WARP_SIZE] = std::array::from_fn(|l| {
            base.wrapping_add(start)
                .wrapping_add((stride * l as i64) as u64)
        });
        for (l, x, near) in odd {
            a[l] = if x.is_multiple_of(2) {
                x
            } else {
                base.wrapping_add(near)
            };
        }
        a
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn warp_wide_accesses_match_lane_by_lane(
        text in statement(),
        addrs in addresses(),
        values in prop::collection::vec(any::<u64>(), 8 * WARP_SIZE),
        active in prop_oneof![Just(u32::MAX), any::<u32>(), Just(1u32 << 31), Just(0u32)],
        seed: u64,
    ) {
        let mut syms = Symbols::new();
        syms.intern_var("gvar");
        let Ok(inst) = parse_instruction(&text, &mut syms) else {
            // A combination PTX does not have (`.v4` of 64-bit types, ...).
            return Ok(());
        };
        let Op::Mem(m) = inst.op else { unreachable!() };
        let mut regs = WarpRegs::new(syms.len().max(8));
        for r in 0..syms.len() {
            for l in 0..WARP_SIZE {
                regs.set_lane(RegId(r as u32), l, values[(r * WARP_SIZE + l) % values.len()]);
            }
        }
        if let Some(rd1) = syms.get("%rd1") {
            for l in 0..WARP_SIZE {
                regs.set_lane(rd1, l, addrs[l]);
            }
        }
        let ctx = ExecCtx::new(Target::SM_90, 0);
        let (mut mem, mut regs_got) = (LogMem::new(seed), regs.clone());
        let (mut want_mem, mut want_regs) = (mem.clone(), regs.clone());
        let got = execute_mem(&inst, &ctx, &mut regs_got, active, &mut mem);
        let want = model(&m, active, &mut want_regs, &mut want_mem).map(Some);
        prop_assert_eq!(got, want, "{}", text);
        prop_assert_eq!(&mem.log, &want_mem.log, "{}", text);
        prop_assert_eq!(&mem, &want_mem, "{}", text);
        prop_assert_eq!(&regs_got, &want_regs, "{}", text);
    }
}
