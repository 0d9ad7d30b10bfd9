//! Machine-code expansion of PTX instructions: how many machine instructions
//! (micro-ops) NVIDIA's compiler emits for one PTX instruction, and how many of
//! them form its longest dependent chain (steps).
//!
//! The table `data/lowering.tsv` is derived by `tools/lowering/derive.py` from
//! ptxas + nvdisasm output (see ARCHITECTURE.md, "Lowering table"). It is embedded
//! with `include_str!` and parsed once per process.
//!
//! # Variant key
//! The key keeps exactly what changes the machine-code length:
//! - video: `v{op}{2|4}.{signs}.{mode}.{shape}` with `op` in
//!   `add sub avrg absdiff min max`, `signs` = d/a/b signedness (`uuu` ... `sss`;
//!   the dtype matters even without `.sat`: `vabsdiff4.u32.s32.s32` is one
//!   `VABSDIFF4` on sm_90, `vabsdiff4.s32.s32.s32` about 34 instructions),
//!   `mode` in `plain add sat`, `shape` = `def` (default mask and selectors),
//!   `mask` (a partial destination mask), `sel` (a non-default selector);
//!   `vset{2|4}.{eq|ord}.{ab signs}.{plain|add}.{shape}` (`eq` = `eq`/`ne`,
//!   which need no sign extension; `ord` = the four orderings).
//! - `set.{dclass}.{sclass}.{bool|nobool}`, `setp.{sclass}.{bool|nobool}`,
//!   `selp.b{bits}`, `slct.{s32|f32}.{ftz|noftz}`, `alu.{op}.b{bits}`, where a
//!   class is `i16 i32 i64 f16 bf16 f16x2 bf16x2 f32 f64`.

use crate::config::LoweringArch;
use sim_isa::{AluOp, Instruction, Op, Type, TypeKind, Video, VideoOp};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::OnceLock;

/// The committed expansion table.
pub const TABLE_TSV: &str = include_str!("../data/lowering.tsv");

/// Cost of one PTX instruction in machine instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    /// Machine instructions (micro-ops), at least 1.
    pub uops: u16,
    /// Longest chain of dependent machine instructions, `1..=uops`.
    pub steps: u16,
    /// Whether the row came from the table (false: assumed native, 1/1).
    pub from_table: bool,
}

impl Cost {
    /// One native machine instruction.
    pub const NATIVE: Cost = Cost {
        uops: 1,
        steps: 1,
        from_table: false,
    };
}

type Table = BTreeMap<(String, String), (u16, u16)>;

/// One architecture's rows as looked up at run time: keys borrowed from the
/// embedded text, hashed, so startup does no per-row allocation.
type Lookup = HashMap<&'static str, (u16, u16)>;

/// Architectures the table covers, in the order of the per-arch maps.
const TABLE_ARCHS: [&str; 3] = ["sm_35", "sm_53", "sm_90"];

/// The committed rows of `arch` (`None` if the table has no such arch). Built
/// per arch on first use: a run parses only the rows it can look up.
fn table(arch: &str) -> Option<&'static Lookup> {
    static T: [OnceLock<Lookup>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let i = TABLE_ARCHS.iter().position(|&a| a == arch)?;
    let arch = TABLE_ARCHS[i];
    Some(T[i].get_or_init(|| {
        // Lines average ~55 bytes: room for an arch's share of the rows, so building never rehashes.
        let mut m = Lookup::with_capacity(TABLE_TSV.len() / 40 / TABLE_ARCHS.len());
        m.extend(
            TABLE_TSV
                .lines()
                // Cheap prefix test first: most lines belong to other archs.
                .filter(|l| l.strip_prefix(arch).is_some_and(|r| r.starts_with('\t')))
                .filter_map(row)
                .map(|(_, k, n, d)| (k, (n, d))),
        );
        m
    }))
}

/// The well-formed rows of the TSV (`arch key uops steps ...`, `#`
/// comments), in order.
fn rows(text: &str) -> impl Iterator<Item = (&str, &str, u16, u16)> {
    text.lines().filter_map(row)
}

/// One line of the TSV, if it is a well-formed row.
fn row(line: &str) -> Option<(&str, &str, u16, u16)> {
    if line.starts_with('#') || line.trim().is_empty() {
        return None;
    }
    let mut f = line.split('\t');
    let (arch, key, n, d) = (f.next()?, f.next()?, f.next()?, f.next()?);
    let (Ok(n), Ok(d)) = (n.parse::<u16>(), d.parse::<u16>()) else {
        return None;
    };
    if n == 0 || d == 0 || d > n {
        return None;
    }
    Some((arch, key, n, d))
}

/// Parses the TSV (`arch key uops steps ...`, `#` comments). Malformed rows are
/// skipped; the table is committed data checked by a test.
pub fn parse_table(text: &str) -> Table {
    rows(text)
        .map(|(a, k, n, d)| ((a.to_string(), k.to_string()), (n, d)))
        .collect()
}

/// Number of rows for `arch` (`sm_35`, `sm_53`, `sm_90`).
pub fn rows_for(arch: &str) -> usize {
    table(arch).map_or(0, |t| t.len())
}

/// The cost of `inst` under `arch`'s table.
pub fn cost(arch: LoweringArch, inst: &Instruction) -> Cost {
    let Some(a) = arch.table_arch() else {
        return Cost::NATIVE;
    };
    let k = key(inst);
    match table(a).and_then(|t| t.get(k.as_str())) {
        Some(&(uops, steps)) => Cost {
            uops,
            steps,
            from_table: true,
        },
        None => Cost::NATIVE,
    }
}

fn sign(b: bool) -> char {
    if b {
        's'
    } else {
        'u'
    }
}

/// Operand class of a type for the set-family keys.
pub fn type_class(t: Type) -> &'static str {
    match (t.kind(), t.bits()) {
        (TypeKind::Float, _) | (TypeKind::BFloat, _) | (TypeKind::Pred, _) => t.name(),
        (_, 16) => "i16",
        (_, 64) => "i64",
        _ => "i32",
    }
}

fn video_key(v: &Video, out: &mut String) {
    let x = if v.simd == sim_isa::Simd::X2 { 2 } else { 4 };
    let full: u8 = if x == 2 { 0b11 } else { 0b1111 };
    let def_a: [u8; 4] = if x == 2 { [0, 1, 0, 0] } else { [0, 1, 2, 3] };
    let def_b: [u8; 4] = if x == 2 { [2, 3, 0, 0] } else { [4, 5, 6, 7] };
    let n = x as usize;
    let shape = if v.asel[..n] != def_a[..n] || v.bsel[..n] != def_b[..n] {
        "sel"
    } else if v.mask != full {
        "mask"
    } else {
        "def"
    };
    let (a, b) = (sign(v.asigned), sign(v.bsigned));
    match v.op {
        VideoOp::Set(c) => {
            let cls = if matches!(c, sim_isa::CmpOp::Eq | sim_isa::CmpOp::Ne) {
                "eq"
            } else {
                "ord"
            };
            let mode = if v.add { "add" } else { "plain" };
            let _ = write!(out, "vset{x}.{cls}.{a}{b}.{mode}.{shape}");
        }
        op => {
            let name = match op {
                VideoOp::Add => "add",
                VideoOp::Sub => "sub",
                VideoOp::Avrg => "avrg",
                VideoOp::Absdiff => "absdiff",
                VideoOp::Min => "min",
                _ => "max",
            };
            let mode = if v.sat {
                "sat"
            } else if v.add {
                "add"
            } else {
                "plain"
            };
            let _ = write!(out, "v{name}{x}.{}{a}{b}.{mode}.{shape}", sign(v.dsigned));
        }
    }
}

/// The variant key of `inst` (see the module documentation).
pub fn key(inst: &Instruction) -> String {
    let mut s = String::new();
    let b = |bo: bool| if bo { "bool" } else { "nobool" };
    match &inst.op {
        Op::Video(v) => video_key(v, &mut s),
        Op::Set(x) => {
            let _ = write!(
                s,
                "set.{}.{}.{}",
                type_class(x.dtype),
                type_class(x.stype),
                b(x.bool_op.is_some())
            );
        }
        Op::Setp(x) => {
            let _ = write!(s, "setp.{}.{}", type_class(x.ty), b(x.bool_op.is_some()));
        }
        Op::Selp(x) => {
            let _ = write!(s, "selp.b{}", x.ty.bits());
        }
        Op::Slct(x) => {
            let c = if x.ctype == Type::F32 { "f32" } else { "s32" };
            let _ = write!(s, "slct.{c}.{}", if x.ftz { "ftz" } else { "noftz" });
        }
        Op::Alu(a) => {
            let _ = write!(s, "alu.{}.b{}", alu_name(a.op), a.ty.bits());
        }
    }
    s
}

/// Mnemonic of a supporting ALU op (`mul.lo` for [`AluOp::MulLo`]).
pub const fn alu_name(op: AluOp) -> &'static str {
    match op {
        AluOp::Mov => "mov",
        AluOp::Add => "add",
        AluOp::Sub => "sub",
        AluOp::MulLo => "mul.lo",
        AluOp::And => "and",
        AluOp::Or => "or",
        AluOp::Xor => "xor",
        AluOp::Shl => "shl",
        AluOp::Shr => "shr",
    }
}
