//! The memory family's semantics: addresses, loads with their extension,
//! stores, atomics, `cvta` and `mov` of an address, over a memory the caller
//! provides ([`Memory`]). The atomic operations are scalar functions
//! ([`atom_lane`]); lanes access memory in ascending lane order, so of two
//! lanes storing to one address the higher lane's value stays, and atomics
//! from one warp apply lane by lane.

use super::async_copy::AsyncCall;
use super::lanes::{blend, exec_mask, read_operand};
use super::{ExecCtx, WarpRegs, WARP_SIZE};
use crate::inst::{AddrBase, AtomOp, Instruction, Mem, MemOp, MemType, Op, Operand, Space};

pub use super::memory::{
    load_lanes_each, store_lanes_each, Accesses, FaultKind, LaneFault, MemFault, Memory,
};
use super::memory::{Access, LaneAccess};

/// `atom`/`red`'s operation on one value: the new memory value from the
/// old one, `b` and (for `cas`) `c`, at `ty`'s width. f32/f64 `add` rounds
/// to nearest even; the f32 form flushes subnormal inputs and results to
/// sign-preserving zero in global memory, as the PTX ISA states for
/// `atom.add.f32` (not in shared memory, on the H100); NaN results follow
/// the H100 (see the arms).
pub fn atom_lane(op: AtomOp, ty: MemType, space: Space, old: u64, b: u64, c: u64) -> u64 {
    let bits = ty.bits();
    let m = super::width_mask(bits);
    let (old, b, c) = (old & m, b & m, c & m);
    let sx = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
    let signed = matches!(ty, MemType::S(_));
    let r = match op {
        AtomOp::Add => match ty {
            // Observed on the H100 (sim-kernel/tests/data/h100-atomics): a
            // NaN result is 0x7fffffff; in global memory (and through a
            // generic address, taken as global here) subnormal inputs and
            // results flush to signed zero, in shared memory they do not.
            MemType::F32 => {
                let flush = space != Space::Shared;
                let fl = |v: u64| {
                    if flush {
                        super::flush_subnormal(crate::inst::Type::F32, v)
                    } else {
                        v
                    }
                };
                let f = |v: u64| f32::from_bits(fl(v) as u32);
                let r = f(old) + f(b);
                if r.is_nan() {
                    0x7fff_ffff
                } else {
                    fl(u64::from(r.to_bits()))
                }
            }
            // A NaN operand comes through unchanged, `b`'s first; an invalid
            // sum (inf - inf) gives DADD's 0x7fffffffffffffff.
            MemType::F64 => {
                let nan = |v: u64| f64::from_bits(v).is_nan();
                if nan(b) {
                    b
                } else if nan(old) {
                    old
                } else {
                    let r = f64::from_bits(old) + f64::from_bits(b);
                    if r.is_nan() {
                        u64::MAX >> 1
                    } else {
                        r.to_bits()
                    }
                }
            }
            MemType::B(_) | MemType::U(_) | MemType::S(_) | MemType::F16 | MemType::F16x2 => {
                old.wrapping_add(b)
            }
        },
        AtomOp::Min if signed => sx(old).min(sx(b)) as u64,
        AtomOp::Max if signed => sx(old).max(sx(b)) as u64,
        AtomOp::Min => old.min(b),
        AtomOp::Max => old.max(b),
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
    };
    r & m
}

/// A loaded element, extended to the register: signed types sign-extend.
fn extend(ty: MemType, v: u64) -> u64 {
    let bits = ty.bits();
    match ty {
        MemType::S(_) if bits < 64 => (((v << (64 - bits)) as i64) >> (64 - bits)) as u64,
        MemType::S(_)
        | MemType::B(_)
        | MemType::U(_)
        | MemType::F16
        | MemType::F16x2
        | MemType::F32
        | MemType::F64 => v,
    }
}

/// Runs a memory-family instruction on the lanes of `active` whose guard
/// holds, against `mem`. Returns the addresses accessed (`None` for
/// `cvta`/`mov`, which access nothing), or the first faulting lane's
/// fault; a faulting instruction may have completed lower lanes' stores.
/// Any other instruction is run by [`super::execute`] and returns `None`.
pub fn execute_mem(
    inst: &Instruction,
    ctx: &ExecCtx,
    regs: &mut WarpRegs,
    active: u32,
    mem: &mut dyn Memory,
) -> Result<Option<Accesses>, MemFault> {
    let mut out = Accesses {
        lanes: 0,
        addrs: [0; WARP_SIZE],
        bytes: 0,
        space: Space::Generic,
    };
    let accessed = execute_mem_into(inst, ctx, regs, active, mem, &mut out)?;
    Ok(accessed.then_some(out))
}

/// [`execute_mem`] with the addresses written into `out` (a place the
/// caller keeps: 32 addresses are not copied on the way). Returns whether
/// the instruction accessed memory: then `out` holds what [`execute_mem`]
/// returns; otherwise, and after a fault, `out` holds nothing meaningful.
pub fn execute_mem_into(
    inst: &Instruction,
    ctx: &ExecCtx,
    regs: &mut WarpRegs,
    active: u32,
    mem: &mut dyn Memory,
    out: &mut Accesses,
) -> Result<bool, MemFault> {
    if let Op::Async(a) = &inst.op {
        if a.is_bulk() || a.is_copy() || a.touches_object() {
            regs.ensure(super::regs_needed(inst));
            let exec = exec_mask(inst.guard, regs, active);
            let (bulk, copy) = (a.is_bulk(), a.is_copy());
            let c = AsyncCall(a, ctx, regs, exec, mem, out);
            return match (bulk, copy) {
                (true, _) => super::bulk::copy(c),
                (false, true) => super::async_copy::copy(c),
                (false, false) => super::mbarrier::run(c),
            };
        }
    }
    let Op::Mem(m) = &inst.op else {
        super::execute(inst, ctx, regs, active);
        return Ok(false);
    };
    let guard = inst.guard.map_or(0, |g| g.reg.0 as usize + 1);
    regs.ensure(super::mem_regs_needed(m).max(guard));
    let exec = exec_mask(inst.guard, regs, active);
    let ebytes = m.ty.bytes();
    let fault = MemFault::maker(m.space, ebytes);
    // A variable's address is the same in every lane.
    let var = match m.addr.base {
        AddrBase::Var(id) => mem.var(id).map_err(|k| fault(k, 0, 0))?.1,
        AddrBase::Reg(_) | AddrBase::Abs => 0,
    };
    match m.op {
        MemOp::Cvta { .. } | MemOp::MovAddr => {
            let mut addrs = [0; WARP_SIZE];
            addresses(m, var, u32::MAX, regs, &mut addrs);
            cvta(m, ctx, regs, exec, mem, &addrs);
            Ok(false)
        }
        MemOp::Pack | MemOp::Unpack => {
            pack(m, ctx, regs, exec);
            Ok(false)
        }
        // Every lane's row address is read; the lanes naming rows are
        // the accesses a timing model sees (16 bytes each).
        MemOp::Ldmatrix { .. } | MemOp::Stmatrix { .. } => {
            let mut rows = [0; WARP_SIZE];
            addresses(m, var, u32::MAX, regs, &mut rows);
            let lanes = super::matrix::row_lanes(m.vec);
            out.lanes = lanes;
            out.bytes = 16;
            out.space = m.space;
            addresses(m, var, lanes, regs, &mut out.addrs);
            matrix_access(m, regs, exec, mem, &rows).map_err(|f| MemFault {
                kind: f.kind,
                space: m.space,
                addr: f.addr,
                bytes: 2,
                lane: f.lane,
            })?;
            Ok(true)
        }
        // A hint: the lanes' lines are what a timing model sees. Memory is
        // not asked, so no address faults, as none does on the GPU
        // (docs/prefetch.md).
        MemOp::Prefetch(_) => {
            out.lanes = exec;
            out.bytes = 1;
            out.space = m.space;
            addresses(m, var, exec, regs, &mut out.addrs);
            Ok(true)
        }
        // Each lane moves its own fragment from its own address.
        MemOp::Wmma(w) => {
            out.lanes = exec;
            out.bytes = super::wmma::lane_bytes(&w);
            out.space = m.space;
            addresses(m, var, exec, regs, &mut out.addrs);
            let addrs = out.addrs;
            super::wmma::access(m, &w, regs, exec, mem, &addrs).map_err(|f| MemFault {
                kind: f.kind,
                space: m.space,
                addr: f.addr,
                bytes: super::wmma::lane_bytes(&w),
                lane: f.lane,
            })?;
            Ok(true)
        }
        MemOp::Ld | MemOp::Ldu | MemOp::St | MemOp::Atom(_) | MemOp::Red(_) => {
            out.lanes = exec;
            out.bytes = ebytes * u32::from(m.vec);
            out.space = m.space;
            // The lanes that run: their addresses (the others' are 0).
            addresses(m, var, exec, regs, &mut out.addrs);
            access(m, ctx, regs, exec, mem, &out.addrs)
                .map_err(|f| fault(f.kind, f.addr, f.lane))?;
            Ok(true)
        }
    }
}

/// Each lane of `lanes`' address (`var`: a variable base's address), the
/// other lanes' 0: the base register at the space's address width, plus
/// the offset. A call of its own: inlined, its loop was left scalar (the
/// compiler could not tell `out` from the registers, nor keep it whole).
#[inline(never)]
pub(super) fn addresses(
    m: &Mem,
    var: u64,
    lanes: u32,
    regs: &WarpRegs,
    out: &mut [u64; WARP_SIZE],
) {
    let off = m.addr.offset as u64;
    match m.addr.base {
        AddrBase::Reg(r) => {
            let mask = super::width_mask(m.space.addr_bits());
            for (o, &v) in out.iter_mut().zip(regs.get(r)) {
                *o = (v & mask).wrapping_add(off);
            }
        }
        AddrBase::Var(_) | AddrBase::Abs => *out = [var.wrapping_add(off); WARP_SIZE],
    }
    if lanes != u32::MAX {
        for (l, o) in out.iter_mut().enumerate() {
            *o &= 0u64.wrapping_sub(u64::from(lanes >> l & 1));
        }
    }
}

/// `cvta`/`mov` of an address: no memory is touched.
fn cvta(
    m: &Mem,
    ctx: &ExecCtx,
    regs: &mut WarpRegs,
    exec: u32,
    mem: &dyn Memory,
    addrs: &[u64; WARP_SIZE],
) {
    let bits = m.ty.bits();
    let src = if m.addr.base == AddrBase::Abs {
        read_operand(m.vals[0], bits, ctx, regs)
    } else {
        *addrs
    };
    let d = regs.get_mut(m.d[0]);
    for l in 0..WARP_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let v = match m.op {
            MemOp::Cvta { to: true } => mem.generic_to_space(m.space, src[l]),
            MemOp::Cvta { to: false } => mem.to_generic(m.space, src[l]),
            // `mov` of a variable: its address in its own space. Each other
            // operation named: exhaustive, no wildcard (a new one must be placed).
            MemOp::MovAddr
            | MemOp::Pack
            | MemOp::Unpack
            | MemOp::Ld
            | MemOp::Ldu
            | MemOp::St
            | MemOp::Atom(_)
            | MemOp::Red(_)
            | MemOp::Ldmatrix { .. }
            | MemOp::Stmatrix { .. }
            | MemOp::Wmma(_)
            | MemOp::Prefetch(_) => src[l],
        };
        d[l] = v & super::width_mask(bits);
    }
}

/// `mov` with a brace list: element `k` is bits `k * e .. (k + 1) * e` of
/// the whole register (`e` the element width).
pub(super) fn pack(m: &Mem, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let e = m.element_bits();
    let n = usize::from(m.vec);
    if m.op == MemOp::Pack {
        let parts: [[u64; WARP_SIZE]; 4] =
            std::array::from_fn(|k| read_operand(m.vals[k], e, ctx, regs));
        let d = regs.get_mut(m.d[0]);
        for (l, v) in d.iter_mut().enumerate() {
            if exec >> l & 1 == 1 {
                *v = (0..n).fold(0, |acc, k| acc | parts[k][l] << (e * k as u32));
            }
        }
    } else {
        let whole = read_operand(m.vals[0], m.ty.bits(), ctx, regs);
        for k in 0..n {
            let d = regs.get_mut(m.d[k]);
            for (l, v) in d.iter_mut().enumerate() {
                if exec >> l & 1 == 1 {
                    *v = whole[l] >> (e * k as u32) & super::width_mask(e);
                }
            }
        }
    }
}

/// Loads, stores and atomics, lane by lane in ascending order. `ld` and
/// `st` go to the memory a warp at a time ([`Memory::load_lanes`],
/// [`Memory::store_lanes`]) for the lanes below the first misaligned one,
/// whose fault (if none of theirs faults first) is the instruction's:
/// the accesses and the first fault are those of the lane-by-lane loop.
/// `addrs`: the lanes of `exec`'s addresses.
fn access(
    m: &Mem,
    ctx: &ExecCtx,
    regs: &mut WarpRegs,
    exec: u32,
    mem: &mut dyn Memory,
    addrs: &[u64; WARP_SIZE],
) -> Result<(), LaneFault> {
    let eb = m.ty.bytes();
    let n = usize::from(m.vec);
    let bits = m.ty.bits().max(8);
    let read = |k: usize| read_operand(m.vals[k], bits.max(16), ctx, regs);
    // Lanes whose address is not a multiple of the access size (a power
    // of two, 1 to 8 bytes times 1, 2 or 4 elements: a mask, no division).
    let size = u64::from(eb * u32::from(m.vec));
    let mut misaligned = 0u32;
    if size.is_power_of_two() {
        // Usually none: one OR over the lanes says so.
        let low = addrs.iter().fold(0, |o, &a| o | a) & (size - 1);
        for (l, &a) in addrs.iter().enumerate().filter(|_| low != 0) {
            misaligned |= u32::from(a & (size - 1) != 0) << l;
        }
    } else {
        for (l, &a) in addrs.iter().enumerate() {
            misaligned |= u32::from(!a.is_multiple_of(size)) << l;
        }
    }
    misaligned &= exec;
    let first_bad = misaligned.trailing_zeros();
    let before = exec & 1u32.checked_shl(first_bad).map_or(u32::MAX, |b| b - 1);
    let misaligned_fault = || LaneFault {
        kind: FaultKind::Misaligned,
        addr: addrs[first_bad as usize],
        lane: first_bad,
    };
    match m.op {
        MemOp::Ld | MemOp::Ldu => {
            // Only the rows the load fills: a scalar load's one row is
            // 256 bytes to clear, not the four rows' 1 KiB.
            let bad = (misaligned != 0).then(misaligned_fault);
            match n {
                1 => load_rows::<1>(m, regs, exec, mem, addrs, bad)?,
                2 => load_rows::<2>(m, regs, exec, mem, addrs, bad)?,
                _ => load_rows::<4>(m, regs, exec, mem, addrs, bad)?,
            }
        }
        MemOp::St => {
            let mut vals = [[0u64; WARP_SIZE]; 4];
            for (k, v) in vals.iter_mut().enumerate().take(n) {
                *v = read(k);
            }
            let a = LaneAccess {
                space: m.space,
                lanes: before,
                addrs,
                bytes: eb,
                n,
            };
            mem.store_lanes(a, &vals[..n])?;
            if misaligned != 0 {
                return Err(misaligned_fault());
            }
        }
        MemOp::Atom(op) | MemOp::Red(op) => {
            let (b, c) = (read(0), read(1));
            let mut loaded = [[0u64; WARP_SIZE]; 1];
            for l in 0..WARP_SIZE {
                if exec >> l & 1 == 0 {
                    continue;
                }
                let lane = l as u32;
                if misaligned >> l & 1 == 1 {
                    return Err(misaligned_fault());
                }
                for k in 0..n {
                    let addr = addrs[l].wrapping_add((k as u64) * u64::from(eb));
                    let err = |kind| LaneFault { kind, addr, lane };
                    let a = Access::new(m.space, lane, addr, eb);
                    let old = mem.load(a).map_err(err)?;
                    let new = atom_lane(op, m.ty, m.space, old, b[l], c[l]);
                    mem.store(a, new).map_err(err)?;
                    loaded[0][l] = extend(m.ty, old);
                }
            }
            write_dests(m, regs, exec, &loaded);
        }
        // Each other operation named: exhaustive, no wildcard (a new one must be placed).
        MemOp::Cvta { .. }
        | MemOp::MovAddr
        | MemOp::Pack
        | MemOp::Unpack
        | MemOp::Ldmatrix { .. }
        | MemOp::Stmatrix { .. }
        | MemOp::Wmma(_)
        | MemOp::Prefetch(_) => {}
    }
    Ok(())
}

/// A load's `R` elements (its vector size, `m.vec`) for the lanes of
/// `exec`, extended by the type, into the destinations; with a
/// `misaligned` lane's fault, the lanes below it are loaded (the first
/// fault of theirs is returned), then that fault, the destinations
/// untouched. Compiled per vector size: a scalar load clears and copies
/// one row, not four.
#[inline(always)]
fn load_rows<const R: usize>(
    m: &Mem,
    regs: &mut WarpRegs,
    exec: u32,
    mem: &mut dyn Memory,
    addrs: &[u64; WARP_SIZE],
    misaligned: Option<LaneFault>,
) -> Result<(), LaneFault> {
    let mut rows = [[0u64; WARP_SIZE]; R];
    let before = misaligned.map_or(exec, |f| exec & ((1u32 << f.lane) - 1));
    let a = LaneAccess {
        space: m.space,
        lanes: before,
        addrs,
        bytes: m.ty.bytes(),
        n: R,
    };
    mem.load_lanes(a, &mut rows)?;
    if let Some(f) = misaligned {
        return Err(f);
    }
    if matches!(m.ty, MemType::S(_)) {
        for vals in &mut rows {
            for v in vals.iter_mut() {
                *v = extend(m.ty, *v);
            }
        }
    }
    for (&r, vals) in m.d[..R].iter().zip(&rows) {
        blend(regs.get_mut(r), exec, vals);
    }
    Ok(())
}

/// Writes the lanes of `exec` of each destination from `loaded`.
fn write_dests(m: &Mem, regs: &mut WarpRegs, exec: u32, loaded: &[[u64; WARP_SIZE]]) {
    for (&r, vals) in m.d[..m.dests()].iter().zip(loaded) {
        blend(regs.get_mut(r), exec, vals);
    }
}

/// `ldmatrix`/`stmatrix` with each lane's row address in `addrs` (every
/// lane's, whether it executes or not: the instruction is `.aligned`),
/// writing or storing the fragments of the lanes of `exec`. A row address
/// that is not 16-byte aligned faults, as the lane giving it.
fn matrix_access(
    m: &Mem,
    regs: &mut WarpRegs,
    exec: u32,
    mem: &mut dyn Memory,
    addrs: &[u64; WARP_SIZE],
) -> Result<(), LaneFault> {
    let n = usize::from(m.vec);
    let rows = super::matrix::row_lanes(m.vec);
    for (l, &a) in addrs.iter().enumerate() {
        if rows >> l & 1 == 1 && a % 16 != 0 {
            return Err(LaneFault {
                kind: FaultKind::Misaligned,
                addr: a,
                lane: l as u32,
            });
        }
    }
    // `execute` calls this for these two alone.
    let (MemOp::Ldmatrix { trans } | MemOp::Stmatrix { trans }) = m.op else {
        return Ok(());
    };
    let load = matches!(m.op, MemOp::Ldmatrix { .. });
    for j in 0..n {
        if load {
            let mut out = [0u64; WARP_SIZE];
            for (l, o) in out.iter_mut().enumerate() {
                if exec >> l & 1 == 0 {
                    continue;
                }
                for h in 0..2 {
                    let (src, off) = super::matrix::matrix_element(j, l, h, trans);
                    let addr = addrs[src].wrapping_add(off);
                    let lane = src as u32;
                    let a = Access::new(m.space, lane, addr, 2);
                    let v = mem.load(a).map_err(|kind| LaneFault { kind, addr, lane })?;
                    *o |= (v & 0xffff) << (16 * h);
                }
            }
            blend(regs.get_mut(m.d[j]), exec, &out);
        } else {
            let Operand::Reg(r) = m.vals[j] else {
                continue;
            };
            let vals = *regs.get(r);
            for (l, &v) in vals.iter().enumerate() {
                if exec >> l & 1 == 0 {
                    continue;
                }
                for h in 0..2 {
                    let (dst, off) = super::matrix::matrix_element(j, l, h, trans);
                    let addr = addrs[dst].wrapping_add(off);
                    let lane = dst as u32;
                    mem.store(Access::new(m.space, lane, addr, 2), v >> (16 * h) & 0xffff)
                        .map_err(|kind| LaneFault { kind, addr, lane })?;
                }
            }
        }
    }
    Ok(())
}
