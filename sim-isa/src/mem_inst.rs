//! The memory and warp families: `ld`/`ldu`/`st`/`atom`/`red`/`cvta` and
//! `mov` of a variable's address (one [`Mem`] shape), and the warp-wide
//! operations `bar`/`barrier`/`membar`/`fence`/`shfl.sync`/`vote.sync`/
//! `activemask` ([`WarpInst`]). Declared as data in [`MEM_WORDS`] and
//! [`WARP_WORDS`]; parsed by `parse/mem.rs`, run by `exec/mem.rs` (memory
//! through the caller's [`crate::exec::Memory`]) and `exec/warp_ops.rs`.

use crate::operand::{word_of, Operand, PredSrc, RegId};

// sim-kernel's `RecSpace` keeps a list of its own (one line, its
// recorded tags), so that a recording's format does not move with this.
/// A state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// No space modifier: a generic address.
    Generic,
    /// `.global`
    Global,
    /// `.shared` (and `.shared::cta`)
    Shared,
    /// `.local`
    Local,
    /// `.param` (kernel parameters)
    Param,
    /// `.const`
    Const,
}

impl Space {
    /// Every space with a modifier word, and the word.
    pub const WORDS: [(Space, &'static str); 5] = [
        (Space::Global, "global"),
        (Space::Shared, "shared"),
        (Space::Local, "local"),
        (Space::Param, "param"),
        (Space::Const, "const"),
    ];

    /// Width of an address register in this space: 32 bits for the
    /// windows that fit in 32 (shared, local, param, const), 64 otherwise.
    pub fn addr_bits(self) -> u32 {
        match self {
            Space::Generic | Space::Global => 64,
            Space::Shared | Space::Local | Space::Param | Space::Const => 32,
        }
    }

    /// The modifier word (`""` for generic).
    pub fn name(self) -> &'static str {
        match self {
            Space::Generic => "",
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Param => "param",
            Space::Const => "const",
        }
    }
}

/// The value type of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemType {
    /// Raw bits of a width (`.b8` ... `.b128` is not supported).
    B(u8),
    /// Unsigned of a width.
    U(u8),
    /// Signed of a width: loads sign-extend.
    S(u8),
    /// `.f16`
    F16,
    /// `.f16x2`
    F16x2,
    /// `.f32`
    F32,
    /// `.f64`
    F64,
}

impl MemType {
    /// Every type word and its meaning.
    pub const WORDS: [(&'static str, MemType); 17] = [
        ("b8", MemType::B(8)),
        ("b16", MemType::B(16)),
        ("b32", MemType::B(32)),
        ("b64", MemType::B(64)),
        ("u8", MemType::U(8)),
        ("u16", MemType::U(16)),
        ("u32", MemType::U(32)),
        ("u64", MemType::U(64)),
        ("s8", MemType::S(8)),
        ("s16", MemType::S(16)),
        ("s32", MemType::S(32)),
        ("s64", MemType::S(64)),
        ("f16", MemType::F16),
        ("f16x2", MemType::F16x2),
        ("f32", MemType::F32),
        ("f64", MemType::F64),
        ("pred", MemType::B(1)),
    ];

    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            MemType::B(b) | MemType::U(b) | MemType::S(b) => u32::from(b),
            MemType::F16 => 16,
            MemType::F16x2 | MemType::F32 => 32,
            MemType::F64 => 64,
        }
    }

    /// Bytes one element occupies in memory.
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// The type word.
    pub fn name(self) -> &'static str {
        word_of(&MemType::WORDS, self, "b32")
    }
}

/// Where an address comes from: `[%rd1+8]`, `[name+4]`, `[64]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrBase {
    /// A register holding the address.
    Reg(RegId),
    /// A variable or parameter, by its index in [`crate::Symbols::var_name`].
    Var(u32),
    /// An absolute address: the offset alone.
    Abs,
}

/// A memory operand: base plus a byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Address {
    /// The base.
    pub base: AddrBase,
    /// Byte offset added to the base.
    pub offset: i64,
}

/// An atomic operation (`atom`/`red`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    /// `.add`
    Add,
    /// `.min`
    Min,
    /// `.max`
    Max,
    /// `.exch`
    Exch,
    /// `.cas` (compare `b`, swap in `c`)
    Cas,
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
    /// `.inc` (wraps to 0 past `b`)
    Inc,
    /// `.dec` (wraps to `b` at 0 or above `b`)
    Dec,
}

impl AtomOp {
    /// Every operation and its word.
    pub const WORDS: [(&'static str, AtomOp); 10] = [
        ("add", AtomOp::Add),
        ("min", AtomOp::Min),
        ("max", AtomOp::Max),
        ("exch", AtomOp::Exch),
        ("cas", AtomOp::Cas),
        ("and", AtomOp::And),
        ("or", AtomOp::Or),
        ("xor", AtomOp::Xor),
        ("inc", AtomOp::Inc),
        ("dec", AtomOp::Dec),
    ];

    /// The word.
    pub fn name(self) -> &'static str {
        word_of(&AtomOp::WORDS, self, "add")
    }
}

/// What a [`Mem`] instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemOp {
    /// `ld`
    Ld,
    /// `ldu`
    Ldu,
    /// `st`
    St,
    /// `atom` (returns the old value in `d[0]`)
    Atom(AtomOp),
    /// `red` (no result)
    Red(AtomOp),
    /// `cvta.space` (`to: false`, space address to generic) or
    /// `cvta.to.space` (`to: true`); the source is `vals[0]` or a variable in `addr`
    Cvta {
        /// `.to`
        to: bool,
    },
    /// `mov.u32/u64 d, name`: the address of a variable in its own space.
    MovAddr,
    /// `mov.b32/b64 d, {a, b}` (or four elements): register packing, element
    /// 0 in the low bits. Not a memory access; it shares this family's
    /// vector-operand syntax.
    Pack,
    /// `mov.b32/b64 {d0, d1}, a`: the reverse of [`MemOp::Pack`].
    Unpack,
    /// `ldmatrix.sync.aligned.m8n8.xN{.trans}{.shared}.b16 {d..}, [a]`:
    /// a warp-wide load of `vec` 8x8 matrices of 16-bit elements, lane `l`
    /// naming row `l % 8` of matrix `l / 8` (`exec/matrix.rs`).
    Ldmatrix {
        /// `.trans`
        trans: bool,
    },
    /// `stmatrix.sync.aligned.m8n8.xN{.trans}{.shared}.b16 [a], {b..}`:
    /// the reverse of [`MemOp::Ldmatrix`] (sm_90).
    Stmatrix {
        /// `.trans`
        trans: bool,
    },
    /// `wmma.load.{a,b,c}` / `wmma.store.d` (`wmma_inst.rs`): a warp-wide
    /// load or store of a 16 x 16 matrix's fragments.
    Wmma(crate::wmma_inst::WmmaMem),
    /// `prefetch{.space}.level [a]` / `prefetchu.L1 [a]`: a hint to bring
    /// the line holding `a` into a cache; no register or memory value
    /// changes, and no address faults (docs/prefetch.md).
    Prefetch(PrefetchLevel),
}

/// The cache level a [`MemOp::Prefetch`] names (PTX ISA 9.7.9.15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrefetchLevel {
    /// `.L1`
    L1,
    /// `.L2`
    L2,
    /// `.L2::evict_last` (PTX 7.4, sm_80)
    L2EvictLast,
    /// `.L2::evict_normal` (PTX 7.4, sm_80)
    L2EvictNormal,
    /// `prefetchu.L1`: the uniform cache, from a generic address.
    Uniform,
    /// `prefetch{.const,.param}.tensormap` (sm_90, PTX 8.0): the line of a
    /// tensor map (for `cp.async.bulk.tensor`); a hint like the others.
    Tensormap,
}

impl PrefetchLevel {
    /// Every level and its word, as `prefetch` writes it (`prefetchu`'s
    /// `.L1` is [`PrefetchLevel::Uniform`]).
    pub const WORDS: [(&'static str, PrefetchLevel); 4] = [
        ("L1", PrefetchLevel::L1),
        ("L2", PrefetchLevel::L2),
        ("L2::evict_last", PrefetchLevel::L2EvictLast),
        ("L2::evict_normal", PrefetchLevel::L2EvictNormal),
    ];

    /// The level word.
    pub fn name(self) -> &'static str {
        match self {
            PrefetchLevel::L1 | PrefetchLevel::Uniform => "L1",
            PrefetchLevel::L2 => "L2",
            PrefetchLevel::L2EvictLast => "L2::evict_last",
            PrefetchLevel::L2EvictNormal => "L2::evict_normal",
            PrefetchLevel::Tensormap => "tensormap",
        }
    }
}

impl MemOp {
    /// Whether this is `wmma.store.d`.
    pub fn is_wmma_store(self) -> bool {
        matches!(self, MemOp::Wmma(w) if w.is_store())
    }

    /// The opcode word (`ld`, `atom`, `mov` for an address or a pack).
    pub fn word(self) -> &'static str {
        match self {
            MemOp::Ld => "ld",
            MemOp::Ldu => "ldu",
            MemOp::St => "st",
            MemOp::Atom(_) => "atom",
            MemOp::Red(_) => "red",
            MemOp::Cvta { .. } => "cvta",
            MemOp::MovAddr | MemOp::Pack | MemOp::Unpack => "mov",
            MemOp::Ldmatrix { .. } => "ldmatrix",
            MemOp::Stmatrix { .. } => "stmatrix",
            MemOp::Prefetch(PrefetchLevel::Uniform) => "prefetchu",
            MemOp::Prefetch(_) => "prefetch",
            MemOp::Wmma(w) => {
                if w.is_store() {
                    "wmma.store"
                } else {
                    "wmma.load"
                }
            }
        }
    }
}

/// Modifier words a memory instruction keeps only to print them back
/// (cache operators, `.volatile`, memory-order and scope words, `.nc`):
/// they do not change values here. Up to four, as indices into [`QUAL_WORDS`].
pub type Quals = [u8; 4];

/// Accepted qualifier words, in the order they print (index 0 is "none").
/// Which combinations an instruction takes is `parse/mem.rs`'s `check_quals`
/// (ptxas 13.0's verdicts, `tests/data/mem-ptxas.txt`).
pub const QUAL_WORDS: [&str; 28] = [
    "",
    "volatile",
    "relaxed",
    "acquire",
    "release",
    "acq_rel",
    "weak",
    "cta",
    "gpu",
    "sys",
    "nc",
    "ca",
    "cg",
    "cs",
    "lu",
    "cv",
    "wb",
    "wt",
    "L1::evict_normal",
    "L1::evict_last",
    "L1::evict_first",
    "L1::no_allocate",
    "cluster",
    "mmio",
    "noftz",
    "L2::64B",
    "L2::128B",
    "L2::256B",
];

/// A memory instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mem {
    /// The operation.
    pub op: MemOp,
    /// The state space (for `cvta`, the space converted to or from).
    pub space: Space,
    /// Element type.
    pub ty: MemType,
    /// Elements per access: 1, 2 or 4 (`.v2`, `.v4`).
    pub vec: u8,
    /// Destinations: `ld`/`ldu` (`vec` of them), `atom`, `cvta`, `mov` (`d[0]`).
    pub d: [RegId; 4],
    /// Sources: `st` values (`vec` of them); `atom`/`red` `b` (and `c` for
    /// `cas`) in `vals[0..2]`; `cvta`'s register source in `vals[0]`.
    pub vals: [Operand; 4],
    /// The memory operand (`cvta`/`mov`: the variable, or `Abs` when the
    /// source is a register).
    pub addr: Address,
    /// Words kept for printing.
    pub quals: Quals,
}

impl Mem {
    /// Operation `op` on `space`, `vec` elements of type `ty`, with no
    /// registers, address 0 and no qualifier words yet: what the parsers
    /// start from.
    pub(crate) fn new(op: MemOp, space: Space, ty: MemType, vec: u8) -> Mem {
        Mem {
            op,
            space,
            ty,
            vec,
            d: [RegId(0); 4],
            vals: [Operand::Imm(0); 4],
            addr: Address {
                base: AddrBase::Abs,
                offset: 0,
            },
            quals: [0; 4],
        }
    }

    /// Number of destination registers.
    pub fn dests(&self) -> usize {
        match self.op {
            MemOp::Ld | MemOp::Ldu | MemOp::Unpack | MemOp::Ldmatrix { .. } => {
                usize::from(self.vec)
            }
            MemOp::Atom(_) | MemOp::Cvta { .. } | MemOp::MovAddr | MemOp::Pack => 1,
            MemOp::St | MemOp::Red(_) | MemOp::Stmatrix { .. } | MemOp::Prefetch(_) => 0,
            // Fragment registers 4-7 are `hi` (`Mem::wmma_regs`).
            MemOp::Wmma(w) if w.is_store() => 0,
            MemOp::Wmma(_) => usize::from(self.vec),
        }
    }

    /// Number of source values in `vals`.
    pub fn sources(&self) -> usize {
        match self.op {
            MemOp::St | MemOp::Pack | MemOp::Stmatrix { .. } => usize::from(self.vec),
            MemOp::Unpack => 1,
            MemOp::Atom(AtomOp::Cas) | MemOp::Red(AtomOp::Cas) => 2,
            MemOp::Atom(_) | MemOp::Red(_) => 1,
            MemOp::Cvta { .. } => usize::from(self.addr.base == AddrBase::Abs),
            MemOp::Ld
            | MemOp::Ldu
            | MemOp::MovAddr
            | MemOp::Ldmatrix { .. }
            | MemOp::Prefetch(_) => 0,
            MemOp::Wmma(w) if w.is_store() => usize::from(self.vec),
            MemOp::Wmma(_) => 0,
        }
    }

    /// A `wmma.load`/`wmma.store`'s fragment registers 4-7 (`hi`, beyond
    /// `d`/`vals`) and stride register, if any: what `dests`/`sources`
    /// leave out. Empty for every other instruction.
    pub fn wmma_extra(&self) -> (&[RegId], Option<RegId>) {
        let MemOp::Wmma(w) = &self.op else {
            return (&[], None);
        };
        let stride = match w.stride {
            crate::wmma_inst::WmmaStride::Reg(r) => Some(r),
            crate::wmma_inst::WmmaStride::Default | crate::wmma_inst::WmmaStride::Imm(_) => None,
        };
        (&w.hi[..w.regs().saturating_sub(4)], stride)
    }

    /// Whether the instruction reads or writes memory (not `cvta`/`mov`).
    pub fn accesses_memory(&self) -> bool {
        match self.op {
            MemOp::Cvta { .. } | MemOp::MovAddr | MemOp::Pack | MemOp::Unpack => false,
            // Each other operation named: exhaustive, no wildcard (a new one must be placed).
            MemOp::Ld
            | MemOp::Ldu
            | MemOp::St
            | MemOp::Atom(_)
            | MemOp::Red(_)
            | MemOp::Ldmatrix { .. }
            | MemOp::Stmatrix { .. }
            | MemOp::Wmma(_)
            | MemOp::Prefetch(_) => true,
        }
    }

    /// Width in bits of one element of a pack or unpack.
    pub fn element_bits(&self) -> u32 {
        self.ty.bits() / u32::from(self.vec.max(1))
    }

    /// Width in bits of the address register (`cvta`/`mov`: of the result).
    pub fn addr_bits(&self) -> u32 {
        if self.accesses_memory() {
            64
        } else {
            self.ty.bits()
        }
    }
}

/// `shfl.sync` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// `.up`
    Up,
    /// `.down`
    Down,
    /// `.bfly`
    Bfly,
    /// `.idx`
    Idx,
}

/// `vote.sync` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// `.all.pred`
    All,
    /// `.any.pred`
    Any,
    /// `.uni.pred`
    Uni,
    /// `.ballot.b32`
    Ballot,
}

/// `redux.sync` operations (`.add`, `.min`, `.max` on `.u32`/`.s32`;
/// `.and`, `.or`, `.xor` on `.b32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxOp {
    /// `.add` (either type: the 32-bit sum is the same).
    Add,
    /// `.min.u32`
    MinU,
    /// `.min.s32`
    MinS,
    /// `.max.u32`
    MaxU,
    /// `.max.s32`
    MaxS,
    /// `.and.b32`
    And,
    /// `.or.b32`
    Or,
    /// `.xor.b32`
    Xor,
}

/// `bar.red` / `barrier.red` reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarRedOp {
    /// `.popc.u32`: how many threads' predicate is true.
    Popc,
    /// `.and.pred`: whether every thread's is.
    And,
    /// `.or.pred`: whether any thread's is.
    Or,
}

/// What a [`WarpInst`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WarpOp {
    /// `bar.sync a{, b}` / `barrier.sync{.aligned} a{, b}` / `bar.cta.sync`:
    /// wait until the CTA's threads (or `b` of them) arrive at barrier `a`.
    BarSync,
    /// `bar.arrive a, b` / `barrier.arrive`: arrive without waiting.
    BarArrive,
    /// `membar.{cta,gl,sys}` / `fence.{sc,acq_rel}.{cta,gpu,sys}`: orders
    /// memory; a functional simulation has nothing to order.
    Fence,
    /// `shfl.sync.mode.b32 d{|p}, a, b, c, membermask`
    Shfl(ShflMode),
    /// `vote.sync.mode d, {!}a, membermask`
    Vote(VoteMode),
    /// `activemask.b32 d`
    Activemask,
    /// `bar.warp.sync membermask`: the named lanes wait for one another. A
    /// warp executes its lanes together here, so it has no register effect.
    WarpSync,
    /// `redux.sync.op.type d, a, membermask`
    Redux(ReduxOp),
    /// `match.{any,all}.sync.{b32,b64} d{|p}, a, membermask` (`p`: `.all` only).
    Match {
        /// `.all` (else `.any`).
        all: bool,
        /// `.b64` (else `.b32`).
        wide: bool,
    },
    /// `bar{.cta}.red.popc.u32 d, a{, b}, {!}c` and `.and/.or.pred`, and
    /// `barrier{.cta}.red`: a block barrier that reduces `c` over the
    /// threads arriving; a launch's scheduler delivers the result.
    BarRed(BarRedOp),
    /// `nanosleep.u32 t`: sleeps about `t` ns; no register effect.
    Nanosleep,
    /// `elect.sync d|p, membermask` (`d` may be the sink `_`).
    Elect,
    /// `movmatrix.sync.aligned.m8n8.trans.b16 d, a`: the 8x8 matrix of
    /// 16-bit elements whose fragments the lanes hold in `a`, transposed.
    Movmatrix,
    /// `bra`, `ret`, `exit` as a timing model sees them: an issue slot and
    /// no register effect. Control flow itself is the caller's (sim-module
    /// reads these statements); the parser never produces this.
    Control,
}

/// A warp-wide instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WarpInst {
    /// The operation.
    pub op: WarpOp,
    /// The opcode with its modifiers as written (`bar.sync`, `barrier.sync.aligned`,
    /// `membar.gl`, `fence.acq_rel.gpu`), as an index into [`WARP_WORDS`].
    pub word: u8,
    /// Destination (`shfl`, `vote`, `activemask`, `redux`, `match`,
    /// `bar.red`, `elect`'s lane; `None` for `elect`'s sink `_`).
    pub d: Option<RegId>,
    /// `shfl`'s, `match.all`'s optional and `elect`'s predicate destination.
    pub p: Option<RegId>,
    /// `shfl`: `a, b, c`; `bar`, `bar.red`: barrier id and thread count in
    /// `a, b`; `redux`, `match`, `nanosleep`: `a`.
    pub srcs: [Operand; 3],
    /// `vote`'s and `bar.red`'s predicate source.
    pub pred: PredSrc,
    /// Member mask (`shfl`, `vote`, `bar.warp.sync`, `redux`, `match`,
    /// `elect`); all ones when absent.
    pub mask: Operand,
    /// Number of operands written (to print `bar.sync 0` vs `bar.sync 0, 64`);
    /// `bar.red`: of `a, b` only.
    pub nsrc: u8,
}

/// Warp-family opcodes with their modifiers in the order they print, with
/// their operation. The parser also takes the orders ptxas takes
/// (`fence.gpu.acq_rel`, `barrier.aligned.sync`) and prints them as here.
pub const WARP_WORDS: [(&str, WarpOp); 88] = [
    ("bar.sync", WarpOp::BarSync),
    ("bar.cta.sync", WarpOp::BarSync),
    ("barrier.sync", WarpOp::BarSync),
    ("barrier.sync.aligned", WarpOp::BarSync),
    ("barrier.cta.sync", WarpOp::BarSync),
    ("barrier.cta.sync.aligned", WarpOp::BarSync),
    ("bar.arrive", WarpOp::BarArrive),
    ("bar.cta.arrive", WarpOp::BarArrive),
    ("barrier.arrive", WarpOp::BarArrive),
    ("barrier.arrive.aligned", WarpOp::BarArrive),
    ("membar.cta", WarpOp::Fence),
    ("membar.gl", WarpOp::Fence),
    ("membar.sys", WarpOp::Fence),
    ("fence.sc.cta", WarpOp::Fence),
    ("fence.sc.gpu", WarpOp::Fence),
    ("fence.sc.sys", WarpOp::Fence),
    ("fence.acq_rel.cta", WarpOp::Fence),
    ("fence.acq_rel.gpu", WarpOp::Fence),
    ("fence.acq_rel.sys", WarpOp::Fence),
    ("shfl.sync.up.b32", WarpOp::Shfl(ShflMode::Up)),
    ("shfl.sync.down.b32", WarpOp::Shfl(ShflMode::Down)),
    ("shfl.sync.bfly.b32", WarpOp::Shfl(ShflMode::Bfly)),
    ("shfl.sync.idx.b32", WarpOp::Shfl(ShflMode::Idx)),
    ("vote.sync.all.pred", WarpOp::Vote(VoteMode::All)),
    ("vote.sync.any.pred", WarpOp::Vote(VoteMode::Any)),
    ("vote.sync.uni.pred", WarpOp::Vote(VoteMode::Uni)),
    ("vote.sync.ballot.b32", WarpOp::Vote(VoteMode::Ballot)),
    ("activemask.b32", WarpOp::Activemask),
    ("fence.proxy.async", WarpOp::Fence),
    ("fence.cta", WarpOp::Fence),
    ("fence.gpu", WarpOp::Fence),
    ("fence.sys", WarpOp::Fence),
    ("barrier.cta.arrive", WarpOp::BarArrive),
    ("barrier.cta.arrive.aligned", WarpOp::BarArrive),
    ("membar.proxy.alias", WarpOp::Fence),
    ("fence.cluster", WarpOp::Fence),
    ("fence.sc.cluster", WarpOp::Fence),
    ("fence.acq_rel.cluster", WarpOp::Fence),
    ("fence.acquire.cta", WarpOp::Fence),
    ("fence.acquire.gpu", WarpOp::Fence),
    ("fence.acquire.sys", WarpOp::Fence),
    ("fence.acquire.cluster", WarpOp::Fence),
    ("fence.release.cta", WarpOp::Fence),
    ("fence.release.gpu", WarpOp::Fence),
    ("fence.release.sys", WarpOp::Fence),
    ("fence.release.cluster", WarpOp::Fence),
    ("fence.proxy.alias", WarpOp::Fence),
    ("fence.proxy.async.global", WarpOp::Fence),
    ("fence.proxy.async.shared::cta", WarpOp::Fence),
    ("fence.proxy.async.shared::cluster", WarpOp::Fence),
    ("bar.warp.sync", WarpOp::WarpSync),
    ("redux.sync.add.u32", WarpOp::Redux(ReduxOp::Add)),
    ("redux.sync.add.s32", WarpOp::Redux(ReduxOp::Add)),
    ("redux.sync.min.u32", WarpOp::Redux(ReduxOp::MinU)),
    ("redux.sync.min.s32", WarpOp::Redux(ReduxOp::MinS)),
    ("redux.sync.max.u32", WarpOp::Redux(ReduxOp::MaxU)),
    ("redux.sync.max.s32", WarpOp::Redux(ReduxOp::MaxS)),
    ("redux.sync.and.b32", WarpOp::Redux(ReduxOp::And)),
    ("redux.sync.or.b32", WarpOp::Redux(ReduxOp::Or)),
    ("redux.sync.xor.b32", WarpOp::Redux(ReduxOp::Xor)),
    (
        "match.any.sync.b32",
        WarpOp::Match {
            all: false,
            wide: false,
        },
    ),
    (
        "match.any.sync.b64",
        WarpOp::Match {
            all: false,
            wide: true,
        },
    ),
    (
        "match.all.sync.b32",
        WarpOp::Match {
            all: true,
            wide: false,
        },
    ),
    (
        "match.all.sync.b64",
        WarpOp::Match {
            all: true,
            wide: true,
        },
    ),
    ("bar.red.popc.u32", WarpOp::BarRed(BarRedOp::Popc)),
    ("bar.red.and.pred", WarpOp::BarRed(BarRedOp::And)),
    ("bar.red.or.pred", WarpOp::BarRed(BarRedOp::Or)),
    ("bar.cta.red.popc.u32", WarpOp::BarRed(BarRedOp::Popc)),
    ("bar.cta.red.and.pred", WarpOp::BarRed(BarRedOp::And)),
    ("bar.cta.red.or.pred", WarpOp::BarRed(BarRedOp::Or)),
    ("barrier.red.popc.u32", WarpOp::BarRed(BarRedOp::Popc)),
    (
        "barrier.red.popc.aligned.u32",
        WarpOp::BarRed(BarRedOp::Popc),
    ),
    ("barrier.red.and.pred", WarpOp::BarRed(BarRedOp::And)),
    (
        "barrier.red.and.aligned.pred",
        WarpOp::BarRed(BarRedOp::And),
    ),
    ("barrier.red.or.pred", WarpOp::BarRed(BarRedOp::Or)),
    ("barrier.red.or.aligned.pred", WarpOp::BarRed(BarRedOp::Or)),
    ("barrier.cta.red.popc.u32", WarpOp::BarRed(BarRedOp::Popc)),
    (
        "barrier.cta.red.popc.aligned.u32",
        WarpOp::BarRed(BarRedOp::Popc),
    ),
    ("barrier.cta.red.and.pred", WarpOp::BarRed(BarRedOp::And)),
    (
        "barrier.cta.red.and.aligned.pred",
        WarpOp::BarRed(BarRedOp::And),
    ),
    ("barrier.cta.red.or.pred", WarpOp::BarRed(BarRedOp::Or)),
    (
        "barrier.cta.red.or.aligned.pred",
        WarpOp::BarRed(BarRedOp::Or),
    ),
    ("nanosleep.u32", WarpOp::Nanosleep),
    ("elect.sync", WarpOp::Elect),
    ("bra", WarpOp::Control),
    ("ret", WarpOp::Control),
    ("exit", WarpOp::Control),
    ("movmatrix.sync.aligned.m8n8.trans.b16", WarpOp::Movmatrix),
];

impl WarpInst {
    /// How many of `srcs` are operands: `bar`'s id and count, `shfl`'s `a, b, c`.
    pub fn nsrc_values(&self) -> usize {
        match self.op {
            WarpOp::BarSync | WarpOp::BarArrive | WarpOp::BarRed(_) => {
                usize::from(self.nsrc).min(2)
            }
            WarpOp::Shfl(_) => 3,
            WarpOp::Redux(_) | WarpOp::Match { .. } | WarpOp::Nanosleep | WarpOp::Movmatrix => 1,
            // Each other operation named: exhaustive, no wildcard (a new one must be placed).
            WarpOp::Fence
            | WarpOp::Vote(_)
            | WarpOp::Activemask
            | WarpOp::Control
            | WarpOp::WarpSync
            | WarpOp::Elect => 0,
        }
    }

    /// Width in bits of the destination `d` (`p` is always a predicate).
    pub fn d_bits(&self) -> u32 {
        match self.op {
            WarpOp::Vote(v) => {
                if v == VoteMode::Ballot {
                    32
                } else {
                    1
                }
            }
            WarpOp::BarRed(op) => {
                if op == BarRedOp::Popc {
                    32
                } else {
                    1
                }
            }
            // Each other operation named: exhaustive, no wildcard (a new one must be placed).
            WarpOp::BarSync
            | WarpOp::BarArrive
            | WarpOp::Fence
            | WarpOp::Shfl(_)
            | WarpOp::Activemask
            | WarpOp::Control
            | WarpOp::WarpSync
            | WarpOp::Redux(_)
            | WarpOp::Match { .. }
            | WarpOp::Nanosleep
            | WarpOp::Elect
            | WarpOp::Movmatrix => 32,
        }
    }

    /// Width in bits of the sources in `srcs` (`match.b64`'s is 64).
    pub fn src_bits(&self) -> u32 {
        match self.op {
            WarpOp::Match { wide: true, .. } => 64,
            // Each other operation named: exhaustive, no wildcard (a new one must be placed).
            WarpOp::Match { wide: false, .. }
            | WarpOp::BarSync
            | WarpOp::BarArrive
            | WarpOp::Fence
            | WarpOp::Shfl(_)
            | WarpOp::Vote(_)
            | WarpOp::Activemask
            | WarpOp::Control
            | WarpOp::WarpSync
            | WarpOp::Redux(_)
            | WarpOp::BarRed(_)
            | WarpOp::Nanosleep
            | WarpOp::Elect
            | WarpOp::Movmatrix => 32,
        }
    }

    /// The stand-in a timing model issues for control statement `word`
    /// (`bra`, `ret` or `exit`).
    pub fn control(word: &str) -> Option<WarpInst> {
        let i = WARP_WORDS
            .iter()
            .position(|w| w.0 == word && w.1 == WarpOp::Control)?;
        Some(WarpInst {
            op: WarpOp::Control,
            word: i as u8,
            d: None,
            p: None,
            srcs: [Operand::Imm(0); 3],
            pred: PredSrc::Imm(true),
            mask: Operand::Imm(0),
            nsrc: 0,
        })
    }

    /// The opcode as written.
    pub fn word(&self) -> &'static str {
        WARP_WORDS
            .get(usize::from(self.word))
            .map_or("bar.sync", |w| w.0)
    }
}
