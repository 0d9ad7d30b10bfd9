//! Facts about a decoded instruction, one exhaustive match each: the opcode
//! word `Display` prints, the report's mnemonic, default video selectors,
//! the lowering (timing) key and the unit class of the native machine
//! instruction. sim-isa knows nothing of cycles: the key and the class are
//! classification; sim-core attaches costs and rates to them.

use super::cvt_head;
use crate::inst::{
    AluOp, Bit, CmpOp, Cvt, CvtType, FloatOp, Instruction, IntArith, IntOp, MemOp, MulMode, Op,
    Simd, Space, Type, TypeKind, Video, VideoOp,
};
use std::fmt::Write as _;

/// Opcode word of a decoded instruction as `Display` prints it (`vadd2`,
/// `set`, `mul`; `mul`/`mad` print their mode as the first modifier).
pub fn opcode_name(op: &Op) -> &'static str {
    match op {
        // The word before `int_name`'s mode: `mul.lo` -> `mul`.
        Op::Int(x) => {
            let n = int_name(x.op);
            n.split_once('.').map_or(n, |(w, _)| w)
        }
        // Each other kind named: exhaustive, no wildcard over kinds (tidy).
        Op::Video(_)
        | Op::Set(_)
        | Op::Setp(_)
        | Op::Selp(_)
        | Op::Slct(_)
        | Op::Alu(_)
        | Op::Bit(_)
        | Op::Cvt(_)
        | Op::Float(_)
        | Op::Mem(_) => name(op),
        Op::Warp(w) => w.word().split('.').next().unwrap_or("bar"),
        Op::Async(a) => a.word().split('.').next().unwrap_or("cp"),
        Op::Mma(m) if m.shape.is_wmma() => "wmma",
        Op::Mma(_) => "mma",
    }
}

/// The report's mnemonic of `inst` (`vadd4`, `set`, `mul.lo`, `mad.wide`).
pub fn mnemonic(inst: &Instruction) -> &'static str {
    name(&inst.op)
}

fn name(op: &Op) -> &'static str {
    match op {
        Op::Video(v) => video_name(v.op, v.simd),
        Op::Set(_) => "set",
        Op::Setp(_) => "setp",
        Op::Selp(_) => "selp",
        Op::Slct(_) => "slct",
        Op::Alu(a) => alu_name(a.op),
        Op::Int(x) => int_name(x.op),
        Op::Bit(x) => x.op.word(),
        Op::Cvt(_) => "cvt",
        Op::Float(x) => float_name(x.op),
        Op::Mem(m) => m.op.word(),
        Op::Warp(w) => w.word(),
        Op::Async(a) => a.word(),
        Op::Mma(m) if m.shape.is_wmma() => "wmma.mma",
        Op::Mma(_) => "mma",
    }
}

fn video_name(op: VideoOp, simd: Simd) -> &'static str {
    let (x2, x4) = match op {
        VideoOp::Add => ("vadd2", "vadd4"),
        VideoOp::Sub => ("vsub2", "vsub4"),
        VideoOp::Avrg => ("vavrg2", "vavrg4"),
        VideoOp::Absdiff => ("vabsdiff2", "vabsdiff4"),
        VideoOp::Min => ("vmin2", "vmin4"),
        VideoOp::Max => ("vmax2", "vmax4"),
        VideoOp::Set(_) => ("vset2", "vset4"),
    };
    match simd {
        Simd::X2 => x2,
        Simd::X4 => x4,
    }
}

const fn alu_name(op: AluOp) -> &'static str {
    match op {
        AluOp::Mov => "mov",
        AluOp::And => "and",
        AluOp::Or => "or",
        AluOp::Xor => "xor",
        AluOp::Shl => "shl",
        AluOp::Shr => "shr",
    }
}

/// The float family's opcode word.
pub(crate) const fn float_name(op: FloatOp) -> &'static str {
    match op {
        FloatOp::Add => "add",
        FloatOp::Sub => "sub",
        FloatOp::Mul => "mul",
        FloatOp::Fma => "fma",
        FloatOp::Min => "min",
        FloatOp::Max => "max",
        FloatOp::Abs => "abs",
        FloatOp::Neg => "neg",
        FloatOp::Div => "div",
        FloatOp::Rcp => "rcp",
        FloatOp::Sqrt => "sqrt",
        FloatOp::Rsqrt => "rsqrt",
        FloatOp::Ex2 => "ex2",
        FloatOp::Lg2 => "lg2",
        FloatOp::Sin => "sin",
        FloatOp::Cos => "cos",
        FloatOp::Tanh => "tanh",
        FloatOp::Copysign => "copysign",
    }
}

/// Name of an integer operation with its mode (`add`, `mul.lo`, `mad.wide`):
/// the report's mnemonic and ptxas's name in messages.
pub(crate) const fn int_name(op: IntOp) -> &'static str {
    match op {
        IntOp::Add => "add",
        IntOp::Sub => "sub",
        IntOp::Mul(MulMode::Lo) => "mul.lo",
        IntOp::Mul(MulMode::Hi) => "mul.hi",
        IntOp::Mul(MulMode::Wide) => "mul.wide",
        IntOp::Mad(MulMode::Lo) => "mad.lo",
        IntOp::Mad(MulMode::Hi) => "mad.hi",
        IntOp::Mad(MulMode::Wide) => "mad.wide",
        IntOp::Min => "min",
        IntOp::Max => "max",
        IntOp::Div => "div",
        IntOp::Rem => "rem",
        IntOp::Abs => "abs",
        IntOp::Neg => "neg",
        IntOp::Dp4a => "dp4a",
        IntOp::Dp2a(MulMode::Lo) => "dp2a.lo",
        IntOp::Dp2a(MulMode::Hi) => "dp2a.hi",
        // Refused by `types_ok`; named for completeness.
        IntOp::Dp2a(MulMode::Wide) => "dp2a.wide",
        IntOp::Sad => "sad",
        IntOp::Addc => "addc",
        IntOp::Subc => "subc",
        IntOp::Madc(MulMode::Lo) => "madc.lo",
        IntOp::Madc(MulMode::Hi) => "madc.hi",
        // Refused by the parser (`madc` has no `.wide`); named for completeness.
        IntOp::Madc(MulMode::Wide) => "madc.wide",
    }
}

/// Default `asel`/`bsel` (9.7.18.2: `.h10`/`.h32`, `.b3210`/`.b7654`).
pub const fn default_sels(simd: Simd) -> ([u8; 4], [u8; 4]) {
    match simd {
        Simd::X2 => ([0, 1, 0, 0], [2, 3, 0, 0]),
        Simd::X4 => ([0, 1, 2, 3], [4, 5, 6, 7]),
    }
}

/// A functional unit (pipe) class: the class of an instruction's native
/// (first) machine instruction ([`unit_class`]), and the SM model's pipes
/// (`sim_core::config::UnitClass` is this type; each scheduler partition has
/// one pipe per class). `Xu`, the multi-function/conversion pipe, is named
/// only by the SM model's machine-code tables: [`unit_class`] never gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UnitClass {
    /// Integer add/logic/move/shift/select (and the machine instructions of
    /// emulated sequences).
    IntAlu,
    /// Integer compare, min/max (separate rate on Maxwell).
    IntCmp,
    /// FP32 (f32 compares).
    Fp32,
    /// FP16/BF16 (HSET2/HSETP2).
    Fp16,
    /// FP64 (f64 compares).
    Fp64,
    /// SIMD video unit (native `vadd2`... on Kepler).
    Video,
    /// Native `vabsdiff2/4` (Kepler at int rate, `VABSDIFF4` from Maxwell on).
    VideoAbsdiff,
    /// The multi-function and conversion pipe (MUFU, POPC, FLO, F2I, I2F...).
    Xu,
}

impl UnitClass {
    /// Number of classes.
    pub const COUNT: usize = 8;
    /// Every class, in index order.
    pub const ALL: [UnitClass; 8] = [
        UnitClass::IntAlu,
        UnitClass::IntCmp,
        UnitClass::Fp32,
        UnitClass::Fp16,
        UnitClass::Fp64,
        UnitClass::Video,
        UnitClass::VideoAbsdiff,
        UnitClass::Xu,
    ];
    /// Dense index.
    pub const fn index(self) -> usize {
        self as usize
    }
    /// Name used in statistics.
    pub const fn name(self) -> &'static str {
        match self {
            UnitClass::IntAlu => "int_alu",
            UnitClass::IntCmp => "int_cmp",
            UnitClass::Fp32 => "fp32",
            UnitClass::Fp16 => "fp16",
            UnitClass::Fp64 => "fp64",
            UnitClass::Video => "video",
            UnitClass::VideoAbsdiff => "video_absdiff",
            UnitClass::Xu => "xu",
        }
    }
}

/// The unit class of `inst`'s native (first) machine instruction.
pub fn unit_class(inst: &Instruction) -> UnitClass {
    let cmp_class = |t: Type| match t {
        Type::F64 => UnitClass::Fp64,
        Type::F32 => UnitClass::Fp32,
        Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2 => UnitClass::Fp16,
        Type::B16
        | Type::B32
        | Type::B64
        | Type::U16
        | Type::U32
        | Type::U64
        | Type::S16
        | Type::S32
        | Type::S64
        | Type::U16x2
        | Type::S16x2
        | Type::Pred => UnitClass::IntCmp,
    };
    match &inst.op {
        Op::Video(v) => match v.op {
            VideoOp::Absdiff => UnitClass::VideoAbsdiff,
            VideoOp::Add
            | VideoOp::Sub
            | VideoOp::Avrg
            | VideoOp::Min
            | VideoOp::Max
            | VideoOp::Set(_) => UnitClass::Video,
        },
        Op::Set(s) => cmp_class(s.stype),
        Op::Setp(s) => cmp_class(s.ty),
        Op::Slct(s) if s.ctype == Type::F32 => UnitClass::Fp32,
        Op::Slct(_) => UnitClass::IntCmp,
        Op::Int(x) => match x.op {
            IntOp::Min | IntOp::Max => UnitClass::IntCmp,
            // Each other operation named: exhaustive, no wildcard (a new one must be placed).
            IntOp::Add
            | IntOp::Sub
            | IntOp::Mul(_)
            | IntOp::Mad(_)
            | IntOp::Div
            | IntOp::Rem
            | IntOp::Abs
            | IntOp::Neg
            | IntOp::Dp4a
            | IntOp::Dp2a(_)
            | IntOp::Sad
            | IntOp::Addc
            | IntOp::Subc
            | IntOp::Madc(_) => UnitClass::IntAlu,
        },
        Op::Selp(_) | Op::Alu(_) | Op::Bit(_) => UnitClass::IntAlu,
        // ptxas emits a LOP3 for `copysign`.
        Op::Float(x) if x.op == FloatOp::Copysign => UnitClass::IntAlu,
        Op::Float(x) => cmp_class(x.ty),
        Op::Cvt(x) => cvt_class(x),
        // Address arithmetic and warp-wide operations take an integer issue
        // slot; a memory access's latency is the memory model's (the SM
        // runs these as external instructions).
        Op::Mem(_) | Op::Warp(_) | Op::Async(_) => UnitClass::IntAlu,
        // No tensor pipe of its own in the model: sim-core's rules for the
        // machine opcode (`warp_machine_opcode`) place it.
        Op::Mma(m) if m.types[0] == crate::inst::MmaType::F64 => UnitClass::Fp64,
        Op::Mma(_) => UnitClass::Fp32,
    }
}

/// Operand class of a type in the set-family keys.
pub fn type_class(t: Type) -> &'static str {
    match (t.kind(), t.bits()) {
        (TypeKind::Float | TypeKind::BFloat | TypeKind::Pred, _) => t.name(),
        (TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed, 16) => "i16",
        (TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed, 64) => "i64",
        (TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed, _) => "i32",
    }
}

fn sign(b: bool) -> char {
    if b {
        's'
    } else {
        'u'
    }
}

fn video_key(v: &Video, out: &mut String) {
    let n = v.simd.lanes();
    let full = (1u8 << n) - 1;
    let (def_a, def_b) = default_sels(v.simd);
    let shape = if v.asel[..n] != def_a[..n] || v.bsel[..n] != def_b[..n] {
        "sel"
    } else if v.mask != full {
        "mask"
    } else {
        "def"
    };
    let (a, b) = (sign(v.asigned), sign(v.bsigned));
    let name = match v.op {
        VideoOp::Set(c) => {
            let cls = match c {
                CmpOp::Eq | CmpOp::Ne => "eq",
                CmpOp::Lt
                | CmpOp::Le
                | CmpOp::Gt
                | CmpOp::Ge
                | CmpOp::Lo
                | CmpOp::Ls
                | CmpOp::Hi
                | CmpOp::Hs
                | CmpOp::Equ
                | CmpOp::Neu
                | CmpOp::Ltu
                | CmpOp::Leu
                | CmpOp::Gtu
                | CmpOp::Geu
                | CmpOp::Num
                | CmpOp::Nan => "ord",
            };
            let mode = if v.add { "add" } else { "plain" };
            let _ = write!(out, "vset{n}.{cls}.{a}{b}.{mode}.{shape}");
            return;
        }
        VideoOp::Add => "add",
        VideoOp::Sub => "sub",
        VideoOp::Avrg => "avrg",
        VideoOp::Absdiff => "absdiff",
        VideoOp::Min => "min",
        VideoOp::Max => "max",
    };
    let mode = if v.sat {
        "sat"
    } else if v.add {
        "add"
    } else {
        "plain"
    };
    let _ = write!(out, "v{name}{n}.{}{a}{b}.{mode}.{shape}", sign(v.dsigned));
}

/// `alu.add.b32` / `alu.mul.lo.b64` as before the family existed (their
/// cost does not depend on the signedness); the forms added with it keep
/// the type, whose signedness changes the machine code
/// (`alu.mul.hi.s64`, `alu.mad.hi.sat.s32`, `alu.add.sat.s32`).
///
/// The forms PTX 8.0 added keep their type too (`alu.add.u16x2`,
/// `alu.min.relu.s32`), as do `alu.sad.u64` and the dot products with
/// both types (`alu.dp4a.s32.u32`, `alu.dp2a.lo.u32.s32`).
fn int_key(x: &IntArith, out: &mut String) {
    let bits = x.ty.bits();
    if x.op.is_dot() {
        let _ = write!(
            out,
            "alu.{}.{}.{}",
            int_name(x.op),
            x.ty.name(),
            x.bty.name()
        );
        return;
    }
    if x.relu {
        let _ = write!(out, "alu.{}.relu.{}", int_name(x.op), x.ty.name());
        return;
    }
    let _ = match (x.op, x.sat) {
        // The carry forms are their plain form's machine code with the
        // carry in or out (ptxas 13.0.88, sm_90: `add.cc`/`sub.cc` one
        // IADD3 per 32 bits, `addc`/`subc` one IADD3.X or IMAD.X, `mad.cc`
        // and `madc` one IMAD(.X) or a shared IMAD.WIDE): the plain form's
        // rows time them (`crate::carry`).
        (IntOp::Addc, _) => write!(out, "alu.add.b{bits}"),
        (IntOp::Subc, _) => write!(out, "alu.sub.b{bits}"),
        (IntOp::Madc(m), _) => write!(out, "alu.{}.{}", int_name(IntOp::Mad(m)), x.ty.name()),
        (IntOp::Add, false) if x.ty.is_packed16() => {
            write!(out, "alu.{}.{}", int_name(x.op), x.ty.name())
        }
        (IntOp::Add | IntOp::Sub | IntOp::Mul(MulMode::Lo), false) => {
            write!(out, "alu.{}.b{bits}", int_name(x.op))
        }
        (IntOp::Add | IntOp::Sub | IntOp::Mad(_), true) => {
            write!(out, "alu.{}.sat.{}", int_name(x.op), x.ty.name())
        }
        // Each other operation named: exhaustive over operations (a new one must be placed).
        (
            IntOp::Mul(_)
            | IntOp::Mad(_)
            | IntOp::Min
            | IntOp::Max
            | IntOp::Div
            | IntOp::Rem
            | IntOp::Abs
            | IntOp::Neg
            | IntOp::Dp4a
            | IntOp::Dp2a(_)
            | IntOp::Sad,
            _,
        ) => {
            write!(out, "alu.{}.{}", int_name(x.op), x.ty.name())
        }
    };
}

/// A conversion's class: the widest float it touches, else integer.
fn cvt_class(x: &Cvt) -> UnitClass {
    let t = [x.dtype, x.atype];
    let has = |f: &[CvtType]| t.iter().any(|c| f.contains(c));
    if has(&[CvtType::F64]) {
        UnitClass::Fp64
    } else if has(&[CvtType::F32]) {
        UnitClass::Fp32
    } else if has(&[
        CvtType::F16,
        CvtType::Bf16,
        CvtType::F16x2,
        CvtType::Bf16x2,
        CvtType::E4m3x2,
        CvtType::E5m2x2,
    ]) {
        UnitClass::Fp16
    } else {
        UnitClass::IntAlu
    }
}

/// `bit.{word}{.words}.{type}`: `bit.popc.b64`, `bit.prmt.f4e.b32`,
/// `bit.shf.l.clamp.b32`.
fn bit_key(x: &Bit, out: &mut String) -> std::fmt::Result {
    write!(out, "bit.{}", x.op.word())?;
    for w in x.op.words() {
        write!(out, ".{w}")?;
    }
    write!(out, ".{}", x.ty.name())
}

/// The lowering (machine-code expansion) key of `inst`, the row name in
/// sim-core's lowering table. It keeps exactly what changes the
/// machine-code length:
/// - video: `v{op}{2|4}.{signs}.{mode}.{shape}` with `op` in
///   `add sub avrg absdiff min max`, `signs` = d/a/b signedness (`uuu` ...
///   `sss`; the dtype matters even without `.sat`: `vabsdiff4.u32.s32.s32`
///   is one `VABSDIFF4` on sm_90, `vabsdiff4.s32.s32.s32` about 34
///   instructions), `mode` in `plain add sat`, `shape` = `def` (default mask
///   and selectors), `mask` (a partial destination mask), `sel` (a
///   non-default selector); `vset{2|4}.{eq|ord}.{ab signs}.{plain|add}.{shape}`
///   (`eq` = `eq`/`ne`, which need no sign extension; `ord` = the orderings).
/// - `set.{dclass}.{sclass}.{bool|nobool}`, `setp.{sclass}.{bool|nobool}`,
///   `selp.b{bits}`, `slct.{s32|f32}.{ftz|noftz}`, `alu.{op}.b{bits}`, where
///   a class is `i16 i32 i64 f16 bf16 f16x2 bf16x2 f32 f64`.
/// - integer arithmetic: `alu.{add|sub|mul.lo}.b{bits}`, and with the type
///   for the rest: `alu.add.sat.s32`, `alu.mul.hi.u64`, `alu.mad.wide.s16`,
///   `alu.min.u16`, `alu.div.s64`, `alu.neg.s32`.
/// - float arithmetic: `fp.` and the form as written, modifiers in the
///   canonical order (`fp.add.rz.ftz.sat.f32`, `fp.min.NaN.f32`).
/// - bit manipulation: `bit.{word}{.prmt mode | .shf dir.mode}.{type}`.
/// - conversions: the form's head, `cvt{.rnd}{.ftz}{.sat}.dtype.atype`.
pub fn lowering_key(inst: &Instruction) -> String {
    // Room for the longest keys (`mma.m16n8k16.f32.f16.f16.f32`): one
    // allocation a key, not one per doubling.
    let mut s = String::with_capacity(32);
    let b = |bo: bool| if bo { "bool" } else { "nobool" };
    let _ = match &inst.op {
        Op::Video(v) => {
            video_key(v, &mut s);
            Ok(())
        }
        Op::Set(x) => write!(
            s,
            "set.{}.{}.{}",
            type_class(x.dtype),
            type_class(x.stype),
            b(x.bool_op.is_some())
        ),
        Op::Setp(x) => write!(s, "setp.{}.{}", type_class(x.ty), b(x.bool_op.is_some())),
        Op::Selp(x) => write!(s, "selp.b{}", x.ty.bits()),
        Op::Slct(x) => {
            let c = if x.ctype == Type::F32 { "f32" } else { "s32" };
            write!(s, "slct.{c}.{}", if x.ftz { "ftz" } else { "noftz" })
        }
        Op::Alu(a) => write!(s, "alu.{}.b{}", alu_name(a.op), a.ty.bits()),
        Op::Int(x) => {
            int_key(x, &mut s);
            Ok(())
        }
        Op::Bit(x) => bit_key(x, &mut s),
        Op::Cvt(x) => write!(s, "cvt{}", cvt_head(x)),
        Op::Float(x) => {
            s.push_str("fp.");
            s.push_str(float_name(x.op));
            for m in x.modifiers() {
                s.push('.');
                s.push_str(m);
            }
            write!(s, ".{}", x.ty.name())
        }
        Op::Mem(m) => {
            let space = if m.space == Space::Generic {
                "generic"
            } else {
                m.space.name()
            };
            // `mem.prefetch.global.L2::evict_last`, `mem.prefetchu.generic.L1`:
            // the level sets the machine instruction (`CCTL.E.PF1/PF2/PML2`).
            if let MemOp::Prefetch(l) = m.op {
                write!(s, "mem.{}.{space}.{}", name(&inst.op), l.name())
            } else {
                // The vector width written into the key itself, not into a
                // string of its own first (a program's tables make one key
                // per statement).
                write!(s, "mem.{}.{space}", name(&inst.op))
                    .and_then(|()| match m.vec {
                        0 | 1 => Ok(()),
                        v => write!(s, ".v{v}"),
                    })
                    .and_then(|()| write!(s, ".b{}", m.ty.bits()))
            }
        }
        Op::Warp(w) => write!(s, "warp.{}", w.word()),
        Op::Async(a) => async_key(a, &mut s),
        Op::Mma(m) => write!(
            s,
            "mma.{}.{}.{}.{}.{}",
            m.shape.word(),
            m.types[0].word(),
            m.types[1].word(),
            m.types[2].word(),
            m.types[3].word()
        ),
    };
    s
}

/// `async.cp.{ca,cg}.{4,8,16}{.zfill|.zfill.reg}` (`.zfill`: an immediate
/// `src-size` below `cp-size`, `LDGSTS.ZFILL`; `.zfill.reg`: a register
/// one, for which ptxas 13.0.88 computes the shortened copy's address in
/// integer instructions first), `async.commit_group` (`LDGDEPBAR`),
/// `async.wait_group` (`DEPBAR.LE SB0, N`), `async.wait_all` (both): what
/// tells the machine code apart (`tests/data/async-sass.txt`).
fn async_key(a: &crate::inst::AsyncInst, s: &mut String) -> std::fmt::Result {
    use crate::inst::{AsyncOp, Operand};
    match a.op {
        AsyncOp::Copy { cg } => {
            let zfill = match a.src_size {
                Some(Operand::Reg(_)) => ".zfill.reg",
                Some(Operand::Imm(v)) if v < u64::from(a.size) => ".zfill",
                Some(Operand::Imm(_) | Operand::Special(_)) | None => "",
            };
            let cache = if cg { "cg" } else { "ca" };
            write!(s, "async.cp.{cache}.{}{zfill}", a.size)
        }
        // `mbarrier.arrive.noComplete`, `mbarrier.try_wait.parity`, ...:
        // the space and order aside (a generic address adds the window's
        // check; `tests/data/async-sass.txt`).
        AsyncOp::Mbar(m) => {
            write!(s, "async.{}", a.word())?;
            let count = matches!(a.a, Some(Operand::Reg(_) | Operand::Imm(2..)));
            if matches!(m, crate::inst::MbarOp::Arrive { tx: false, .. }) && count {
                s.push_str(".count");
            }
            if a.generic && a.touches_object() {
                s.push_str(".generic");
            }
            Ok(())
        }
        // `UBLKCP.S.G`, `UBLKCP.S.S`, `UBLKCP.G.S`; a register size is
        // shifted into a uniform register first (`.reg`: `USHF`, `UPRMT`).
        AsyncOp::Bulk { .. } | AsyncOp::BulkStore => {
            let dir = match a.op {
                AsyncOp::Bulk { from_shared: true } => "s2s",
                AsyncOp::BulkStore => "s2g",
                AsyncOp::Bulk { from_shared: false }
                | AsyncOp::Copy { .. }
                | AsyncOp::Commit
                | AsyncOp::WaitGroup
                | AsyncOp::WaitAll
                | AsyncOp::BulkCommit
                | AsyncOp::BulkWait { .. }
                | AsyncOp::Mbar(_) => "g2s",
            };
            let reg = if matches!(a.a, Some(Operand::Reg(_))) {
                ".reg"
            } else {
                ""
            };
            write!(s, "async.bulk.{dir}{reg}")
        }
        AsyncOp::BulkCommit => s.write_str("async.bulk.commit_group"),
        AsyncOp::BulkWait { read } => s.write_str(if read {
            "async.bulk.wait_group.read"
        } else {
            "async.bulk.wait_group"
        }),
        AsyncOp::Commit => s.write_str("async.commit_group"),
        AsyncOp::WaitGroup => s.write_str("async.wait_group"),
        AsyncOp::WaitAll => s.write_str("async.wait_all"),
    }
}
