//! The instruction database: every family declared once, as data, in the
//! manual's notation (opcode words, modifiers, types, operand shapes, target
//! and PTX-version gates), with the facts other layers need about a decoded
//! instruction (`facts.rs`: opcode word, the report's mnemonic, default video
//! selectors, the lowering key, the native unit class; `effects.rs`: what it
//! does to the machine, which sim-core and sim-kernel ask) and the enumeration
//! of every form the database accepts (`forms.rs`). The parser, validator,
//! `Display` and `check_target` read these tables; every match over
//! instruction kinds here is exhaustive, so a new family does not compile
//! until each fact is given.
//!
//! Adding a family (the integer `add/sub/mul/mad` family was added this
//! way): its struct and `Op` variant in `inst.rs` (with `reg_uses`, and
//! `map_regs` in `inst/rename.rs`), its
//! opcode words in `OPCODES` with an `OpKind`, then every exhaustive
//! match the compiler points at: `spec`, `operands`, `types_ok`,
//! [`syntax`], `facts.rs` (name, lowering key, unit class), `effects.rs`
//! (operands, memory access, barrier, effect, fence), `forms.rs`, the
//! parser's `build.rs` and `display.rs`, and the dispatch arms in `exec/`;
//! its scalar semantics in a file of its own under `exec/`; its tests. The
//! sim-core database test then fails until `tools/lowering/derive.py` gives
//! its lowering keys rows for every architecture that can run it.
//!
//! Repeated variant lists: every match over `Op`, `OpKind` or `Family`
//! names each kind it does not single out, instead of a `_ =>` arm, so a new
//! kind cannot compile until each match has decided about it. The
//! `duplicates` tool reports those arm lists (here, in `forms.rs`,
//! `facts.rs`, `parse/` and `exec/`) as repeated lines; they are that rule,
//! not copied logic.
//!
//! One opcode word, two families: `add sub mul min max abs neg div` name
//! both integer and float forms. `OPCODES` gives such a word its integer
//! definition; `float.rs` holds the float family's definitions and rules,
//! and its `route` sends a statement whose type modifier is `.f32`/`.f64`
//! to the float definition before validation (other float types, such as
//! `.f16`, stay with the integer word and are reported as valid PTX that
//! simcli does not run). A family sharing words this way adds its own
//! table and a case to `route`.

mod async_gates;
mod bit;
mod compare;
mod cvt;
mod effects;
mod facts;
mod float;
mod forms;
mod gate_index;
mod gate_table;
mod int;
mod mem_gates;
mod ptx_names;
mod wmma_gates;

pub(crate) use bit::{bit_op, BitWord, BIT_WORDS};
pub(crate) use compare::{family_cmp_ok, ftz_ok};
pub(crate) use cvt::{cvt_head, cvt_operands, cvt_words, CvtWordsError, LOW_TARGET_GATES};
pub use effects::{
    barrier, barrier_reduction, for_each_source, has_effect, is_fence, is_warp_wide,
    lowering_sources, memory, needs_launch, reads_clock, runs_with_memory, varies,
    warp_machine_opcode, BarrierKind, MemAccess, MemKind, Source,
};
pub(crate) use facts::int_name;
pub use facts::{
    default_sels, lowering_key, mnemonic, opcode_name, type_class, unit_class, UnitClass,
};
pub(crate) use float::{
    approx_implemented, approx_instead, approx_ok, ftz_ok as float_ftz_ok, ftz_required,
    implemented as float_implemented, is_half, nan_ok, relu_ok, rnd_from_name, rnd_ok,
    rnd_required, rnd_type_ok, route, sat_ok as float_sat_ok,
};
pub use forms::forms;
pub(crate) use gate_index::{gates_for, OpTag};
pub(crate) use int::{
    int_cc_ok, int_relu_ok, int_sat_ok, int_sat_type_ok, reads_carry, IntWord, CARRY_TYPES,
};

/// One instruction form: canonical text with registers named by position
/// (`%d, %a, %b, %c, %e`; `%p` for a predicate destination, `%q` for a
/// BoolOp predicate; `lop3`'s immLut is `150`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Form {
    /// The family it belongs to.
    pub family: Family,
    /// The text, as `Display` prints it.
    pub text: String,
}

pub use ptx_names::is_ptx_opcode;

use crate::inst::{AluOp, CmpOp, FloatOp, Instruction, MulMode, Simd, Type, VideoOp};
use crate::target::Feature;
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

/// Instruction families: each has one shape (modifier classes, type count) and one syntax block ([`syntax`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// vadd2 ... vmax4
    VideoArith,
    /// vset2 / vset4
    VideoSet,
    /// set (incl. half precision)
    Set,
    /// setp
    Setp,
    /// selp
    Selp,
    /// slct
    Slct,
    /// mov and or xor shl shr
    Alu,
    /// add sub mul mad min max div rem abs neg over integer types
    Int,
    /// popc clz brev not cnot bfe bfi prmt lop3 shf
    Bit,
    /// cvt
    Cvt,
    /// add sub mul fma min max abs neg div rcp sqrt over f32/f64
    Float,
}

/// What an opcode word decodes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpKind {
    Video(VideoOp, Simd),
    Set,
    Setp,
    Selp,
    Slct,
    Alu(AluOp),
    Int(IntWord),
    Bit(BitWord),
    Cvt,
    Float(FloatOp),
}

impl OpKind {
    pub(crate) const fn family(self) -> Family {
        match self {
            OpKind::Video(VideoOp::Set(_), _) => Family::VideoSet,
            OpKind::Video(_, _) => Family::VideoArith,
            OpKind::Set => Family::Set,
            OpKind::Setp => Family::Setp,
            OpKind::Selp => Family::Selp,
            OpKind::Slct => Family::Slct,
            OpKind::Alu(_) => Family::Alu,
            OpKind::Int(_) => Family::Int,
            OpKind::Bit(_) => Family::Bit,
            OpKind::Cvt => Family::Cvt,
            OpKind::Float(_) => Family::Float,
        }
    }

    // The accessors below answer for one family and give every other kind
    // the same answer, which is a default, not a decision a new kind must
    // make (so `if let`, where the database may: the callers outside need
    // no arm list of their own).

    /// For `mul`/`mad`/`dp2a`, whose mode (`.lo/.hi/.wide`) ptxas reads as
    /// part of the opcode: the operation of each mode (`IntWord::mode_op`).
    pub(crate) const fn mode_op(self) -> Option<fn(MulMode) -> crate::inst::IntOp> {
        if let OpKind::Int(w) = self {
            w.mode_op()
        } else {
            None
        }
    }

    /// Whether the opcode takes `.sat` in `mode` as far as its word says
    /// (`int_sat_ok`; the other families' modifier masks say the rest).
    pub(crate) fn word_sat_ok(self, mode: Option<MulMode>) -> bool {
        if let OpKind::Int(w) = self {
            int_sat_ok(w, mode)
        } else {
            true
        }
    }

    /// A video opcode's SIMD width; `X2` for the others, which have no
    /// selectors or masks to read it.
    pub(crate) const fn simd(self) -> Simd {
        if let OpKind::Video(_, s) = self {
            s
        } else {
            Simd::X2
        }
    }
}

/// One opcode word.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OpcodeDef {
    pub name: &'static str,
    /// Video `Set` carries a placeholder compare, replaced by the modifier.
    pub kind: OpKind,
}

const fn v(name: &'static str, op: VideoOp, s: Simd) -> OpcodeDef {
    OpcodeDef {
        name,
        kind: OpKind::Video(op, s),
    }
}
const fn a(name: &'static str, op: AluOp) -> OpcodeDef {
    OpcodeDef {
        name,
        kind: OpKind::Alu(op),
    }
}
const fn f(name: &'static str, kind: OpKind) -> OpcodeDef {
    OpcodeDef { name, kind }
}

/// The video opcode words, each operation at both SIMD widths: `vadd2`
/// ... `vset2`, then `vadd4` ... `vset4` (the order the list had).
macro_rules! video_opcodes {
    ($($name:literal => $op:expr),* $(,)?) => {
        [
            $(v(concat!($name, "2"), $op, Simd::X2),)*
            $(v(concat!($name, "4"), $op, Simd::X4),)*
        ]
    };
}

/// The SIMD video words (`v*2`, `v*4`).
const VIDEO_OPCODES: [OpcodeDef; 14] = video_opcodes! {
    "vadd" => VideoOp::Add,
    "vsub" => VideoOp::Sub,
    "vavrg" => VideoOp::Avrg,
    "vabsdiff" => VideoOp::Absdiff,
    "vmin" => VideoOp::Min,
    "vmax" => VideoOp::Max,
    "vset" => VideoOp::Set(CmpOp::Eq),
};

/// Every other opcode word but the float family's.
pub(crate) const OPCODES: &[OpcodeDef] = &[
    f("set", OpKind::Set),
    f("setp", OpKind::Setp),
    f("selp", OpKind::Selp),
    f("slct", OpKind::Slct),
    a("mov", AluOp::Mov),
    a("and", AluOp::And),
    a("or", AluOp::Or),
    a("xor", AluOp::Xor),
    a("shl", AluOp::Shl),
    a("shr", AluOp::Shr),
    f("add", OpKind::Int(IntWord::Add)),
    f("sub", OpKind::Int(IntWord::Sub)),
    f("mul", OpKind::Int(IntWord::Mul)),
    f("mad", OpKind::Int(IntWord::Mad)),
    f("min", OpKind::Int(IntWord::Min)),
    f("max", OpKind::Int(IntWord::Max)),
    f("div", OpKind::Int(IntWord::Div)),
    f("rem", OpKind::Int(IntWord::Rem)),
    f("abs", OpKind::Int(IntWord::Abs)),
    f("neg", OpKind::Int(IntWord::Neg)),
    f("dp4a", OpKind::Int(IntWord::Dp4a)),
    f("dp2a", OpKind::Int(IntWord::Dp2a)),
    f("sad", OpKind::Int(IntWord::Sad)),
    f("addc", OpKind::Int(IntWord::Addc)),
    f("subc", OpKind::Int(IntWord::Subc)),
    f("madc", OpKind::Int(IntWord::Madc)),
    f("popc", OpKind::Bit(BitWord::Popc)),
    f("clz", OpKind::Bit(BitWord::Clz)),
    f("brev", OpKind::Bit(BitWord::Brev)),
    f("not", OpKind::Bit(BitWord::Not)),
    f("cnot", OpKind::Bit(BitWord::Cnot)),
    f("bfind", OpKind::Bit(BitWord::Bfind)),
    f("bfe", OpKind::Bit(BitWord::Bfe)),
    f("bfi", OpKind::Bit(BitWord::Bfi)),
    f("prmt", OpKind::Bit(BitWord::Prmt)),
    f("lop3", OpKind::Bit(BitWord::Lop3)),
    f("shf", OpKind::Bit(BitWord::Shf)),
    f("testp", OpKind::Bit(BitWord::Testp)),
    f("fns", OpKind::Bit(BitWord::Fns)),
    f("bmsk", OpKind::Bit(BitWord::Bmsk)),
    f("cvt", OpKind::Cvt),
];

/// The opcode word `name`, if simcli implements it (a word the integer
/// and float families share gives the integer one; [`route`] picks by type).
pub(crate) fn opcode(name: &str) -> Option<&'static OpcodeDef> {
    // Indexed once by name: a search along the list compared about a
    // hundred names a statement (0.14M host instructions to parse the
    // 128^3 SGEMM's module). The first definition of a name is the one
    // kept, as the search found it.
    static BY_NAME: OnceLock<FxHashMap<&'static str, &'static OpcodeDef>> = OnceLock::new();
    let by_name = BY_NAME.get_or_init(|| {
        let mut map = FxHashMap::default();
        for d in all_opcodes() {
            map.entry(d.name).or_insert(d);
        }
        map
    });
    by_name.get(name).copied()
}

/// Every opcode definition: the video words, [`OPCODES`], then the
/// float family's.
pub(crate) fn all_opcodes() -> impl Iterator<Item = &'static OpcodeDef> {
    VIDEO_OPCODES
        .iter()
        .chain(OPCODES)
        .chain(float::FLOAT_OPCODES)
}

/// Modifier classes a family may carry (bit set).
pub(crate) mod m {
    pub const CMP: u16 = 1;
    pub const BOOL: u16 = 2;
    pub const FTZ: u16 = 4;
    pub const SAT: u16 = 8;
    pub const ADD: u16 = 16;
    /// A family's own words (`prmt` modes, `shf` direction and mode;
    /// every `cvt` modifier, types included).
    pub const WORDS: u16 = 32;
    pub const RND: u16 = 64;
    pub const NAN: u16 = 128;
    pub const APPROX: u16 = 256;
    /// `.relu`: integer `min`/`max` and the float family.
    pub const RELU: u16 = 512;
    /// `.cc`: the integer family's extended-precision forms.
    pub const CC: u16 = 1024;
}

/// How one operand position is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OperandKind {
    /// Register destination of the instruction's (first) type.
    Dst,
    /// Video destination with optional mask.
    VDst,
    /// Video source a/b with optional selector.
    VSrc,
    /// Video source c: register, no selector.
    VC,
    /// `p`, `p|q`, `_`, `_|q`, `p|_`.
    PredPair,
    /// Register or immediate of type slot 0 / 1 / 2 (index into the operand
    /// type list the family defines: its type modifiers, and for the
    /// integer family `[type, destination type, b's type]`).
    Value(u8),
    /// Register, immediate or `%laneid`/`%warpid` (mov).
    ValueOrSpecial,
    /// Shift amount: 32-bit register or immediate.
    Shift,
    /// `{!}c` predicate or 0/1 immediate.
    Pred,
    /// An immediate of type slot 0 (`lop3`'s `immLut`).
    Imm,
}

/// One family's shape.
pub(crate) struct FamilySpec {
    /// Exact number of type modifiers.
    pub ntypes: usize,
    /// Modifier classes allowed (besides types).
    pub allow: u16,
}

/// The family's syntax block in the manual's notation (PTX ISA 9.7): what
/// `spec`, `operands`, `types_ok` and the modifier rules encode.
pub const fn syntax(fam: Family) -> &'static str {
    match fam {
        Family::VideoArith => {
            "vop2.dtype.atype.btype{.sat}{.add} d{.mask}, a{.asel}, b{.bsel}, c;  \
             vop4 likewise; vop = vadd vsub vavrg vabsdiff vmin vmax; \
             .dtype .atype .btype = { .u32, .s32 }"
        }
        Family::VideoSet => {
            "vset2.atype.btype.cmp{.add} d{.mask}, a{.asel}, b{.bsel}, c;  vset4 likewise; \
             .cmp = { .eq, .ne, .lt, .le, .gt, .ge }"
        }
        Family::Set => "set.CmpOp{.ftz}.dtype.stype d, a, b;  set.CmpOp.BoolOp{.ftz}.dtype.stype d, a, b, {!}c;",
        Family::Setp => "setp.CmpOp{.ftz}.type p[|q], a, b;  setp.CmpOp.BoolOp{.ftz}.type p[|q], a, b, {!}c;",
        Family::Selp => "selp.type d, a, b, c;",
        Family::Slct => "slct.dtype.s32 d, a, b, c;  slct{.ftz}.dtype.f32 d, a, b, c;",
        Family::Alu => "mov.type d, a;  and/or/xor.type d, a, b;  shl.type d, a, b;  shr.type d, a, b;",
        Family::Int => {
            "add{.sat}.type d, a, b;  sub{.sat}.type d, a, b;  mul.mode.type d, a, b;  \
             mad.mode.type d, a, b, c;  mad.hi.sat.s32 d, a, b, c;  \
             .mode = { .hi, .lo, .wide }; .type = { .u16, .u32, .u64, .s16, .s32, .s64 }; \
             .sat only on .s32; .wide only on 16/32-bit types, d (and c) twice as wide; \
             min/max/div/rem.type d, a, b;  abs/neg.stype d, a;  .stype = { .s16, .s32, .s64 }; \
             add.ptype d, a, b;  min/max.ptype d, a, b;  min/max.relu.{.s16x2, .s32} d, a, b;  \
             .ptype = { .u16x2, .s16x2 } (registers only); \
             dp4a.atype.btype d, a, b, c;  dp2a.mode.atype.btype d, a, b, c;  .mode = { .lo, .hi }; \
             .atype .btype = { .u32, .s32 };  sad.type d, a, b, c;  \
             add.cc.ctype d, a, b;  addc{.cc}.ctype d, a, b;  sub.cc.ctype d, a, b;  \
             subc{.cc}.ctype d, a, b;  mad{.hi,.lo}.cc.ctype d, a, b, c;  \
             madc{.hi,.lo}{.cc}.ctype d, a, b, c;  .ctype = { .u32, .s32, .u64, .s64 }"
        }
        Family::Float => {
            "add/sub/mul{.rnd}{.ftz}{.sat}.f32 d, a, b;  add/sub/mul{.rnd}.f64 d, a, b;  \
             fma.rnd{.ftz}{.sat}.f32 d, a, b, c;  fma.rnd.f64 d, a, b, c;  \
             min/max{.ftz}{.NaN}.f32 d, a, b;  min/max.f64 d, a, b;  \
             abs/neg{.ftz}.f32 d, a;  abs/neg.f64 d, a;  div.rnd{.ftz}.f32 d, a, b;  \
             div.rnd.f64 d, a, b;  rcp/sqrt.rnd{.ftz}.f32 d, a;  rcp.rnd{.ftz}.f64 d, a;  \
             sqrt.rnd.f64 d, a;  .rnd = { .rn, .rz, .rm, .rp };  \
             div.approx{.ftz}.f32 d, a, b;  div.full{.ftz}.f32 d, a, b;  \
             rcp/sqrt/rsqrt/ex2/lg2/sin/cos.approx{.ftz}.f32 d, a;  \
             ex2.approx.htype d, a;  ex2.approx.ftz.btype d, a;  \
             tanh.approx.f32 d, a;  tanh.approx.htype d, a;  tanh.approx.btype d, a;  \
             copysign.type d, a, b;  .type = { .f32, .f64 };  \
             add/sub/mul{.rn}{.ftz}{.sat}.htype d, a, b;  fma.rn{.ftz}{.sat}.htype d, a, b, c;  \
             .htype = { .f16, .f16x2 };  add/sub/mul{.rn}.btype d, a, b;  \
             fma.rn.btype d, a, b, c;  .btype = { .bf16, .bf16x2 };  \
             neg/abs{.ftz}.htype d, a;  neg/abs.btype d, a;  \
             min/max{.ftz}{.NaN}.htype d, a, b;  min/max{.NaN}.btype d, a, b;  \
             fma.rn{.ftz}.relu.htype d, a, b, c;  fma.rn.relu.btype d, a, b, c"
        }
        Family::Bit => bit::SYNTAX,
        Family::Cvt => cvt::SYNTAX,
    }
}

/// The spec of `fam`.
pub(crate) const fn spec(fam: Family) -> FamilySpec {
    let (ntypes, allow) = match fam {
        Family::VideoArith => (3, m::SAT | m::ADD),
        Family::VideoSet => (2, m::CMP | m::ADD),
        Family::Set => (2, m::CMP | m::BOOL | m::FTZ),
        Family::Setp => (1, m::CMP | m::BOOL | m::FTZ),
        Family::Selp => (1, 0),
        Family::Slct => (2, m::FTZ),
        Family::Alu => (1, 0),
        Family::Int => (1, m::SAT | m::RELU | m::CC),
        Family::Bit => (1, m::WORDS),
        Family::Cvt => (0, m::WORDS),
        Family::Float => (1, m::FTZ | m::SAT | m::RND | m::NAN | m::APPROX | m::RELU),
    };
    FamilySpec { ntypes, allow }
}

use OperandKind as K;

/// Operands of an opcode, without the optional BoolOp predicate.
pub(crate) const fn operands(kind: OpKind) -> &'static [OperandKind] {
    match kind {
        OpKind::Video(_, _) => &[K::VDst, K::VSrc, K::VSrc, K::VC],
        OpKind::Set => &[K::Dst, K::Value(1), K::Value(1)],
        OpKind::Setp => &[K::PredPair, K::Value(0), K::Value(0)],
        OpKind::Selp => &[K::Dst, K::Value(0), K::Value(0), K::Pred],
        OpKind::Slct => &[K::Dst, K::Value(0), K::Value(0), K::Value(1)],
        OpKind::Alu(AluOp::Mov) => &[K::Dst, K::ValueOrSpecial],
        OpKind::Alu(AluOp::Shl | AluOp::Shr) => &[K::Dst, K::Value(0), K::Shift],
        OpKind::Alu(AluOp::And | AluOp::Or | AluOp::Xor) => &[K::Dst, K::Value(0), K::Value(0)],
        OpKind::Int(
            IntWord::Add
            | IntWord::Sub
            | IntWord::Mul
            | IntWord::Min
            | IntWord::Max
            | IntWord::Div
            | IntWord::Rem
            | IntWord::Addc
            | IntWord::Subc,
        ) => &[K::Dst, K::Value(0), K::Value(0)],
        OpKind::Int(IntWord::Abs | IntWord::Neg) => &[K::Dst, K::Value(0)],
        OpKind::Int(IntWord::Mad | IntWord::Sad | IntWord::Madc) => {
            &[K::Dst, K::Value(0), K::Value(0), K::Value(1)]
        }
        OpKind::Int(IntWord::Dp4a | IntWord::Dp2a) => {
            &[K::Dst, K::Value(0), K::Value(2), K::Value(1)]
        }
        OpKind::Float(FloatOp::Fma) => &[K::Dst, K::Value(0), K::Value(0), K::Value(0)],
        // One source or two as `FloatOp::unary` (exhaustive) says.
        OpKind::Float(op) if op.unary() => &[K::Dst, K::Value(0)],
        OpKind::Float(_) => &[K::Dst, K::Value(0), K::Value(0)],
        OpKind::Bit(w) => bit::operands(w),
        // The packed destinations take two: see `cvt::operands`.
        OpKind::Cvt => &[K::Dst, K::Value(1)],
    }
}

use Type as T;

/// The nine integer types.
const INT_BITS_ARR: [Type; 9] = [
    T::B16,
    T::B32,
    T::B64,
    T::U16,
    T::U32,
    T::U64,
    T::S16,
    T::S32,
    T::S64,
];
const INT_BITS: &[Type] = &INT_BITS_ARR;

/// `base` followed by `extra` (`N` = their lengths together).
const fn join<const N: usize>(base: &[Type], extra: &[Type]) -> [Type; N] {
    let mut out = [T::Pred; N];
    let mut i = 0;
    while i < base.len() {
        out[i] = base[i];
        i += 1;
    }
    let mut j = 0;
    while j < extra.len() {
        out[i + j] = extra[j];
        j += 1;
    }
    out
}

const SCALAR_ARR: [Type; 11] = join(INT_BITS, &[T::F32, T::F64]);
/// The eleven scalar types of `set`/`setp`/`selp`/`slct` (9.7.6).
pub(crate) const SCALAR: &[Type] = &SCALAR_ARR;
const VIDEO_TYPES: &[Type] = &[T::U32, T::S32];
const INT_US: &[Type] = &[T::U16, T::U32, T::U64, T::S16, T::S32, T::S64];
const INT_SIGNED: &[Type] = &[T::S16, T::S32, T::S64];
const INT_WIDE: &[Type] = &[T::U16, T::U32, T::S16, T::S32];
const INT_US_X2_ARR: [Type; 8] = join(INT_US, &[T::U16x2, T::S16x2]);
/// `add`, `min`, `max`'s types: [`INT_US`] and the packed `.u16x2 .s16x2` (PTX 8.0).
const INT_US_X2: &[Type] = &INT_US_X2_ARR;
const DOT: &[Type] = &[T::U32, T::S32];
const BITS: &[Type] = &[T::B16, T::B32, T::B64];
const SHR: &[Type] = INT_BITS;
const SC_F16_ARR: [Type; 12] = join(SCALAR, &[T::F16]);
const SC_F16: &[Type] = &SC_F16_ARR;
const SC_F16_BF16_ARR: [Type; 13] = join(SCALAR, &[T::F16, T::Bf16]);
const SC_F16_BF16: &[Type] = &SC_F16_BF16_ARR;

/// `set` dtype/stype pairs ptxas 11.8 accepts (sm_90, PTX 7.8), found by
/// assembling every pair of the 15 types: groups of (dtypes, stypes).
pub(crate) const SET_PAIRS: &[(&[Type], &[Type])] = &[
    (&[T::U32, T::S32, T::F32], SCALAR),
    (&[T::U32, T::S32], &[T::F16, T::F16x2, T::Bf16, T::Bf16x2]),
    (&[T::U16, T::S16], &[T::F16, T::Bf16]),
    (&[T::F16], SC_F16),
    (&[T::Bf16], SC_F16_BF16),
    (&[T::F16x2], &[T::F16x2]),
    (&[T::Bf16x2], &[T::Bf16x2]),
];

/// Whether the type list `tys` is legal for the opcode (`mode`: the
/// integer family's `.lo/.hi/.wide`).
pub(crate) fn types_ok(kind: OpKind, mode: Option<MulMode>, tys: &[Type]) -> bool {
    let one = |set: &[Type]| tys.len() == 1 && set.contains(&tys[0]);
    match kind {
        OpKind::Video(_, _) => tys.iter().all(|t| VIDEO_TYPES.contains(t)),
        OpKind::Set => {
            tys.len() == 2
                && SET_PAIRS
                    .iter()
                    .any(|(d, s)| d.contains(&tys[0]) && s.contains(&tys[1]))
        }
        OpKind::Setp => one(SCALAR) || one(&[T::F16, T::F16x2, T::Bf16, T::Bf16x2]),
        OpKind::Selp => one(SCALAR),
        OpKind::Slct => {
            tys.len() == 2 && SCALAR.contains(&tys[0]) && matches!(tys[1], T::S32 | T::F32)
        }
        // `.pred` moves and logic (PTX ISA 9.7.10): predicates as 0/1.
        OpKind::Alu(AluOp::Mov) => one(INT_BITS) || one(&[T::F32, T::F64, T::Pred]),
        OpKind::Alu(AluOp::And | AluOp::Or | AluOp::Xor) => one(BITS) || one(&[T::Pred]),
        OpKind::Alu(AluOp::Shl) => one(BITS),
        OpKind::Alu(AluOp::Shr) => one(SHR),
        OpKind::Int(IntWord::Abs | IntWord::Neg) => one(INT_SIGNED),
        OpKind::Int(IntWord::Dp4a | IntWord::Dp2a) => {
            mode != Some(MulMode::Wide) && tys.len() == 2 && tys.iter().all(|t| DOT.contains(t))
        }
        OpKind::Int(IntWord::Add | IntWord::Min | IntWord::Max) => one(INT_US_X2),
        // `.lo`/`.hi` only; the narrowing to `CARRY_TYPES` is the
        // validator's (`.cc` and `.sat` decide it).
        OpKind::Int(IntWord::Addc | IntWord::Subc | IntWord::Madc) => {
            mode != Some(MulMode::Wide) && one(INT_US)
        }
        OpKind::Float(op) => float::types_ok(op, tys),
        OpKind::Int(_) => match mode {
            Some(MulMode::Wide) => one(INT_WIDE),
            Some(MulMode::Lo | MulMode::Hi) | None => one(INT_US),
        },
        OpKind::Bit(w) => one(bit::types(w)),
        // Its types are its own words (`cvt::cvt_words`).
        OpKind::Cvt => tys.is_empty(),
    }
}

/// The number of type modifiers `kind` takes: two for `dp4a`/`dp2a`
/// (`atype`, `btype`), else its family's.
pub(crate) const fn ntypes(kind: OpKind) -> usize {
    if let OpKind::Int(IntWord::Dp4a | IntWord::Dp2a) = kind {
        2
    } else {
        spec(kind.family()).ntypes
    }
}

/// A target / PTX-version requirement of some instructions.
pub(crate) struct Gate {
    /// The feature in words, for the error.
    pub what: &'static str,
    /// Minimum target feature.
    pub feature: Option<Feature>,
    /// Minimum PTX ISA version (major, minor).
    pub ptx: (u8, u8),
    /// The `Op` variants `applies` can be true of: `check_target` asks a
    /// gate only about these (`gates_for`).
    pub on: &'static [OpTag],
    /// Whether `inst` needs this.
    pub applies: fn(&Instruction) -> bool,
}

/// Every gate: [`gate_table::GATES`], then the half forms'
/// ([`float::HALF_GATES`]) and the other families' own.
pub(crate) fn gates() -> impl Iterator<Item = &'static Gate> {
    gate_table::GATES
        .iter()
        .chain(float::HALF_GATES)
        .chain(async_gates::ASYNC_GATES)
        .chain(mem_gates::MEM_GATES)
        .chain(wmma_gates::WMMA_GATES)
        .chain(int::CARRY_GATES)
}
