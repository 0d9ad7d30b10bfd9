//! Conformance vectors (the format is described in `docs/conformance-format.md`):
//! parse, run, compare. No files are opened here: callers hand in the text,
//! or a reader ([`run_reader`]).
//!
//! [`run_vectors`] reads a JSON Lines text, runs every vector on lane 0 of one
//! warp and returns a [`Report`]; [`Summary::line`] prints the
//! `N passed, M failed[, K skipped]` line. A vector the runner cannot use (bad
//! JSON, an empty `out`, a missing input, a value wider than its operand, a
//! line over [`MAX_LINE_BYTES`]) is *skipped* with the reason and its line
//! number, never counted as a simulator pass or failure; callers treat any
//! skip as an error in the file.

use crate::error::{ErrorKind, IsaError};
use crate::exec::{execute, ExecCtx, WarpRegs};
use crate::inst::{Instruction, RegId};
use crate::symbols::Symbols;
use crate::target::Target;
use serde_json::Value as Json;
use std::fmt;
use std::io::BufRead;

/// Longest vector line [`run_reader`] accepts, in bytes (a vector is a few
/// hundred): memory stays bounded whatever the input.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// A register value in a vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegValue {
    /// A predicate (JSON boolean).
    Pred(bool),
    /// Any other register (JSON hex string `"0x..."`).
    Bits(u64),
}

impl RegValue {
    /// The value as stored in a register file (predicates 0/1).
    pub fn raw(self) -> u64 {
        match self {
            RegValue::Pred(b) => u64::from(b),
            RegValue::Bits(v) => v,
        }
    }
}

impl fmt::Display for RegValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegValue::Pred(b) => write!(f, "{b}"),
            RegValue::Bits(v) => write!(f, "{v:#x}"),
        }
    }
}

/// What a vector expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// The instruction is accepted and leaves these registers with these values.
    Out(Vec<(String, RegValue)>),
    /// The instruction is rejected with this kind.
    Error(ErrorKind),
}

/// One decoded vector line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vector {
    /// 1-based line number in the file.
    pub line: usize,
    /// Target name as written (`sm_53`).
    pub arch: String,
    /// Instruction text.
    pub ptx: String,
    /// Register values before the instruction, in the file's key order
    /// (sorted by name: serde_json's map).
    pub inputs: Vec<(String, RegValue)>,
    /// Expected outcome.
    pub expect: Expect,
}

/// Why a line is not a usable vector.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VectorError {
    /// Not valid JSON, or not an object.
    #[error("malformed JSON: {0}")]
    Json(String),
    /// A required field is absent or of the wrong JSON type.
    #[error("field '{field}': {msg}")]
    Field {
        /// The field (`arch`, `ptx`, `in`, `out`, `error`).
        field: &'static str,
        /// What is wrong.
        msg: String,
    },
    /// A register value that is neither a boolean nor a `0x` hex string of at most 64 bits.
    #[error("register {reg}: bad value {value}: expected a boolean or a hex string \"0x...\"")]
    Value {
        /// Register name.
        reg: String,
        /// The JSON as written.
        value: String,
    },
    /// `arch` is not `sm_XY`.
    #[error("{0}")]
    Arch(String),
    /// A value with bits above the operand's width.
    #[error("register {reg}: value {value} does not fit its {bits}-bit operand")]
    TooWide {
        /// Register name.
        reg: String,
        /// The value.
        value: RegValue,
        /// The operand width.
        bits: u32,
    },
    /// A predicate given a hex string, or another register given a boolean.
    #[error("register {reg}: {msg}")]
    Kind {
        /// Register name.
        reg: String,
        /// What is wrong.
        msg: String,
    },
    /// The instruction reads a register that `in` does not give.
    #[error("the instruction reads {0}, which \"in\" does not give")]
    MissingInput(String),
    /// `out` names a register the instruction does not use.
    #[error("\"out\" names {0}, which the instruction does not use")]
    UnknownOutput(String),
    /// A line longer than [`MAX_LINE_BYTES`].
    #[error("line longer than {limit} bytes")]
    LineTooLong {
        /// The limit.
        limit: usize,
    },
    /// A line that is not UTF-8 text.
    #[error("line is not UTF-8 text")]
    NotText,
}

/// Result of one vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Matches.
    Passed,
    /// The simulator disagrees with the vector.
    Failed {
        /// What the vector expects (mismatching registers, or an error kind).
        expected: String,
        /// What the simulator produced.
        actual: String,
    },
    /// The vector itself is unusable.
    Skipped(VectorError),
}

/// One line's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorResult {
    /// 1-based line number.
    pub line: usize,
    /// The instruction text (empty when the line could not be decoded).
    pub ptx: String,
    /// What happened.
    pub outcome: Outcome,
}

impl fmt::Display for VectorResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Outcome::Passed => write!(f, "line {}: {}: passed", self.line, self.ptx),
            Outcome::Failed { expected, actual } => {
                write!(
                    f,
                    "line {}: {}: expected {expected}, got {actual}",
                    self.line, self.ptx
                )
            }
            Outcome::Skipped(e) if self.ptx.is_empty() => {
                write!(f, "line {}: skipped: {e}", self.line)
            }
            Outcome::Skipped(e) => write!(f, "line {}: {}: skipped: {e}", self.line, self.ptx),
        }
    }
}

/// Counts of a run: what [`Report`] and [`run_reader`] summarise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Vectors that passed.
    pub passed: usize,
    /// Vectors the simulator failed.
    pub failed: usize,
    /// Vector lines that could not be used.
    pub skipped: usize,
}

impl Summary {
    /// Counts one outcome.
    pub fn add(&mut self, o: &Outcome) {
        match o {
            Outcome::Passed => self.passed += 1,
            Outcome::Failed { .. } => self.failed += 1,
            Outcome::Skipped(_) => self.skipped += 1,
        }
    }
    /// Adds another run's counts.
    pub fn merge(&mut self, o: Summary) {
        self.passed += o.passed;
        self.failed += o.failed;
        self.skipped += o.skipped;
    }
    /// Vectors that ran (passed or failed).
    pub fn ran(&self) -> usize {
        self.passed + self.failed
    }
    /// `N passed, M failed`, with `, K skipped` when K > 0.
    pub fn line(&self) -> String {
        let mut s = format!("{} passed, {} failed", self.passed, self.failed);
        if self.skipped > 0 {
            s.push_str(&format!(", {} skipped", self.skipped));
        }
        s
    }
}

/// All results of a vector file, in line order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// One entry per vector line (blank and `#` lines are not listed).
    pub results: Vec<VectorResult>,
}

impl Report {
    /// The counts.
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for r in &self.results {
            s.add(&r.outcome);
        }
        s
    }
    /// Vectors that passed.
    pub fn passed(&self) -> usize {
        self.summary().passed
    }
    /// Vectors the simulator failed.
    pub fn failed(&self) -> usize {
        self.summary().failed
    }
    /// Vectors that could not be used.
    pub fn skipped(&self) -> usize {
        self.summary().skipped
    }
    /// No failures (skips do not count against).
    pub fn ok(&self) -> bool {
        self.failed() == 0
    }
    /// Failed and skipped vectors, in line order.
    pub fn problems(&self) -> impl Iterator<Item = &VectorResult> {
        self.results.iter().filter(|r| r.outcome != Outcome::Passed)
    }
    /// `N passed, M failed`, with `, K skipped` when K > 0.
    pub fn summary_line(&self) -> String {
        self.summary().line()
    }
}

impl fmt::Display for Report {
    /// One line per failed or skipped vector, then the summary line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in self.problems() {
            writeln!(f, "{r}")?;
        }
        writeln!(f, "{}", self.summary_line())
    }
}

fn field_err(field: &'static str, msg: impl Into<String>) -> VectorError {
    VectorError::Field {
        field,
        msg: msg.into(),
    }
}

fn parse_value(reg: &str, v: &Json) -> Result<RegValue, VectorError> {
    let bad = || VectorError::Value {
        reg: reg.to_string(),
        value: v.to_string(),
    };
    match v {
        Json::Bool(b) => Ok(RegValue::Pred(*b)),
        Json::String(s) => {
            let hex = s
                .strip_prefix("0x")
                .or_else(|| s.strip_prefix("0X"))
                .ok_or_else(bad)?;
            if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad());
            }
            u64::from_str_radix(hex, 16)
                .map(RegValue::Bits)
                .map_err(|_| bad())
        }
        _ => Err(bad()),
    }
}

fn parse_regs(
    field: &'static str,
    v: Option<&Json>,
) -> Result<Vec<(String, RegValue)>, VectorError> {
    match v {
        None => Ok(Vec::new()),
        Some(Json::Object(m)) => m
            .iter()
            .map(|(k, v)| Ok((k.clone(), parse_value(k, v)?)))
            .collect(),
        Some(_) => Err(field_err(field, "expected an object of register -> value")),
    }
}

fn parse_str<'a>(
    obj: &'a serde_json::Map<String, Json>,
    field: &'static str,
) -> Result<&'a str, VectorError> {
    match obj.get(field) {
        Some(Json::String(s)) => Ok(s),
        Some(_) => Err(field_err(field, "expected a string")),
        None => Err(field_err(field, "missing")),
    }
}

/// Decodes one non-blank, non-comment line. On error, also returns the
/// instruction text when it could be read, for reporting.
fn parse_line(line: usize, text: &str) -> Result<Vector, (String, VectorError)> {
    let json: Json = serde_json::from_str(text)
        .map_err(|e| (String::new(), VectorError::Json(e.to_string())))?;
    let Json::Object(obj) = json else {
        return Err((
            String::new(),
            VectorError::Json("expected a JSON object".into()),
        ));
    };
    let ptx = parse_str(&obj, "ptx")
        .map_err(|e| (String::new(), e))?
        .to_string();
    let with_ptx = |e| (ptx.clone(), e);
    let arch = parse_str(&obj, "arch").map_err(with_ptx)?.to_string();
    let inputs = parse_regs("in", obj.get("in")).map_err(with_ptx)?;
    let expect = match (obj.get("out"), obj.get("error")) {
        (Some(out), None) => {
            let regs = parse_regs("out", Some(out)).map_err(with_ptx)?;
            if regs.is_empty() {
                // Every instruction writes something; an empty `out` would
                // pass whatever the simulator did to the destination.
                return Err(with_ptx(field_err(
                    "out",
                    "empty: list every register the instruction writes",
                )));
            }
            Expect::Out(regs)
        }
        (None, Some(Json::String(e))) => Expect::Error(match e.as_str() {
            "invalid" => ErrorKind::Invalid,
            "arch" => ErrorKind::Unsupported,
            other => {
                return Err(with_ptx(field_err(
                    "error",
                    format!("'{other}' is neither \"invalid\" nor \"arch\""),
                )))
            }
        }),
        (None, Some(_)) => return Err(with_ptx(field_err("error", "expected a string"))),
        (Some(_), Some(_)) => {
            return Err(with_ptx(field_err(
                "out",
                "a vector has either \"out\" or \"error\", not both",
            )))
        }
        (None, None) => return Err(with_ptx(field_err("out", "missing (and no \"error\")"))),
    };
    Ok(Vector {
        line,
        arch,
        ptx,
        inputs,
        expect,
    })
}

/// Decodes a JSON Lines vector file: one entry per vector line (blank lines and
/// lines starting with `#` are ignored), each a [`Vector`] or the line's error
/// with its 1-based line number. Never panics on malformed input.
pub fn parse_vectors(text: &str) -> Vec<Result<Vector, (usize, VectorError)>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#')
        })
        .map(|(i, l)| parse_line(i + 1, l.trim()).map_err(|(_, e)| (i + 1, e)))
        .collect()
}

/// Runs every vector in `text` with the crate's parser
/// ([`crate::parse::parse_for_target`], no `.version`).
pub fn run_vectors(text: &str) -> Report {
    run_vectors_with(text, |ptx, syms, target| {
        crate::parse::parse_for_target(ptx, syms, target, None)
    })
}

/// [`run_vectors`] with the text -> instruction step supplied by the caller
/// (tests use hand-built instructions; tools may pin a PTX version).
pub fn run_vectors_with<F>(text: &str, mut parse: F) -> Report
where
    F: FnMut(&str, &mut Symbols, Target) -> Result<Instruction, IsaError>,
{
    let results = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| run_line_with(i + 1, l, &mut parse))
        .collect();
    Report { results }
}

/// Runs one line of a vector file (`line` is its 1-based number): `None` for
/// a blank or `#` line, else the vector's result.
pub fn run_line_with<F>(line: usize, text: &str, parse: &mut F) -> Option<VectorResult>
where
    F: FnMut(&str, &mut Symbols, Target) -> Result<Instruction, IsaError>,
{
    let t = text.trim();
    if t.is_empty() || t.starts_with('#') {
        return None;
    }
    let (ptx, outcome) = match parse_line(line, t) {
        Ok(v) => {
            let o = run_vector(&v, parse);
            (v.ptx, o)
        }
        Err((ptx, e)) => (ptx, Outcome::Skipped(e)),
    };
    Some(VectorResult { line, ptx, outcome })
}

/// Runs the vectors of a JSON Lines stream one line at a time with the
/// crate's parser, handing each result to `each`, and returns the counts.
/// Memory is bounded by [`MAX_LINE_BYTES`]: a longer line is a skipped vector
/// with its line number and ends the run (the input is no vector file); a
/// line that is not UTF-8 is skipped. Only read errors fail.
pub fn run_reader<R: BufRead>(
    mut r: R,
    mut each: impl FnMut(&VectorResult),
) -> std::io::Result<Summary> {
    let mut parse = |ptx: &str, syms: &mut Symbols, target: Target| {
        crate::parse::parse_for_target(ptx, syms, target, None)
    };
    let mut sum = Summary::default();
    let mut buf = Vec::new();
    let mut line = 0;
    loop {
        buf.clear();
        let limit = MAX_LINE_BYTES as u64 + 1;
        if std::io::Read::take(&mut r, limit).read_until(b'\n', &mut buf)? == 0 {
            return Ok(sum);
        }
        line += 1;
        if buf.len() > MAX_LINE_BYTES {
            // Not a vector file (a vector is a few hundred bytes): stop
            // rather than scan an endless line (`/dev/zero`).
            let res = skipped(
                line,
                VectorError::LineTooLong {
                    limit: MAX_LINE_BYTES,
                },
            );
            sum.add(&res.outcome);
            each(&res);
            return Ok(sum);
        }
        let res = match std::str::from_utf8(&buf) {
            Ok(text) => run_line_with(line, text, &mut parse),
            Err(_) => Some(skipped(line, VectorError::NotText)),
        };
        if let Some(res) = res {
            sum.add(&res.outcome);
            each(&res);
        }
    }
}

fn skipped(line: usize, e: VectorError) -> VectorResult {
    VectorResult {
        line,
        ptx: String::new(),
        outcome: Outcome::Skipped(e),
    }
}

fn kind_name(k: ErrorKind) -> &'static str {
    match k {
        ErrorKind::Invalid => "error invalid",
        ErrorKind::Unsupported => "error arch",
        ErrorKind::Unimplemented => "error unimplemented",
    }
}

/// Width each register has in `inst`: its written width if written, else the
/// widest width it is read at.
fn reg_width(inst: &Instruction, r: RegId) -> Option<u32> {
    let uses = inst.reg_uses();
    let written = uses.writes().filter(|u| u.reg == r).map(|u| u.bits).max();
    written.or_else(|| uses.reads().filter(|u| u.reg == r).map(|u| u.bits).max())
}

fn check_fits(reg: &str, v: RegValue, bits: u32) -> Result<(), VectorError> {
    match (v, bits) {
        (RegValue::Pred(_), 1) => Ok(()),
        (RegValue::Pred(_), _) => Err(VectorError::Kind {
            reg: reg.into(),
            msg: format!("a boolean for a {bits}-bit operand"),
        }),
        (RegValue::Bits(_), 1) => Err(VectorError::Kind {
            reg: reg.into(),
            msg: "a hex string for a predicate (use true/false)".into(),
        }),
        (RegValue::Bits(x), _) if bits < 64 && x >> bits != 0 => Err(VectorError::TooWide {
            reg: reg.into(),
            value: v,
            bits,
        }),
        _ => Ok(()),
    }
}

/// Shows a register's value at its width, as the vector would write it.
fn show(bits: u32, raw: u64) -> RegValue {
    if bits == 1 {
        RegValue::Pred(raw & 1 != 0)
    } else {
        RegValue::Bits(raw)
    }
}

/// Runs one decoded vector.
pub fn run_vector<F>(v: &Vector, parse: &mut F) -> Outcome
where
    F: FnMut(&str, &mut Symbols, Target) -> Result<Instruction, IsaError>,
{
    match run_inner(v, parse) {
        Ok(o) => o,
        Err(e) => Outcome::Skipped(e),
    }
}

fn run_inner<F>(v: &Vector, parse: &mut F) -> Result<Outcome, VectorError>
where
    F: FnMut(&str, &mut Symbols, Target) -> Result<Instruction, IsaError>,
{
    let target = Target::parse(&v.arch).map_err(|e| VectorError::Arch(e.to_string()))?;
    let mut syms = Symbols::new();
    let parsed = parse(&v.ptx, &mut syms, target);
    let out = match (&v.expect, parsed) {
        (Expect::Error(k), Ok(_)) => {
            return Ok(Outcome::Failed {
                expected: kind_name(*k).into(),
                actual: "accepted".into(),
            })
        }
        (Expect::Error(k), Err(e)) => {
            return Ok(if e.kind() == *k {
                Outcome::Passed
            } else {
                Outcome::Failed {
                    expected: kind_name(*k).into(),
                    actual: format!("{}: {e}", kind_name(e.kind())),
                }
            });
        }
        (Expect::Out(_), Err(e)) => {
            return Ok(Outcome::Failed {
                expected: "accepted".into(),
                actual: format!("{}: {e}", kind_name(e.kind())),
            })
        }
        (Expect::Out(out), Ok(inst)) => (out, inst),
    };
    let (out, inst) = out;

    // Registers only in `in` (e.g. the unused %p1 of `setp _|%p2`) still must
    // come back unchanged: intern them too; their width is unknown, so 64.
    let mut loaded: Vec<(RegId, u32, RegValue)> = Vec::with_capacity(v.inputs.len());
    for (name, val) in &v.inputs {
        let id = syms.get(name);
        let bits = id.and_then(|r| reg_width(&inst, r));
        let id = id.unwrap_or_else(|| syms.intern(name));
        let bits = bits.unwrap_or(if matches!(val, RegValue::Pred(_)) {
            1
        } else {
            64
        });
        check_fits(name, *val, bits)?;
        loaded.push((id, bits, *val));
    }
    for u in inst.reg_uses().reads() {
        if !loaded.iter().any(|(r, _, _)| *r == u.reg) {
            return Err(VectorError::MissingInput(syms.name(u.reg).to_string()));
        }
    }
    let mut expected_out = Vec::with_capacity(out.len());
    for (name, val) in out {
        let id = syms
            .get(name)
            .ok_or_else(|| VectorError::UnknownOutput(name.clone()))?;
        let bits = reg_width(&inst, id)
            .or_else(|| loaded.iter().find(|(r, _, _)| *r == id).map(|(_, b, _)| *b))
            .ok_or_else(|| VectorError::UnknownOutput(name.clone()))?;
        check_fits(name, *val, bits)?;
        expected_out.push((name.as_str(), id, bits, *val));
    }

    let mut regs = WarpRegs::new(syms.len());
    for (id, _, val) in &loaded {
        regs.set_lane(*id, 0, val.raw());
    }
    let ctx = ExecCtx::new(target, 0);
    execute(&inst, &ctx, &mut regs, 1);

    let mut expected = Vec::new();
    let mut actual = Vec::new();
    for (name, id, bits, val) in &expected_out {
        let got = regs.lane(*id, 0) & crate::exec::width_mask(*bits);
        if got != val.raw() {
            expected.push(format!("{name}={val}"));
            actual.push(format!("{name}={}", show(*bits, got)));
        }
    }
    for (id, bits, val) in &loaded {
        if expected_out.iter().any(|(_, r, _, _)| r == id) {
            continue;
        }
        let got = regs.lane(*id, 0);
        if got != val.raw() {
            let name = syms.name(*id);
            expected.push(format!("{name}={val} (unchanged)"));
            actual.push(format!("{name}={}", show(*bits, got)));
        }
    }
    Ok(if expected.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed {
            expected: expected.join(", "),
            actual: actual.join(", "),
        }
    })
}
