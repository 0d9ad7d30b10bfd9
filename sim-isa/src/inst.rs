//! The decoded instruction: what the parser produces, the validator checks,
//! `Display` prints and the executor runs. Plain data, no behaviour beyond
//! operand enumeration.

pub(crate) mod float;
mod rename;
pub use crate::operand::{Operand, PredSrc, RegId, SpecialReg, Type, TypeKind, TypeName};
pub use float::{Approx, FloatArith, FloatOp, Rnd};

/// Comparison operator of `set`/`setp` (and, restricted, `vset2/4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `eq`
    Eq,
    /// `ne`
    Ne,
    /// `lt`
    Lt,
    /// `le`
    Le,
    /// `gt`
    Gt,
    /// `ge`
    Ge,
    /// `lo` (unsigned <)
    Lo,
    /// `ls` (unsigned <=)
    Ls,
    /// `hi` (unsigned >)
    Hi,
    /// `hs` (unsigned >=)
    Hs,
    /// `equ`
    Equ,
    /// `neu`
    Neu,
    /// `ltu`
    Ltu,
    /// `leu`
    Leu,
    /// `gtu`
    Gtu,
    /// `geu`
    Geu,
    /// `num`
    Num,
    /// `nan`
    Nan,
}

impl CmpOp {
    /// Every operator, in the spec's order.
    pub const ALL: [CmpOp; 18] = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
        CmpOp::Lo,
        CmpOp::Ls,
        CmpOp::Hi,
        CmpOp::Hs,
        CmpOp::Equ,
        CmpOp::Neu,
        CmpOp::Ltu,
        CmpOp::Leu,
        CmpOp::Gtu,
        CmpOp::Geu,
        CmpOp::Num,
        CmpOp::Nan,
    ];

    /// PTX spelling (`"ltu"`).
    pub const fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "eq",
            CmpOp::Ne => "ne",
            CmpOp::Lt => "lt",
            CmpOp::Le => "le",
            CmpOp::Gt => "gt",
            CmpOp::Ge => "ge",
            CmpOp::Lo => "lo",
            CmpOp::Ls => "ls",
            CmpOp::Hi => "hi",
            CmpOp::Hs => "hs",
            CmpOp::Equ => "equ",
            CmpOp::Neu => "neu",
            CmpOp::Ltu => "ltu",
            CmpOp::Leu => "leu",
            CmpOp::Gtu => "gtu",
            CmpOp::Geu => "geu",
            CmpOp::Num => "num",
            CmpOp::Nan => "nan",
        }
    }

    /// Inverse of [`CmpOp::name`].
    pub fn from_name(s: &str) -> Option<CmpOp> {
        CmpOp::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// Boolean combination with a predicate `c` (`set`/`setp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    /// `and`
    And,
    /// `or`
    Or,
    /// `xor`
    Xor,
}

impl BoolOp {
    /// All three.
    pub const ALL: [BoolOp; 3] = [BoolOp::And, BoolOp::Or, BoolOp::Xor];
    /// PTX spelling.
    pub const fn name(self) -> &'static str {
        match self {
            BoolOp::And => "and",
            BoolOp::Or => "or",
            BoolOp::Xor => "xor",
        }
    }
}

/// Guard `@%p` / `@!%p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    /// The predicate register.
    pub reg: RegId,
    /// `@!%p`: execute where the predicate is false.
    pub negate: bool,
}

/// Arithmetic operation of the SIMD video family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoOp {
    /// `vadd`
    Add,
    /// `vsub`
    Sub,
    /// `vavrg`
    Avrg,
    /// `vabsdiff`
    Absdiff,
    /// `vmin`
    Min,
    /// `vmax`
    Max,
    /// `vset` with its comparison (only `eq ne lt le gt ge`).
    Set(CmpOp),
}

/// Lane count of a SIMD video instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Simd {
    /// Two 16-bit lanes (`vop2`).
    X2,
    /// Four 8-bit lanes (`vop4`).
    X4,
}

impl Simd {
    /// 2 or 4.
    pub const fn lanes(self) -> usize {
        match self {
            Simd::X2 => 2,
            Simd::X4 => 4,
        }
    }
    /// 16 or 8.
    pub const fn lane_bits(self) -> u32 {
        match self {
            Simd::X2 => 16,
            Simd::X4 => 8,
        }
    }
}

/// A SIMD video instruction (`vadd2` ... `vset4`).
///
/// Selectors are stored resolved (defaults filled in) but remember whether
/// they were written, so `Display` round-trips the text's own form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Video {
    /// Operation.
    pub op: VideoOp,
    /// 2-way or 4-way.
    pub simd: Simd,
    /// Destination type is signed (`.s32`); `vset` has none and stores `false`.
    pub dsigned: bool,
    /// `atype` is `.s32`.
    pub asigned: bool,
    /// `btype` is `.s32`.
    pub bsigned: bool,
    /// `.sat`
    pub sat: bool,
    /// `.add` (accumulate)
    pub add: bool,
    /// Destination mask: bit i set = lane i is written (`.h10` = 0b11, `.b3210` = 0b1111).
    pub mask: u8,
    /// Whether the mask was written explicitly.
    pub mask_explicit: bool,
    /// Element index (0..3 for x2, 0..7 for x4) feeding each lane of `a`, lane 0 first.
    pub asel: [u8; 4],
    /// Element indices for `b`, lane 0 first.
    pub bsel: [u8; 4],
    /// Whether `asel` was written explicitly.
    pub asel_explicit: bool,
    /// Whether `bsel` was written explicitly.
    pub bsel_explicit: bool,
    /// `.sat` was written before the types (`vadd4.sat.s32.s32.s32`).
    pub sat_first: bool,
    /// Destination.
    pub d: RegId,
    /// Sources (registers only).
    pub a: RegId,
    /// Second source.
    pub b: RegId,
    /// Merge/accumulate source.
    pub c: RegId,
}

/// `set` (9.7.6.1 and the half-precision 9.7.7.1): compare, combine, write a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Set {
    /// Comparison.
    pub cmp: CmpOp,
    /// Optional `.BoolOp` with its predicate `c`.
    pub bool_op: Option<(BoolOp, PredSrc)>,
    /// `.ftz`
    pub ftz: bool,
    /// Destination type.
    pub dtype: Type,
    /// Source type.
    pub stype: Type,
    /// Destination.
    pub d: RegId,
    /// First source.
    pub a: Operand,
    /// Second source.
    pub b: Operand,
}

/// `setp`: compare, combine, write one or two predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Setp {
    /// Comparison.
    pub cmp: CmpOp,
    /// Optional `.BoolOp` with its predicate `c`.
    pub bool_op: Option<(BoolOp, PredSrc)>,
    /// `.ftz`
    pub ftz: bool,
    /// Operand type.
    pub ty: Type,
    /// First destination, `None` for the sink `_`.
    pub p: Option<RegId>,
    /// Second destination: `None` when absent; `Some(None)` for the sink `_`.
    pub q: Option<Option<RegId>>,
    /// First source.
    pub a: Operand,
    /// Second source.
    pub b: Operand,
}

/// `selp.type d, a, b, c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Selp {
    /// Type of `d`, `a`, `b`.
    pub ty: Type,
    /// Destination.
    pub d: RegId,
    /// Selected when `c` is true.
    pub a: Operand,
    /// Selected when `c` is false.
    pub b: Operand,
    /// Predicate.
    pub c: PredSrc,
}

/// `slct{.ftz}.dtype.ctype d, a, b, c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slct {
    /// `.ftz` (only with `.f32` c).
    pub ftz: bool,
    /// Type of `d`, `a`, `b`.
    pub dtype: Type,
    /// Type of `c`: `.s32` or `.f32`.
    pub ctype: Type,
    /// Destination.
    pub d: RegId,
    /// Selected when `c >= 0`.
    pub a: Operand,
    /// Selected otherwise.
    pub b: Operand,
    /// Sign source.
    pub c: Operand,
}

/// Supporting move, logic and shift instructions of kernel text (`mov and or xor shl shr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AluOp {
    /// `mov`
    Mov,
    /// `and`
    And,
    /// `or`
    Or,
    /// `xor`
    Xor,
    /// `shl`
    Shl,
    /// `shr` (arithmetic on `.sN`, logical otherwise)
    Shr,
}

/// A supporting instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Alu {
    /// Operation.
    pub op: AluOp,
    /// Operand type.
    pub ty: Type,
    /// Destination.
    pub d: RegId,
    /// First source.
    pub a: Operand,
    /// Second source (`None` for `mov`). For shifts it is a 32-bit amount.
    pub b: Option<Operand>,
}

/// Which part of the product `mul`/`mad` keep (9.7.1.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MulMode {
    /// `.lo`: the low `n` bits.
    Lo,
    /// `.hi`: the high `n` bits.
    Hi,
    /// `.wide`: all `2n` bits (16- and 32-bit types only).
    Wide,
}

impl MulMode {
    /// PTX spelling without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            MulMode::Lo => "lo",
            MulMode::Hi => "hi",
            MulMode::Wide => "wide",
        }
    }
}

op_with_word! {
/// Operation of the integer arithmetic family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntOp;
/// The integer arithmetic opcode words (the database's `OpKind::Int`;
/// `mul`/`mad` take their mode as the first modifier, which ptxas reads as
/// part of the opcode): each operation before its modifiers are read.
pub(crate) enum IntWord;
{
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul.mode`
    Mul(MulMode),
    /// `mad.mode`: `a * b + c`.
    Mad(MulMode),
    /// `min`: the smaller of `a`, `b` in the type's order.
    Min,
    /// `max`: the larger of `a`, `b`.
    Max,
    /// `div`: the quotient rounded toward zero.
    Div,
    /// `rem`: the remainder, with `a`'s sign.
    Rem,
    /// `abs` (signed types; one source).
    Abs,
    /// `neg` (signed types; one source).
    Neg,
    /// `dp4a.atype.btype`: `c` plus the four byte products of `a` and `b`.
    Dp4a,
    /// `dp2a.mode.atype.btype` (`.lo`/`.hi`): `c` plus the two products of
    /// `a`'s halves with bytes 0-1 (`.lo`) or 2-3 (`.hi`) of `b`.
    Dp2a(MulMode),
    /// `sad.type`: `c + |a - b|`.
    Sad,
    /// `addc{.cc}`: `a + b + CC.CF` (the flag: [`crate::carry`]).
    Addc,
    /// `subc{.cc}`: `a + ~b + CC.CF`, i.e. `a - b - (1 - CC.CF)`.
    Subc,
    /// `madc.lo/.hi{.cc}`: `mad`'s sum plus `CC.CF`.
    Madc(MulMode),
}
}

impl IntOp {
    /// `mul`/`mad`'s `.lo/.hi/.wide`; `None` for the others.
    pub const fn mode(self) -> Option<MulMode> {
        match self {
            IntOp::Mul(m) | IntOp::Mad(m) | IntOp::Dp2a(m) | IntOp::Madc(m) => Some(m),
            IntOp::Dp4a
            | IntOp::Addc
            | IntOp::Subc
            | IntOp::Sad
            | IntOp::Add
            | IntOp::Sub
            | IntOp::Min
            | IntOp::Max
            | IntOp::Div
            | IntOp::Rem
            | IntOp::Abs
            | IntOp::Neg => None,
        }
    }

    /// Whether the operation reads a second source `b` (`abs`/`neg` do not).
    pub const fn has_b(self) -> bool {
        !matches!(self, IntOp::Abs | IntOp::Neg)
    }

    /// Whether the operation reads an addend `c` (`mad`, `dp4a`, `dp2a`, `sad`).
    pub const fn has_c(self) -> bool {
        matches!(
            self,
            IntOp::Mad(_) | IntOp::Dp4a | IntOp::Dp2a(_) | IntOp::Sad | IntOp::Madc(_)
        )
    }

    /// Whether the operation reads the carry flag (`addc`, `subc`, `madc`).
    pub const fn reads_carry(self) -> bool {
        matches!(self, IntOp::Addc | IntOp::Subc | IntOp::Madc(_))
    }

    /// Whether the operation takes a second type, `b`'s (`dp4a`, `dp2a`).
    pub const fn is_dot(self) -> bool {
        matches!(self, IntOp::Dp4a | IntOp::Dp2a(_))
    }
}

/// Arithmetic over the integer types (9.7.1): `add{.sat}.type`,
/// `mul.mode.type`, `mad.mode.type`, `mad.hi.sat.s32`, `min max div rem`
/// `.type`, `abs neg .stype`; the packed `add min max .u16x2 .s16x2` and
/// `min/max.relu` (PTX 8.0); `dp4a`, `dp2a`, `sad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntArith {
    /// Operation.
    pub op: IntOp,
    /// `.sat` (`.s32` only: `add`, `sub`, `mad.hi`).
    pub sat: bool,
    /// `.relu` (`min`/`max` on `.s32`/`.s16x2`): negative results become 0.
    pub relu: bool,
    /// Source type (`dp4a`/`dp2a`: `a`'s).
    pub ty: Type,
    /// `b`'s type: `ty` except for `dp4a`/`dp2a`'s `btype`.
    pub bty: Type,
    /// Destination: twice `ty`'s width for `.wide`.
    pub d: RegId,
    /// First source.
    pub a: Operand,
    /// Second source; `None` for `abs`/`neg`.
    pub b: Option<Operand>,
    /// Addend of `mad` (at `d`'s width); `None` for the others.
    pub c: Option<Operand>,
    /// The carry flag of the extended-precision forms (`.cc`, `addc`,
    /// `subc`, `madc`); `None` for the others.
    pub carry: Option<Carry>,
}

impl IntArith {
    /// Type of `d` (and of `mad`'s `c`): twice the width for `.wide` (which
    /// the validator allows only on 16- and 32-bit types).
    pub const fn d_type(&self) -> Type {
        if self.op.is_dot() {
            // `.u32` when both sources are unsigned, else `.s32` (9.7.1.23).
            return match (self.ty, self.bty) {
                (Type::U32, Type::U32) => Type::U32,
                _ => Type::S32,
            };
        }
        match (self.op.mode(), self.ty.doubled()) {
            (Some(MulMode::Wide), Some(t)) => t,
            (Some(MulMode::Wide), None) | (Some(MulMode::Lo | MulMode::Hi) | None, _) => self.ty,
        }
    }

    /// Width of `d` (and of `mad`'s `c`).
    pub const fn d_bits(&self) -> u32 {
        self.d_type().bits()
    }
}

impl Alu {
    /// Type of the second source: shift amounts are `.u32` whatever the type.
    pub const fn b_type(&self) -> Type {
        match self.op {
            AluOp::Shl | AluOp::Shr => Type::U32,
            AluOp::Mov | AluOp::And | AluOp::Or | AluOp::Xor => self.ty,
        }
    }

    /// Width of the second source ([`Alu::b_type`]'s).
    pub const fn b_bits(&self) -> u32 {
        self.b_type().bits()
    }
}

pub use crate::async_inst::{AsyncInst, AsyncOp, MbarOp, ASYNC_TOKEN, MBAR_ORDERS};
pub use crate::bit_inst::{Bit, BitOp, PrmtMode, TestOp};
pub use crate::carry::{Carry, CARRY_FLAG};
pub use crate::cvt_inst::{Cvt, CvtRnd, CvtType};
pub use crate::mem_inst::{
    AddrBase, Address, AtomOp, BarRedOp, Mem, MemOp, MemType, PrefetchLevel, Quals, ReduxOp,
    ShflMode, Space, VoteMode, WarpInst, WarpOp, QUAL_WORDS, WARP_WORDS,
};
pub use crate::mma_inst::{
    B1Op, Mma, MmaShape, MmaType, MMA_OTHER_SHAPES, MMA_SHAPES, WMMA_SHAPES,
};
pub use crate::wmma_inst::{
    wmma_dims, wmma_distinct_regs, wmma_element, wmma_per_reg, wmma_regs, WmmaFrag, WmmaMem,
    WmmaStride,
};

/// One instruction body, by family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `vadd2` ... `vset4`
    Video(Video),
    /// `set`, including half-precision forms
    Set(Set),
    /// `setp`
    Setp(Setp),
    /// `selp`
    Selp(Selp),
    /// `slct`
    Slct(Slct),
    /// `mov and or xor shl shr`
    Alu(Alu),
    /// `add sub mul mad min max div rem abs neg` over integer types
    Int(IntArith),
    /// `popc clz brev not cnot bfe bfi prmt lop3 shf`
    Bit(Bit),
    /// `cvt`
    Cvt(Cvt),
    /// `add sub mul fma min max abs neg` over `.f32`/`.f64`
    Float(FloatArith),
    /// `ld ldu st atom red cvta`, `mov` of an address
    Mem(Mem),
    /// `bar barrier membar fence shfl.sync vote.sync activemask`
    Warp(WarpInst),
    /// `cp.async`, `cp.async.commit_group/wait_group/wait_all`
    Async(AsyncInst),
    /// `mma.sync.aligned`: a warp-wide matrix multiply-accumulate
    Mma(Mma),
}

/// A decoded PTX instruction with its optional guard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instruction {
    /// `@%p` / `@!%p`
    pub guard: Option<Guard>,
    /// The operation.
    pub op: Op,
}

/// [`Instruction::reg_uses`] of the async-copy family: the token a copy
/// writes and a wait reads, `mbarrier`'s destination, object and operands,
/// a copy's addresses and `src-size`.
fn async_uses(u: &mut RegUses, a: &AsyncInst) {
    if a.is_copy() {
        u.reg(a.token, 64, true);
    }
    if let Some(d) = a.d {
        u.reg(d, a.d_bits(), true);
    }
    if let AddrBase::Reg(r) = a.dst.base {
        u.reg(r, a.dst_space().addr_bits(), false);
    }
    if let AddrBase::Reg(r) = a.bar.base {
        u.reg(r, Space::Shared.addr_bits(), false);
    }
    if let Some(o) = a.a {
        u.src(o, a.a_bits());
    }
    if let Some(o) = a.hint {
        u.src(o, 32);
    }
    if let AddrBase::Reg(r) = a.src.base {
        u.reg(r, a.src_space().addr_bits(), false);
    }
    if let Some(o) = a.src_size {
        u.src(o, 32);
    }
    if let Some(p) = a.ignore_src {
        u.pred(p);
    }
    if a.is_wait() {
        u.reg(a.token, 64, false);
    }
}

/// How an instruction uses one register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegUse {
    /// The register.
    pub reg: RegId,
    /// Width the instruction gives this operand: 1 (predicate), 16, 32 or 64.
    pub bits: u32,
    /// Written (destination) rather than read.
    pub write: bool,
}

/// Most registers one instruction names: the guard and `wmma.mma.m32n8k16`'s
/// (or `m8n32k16`'s) 26 with 32-bit accumulators (eight of `d` and of `c`,
/// the ten of `a` and `b` it reads).
pub const MAX_REG_USES: usize = 27;

/// Registers an instruction touches, without allocating (at most
/// [`MAX_REG_USES`]: guard, up to four destinations or sources, `shfl`'s
/// `a`, `b`, `c` and mask, `mma`'s fragment registers).
#[derive(Clone, Copy, Debug, Default)]
pub struct RegUses {
    items: [Option<RegUse>; MAX_REG_USES],
    len: usize,
}

impl RegUses {
    fn reg(&mut self, reg: RegId, bits: u32, write: bool) {
        self.items[self.len] = Some(RegUse { reg, bits, write });
        self.len += 1;
    }
    /// A source operand, if it is a register.
    fn src(&mut self, o: Operand, bits: u32) {
        if let Operand::Reg(r) = o {
            self.reg(r, bits, false);
        }
    }
    /// A predicate source, if it is a register.
    fn pred(&mut self, p: PredSrc) {
        if let PredSrc::Reg { reg, .. } = p {
            self.reg(reg, 1, false);
        }
    }
    /// A BoolOp's predicate `c`, if any.
    fn bool_pred(&mut self, b: Option<(BoolOp, PredSrc)>) {
        if let Some((_, p)) = b {
            self.pred(p);
        }
    }
    /// Iterates in operand order: guard, destinations, sources.
    pub fn iter(&self) -> impl Iterator<Item = RegUse> + '_ {
        self.items[..self.len].iter().flatten().copied()
    }
    /// Registers read (sources and guard).
    pub fn reads(&self) -> impl Iterator<Item = RegUse> + '_ {
        self.iter().filter(|u| !u.write)
    }
    /// Registers written.
    pub fn writes(&self) -> impl Iterator<Item = RegUse> + '_ {
        self.iter().filter(|u| u.write)
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len
    }
    /// No registers at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Instruction {
    /// Every register the instruction reads or writes, with the width it gives it.
    pub fn reg_uses(&self) -> RegUses {
        let mut u = RegUses::default();
        if let Some(g) = self.guard {
            u.reg(g.reg, 1, false);
        }
        match self.op {
            Op::Video(v) => {
                u.reg(v.d, 32, true);
                for r in [v.a, v.b, v.c] {
                    u.reg(r, 32, false);
                }
            }
            Op::Set(s) => {
                u.reg(s.d, s.dtype.bits(), true);
                u.src(s.a, s.stype.bits());
                u.src(s.b, s.stype.bits());
                u.bool_pred(s.bool_op);
            }
            Op::Setp(s) => {
                if let Some(p) = s.p {
                    u.reg(p, 1, true);
                }
                if let Some(Some(q)) = s.q {
                    u.reg(q, 1, true);
                }
                u.src(s.a, s.ty.bits());
                u.src(s.b, s.ty.bits());
                u.bool_pred(s.bool_op);
            }
            Op::Selp(s) => {
                u.reg(s.d, s.ty.bits(), true);
                u.src(s.a, s.ty.bits());
                u.src(s.b, s.ty.bits());
                u.pred(s.c);
            }
            Op::Slct(s) => {
                u.reg(s.d, s.dtype.bits(), true);
                u.src(s.a, s.dtype.bits());
                u.src(s.b, s.dtype.bits());
                u.src(s.c, 32);
            }
            Op::Alu(a) => {
                u.reg(a.d, a.ty.bits(), true);
                u.src(a.a, a.ty.bits());
                if let Some(b) = a.b {
                    u.src(b, a.b_bits());
                }
            }
            Op::Bit(x) => {
                u.reg(x.d, x.d_type().bits(), true);
                for (i, &o) in x.srcs().iter().enumerate() {
                    u.src(o, x.src_type(i).bits());
                }
            }
            Op::Cvt(x) => {
                u.reg(x.d, x.d_type().bits(), true);
                u.src(x.a, x.atype.reg_type().bits());
                for o in [x.b, x.c].into_iter().flatten() {
                    u.src(o, x.atype.reg_type().bits());
                }
            }
            Op::Int(x) => {
                u.reg(x.d, x.d_bits(), true);
                u.src(x.a, x.ty.bits());
                if let Some(b) = x.b {
                    u.src(b, x.bty.bits());
                }
                if let Some(c) = x.c {
                    u.src(c, x.d_bits());
                }
                if let Some(k) = x.carry {
                    if x.op.reads_carry() {
                        u.reg(k.cf, 1, false);
                    }
                    if k.out {
                        u.reg(k.cf, 1, true);
                    }
                }
            }
            Op::Float(x) => {
                u.reg(x.d, x.ty.bits(), true);
                for o in [Some(x.a), x.b, x.c].into_iter().flatten() {
                    u.src(o, x.ty.bits());
                }
            }
            Op::Mem(m) => {
                // Loaded and stored values at the type's width (8-bit types
                // live in 16-bit or wider registers); an address result at
                // its type's; a pack's whole and its elements.
                let bits = m.ty.bits().max(16);
                let (d_bits, v_bits) = match m.op {
                    MemOp::Cvta { .. } | MemOp::MovAddr => (m.ty.bits(), bits),
                    MemOp::Pack => (m.ty.bits(), m.element_bits()),
                    MemOp::Unpack => (m.element_bits(), m.ty.bits()),
                    MemOp::Ld | MemOp::Ldu | MemOp::St | MemOp::Atom(_) | MemOp::Red(_) => {
                        (bits, bits)
                    }
                    // Two 16-bit elements (or one f32) to a 32-bit register.
                    MemOp::Ldmatrix { .. } | MemOp::Stmatrix { .. } => (32, 32),
                    MemOp::Wmma(w) => (w.ty.reg_bits(), w.ty.reg_bits()),
                    // No value: the address alone.
                    MemOp::Prefetch(_) => (bits, bits),
                };
                for &d in &m.d[..m.dests()] {
                    u.reg(d, d_bits, true);
                }
                if let AddrBase::Reg(r) = m.addr.base {
                    u.reg(r, m.space.addr_bits(), false);
                }
                for &v in &m.vals[..m.sources()] {
                    u.src(v, v_bits);
                }
                // `wmma.load`/`wmma.store`: fragment registers 4-7, stride.
                let (hi, stride) = m.wmma_extra();
                for &r in hi {
                    u.reg(r, 32, !m.op.is_wmma_store());
                }
                if let Some(r) = stride {
                    u.reg(r, 32, false);
                }
            }
            Op::Warp(w) => {
                if let Some(d) = w.d {
                    u.reg(d, w.d_bits(), true);
                }
                if let Some(p) = w.p {
                    u.reg(p, 1, true);
                }
                for &s in &w.srcs[..w.nsrc_values()] {
                    u.src(s, w.src_bits());
                }
                u.pred(w.pred);
                u.src(w.mask, 32);
            }
            Op::Async(a) => async_uses(&mut u, &a),
            Op::Mma(m) => {
                let [nd, na, nb, nc] = m.used_counts();
                for &d in &m.d[..nd] {
                    u.reg(d, m.types[0].reg_bits(), true);
                }
                for &a in &m.a[..na] {
                    u.reg(a, m.types[1].reg_bits(), false);
                }
                for &b in &m.b[..nb] {
                    u.reg(b, m.types[2].reg_bits(), false);
                }
                for &c in &m.c[..nc] {
                    u.reg(c, m.types[3].reg_bits(), false);
                }
            }
        }
        u
    }
}
