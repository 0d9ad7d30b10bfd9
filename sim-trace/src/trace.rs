//! The in-memory trace: what kernel text assembles to, what a `.bin` holds,
//! and what `run` replays.

use crate::limits;
use crate::program::ProgramParts;
use crate::stream::{Cursor, Stream};
use serde::{Deserialize, Serialize};
use sim_isa::{
    ExecCtx, Instruction, IsaError, PtxVersion, RegId, Symbols, Target, Type, WarpRegs, WARP_SIZE,
};
use std::sync::Arc;

/// Values of one register across the 32 lanes of a warp.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lanes {
    /// Every lane holds this value.
    Splat(u64),
    /// Lane 0 first (boxed: most records are splats).
    Each(Box<[u64; WARP_SIZE]>),
}

impl Lanes {
    /// The value of `lane`.
    pub fn get(&self, lane: usize) -> u64 {
        match self {
            Lanes::Splat(v) => *v,
            Lanes::Each(a) => a[lane],
        }
    }

    /// The compact form of `a`: a splat when every lane agrees.
    pub fn from_array(a: &[u64; WARP_SIZE]) -> Lanes {
        if a.iter().all(|&v| v == a[0]) {
            Lanes::Splat(a[0])
        } else {
            Lanes::Each(Box::new(*a))
        }
    }

    /// Largest value in any lane.
    pub fn max(&self) -> u64 {
        match self {
            Lanes::Splat(v) => *v,
            Lanes::Each(a) => a.iter().copied().max().unwrap_or(0),
        }
    }
}

/// An expected final register value (`.expect`), checked by `run --check`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectRec {
    /// The warp, or every warp.
    pub warp: Option<u32>,
    /// The register (index into the declarations).
    pub reg: u32,
    /// Per-lane values.
    pub lanes: Lanes,
}

/// Per-lane results of one dynamic instruction the simulator does not execute
/// itself (reserved for traces of real kernels, e.g. loads). Carried and
/// round-tripped; the current simulator ignores them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueRec {
    /// The warp.
    pub warp: u32,
    /// 0-based position in the warp's dynamic stream.
    pub dyn_index: u64,
    /// The register written.
    pub reg: u32,
    /// Per-lane values.
    pub lanes: Lanes,
}

/// One warp of the launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpRec {
    /// Active lanes.
    pub mask: u32,
    /// Index of its stream in [`Trace::streams`].
    pub stream: u32,
}

// A field list alike in shape to other records' (issue 27): its own fields, nothing to share.
/// A complete trace.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Target from `.target`.
    pub target: Target,
    /// `.version`, if given.
    pub version: Option<PtxVersion>,
    /// Declared registers, `RegId(i)` = declaration `i`.
    pub syms: Symbols,
    /// Static instructions.
    pub insts: Vec<Instruction>,
    /// Canonical text of each instruction (its `Display`).
    pub texts: Vec<String>,
    /// Kernel-text line of each instruction's first appearance (0 when unknown,
    /// e.g. read from a `.bin`).
    pub lines: Vec<u32>,
    /// Distinct dynamic streams.
    pub streams: Vec<Arc<Stream>>,
    /// The launch, warp id = position.
    pub warps: Vec<WarpRec>,
    /// Recorded values of non-executed instructions.
    pub values: Vec<ValueRec>,
    /// Expected final values.
    pub expects: Vec<ExpectRec>,
}

/// A trace instruction the chosen target cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// Static instruction index.
    pub index: usize,
    /// Its kernel-text line (0 if unknown).
    pub line: u32,
    /// Its text.
    pub text: String,
    /// Why. Boxed: `IsaError` would make every `Result<_, Refusal>` large
    /// (clippy `result_large_err`), and a refusal happens once per launch.
    pub error: Box<IsaError>,
}

/// A `--check` mismatch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Warp id.
    pub warp: u32,
    /// Lane.
    pub lane: usize,
    /// Register name.
    pub reg: String,
    /// Recorded value.
    pub expected: u64,
    /// Simulated value.
    pub actual: u64,
    /// Register width in bits (1 for predicates).
    pub bits: u32,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "warp {} lane {} {}: expected {}, got {}",
            self.warp,
            self.lane,
            self.reg,
            fmt_value(self.expected, self.bits),
            fmt_value(self.actual, self.bits)
        )
    }
}

/// A register value as `dump`, `--dump-regs` and messages print it: `true`/`false`
/// for predicates, zero-padded hex at the register's width otherwise.
pub fn fmt_value(v: u64, bits: u32) -> String {
    if bits == 1 {
        (v != 0).to_string()
    } else {
        format!("0x{:0w$x}", v, w = (bits as usize).div_ceil(4))
    }
}

/// Whether `v` is a PTX ISA version NVIDIA has published.
pub fn check_version(v: PtxVersion) -> Result<(), String> {
    if v.is_known() {
        Ok(())
    } else {
        Err(format!(
            "PTX ISA version {v} does not exist (known: 1.0 to 9.0)"
        ))
    }
}

/// Mask of the low `bits` bits (sim-isa's, re-exported for the readers).
pub use sim_isa::width_mask;

/// Whether `name` is a PTX identifier (sim-isa's rule).
pub use sim_isa::symbols::is_ptx_identifier;

impl Trace {
    /// A trace of `prog` with nothing launched yet (no streams, warps or records).
    pub fn new(target: Target, version: Option<PtxVersion>, prog: ProgramParts) -> Trace {
        Trace {
            target,
            version,
            syms: prog.syms,
            insts: prog.insts,
            texts: prog.texts,
            lines: prog.lines,
            streams: Vec::new(),
            warps: Vec::new(),
            values: Vec::new(),
            expects: Vec::new(),
        }
    }

    /// Declared type of register `r`.
    pub fn reg_type(&self, r: u32) -> Type {
        self.syms.declared_type(RegId(r)).unwrap_or(Type::B64)
    }

    /// Name of register `r`.
    pub fn reg_name(&self, r: u32) -> &str {
        self.syms.name(RegId(r))
    }

    /// Number of registers.
    pub fn nregs(&self) -> usize {
        self.syms.len()
    }

    /// A replay cursor for warp `w`.
    pub fn cursor(&self, w: usize) -> Cursor {
        Cursor::new(self.streams[self.warps[w].stream as usize].clone())
    }

    /// The machine-code layout of the trace: each stream's static code
    /// ([`Stream::layout`]), one after the other in stream order.
    pub fn layout(&self) -> Vec<u32> {
        self.streams.iter().flat_map(|s| s.layout()).collect()
    }

    /// Per stream, the same stream over its places in [`Trace::layout`].
    pub fn placed_streams(&self) -> Vec<std::sync::Arc<Stream>> {
        let mut base = 0u32;
        self.streams
            .iter()
            .map(|s| {
                let p = s.places(base);
                base = base.saturating_add(u32::try_from(s.layout().count()).unwrap_or(u32::MAX));
                std::sync::Arc::new(p)
            })
            .collect()
    }

    /// Dynamic warp-instructions over the launch (bounded by validation).
    pub fn dynamic_total(&self) -> u64 {
        self.warps
            .iter()
            .map(|w| self.streams[w.stream as usize].dynamic_len())
            .sum()
    }

    /// The first instruction (in program order, which is text order) that
    /// `target` / `version` cannot run.
    pub fn check_target(&self, target: Target, version: Option<PtxVersion>) -> Result<(), Refusal> {
        for (index, inst) in self.insts.iter().enumerate() {
            if let Err(error) = sim_isa::parse::check_target(inst, target, version) {
                return Err(Refusal {
                    index,
                    line: self.lines.get(index).copied().unwrap_or(0),
                    text: self.texts[index].clone(),
                    error: Box::new(error),
                });
            }
        }
        Ok(())
    }

    /// Executes every warp's stream functionally (no timing) on `target` and
    /// returns the final register files, warp by warp.
    pub fn functional_run(&self, target: Target) -> Vec<WarpRegs> {
        (0..self.warps.len())
            .map(|w| {
                let mut regs = WarpRegs::new(self.nregs());
                let ctx = ExecCtx::new(target, w as u32);
                let mut cur = self.cursor(w);
                while let Some(i) = cur.next_index() {
                    sim_isa::execute(&self.insts[i as usize], &ctx, &mut regs, self.warps[w].mask);
                }
                regs
            })
            .collect()
    }

    /// Replaces the expectations with every register's final value from `finals`
    /// (one `.expect` per register when all warps agree, else one per warp).
    /// Refused, leaving the trace as it was, when the records would exceed
    /// [`limits::MAX_VALUE_RECORDS`] (no reader would accept the result).
    pub fn record_expects(&mut self, finals: &[WarpRegs]) -> Result<(), String> {
        let mut records = 0usize;
        for r in 0..self.nregs() as u32 {
            let mut per_warp = finals.iter().map(|f| f.get(RegId(r)));
            let first = per_warp.next();
            records += if per_warp.all(|l| Some(l) == first) {
                1
            } else {
                finals.len()
            };
        }
        if records + self.values.len() > limits::MAX_VALUE_RECORDS {
            return Err(format!(
                "recording {records} .expect records would exceed the limit of {} value records",
                limits::MAX_VALUE_RECORDS
            ));
        }
        self.expects.clear();
        for r in 0..self.nregs() as u32 {
            let per_warp: Vec<Lanes> = finals
                .iter()
                .map(|f| Lanes::from_array(f.get(RegId(r))))
                .collect();
            if per_warp.windows(2).all(|p| p[0] == p[1]) {
                if let Some(l) = per_warp.into_iter().next() {
                    self.expects.push(ExpectRec {
                        warp: None,
                        reg: r,
                        lanes: l,
                    });
                }
            } else {
                for (w, l) in per_warp.into_iter().enumerate() {
                    self.expects.push(ExpectRec {
                        warp: Some(w as u32),
                        reg: r,
                        lanes: l,
                    });
                }
            }
        }
        Ok(())
    }

    /// Compares final register files with the `.expect` records; returns every
    /// mismatch (warp, lane, register), in record order.
    pub fn check(&self, finals: &dyn Fn(u32) -> Option<WarpRegs>) -> Vec<Mismatch> {
        let mut out = Vec::new();
        for e in &self.expects {
            let warps: Vec<u32> = match e.warp {
                Some(w) => vec![w],
                None => (0..self.warps.len() as u32).collect(),
            };
            let bits = self.reg_type(e.reg).bits();
            let m = width_mask(bits);
            for w in warps {
                let Some(regs) = finals(w) else { continue };
                let lanes = regs.get(RegId(e.reg));
                for (lane, &v) in lanes.iter().enumerate() {
                    let (exp, act) = (e.lanes.get(lane) & m, v & m);
                    if exp != act {
                        out.push(Mismatch {
                            warp: w,
                            lane,
                            reg: self.reg_name(e.reg).to_string(),
                            expected: exp,
                            actual: act,
                            bits,
                        });
                    }
                }
            }
        }
        out
    }

    /// Checks the cross-record invariants every trace must hold, whatever its
    /// source: bounds, references, value widths.
    pub fn validate(&self) -> Result<(), String> {
        if self.warps.is_empty() {
            return Err("the launch has no warps".into());
        }
        if self.warps.len() > limits::MAX_WARPS {
            return Err(format!(
                "{} warps exceed the limit of {}",
                self.warps.len(),
                limits::MAX_WARPS
            ));
        }
        if self.nregs() > limits::MAX_REGS {
            return Err(format!(
                "{} registers exceed the limit of {}",
                self.nregs(),
                limits::MAX_REGS
            ));
        }
        if self.warps.len().saturating_mul(self.nregs().max(1)) > limits::MAX_WARP_REGS {
            return Err(format!(
                "{} warps x {} registers exceed the limit of {} register arrays",
                self.warps.len(),
                self.nregs(),
                limits::MAX_WARP_REGS
            ));
        }
        for r in 0..self.nregs() as u32 {
            let n = self.reg_name(r);
            // The async-copy token is the parser's own register (no text's).
            let token = sim_isa::carry::is_hidden_register(n);
            if n.len() > limits::MAX_NAME || !(is_ptx_identifier(n) || token) {
                return Err(format!("register name {n:?} is not a PTX identifier"));
            }
        }
        let mut total: u64 = 0;
        for (i, w) in self.warps.iter().enumerate() {
            if w.mask == 0 {
                return Err(format!("warp {i} has no active lanes"));
            }
            let s = self.streams.get(w.stream as usize).ok_or_else(|| {
                format!(
                    "warp {i} refers to stream {} of {}",
                    w.stream,
                    self.streams.len()
                )
            })?;
            total = total
                .checked_add(s.dynamic_len())
                .filter(|&t| t <= limits::MAX_DYNAMIC_TOTAL)
                .ok_or_else(|| {
                    format!(
                        "the launch exceeds {} dynamic warp-instructions",
                        limits::MAX_DYNAMIC_TOTAL
                    )
                })?;
        }
        if self.values.len() + self.expects.len() > limits::MAX_VALUE_RECORDS {
            return Err(format!(
                "more than {} value records",
                limits::MAX_VALUE_RECORDS
            ));
        }
        let nw = self.warps.len() as u32;
        let reg_ok = |r: u32, lanes: &Lanes, what: &str| -> Result<(), String> {
            if r as usize >= self.nregs() {
                return Err(format!("{what} names register {r} of {}", self.nregs()));
            }
            let bits = self.reg_type(r).bits();
            if lanes.max() & !width_mask(bits) != 0 {
                return Err(format!(
                    "{what} for {} has a value wider than {bits} bits",
                    self.reg_name(r)
                ));
            }
            Ok(())
        };
        for e in &self.expects {
            if let Some(w) = e.warp {
                if w >= nw {
                    return Err(format!(".expect names warp {w} but the launch has {nw}"));
                }
            }
            reg_ok(e.reg, &e.lanes, ".expect")?;
        }
        for v in &self.values {
            if v.warp >= nw {
                return Err(format!(
                    ".value names warp {} but the launch has {nw}",
                    v.warp
                ));
            }
            let len = self.streams[self.warps[v.warp as usize].stream as usize].dynamic_len();
            if v.dyn_index >= len {
                return Err(format!(
                    ".value names dynamic instruction {} of warp {} which has {len}",
                    v.dyn_index, v.warp
                ));
            }
            reg_ok(v.reg, &v.lanes, ".value")?;
        }
        Ok(())
    }
}
