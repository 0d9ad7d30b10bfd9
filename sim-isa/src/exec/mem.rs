//! The memory family's semantics: addresses, loads with their extension,
//! stores, atomics, `cvta` and `mov` of an address, over a memory the caller
//! provides ([`Memory`]). The atomic operations are scalar functions
//! ([`atom_lane`]); lanes access memory in ascending lane order, so of two
//! lanes storing to one address the higher lane's value stays, and atomics
//! from one warp apply lane by lane.

use super::lanes::{exec_mask, read_operand};
use super::{ExecCtx, WarpRegs, WARP_SIZE};
use crate::inst::{AddrBase, AtomOp, Instruction, Mem, MemOp, MemType, Op, Space};

/// Why an access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// No allocation holds the bytes.
    OutOfBounds,
    /// The address is not a multiple of the access size.
    Misaligned,
    /// A variable or parameter the memory does not know.
    UnknownVariable,
    /// A store to read-only memory (`.param` of a kernel, `.const`).
    ReadOnly,
}

/// A failed access: what, where, by which lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemFault {
    /// What went wrong.
    pub kind: FaultKind,
    /// The space addressed.
    pub space: Space,
    /// The address (in `space`; generic for [`Space::Generic`]).
    pub addr: u64,
    /// Bytes accessed.
    pub bytes: u32,
    /// The lane.
    pub lane: u32,
}

impl std::fmt::Display for MemFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            FaultKind::OutOfBounds => "out-of-bounds",
            FaultKind::Misaligned => "misaligned",
            FaultKind::UnknownVariable => "unknown variable in",
            FaultKind::ReadOnly => "read-only",
        };
        let space = match self.space {
            Space::Generic => "generic",
            s => s.name(),
        };
        write!(
            f,
            "{what} {}-byte {space} access at 0x{:x} by lane {}",
            self.bytes, self.addr, self.lane
        )
    }
}

/// The memory a warp's loads and stores reach, provided by the caller (a
/// launch's buffers, a host simulator's memory). Addresses are per space;
/// [`Space::Generic`] addresses are the caller's to map onto windows.
pub trait Memory {
    /// Reads `bytes` (1, 2, 4 or 8) at `addr`, little-endian, for `lane`
    /// (local memory is per thread).
    fn load(&mut self, space: Space, lane: u32, addr: u64, bytes: u32) -> Result<u64, FaultKind>;
    /// Writes the low `bytes` of `value` at `addr`.
    fn store(
        &mut self,
        space: Space,
        lane: u32,
        addr: u64,
        bytes: u32,
        value: u64,
    ) -> Result<(), FaultKind>;
    /// The space and address of variable (or parameter) `id` (see
    /// [`crate::Symbols::intern_var`]).
    fn var(&self, id: u32) -> Result<(Space, u64), FaultKind>;
    /// `cvta.space`: an address in `space` as a generic address.
    fn to_generic(&self, space: Space, addr: u64) -> u64;
    /// `cvta.to.space`: a generic address as an address in `space`.
    fn generic_to_space(&self, space: Space, addr: u64) -> u64;
}

/// The per-lane addresses one memory instruction touched, for a timing
/// model (coalescing, caches). `lanes` are the lanes that accessed memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accesses {
    /// Lanes that accessed memory.
    pub lanes: u32,
    /// Each lane's first byte (lanes outside `lanes` are 0).
    pub addrs: [u64; WARP_SIZE],
    /// Bytes each lane accessed (all elements of a vector).
    pub bytes: u32,
    /// The space the instruction named.
    pub space: Space,
}

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
    let Op::Mem(m) = &inst.op else {
        super::execute(inst, ctx, regs, active);
        return Ok(None);
    };
    regs.ensure(super::regs_needed(inst));
    let exec = exec_mask(inst.guard, regs, active);
    let ebytes = m.ty.bytes();
    let fault = |kind, addr, lane| MemFault {
        kind,
        space: m.space,
        addr,
        bytes: ebytes,
        lane,
    };
    // Base addresses for every lane (a variable's is the same in all).
    let base = match m.addr.base {
        AddrBase::Reg(r) => {
            let bits = m.space.addr_bits();
            read_operand(crate::inst::Operand::Reg(r), bits, ctx, regs)
        }
        AddrBase::Var(id) => [mem.var(id).map_err(|k| fault(k, 0, 0))?.1; WARP_SIZE],
        AddrBase::Abs => [0; WARP_SIZE],
    };
    let addr = |l: usize| base[l].wrapping_add(m.addr.offset as u64);
    match m.op {
        MemOp::Cvta { .. } | MemOp::MovAddr => {
            cvta(m, ctx, regs, exec, mem, &addr);
            Ok(None)
        }
        MemOp::Pack | MemOp::Unpack => {
            pack(m, ctx, regs, exec);
            Ok(None)
        }
        MemOp::Ld | MemOp::Ldu | MemOp::St | MemOp::Atom(_) | MemOp::Red(_) => {
            let mut out = Accesses {
                lanes: exec,
                addrs: [0; WARP_SIZE],
                bytes: ebytes * u32::from(m.vec),
                space: m.space,
            };
            access(m, ctx, regs, exec, mem, &addr, &mut out).map_err(|(k, a, l)| fault(k, a, l))?;
            Ok(Some(out))
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
    addr: &dyn Fn(usize) -> u64,
) {
    let bits = m.ty.bits();
    let src = if m.addr.base == AddrBase::Abs {
        read_operand(m.vals[0], bits, ctx, regs)
    } else {
        std::array::from_fn(addr)
    };
    let d = regs.get_mut(m.d[0]);
    for l in 0..WARP_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let v = match m.op {
            MemOp::Cvta { to: true } => mem.generic_to_space(m.space, src[l]),
            MemOp::Cvta { to: false } => mem.to_generic(m.space, src[l]),
            // `mov` of a variable: its address in its own space.
            MemOp::MovAddr
            | MemOp::Pack
            | MemOp::Unpack
            | MemOp::Ld
            | MemOp::Ldu
            | MemOp::St
            | MemOp::Atom(_)
            | MemOp::Red(_) => src[l],
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

/// Loads, stores and atomics, lane by lane in ascending order.
fn access(
    m: &Mem,
    ctx: &ExecCtx,
    regs: &mut WarpRegs,
    exec: u32,
    mem: &mut dyn Memory,
    addr: &dyn Fn(usize) -> u64,
    out: &mut Accesses,
) -> Result<(), (FaultKind, u64, u32)> {
    let eb = m.ty.bytes();
    let bits = m.ty.bits().max(8);
    let vals: [[u64; WARP_SIZE]; 4] =
        std::array::from_fn(|k| read_operand(m.vals[k], bits.max(16), ctx, regs));
    let mut loaded = [[0u64; WARP_SIZE]; 4];
    for l in 0..WARP_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let a = addr(l);
        out.addrs[l] = a;
        let lane = l as u32;
        if !a.is_multiple_of(u64::from(eb * u32::from(m.vec))) {
            return Err((FaultKind::Misaligned, a, lane));
        }
        for k in 0..usize::from(m.vec) {
            let ak = a.wrapping_add((k as u64) * u64::from(eb));
            let err = |e| (e, ak, lane);
            match m.op {
                MemOp::Ld | MemOp::Ldu => {
                    loaded[k][l] = extend(m.ty, mem.load(m.space, lane, ak, eb).map_err(err)?);
                }
                MemOp::St => mem.store(m.space, lane, ak, eb, vals[k][l]).map_err(err)?,
                MemOp::Atom(op) | MemOp::Red(op) => {
                    let old = mem.load(m.space, lane, ak, eb).map_err(err)?;
                    let new = atom_lane(op, m.ty, m.space, old, vals[0][l], vals[1][l]);
                    mem.store(m.space, lane, ak, eb, new).map_err(err)?;
                    loaded[0][l] = extend(m.ty, old);
                }
                MemOp::Cvta { .. } | MemOp::MovAddr | MemOp::Pack | MemOp::Unpack => {}
            }
        }
    }
    for (&r, vals) in m.d[..m.dests()].iter().zip(&loaded) {
        let d = regs.get_mut(r);
        for (l, (d, &v)) in d.iter_mut().zip(vals).enumerate() {
            if exec >> l & 1 == 1 {
                *d = v;
            }
        }
    }
    Ok(())
}
