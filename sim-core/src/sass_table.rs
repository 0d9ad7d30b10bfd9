//! The machine instructions NVIDIA's compiler emits per lowering key: opcode,
//! modifiers and, for each instruction, where its inputs come from (an earlier
//! instruction of the sequence or a PTX source operand), so dependency chains
//! come from the real code rather than from a `steps` estimate.
//!
//! The table `data/lowering-sass.tsv` is derived by
//! `tools/lowering/derive_sass.py` (ptxas 11.8 for `sm_35`, 12.4 for `sm_53`,
//! 13.0 for `sm_90`; see `docs/timing-data.md`). Keys are those of
//! [`crate::lowering::key`]. It is embedded with `include_str!` and indexed per
//! architecture on first use. The SM model reads the rows its program needs
//! ([`rows_for_keys`]) and times them with [`crate::pipes`].
//!
//! Row format: `arch \t key \t out \t sequence`; `sequence` is space-separated
//! `OPCODE.MODIFIERS:deps` with deps comma-separated (`-` for none), each an
//! earlier instruction's index or `a`/`b`/`c`/`d`; `out` lists what holds the result.

use crate::config::LoweringArch;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The committed machine-instruction table.
pub const SASS_TSV: &str = include_str!("../data/lowering-sass.tsv");

/// Most sources one machine instruction of the table reads: sm_90's
/// `IMAD.WIDE.U32.X` of 64-bit `mul.hi`/`mad.hi` reads two factors, a
/// two-register addend and a carry predicate, each from a different producer.
pub const MAX_DEPS: usize = 5;

/// Most values a result occupies (a 64-bit result is two registers).
pub const MAX_OUTS: usize = 2;

/// An architecture the table covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SassArch {
    /// Kepler, `sm_35` (ptxas 11.8).
    Sm35,
    /// Maxwell, `sm_53` (ptxas 12.4).
    Sm53,
    /// Hopper, `sm_90` (ptxas 13.0, the H100 measurements' compiler).
    Sm90,
}

impl SassArch {
    /// Every covered architecture, in table order.
    pub const ALL: [SassArch; 3] = [SassArch::Sm35, SassArch::Sm53, SassArch::Sm90];

    /// The table's architecture column.
    pub const fn name(self) -> &'static str {
        match self {
            SassArch::Sm35 => "sm_35",
            SassArch::Sm53 => "sm_53",
            SassArch::Sm90 => "sm_90",
        }
    }

    /// The architecture named `s` (`sm_35`, `sm_53`, `sm_90`).
    pub fn from_name(s: &str) -> Option<SassArch> {
        SassArch::ALL.into_iter().find(|a| a.name() == s)
    }

    /// The table an SM with `arch`'s lowering reads (`None` for
    /// [`LoweringArch::Native`], which expands nothing).
    pub const fn from_lowering(arch: LoweringArch) -> Option<SassArch> {
        match arch {
            LoweringArch::Native => None,
            LoweringArch::Kepler => Some(SassArch::Sm35),
            LoweringArch::Maxwell => Some(SassArch::Sm53),
            LoweringArch::Hopper => Some(SassArch::Sm90),
        }
    }

    const fn index(self) -> usize {
        match self {
            SassArch::Sm35 => 0,
            SassArch::Sm53 => 1,
            SassArch::Sm90 => 2,
        }
    }
}

/// Where a machine instruction reads a value from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Src {
    /// The result of the sequence's instruction at this index (always earlier).
    Inst(u8),
    /// PTX source operand `a`.
    A,
    /// PTX source operand `b`.
    B,
    /// PTX source operand `c` (also the predicate of selp and of set/setp with a BoolOp).
    C,
    /// PTX source operand `d` (`bfi`'s length, its fourth source).
    D,
}

/// A machine opcode without modifiers (`IMAD`, `PRMT`), interned: ids are
/// indices into the sorted list of the table's opcodes, equal for every arch;
/// ids past it name opcodes interned at run time ([`Opcode::intern`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Opcode(pub u16);

impl Opcode {
    /// The opcode's name (`"?"` for an id neither from this table nor
    /// interned by [`Opcode::intern`]).
    pub fn name(self) -> &'static str {
        let i = usize::from(self.0);
        match opcodes().get(i) {
            Some(n) => n,
            None => interned(|names| names.get(i - OPCODES.len()).copied()).unwrap_or("?"),
        }
    }

    /// The id of `name`: the table's own, or one interned for the rest of the
    /// process (machine code read from the compiler, `--lowering compiler`,
    /// names opcodes the table lacks: `S2R`, `VIADDMNMX`). SASS has a few
    /// hundred opcodes, so what this keeps is bounded. `None` past `u16` ids.
    pub fn intern(name: &str) -> Option<Opcode> {
        if let Some(op) = Opcode::lookup(name) {
            return Some(op);
        }
        let i = interned(|names| match names.iter().position(|n| *n == name) {
            Some(i) => Some(i),
            None => {
                names.push(leak(name));
                Some(names.len() - 1)
            }
        })?;
        u16::try_from(OPCODES.len() + i).ok().map(Opcode)
    }

    /// The id of `name`, if the table has that opcode.
    pub fn lookup(name: &str) -> Option<Opcode> {
        let i = opcodes().binary_search(&name).ok()?;
        u16::try_from(i).ok().map(Opcode)
    }
}

/// One machine instruction of a sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MachineInst {
    /// The opcode (`IMAD` of `IMAD.MOV.U32`).
    pub opcode: Opcode,
    /// Its modifiers as printed, with the leading dot (`.MOV.U32`; empty if none).
    /// Comparison modifiers are those of the key's representative form (`lt`).
    pub modifiers: &'static str,
    deps: [Option<Src>; MAX_DEPS],
}

impl MachineInst {
    /// A machine instruction read from the compiler's output (`--lowering
    /// compiler`): `opcode` (`IMAD`) and `modifiers` (`.MOV.U32`, or empty)
    /// are interned for the process ([`Opcode::intern`]); `deps` are its
    /// sources, each once (at most [`MAX_DEPS`]; `None` past that or for an
    /// empty opcode).
    pub fn new(opcode: &str, modifiers: &str, deps: &[Src]) -> Option<MachineInst> {
        if opcode.is_empty() || deps.len() > MAX_DEPS {
            return None;
        }
        let mut d = [None; MAX_DEPS];
        for (slot, src) in d.iter_mut().zip(deps) {
            *slot = Some(*src);
        }
        let modifiers = match modifiers {
            "" => "",
            m => interned_modifiers(m),
        };
        Some(MachineInst {
            opcode: Opcode::intern(opcode)?,
            modifiers,
            deps: d,
        })
    }

    /// The sources it reads, each once, in operand order.
    pub fn deps(&self) -> impl Iterator<Item = Src> + '_ {
        self.deps.iter().map_while(|d| *d)
    }

    /// `OPCODE.MODIFIERS` as the disassembler prints it.
    pub fn mnemonic(&self) -> String {
        format!("{}{}", self.opcode.name(), self.modifiers)
    }
}

/// The machine code of one lowering key on one architecture.
#[derive(Clone, Copy, Debug)]
pub struct Sequence {
    /// The instructions in the compiler's issue order (none when the result is
    /// a PTX operand: ptxas forwards a `mov`'s source to its consumer).
    pub insts: &'static [MachineInst],
    outs: [Option<Src>; MAX_OUTS],
}

impl Sequence {
    /// What holds the result: usually the last instruction, not always (the
    /// compiler interleaves), two entries for a 64-bit result.
    pub fn outs(&self) -> impl Iterator<Item = Src> + '_ {
        self.outs.iter().map_while(|d| *d)
    }
}

/// A malformed row of the table, with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SassTableError {
    /// Not `arch key out sequence`.
    #[error("lowering-sass.tsv line {line}: expected 4 tab-separated fields, found {found}")]
    Fields {
        /// Line number.
        line: usize,
        /// Fields found.
        found: usize,
    },
    /// An architecture the table does not cover.
    #[error("lowering-sass.tsv line {line}: unknown architecture `{arch}`")]
    Arch {
        /// Line number.
        line: usize,
        /// The text found.
        arch: String,
    },
    /// A key given twice for one architecture.
    #[error("lowering-sass.tsv line {line}: duplicate key `{key}`")]
    Duplicate {
        /// Line number.
        line: usize,
        /// The key.
        key: String,
    },
    /// A row without instructions whose result is not a PTX operand.
    #[error("lowering-sass.tsv line {line}: empty sequence")]
    Empty {
        /// Line number.
        line: usize,
    },
    /// An instruction not of the form `OPCODE[.MODS]:deps`.
    #[error("lowering-sass.tsv line {line}, instruction {index}: malformed `{text}`")]
    Inst {
        /// Line number.
        line: usize,
        /// Instruction index in the row.
        index: usize,
        /// The text found.
        text: String,
    },
    /// A source that is not `a`/`b`/`c`/`d` or an earlier instruction (this also
    /// makes every sequence acyclic).
    #[error("lowering-sass.tsv line {line}, instruction {index}: bad source `{src}` (must be a, b, c, d or an earlier index)")]
    Source {
        /// Line number.
        line: usize,
        /// Instruction index in the row (the row's length for the `out` field).
        index: usize,
        /// The source text.
        src: String,
    },
    /// More sources than [`MAX_DEPS`] (or results than [`MAX_OUTS`]).
    #[error("lowering-sass.tsv line {line}, instruction {index}: more than {max} sources")]
    TooMany {
        /// Line number.
        line: usize,
        /// Instruction index in the row (the row's length for the `out` field).
        index: usize,
        /// The limit.
        max: usize,
    },
}

/// One parsed row.
#[derive(Clone, Debug)]
pub struct Row {
    /// Its architecture.
    pub arch: SassArch,
    /// The lowering key.
    pub key: &'static str,
    /// The sequence (instructions owned by the row).
    pub insts: Vec<MachineInst>,
    outs: [Option<Src>; MAX_OUTS],
}

impl Row {
    /// A row not from the table: machine code read from the compiler for one
    /// program instruction (`--lowering compiler`), keyed `key`. `outs` says
    /// what holds the result (at most [`MAX_OUTS`]; `None` past that, or for
    /// an `Inst` index not in `insts`, or an instruction reading a later one).
    pub fn compiled(
        arch: SassArch,
        key: &'static str,
        insts: Vec<MachineInst>,
        outs: &[Src],
    ) -> Option<Row> {
        let earlier = |s: Src, before: usize| match s {
            Src::Inst(j) => usize::from(j) < before,
            _ => true,
        };
        if outs.len() > MAX_OUTS
            || !outs.iter().all(|&s| earlier(s, insts.len()))
            || !insts
                .iter()
                .enumerate()
                .all(|(i, m)| m.deps().all(|s| earlier(s, i)))
        {
            return None;
        }
        let mut o = [None; MAX_OUTS];
        for (slot, src) in o.iter_mut().zip(outs) {
            *slot = Some(*src);
        }
        Some(Row {
            arch,
            key,
            insts,
            outs: o,
        })
    }

    /// What holds the result (see [`Sequence::outs`]).
    pub fn outs(&self) -> impl Iterator<Item = Src> + '_ {
        self.outs.iter().map_while(|d| *d)
    }
}

/// Every opcode of the committed table, sorted: the interner (ids are indices).
/// A constant, so that looking one up does not scan the table; a test holds it
/// equal to the table's opcodes.
pub const OPCODES: [&str; 79] = [
    "BFE",
    "BFI",
    "BMSK",
    "BREV",
    "CSETP",
    "DADD",
    "DFMA",
    "DMNMX",
    "DMUL",
    "DSET",
    "DSETP",
    "F2F",
    "F2FP",
    "F2I",
    "F2IP",
    "FADD",
    "FCMP",
    "FFMA",
    "FLO",
    "FMNMX",
    "FMUL",
    "FRND",
    "FSEL",
    "FSET",
    "FSETP",
    "HADD2",
    "HFMA2",
    "HMNMX2",
    "HMUL2",
    "HSET2",
    "HSETP2",
    "I2F",
    "I2FP",
    "I2I",
    "I2IP",
    "IABS",
    "IADD",
    "IADD3",
    "IADD32I",
    "ICMP",
    "IDP",
    "IMAD",
    "IMNMX",
    "IMUL",
    "ISAD",
    "ISCADD",
    "ISET",
    "ISETP",
    "ISUB",
    "LEA",
    "LOP",
    "LOP3",
    "LOP32I",
    "MOV",
    "MOV32I",
    "MUFU",
    "PLOP3",
    "POPC",
    "PRMT",
    "PSETP",
    "RRO",
    "SEL",
    "SGXT",
    "SHF",
    "SHL",
    "SHR",
    "UMOV",
    "VABSDIFF",
    "VABSDIFF2",
    "VABSDIFF4",
    "VADD2",
    "VADD4",
    "VIADD",
    "VIMNMX",
    "VMNMX2",
    "VMNMX4",
    "VSET2",
    "VSET4",
    "XMAD",
];

fn opcodes() -> &'static [&'static str] {
    &OPCODES
}

/// A string kept for the rest of the process (interned names only).
fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

/// Runs `f` over the opcodes interned beyond the table's.
fn interned<T>(f: impl FnOnce(&mut Vec<&'static str>) -> Option<T>) -> Option<T> {
    static NAMES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut names)
}

/// `m` as a string kept for the process, one copy per distinct text.
fn interned_modifiers(m: &str) -> &'static str {
    static MODS: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut mods = MODS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = mods.iter().find(|k| **k == m) {
        return k;
    }
    let k = leak(m);
    mods.push(k);
    k
}

fn data_lines() -> impl Iterator<Item = (usize, &'static str)> {
    SASS_TSV
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
}

fn parse_src(s: &str, before: usize) -> Option<Src> {
    match s {
        "a" => Some(Src::A),
        "b" => Some(Src::B),
        "c" => Some(Src::C),
        "d" => Some(Src::D),
        _ => {
            let i: usize = s.parse().ok()?;
            (i < before).then_some(Src::Inst(u8::try_from(i).ok()?))
        }
    }
}

/// Parses a comma-separated source list (`-` for none) into a fixed array.
fn parse_srcs<const N: usize>(
    text: &str,
    before: usize,
    line: usize,
    index: usize,
) -> Result<[Option<Src>; N], SassTableError> {
    let mut out = [None; N];
    if text == "-" {
        return Ok(out);
    }
    for (k, s) in text.split(',').enumerate() {
        let src = parse_src(s, before).ok_or_else(|| SassTableError::Source {
            line,
            index,
            src: s.to_string(),
        })?;
        *out.get_mut(k).ok_or(SassTableError::TooMany {
            line,
            index,
            max: N,
        })? = Some(src);
    }
    Ok(out)
}

/// One data line (1-based `line`) of the committed table.
fn parse_row(line: usize, text: &'static str) -> Result<Row, SassTableError> {
    let f: Vec<&'static str> = text.split('\t').collect();
    let [arch, key, out, seq] = f[..] else {
        return Err(SassTableError::Fields {
            line,
            found: f.len(),
        });
    };
    let arch = SassArch::from_name(arch).ok_or_else(|| SassTableError::Arch {
        line,
        arch: arch.to_string(),
    })?;
    let mut insts = Vec::new();
    for (index, inst) in seq.split_ascii_whitespace().enumerate() {
        let bad = || SassTableError::Inst {
            line,
            index,
            text: inst.to_string(),
        };
        let (mnemonic, deps) = inst.split_once(':').ok_or_else(bad)?;
        let dot = mnemonic.find('.').unwrap_or(mnemonic.len());
        let (name, modifiers) = mnemonic.split_at(dot);
        let opcode = Opcode::lookup(name)
            .filter(|_| !name.is_empty())
            .ok_or_else(bad)?;
        let deps = parse_srcs(deps, index, line, index)?;
        insts.push(MachineInst {
            opcode,
            modifiers,
            deps,
        });
    }
    // No instructions is a row only when the result is a PTX operand itself:
    // ptxas folds a lone `mov` into its consumer (`alu.mov.*`: out `a`).
    // Checked before `out` so that an index there reads as an empty row.
    if insts.is_empty() && !out.split(',').all(|s| parse_src(s, 0).is_some()) {
        return Err(SassTableError::Empty { line });
    }
    let outs = parse_srcs(out, insts.len(), line, insts.len())?;
    Ok(Row {
        arch,
        key,
        insts,
        outs,
    })
}

/// Parses the committed table, stopping at the first malformed row.
pub fn parse_table() -> Result<Vec<Row>, SassTableError> {
    let mut seen = std::collections::HashSet::new();
    data_lines()
        .map(|(line, text)| {
            let row = parse_row(line, text)?;
            if !seen.insert((row.arch, row.key)) {
                return Err(SassTableError::Duplicate {
                    line,
                    key: row.key.to_string(),
                });
            }
            Ok(row)
        })
        .collect()
}

/// One architecture's rows: instructions in one buffer, keys hashed to ranges.
struct ArchTable {
    insts: Vec<MachineInst>,
    index: HashMap<&'static str, (u32, u16, [Option<Src>; MAX_OUTS])>,
}

fn arch_table(arch: SassArch) -> &'static ArchTable {
    static T: [OnceLock<ArchTable>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    T[arch.index()].get_or_init(|| {
        let mut t = ArchTable {
            insts: Vec::new(),
            index: HashMap::new(),
        };
        // Malformed rows are skipped here; the committed table is checked by a test.
        let rows = data_lines()
            .filter(|(_, l)| {
                l.strip_prefix(arch.name())
                    .is_some_and(|r| r.starts_with('\t'))
            })
            .filter_map(|(n, l)| parse_row(n, l).ok());
        for row in rows {
            let (Ok(start), Ok(len)) =
                (u32::try_from(t.insts.len()), u16::try_from(row.insts.len()))
            else {
                continue;
            };
            t.insts.extend_from_slice(&row.insts);
            t.index.entry(row.key).or_insert((start, len, row.outs));
        }
        t
    })
}

/// The machine code of `key` (see [`crate::lowering::key`]) on `arch`, if the
/// compiler accepts that form there.
pub fn sequence(arch: SassArch, key: &str) -> Option<Sequence> {
    let t = arch_table(arch);
    let &(start, len, outs) = t.index.get(key)?;
    let start = start as usize;
    let insts = t.insts.get(start..start + usize::from(len))?;
    Some(Sequence { insts, outs })
}

/// The first newline of `text` at or after byte `at`. `str::find` scans a
/// word at a time, several times faster than a byte loop over the table's
/// long lines; a position inside a character (never in the ASCII table)
/// scans bytes.
fn newline_from(text: &str, at: usize) -> Option<usize> {
    match text.get(at..) {
        Some(t) => t.find('\n'),
        None => text.as_bytes().get(at..)?.iter().position(|&b| b == b'\n'),
    }
    .map(|p| at + p)
}

/// The start of the first line at or after byte `at` of `text`.
fn line_start(text: &str, at: usize) -> usize {
    if at == 0 || text.as_bytes().get(at - 1) == Some(&b'\n') {
        return at.min(text.len());
    }
    newline_from(text, at).map_or(text.len(), |p| p + 1)
}

/// The committed row of `key` on `arch`, found by binary search: the table's
/// rows are grouped by architecture (in `SassArch::ALL` order) and sorted by
/// key within one (a test holds it so; comments come first), so a lookup
/// reads a few dozen lines, not the table.
fn find_line(arch: SassArch, key: &str) -> Option<&'static str> {
    let text = SASS_TSV;
    let target = (arch.name(), key);
    let line_at = |s: usize| {
        let end = newline_from(text, s).unwrap_or(text.len());
        text.get(s..end).unwrap_or_default()
    };
    let fields = |l: &'static str| {
        let mut f = l.split('\t');
        (f.next().unwrap_or_default(), f.next().unwrap_or_default())
    };
    let (mut lo, mut hi, mut best) = (0, text.len(), None);
    while lo < hi {
        let s = line_start(text, lo + (hi - lo) / 2);
        if s >= hi {
            hi = lo + (hi - lo) / 2;
            continue;
        }
        let line = line_at(s);
        if fields(line) < target {
            lo = line_start(text, s + 1);
        } else {
            best = Some(line);
            hi = s;
        }
    }
    best.filter(|l| fields(l) == target)
}

/// The rows of `keys` on `arch`, in the order of `keys` (`None` where the table
/// has no row), each distinct key found by binary search (`find_line`) and
/// parsed alone: a program needs a few dozen of the ~2,000 rows of an arch,
/// so this neither reads nor indexes the rest.
pub fn rows_for_keys(arch: SassArch, keys: &[&str]) -> Vec<Option<Row>> {
    // Malformed rows read as missing here; the committed table is checked by a test.
    // A program repeats its keys: each distinct one is looked up once.
    let mut found: rustc_hash::FxHashMap<&str, Option<Row>> = Default::default();
    keys.iter()
        .map(|&k| {
            found
                .entry(k)
                .or_insert_with(|| find_line(arch, k).and_then(|l| parse_row(0, l).ok()))
                .clone()
        })
        .collect()
}

/// Number of keys the table has for `arch`.
pub fn keys_for(arch: SassArch) -> usize {
    arch_table(arch).index.len()
}

#[cfg(test)]
mod tests;
