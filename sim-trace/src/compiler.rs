//! Whole-region lowering through NVIDIA's compiler (`simcli run --lowering
//! compiler`, `docs/lowering.md`): the pure half. The front end (sim-cli)
//! finds ptxas and a disassembler and runs them through an [`Assembler`];
//! this module never starts a process or opens a file.
//!
//! 1. [`regions`]: the program's straight-line regions. Every stream is cut at
//!    each `.repeat` boundary (a loop body is one region, the code before and
//!    after it others) and around instructions that are not register-only
//!    arithmetic (memory and warp instructions keep the table's machine
//!    code); identical regions are compiled once.
//! 2. [`region_kernel`]: one region as a PTX kernel. Every register the region
//!    reads before writing it is loaded from global memory (a predicate as a
//!    word compared with 0), volatile so that ptxas cannot turn a select
//!    between inputs into a predicated load, and nothing constant-folds; after each
//!    instruction, what it wrote is stored (a predicate through `selp`), so
//!    nothing is dead and every PTX result has a machine register holding it.
//! 3. [`attribute`]: the disassembly read back (the parsing follows
//!    `tools/lowering/derive_sass.py`: operands, register pairs, the condition
//!    code, predicated writes, calls and branches along the fast path) and
//!    each machine instruction charged to the first PTX instruction (in
//!    program order) whose stored result depends on it. An instruction that
//!    the compiler shares between two PTX instructions (`vset4` and `vmax4`
//!    reading one register share their byte extraction) is charged once, to
//!    the first; a PTX instruction whose result the compiler computed already
//!    (or forwards, as a `mov`) gets no machine instruction. Sources outside
//!    an instruction's own machine code name the PTX operand (`a`..`d`)
//!    holding the register they carry.
//!
//! The result, one [`Row`] per program instruction covered, goes to
//! [`sim_core::ProgramTables::with_machine_code`], which times it with the
//! pipe rules as it times the table's rows.

use crate::stream::StreamOp;
use crate::trace::Trace;
use sim_core::lowering::source_registers;
use sim_core::sass_table::{MachineInst, Row, SassArch, Src, MAX_DEPS};
use sim_isa::{Instruction, PtxVersion, RegId, Type};
use std::collections::{HashMap, HashSet};

/// Most PTX instructions one region kernel holds: longer straight-line runs
/// are cut (ptxas then sees them as separate kernels).
pub const MAX_REGION: usize = 256;

/// One straight-line region: static instruction indices in program order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    /// The instructions.
    pub insts: Vec<u32>,
}

impl Region {
    /// How messages name the region: its first instruction's kernel-text
    /// line (when known) and text.
    pub fn describe(&self, trace: &Trace) -> String {
        let Some(&first) = self.insts.first() else {
            return "(empty region)".into();
        };
        let i = first as usize;
        let text = trace.texts.get(i).map_or("?", String::as_str);
        match trace.lines.get(i).copied().filter(|&l| l > 0) {
            Some(l) => format!(
                "region of {} instructions from line {l} (`{text}`)",
                self.insts.len()
            ),
            None => format!(
                "region of {} instructions from instruction {i} (`{text}`)",
                self.insts.len()
            ),
        }
    }
}

/// Runs the compiler on a region kernel: assembles `ptx` for `arch`
/// (`sm_90`) and returns the disassembler's listing of the result.
pub trait Assembler {
    /// The error it reports (a tool that failed to start, ptxas's message).
    type Error;
    /// The listing of `ptx` assembled for `arch`.
    fn assemble(&mut self, ptx: &str, arch: &str) -> Result<String, Self::Error>;
}

/// Why `--lowering compiler` could not lower a trace.
#[derive(Debug, thiserror::Error)]
pub enum LowerError<E: std::error::Error + 'static> {
    /// The configuration has no machine code (GT200 runs native instructions).
    #[error("--lowering compiler: {config} has no machine-code model (it runs native instructions); use sm_30, sm_53 or sm_90")]
    NoMachineCode {
        /// The configuration's name.
        config: String,
    },
    /// The assembler or disassembler failed on a region (ptxas rejected it).
    #[error("--lowering compiler: {region}: {error}")]
    Tool {
        /// The region, described ([`Region::describe`]).
        region: String,
        /// What the tool said.
        error: E,
    },
    /// The listing could not be read back.
    #[error("--lowering compiler: {region}: {error}")]
    Listing {
        /// The region, described.
        region: String,
        /// What was wrong with it.
        error: ListingError,
    },
}

/// A disassembly this module could not attribute.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ListingError {
    /// No store of a region result was found.
    #[error("the listing stores no result (is it the region's kernel?)")]
    NoStores,
    /// A stored result's slot is not one the kernel wrote.
    #[error("the listing stores at offset {offset:#x}, which the kernel does not")]
    BadStore {
        /// Byte offset.
        offset: u64,
    },
}

/// The machine code of every program instruction the regions cover, for
/// [`sim_core::ProgramTables::with_machine_code`]: `trace.insts.len()`
/// entries, `None` where the table's row stays. Each distinct region is
/// assembled once.
pub fn lower<A: Assembler>(
    trace: &Trace,
    arch: Option<SassArch>,
    config_name: &str,
    asm: &mut A,
) -> Result<Vec<Option<Row>>, LowerError<A::Error>>
where
    A::Error: std::error::Error + 'static,
{
    let Some(arch) = arch else {
        return Err(LowerError::NoMachineCode {
            config: config_name.to_string(),
        });
    };
    let mut code: Vec<Option<Row>> = vec![None; trace.insts.len()];
    for region in regions(trace) {
        let kernel = region_kernel(trace, &region, arch);
        let listing =
            asm.assemble(&kernel.text, arch.name())
                .map_err(|error| LowerError::Tool {
                    region: region.describe(trace),
                    error,
                })?;
        let rows = attribute(trace, &region, &kernel, &listing, arch).map_err(|error| {
            LowerError::Listing {
                region: region.describe(trace),
                error,
            }
        })?;
        for (i, row) in rows {
            if let Some(slot) = code.get_mut(i as usize) {
                if slot.is_none() {
                    *slot = Some(row);
                }
            }
        }
    }
    Ok(code)
}

/// Whether the compiler path covers `inst`: register-only arithmetic (memory
/// and warp instructions keep the table's machine code and end a region).
fn compilable(inst: &Instruction) -> bool {
    !sim_isa::db::runs_with_memory(inst) && !sim_isa::db::is_warp_wide(inst)
}

/// The distinct straight-line regions of `trace`, in order of first
/// appearance (streams in order).
pub fn regions(trace: &Trace) -> Vec<Region> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut flush = |cur: &mut Vec<u32>| {
        for chunk in cur.chunks(MAX_REGION) {
            let r = Region {
                insts: chunk.to_vec(),
            };
            if seen.insert(r.clone()) {
                out.push(r);
            }
        }
        cur.clear();
    };
    for stream in &trace.streams {
        let mut cur = Vec::new();
        // Op indices at which an open loop body ends.
        let mut ends: Vec<usize> = Vec::new();
        let ops = stream.ops();
        for (k, op) in ops.iter().enumerate() {
            while ends.last() == Some(&k) {
                ends.pop();
                flush(&mut cur);
            }
            let mut push = |i: u32, cur: &mut Vec<u32>| match trace.insts.get(i as usize) {
                Some(inst) if compilable(inst) => cur.push(i),
                _ => flush(cur),
            };
            match *op {
                StreamOp::Inst(i) => push(i, &mut cur),
                StreamOp::Run { start, len } => {
                    for i in start..start.saturating_add(len) {
                        push(i, &mut cur);
                    }
                }
                StreamOp::Repeat { body_len, .. } => {
                    flush(&mut cur);
                    ends.push(k + 1 + body_len as usize);
                }
            }
        }
        flush(&mut cur);
    }
    out
}

/// A region as a PTX kernel, with where its values live.
#[derive(Clone, Debug)]
pub struct RegionKernel {
    /// The kernel's text.
    pub text: String,
    /// Per input slot (8 bytes from offset 0): the register loaded there.
    pub inputs: Vec<RegId>,
    /// Per output slot (8 bytes each, after the inputs): the region position
    /// of the instruction and the register it wrote.
    pub outputs: Vec<(usize, RegId)>,
}

/// The PTX version the region kernels declare: the trace's, at least 7.8
/// (the oldest that ptxas 13 accepts for sm_90 and that ptxas 11.8 knows).
fn version(trace: &Trace) -> PtxVersion {
    let floor = PtxVersion { major: 7, minor: 8 };
    trace.version.map_or(floor, |v| v.max(floor))
}

fn reg_type(trace: &Trace, r: RegId) -> Type {
    trace.syms.declared_type(r).unwrap_or(Type::B64)
}

/// `ld`/`st` type of a register: its width as bits (`b32`), a predicate as a word.
fn mem_type(t: Type) -> &'static str {
    match t.bits() {
        1 => "u32",
        16 => "b16",
        64 => "b64",
        _ => "b32",
    }
}

/// The PTX kernel of `region` for `arch`: see the module documentation.
pub fn region_kernel(trace: &Trace, region: &Region, arch: SassArch) -> RegionKernel {
    let mut used: Vec<RegId> = Vec::new();
    let mut written: HashSet<RegId> = HashSet::new();
    let mut inputs: Vec<RegId> = Vec::new();
    for &i in &region.insts {
        let Some(inst) = trace.insts.get(i as usize) else {
            continue;
        };
        let uses = inst.reg_uses();
        // A guarded write keeps the old value when the guard fails: the
        // destination is read too.
        let guarded = inst.guard.is_some();
        for u in uses.iter() {
            if !used.contains(&u.reg) {
                used.push(u.reg);
            }
            if (!u.write || guarded) && !written.contains(&u.reg) && !inputs.contains(&u.reg) {
                inputs.push(u.reg);
            }
        }
        for u in uses.writes() {
            written.insert(u.reg);
        }
    }
    let mut t = String::new();
    t.push_str(&format!(
        "// simcli --lowering compiler: one straight-line region\n.version {}\n.target {}\n.address_size 64\n",
        version(trace),
        arch.name()
    ));
    t.push_str(".visible .entry region(.param .u64 simcli_p) {\n");
    t.push_str(" .reg .b64 %simcli_base;\n .reg .b32 %simcli_word;\n");
    for &r in &used {
        t.push_str(&format!(
            " .reg .{} {};\n",
            reg_type(trace, r).name(),
            trace.syms.name(r)
        ));
    }
    t.push_str(" ld.param.u64 %simcli_base, [simcli_p];\n");
    t.push_str(" cvta.to.global.u64 %simcli_base, %simcli_base;\n");
    for (k, &r) in inputs.iter().enumerate() {
        let ty = reg_type(trace, r);
        let name = trace.syms.name(r);
        if ty == Type::Pred {
            t.push_str(&format!(
                " ld.volatile.global.u32 %simcli_word, [%simcli_base+{}];\n setp.ne.u32 {name}, %simcli_word, 0;\n",
                8 * k
            ));
        } else {
            t.push_str(&format!(
                " ld.volatile.global.{} {name}, [%simcli_base+{}];\n",
                mem_type(ty),
                8 * k
            ));
        }
    }
    let mut outputs = Vec::new();
    for (pos, &i) in region.insts.iter().enumerate() {
        let Some(inst) = trace.insts.get(i as usize) else {
            continue;
        };
        let text = trace.texts.get(i as usize).map_or("", String::as_str);
        t.push_str(&format!(
            " {}{}\n",
            text,
            if text.ends_with(';') { "" } else { ";" }
        ));
        for u in inst.reg_uses().writes() {
            let off = 8 * (inputs.len() + outputs.len());
            let ty = reg_type(trace, u.reg);
            let name = trace.syms.name(u.reg);
            if ty == Type::Pred {
                t.push_str(&format!(
                    " selp.u32 %simcli_word, 1, 0, {name};\n st.global.u32 [%simcli_base+{off}], %simcli_word;\n"
                ));
            } else {
                t.push_str(&format!(
                    " st.global.{} [%simcli_base+{off}], {name};\n",
                    mem_type(ty)
                ));
            }
            outputs.push((pos, u.reg));
        }
    }
    t.push_str(" ret;\n}\n");
    RegionKernel {
        text: t,
        inputs,
        outputs,
    }
}

// ------------------------------------------------------------ the listing

/// The instruction texts of a disassembly listing (nvdisasm `-c` or
/// `cuobjdump -sass`), with branch targets kept as `name:` lines.
pub fn listing_instructions(listing: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in listing.lines() {
        let l = line.trim();
        // `/*0040*/  LDG.E R7, desc[UR4][R2.64+0x8] ;` (cuobjdump adds `/* 0x... */`).
        if let Some(rest) = l.strip_prefix("/*") {
            let Some((addr, body)) = rest.split_once("*/") else {
                continue;
            };
            if addr.len() < 4 || !addr.bytes().all(|b| b.is_ascii_hexdigit()) {
                continue;
            }
            let body = body.split(';').next().unwrap_or("").trim();
            let body = body.trim_start_matches('{').trim_end_matches('}').trim();
            if !body.is_empty() {
                out.push(body.to_string());
            }
        } else if let Some(name) = l.strip_suffix(':') {
            // A branch or call target (`.L_x_0:`), not a section or entry name.
            if name.starts_with(".L") {
                out.push(l.to_string());
            }
        }
    }
    out
}

/// Splits operands at top-level commas.
fn split_ops(rest: &str) -> Vec<String> {
    let (mut ops, mut depth, mut cur) = (Vec::new(), 0i32, String::new());
    for ch in rest.chars() {
        match ch {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            ops.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    if !cur.trim().is_empty() {
        ops.push(cur.trim().to_string());
    }
    ops
}

/// Registers an operand names (`R4`, `UR6`, `P0`, `UP1`; `RZ`, `PT` are constants).
fn regs(op: &str) -> Vec<String> {
    let b = op.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let boundary = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if boundary {
            let mut j = i;
            if b[j] == b'U' {
                j += 1;
            }
            if j < b.len() && (b[j] == b'R' || b[j] == b'P') {
                let k = j + 1;
                let mut e = k;
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                let ends = e == b.len() || !(b[e].is_ascii_alphanumeric() || b[e] == b'_');
                if e > k && ends {
                    out.push(op[i..e].to_string());
                    i = e;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// A 64-bit operand's registers: `R4` is R4:R5 (a uniform `UR6` UR6:UR7).
fn pair(r: &str) -> Vec<String> {
    let digits = r.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let prefix = &r[..r.len() - digits.len()];
    match digits.parse::<u32>() {
        Ok(n) if prefix.ends_with('R') => vec![r.to_string(), format!("{prefix}{}", n + 1)],
        _ => vec![r.to_string()],
    }
}

fn is_type(p: &str) -> bool {
    matches!(
        p,
        "F16"
            | "F32"
            | "F64"
            | "BF16"
            | "S8"
            | "S16"
            | "S32"
            | "S64"
            | "U8"
            | "U16"
            | "U32"
            | "U64"
    )
}

/// (64-bit destination, 64-bit source) of a conversion (see derive_sass.py).
fn cvt_widths(base: &str, parts: &[&str]) -> (bool, bool) {
    let ts: Vec<&str> = parts
        .iter()
        .skip(1)
        .copied()
        .filter(|p| is_type(p))
        .collect();
    if base == "F2I" || base == "I2F" {
        let (floats, ints): (Vec<&str>, Vec<&str>) = ts
            .iter()
            .partition(|t| t.starts_with('F') || t.starts_with("BF"));
        let (dest, src) = if base == "F2I" {
            (ints, floats)
        } else {
            (floats, ints)
        };
        return (
            dest.iter().any(|t| t.ends_with("64")),
            src.iter().any(|t| t.ends_with("64")),
        );
    }
    (
        ts.first().is_some_and(|t| t.ends_with("64")),
        ts.get(1).is_some_and(|t| t.ends_with("64")),
    )
}

/// One decoded machine instruction.
struct Decoded {
    /// `OPCODE.MODIFIERS` as printed.
    opcode: String,
    base: String,
    dests: Vec<String>,
    srcs: Vec<String>,
    ops: Vec<String>,
}

/// Decodes one instruction text, register pairs expanded (derive_sass.py's `decode`).
fn decode(inst: &str, arch: SassArch) -> Decoded {
    let mut inst = inst.trim();
    let mut guard = None;
    if let Some(rest) = inst.strip_prefix('@') {
        let (g, body) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        guard = Some(g.trim_start_matches('!').to_string());
        inst = body.trim();
    }
    let (opcode, rest) = inst.split_once(char::is_whitespace).unwrap_or((inst, ""));
    let ops = split_ops(rest);
    let parts: Vec<&str> = opcode.split('.').collect();
    let base = parts[0];
    let is_pred = |o: &str| {
        let o = o.trim_start_matches('!');
        let o = o.strip_prefix('U').unwrap_or(o);
        o.strip_prefix('P')
            .is_some_and(|d| d == "T" || (!d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())))
    };
    let nd = if matches!(
        base,
        "ISETP" | "FSETP" | "DSETP" | "HSETP2" | "PSETP" | "PLOP3"
    ) {
        2
    } else {
        let mut nd = 1;
        while nd < ops.len() && is_pred(&ops[nd]) {
            nd += 1;
        }
        nd
    };
    let (mut wide_dest, mut wide_src) = (false, false);
    let mut wide_srcs: HashSet<usize> = HashSet::new();
    if matches!(base, "DADD" | "DMUL" | "DFMA" | "DSETP" | "DSET" | "DMNMX") {
        wide_dest = !matches!(base, "DSETP" | "DSET");
        wide_src = true;
    } else if matches!(base, "F2F" | "F2I" | "I2F" | "I2I") {
        (wide_dest, wide_src) = cvt_widths(base, &parts);
    } else if base == "FRND" && parts.contains(&"F64") {
        (wide_dest, wide_src) = (true, true);
    } else if base == "IMAD" && parts.contains(&"WIDE") {
        wide_dest = true;
        wide_srcs.insert(nd + 2);
    } else if base == "IMAD" && parts.contains(&"HI") && arch == SassArch::Sm90 {
        wide_srcs.insert(nd + 2);
    }
    let (mut dests, mut srcs) = (Vec::new(), Vec::new());
    // Kepler/Maxwell carry through the condition code: `.CC` writes it,
    // `.X` forms and CSETP read it.
    if ops.iter().take(nd).any(|o| o.ends_with(".CC")) {
        dests.push("CC".to_string());
    }
    if parts.iter().skip(1).any(|p| *p == "X") || ops.iter().skip(nd).any(|o| o == "CC") {
        srcs.push("CC".to_string());
    }
    for (i, o) in ops.iter().enumerate() {
        for r in regs(o) {
            if i < nd {
                if wide_dest {
                    dests.extend(pair(&r));
                } else {
                    dests.push(r);
                }
            } else if wide_src || wide_srcs.contains(&i) {
                srcs.extend(pair(&r));
            } else {
                srcs.push(r);
            }
        }
    }
    if let Some(g) = guard {
        // A predicated write keeps the old value otherwise.
        srcs.push(g);
        srcs.extend(dests.iter().cloned());
    }
    Decoded {
        opcode: opcode.to_string(),
        base: base.to_string(),
        dests,
        srcs,
        ops,
    }
}

/// The instructions one thread runs from the entry to the last store, along
/// the fast path (derive_sass.py's `walk`: a call runs its subroutine, a
/// conditional forward branch over a call, return or outward branch is taken,
/// other conditional branches and returns are not).
fn walk(insts: &[String]) -> Vec<String> {
    let labels: HashMap<&str, usize> = insts
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.strip_suffix(':').map(|l| (l, i)))
        .collect();
    let target = |body: &str| -> Option<usize> {
        let s = body.find("`(")?;
        let rest = &body[s + 2..];
        let e = rest.find(')')?;
        labels.get(&rest[..e]).copied()
    };
    let mut path = Vec::new();
    fn split(text: &str) -> (bool, String, String) {
        let (cond, body) = match text.strip_prefix('@') {
            Some(r) => {
                let (_, b) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
                (true, b.trim())
            }
            None => (false, text),
        };
        let (op, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
        (
            cond,
            op.split('.').next().unwrap_or("").to_string(),
            rest.to_string(),
        )
    }
    fn run(
        insts: &[String],
        pc0: usize,
        depth: usize,
        path: &mut Vec<String>,
        target: &dyn Fn(&str) -> Option<usize>,
    ) -> bool {
        let mut pc = pc0;
        while pc < insts.len() && path.len() < 100_000 {
            let text = &insts[pc];
            if text.ends_with(':') {
                pc += 1;
                continue;
            }
            let (cond, base, rest) = split(text);
            match base.as_str() {
                "BRA" => {
                    let to = target(text);
                    let cond = cond || rest.contains(',');
                    let leaves = to.is_some_and(|to| {
                        insts.get(pc + 1..to).is_some_and(|between| {
                            between.iter().any(|t| {
                                let (_, b, _) = split(t);
                                matches!(b.as_str(), "CAL" | "CALL" | "JCAL" | "RET" | "EXIT")
                                    || (b == "BRA" && target(t).unwrap_or(0) > to)
                            })
                        })
                    });
                    if let Some(to) = to.filter(|&to| to > pc && (!cond || leaves)) {
                        pc = to;
                        continue;
                    }
                    if !cond {
                        return true;
                    }
                }
                "CAL" | "CALL" | "JCAL" => {
                    if let Some(to) = target(text).filter(|_| !cond && depth < 4) {
                        if run(insts, to, depth + 1, path, target) {
                            return true;
                        }
                    }
                }
                "RET" | "EXIT" => {
                    if !cond {
                        return false;
                    }
                }
                _ => path.push(text.clone()),
            }
            pc += 1;
        }
        true
    }
    run(insts, 0, 0, &mut path, &target);
    path
}

/// Where a machine register's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Def {
    /// Byte `offset` of the input area (a load).
    Load(u64),
    /// Machine instruction `k` of the decoded list.
    Mach(usize),
}

/// The byte offset of a `[R2.64+0x18]` address (0 without one).
fn offset(op: &str) -> u64 {
    op.rfind('+')
        .and_then(|p| {
            let s = op[p + 1..].trim_end_matches(']').trim();
            u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
        })
        .unwrap_or(0)
}

/// Registers a load or store moves: 1, 2 or 4 from its width modifier.
fn width(opcode: &str) -> u32 {
    let parts: Vec<&str> = opcode.split('.').collect();
    if parts.contains(&"128") {
        4
    } else if parts.contains(&"64") {
        2
    } else {
        1
    }
}

fn reg_number(r: &str) -> Option<(String, u32)> {
    let digits = r.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let prefix = &r[..r.len() - digits.len()];
    digits.parse().ok().map(|n| (prefix.to_string(), n))
}

/// Each program instruction of `region` with the machine code the listing
/// charges it (see the module documentation).
pub fn attribute(
    trace: &Trace,
    region: &Region,
    kernel: &RegionKernel,
    listing: &str,
    arch: SassArch,
) -> Result<Vec<(u32, Row)>, ListingError> {
    let n_in = kernel.inputs.len() as u64;
    let pred_inputs: HashSet<u64> = kernel
        .inputs
        .iter()
        .enumerate()
        .filter(|(_, &r)| reg_type(trace, r) == Type::Pred)
        .map(|(k, _)| 8 * k as u64)
        .collect();
    let mut writer: HashMap<String, Def> = HashMap::new();
    // Machine instructions: (opcode, its sources with the register read).
    let mut mach: Vec<(String, Vec<(String, Def)>)> = Vec::new();
    // Per output slot: the definitions of the stored registers.
    let mut stored: HashMap<u64, Vec<Def>> = HashMap::new();
    for text in walk(&listing_instructions(listing)) {
        let d = decode(&text, arch);
        match d.base.as_str() {
            "LDG" | "LD" => {
                let o = d.ops.last().map_or(0, |a| offset(a));
                if let Some((prefix, first)) = d.dests.first().and_then(|r| reg_number(r)) {
                    for k in 0..width(&d.opcode) {
                        writer.insert(
                            format!("{prefix}{}", first + k),
                            Def::Load(o + 4 * u64::from(k)),
                        );
                    }
                }
            }
            "STG" | "ST" => {
                let addr = d.ops.first().map_or(0, |a| offset(a));
                let data = d.ops.last().map(|o| regs(o)).unwrap_or_default();
                let Some(first) = data.first() else { continue };
                let regs: Vec<String> = if width(&d.opcode) >= 2 {
                    pair(first)
                } else {
                    vec![first.clone()]
                };
                let defs = regs.iter().filter_map(|r| writer.get(r).copied()).collect();
                stored.insert(addr, defs);
            }
            "EXIT" | "RET" | "BRA" | "NOP" | "DEPBAR" | "MEMBAR" | "BAR" => {}
            _ => {
                let deps: Vec<(String, Def)> = d
                    .srcs
                    .iter()
                    .filter_map(|s| writer.get(s).map(|w| (s.clone(), *w)))
                    .collect();
                // The compare that makes an input predicate from its word is
                // the kernel's, not the region's: its result reads as the input.
                let from_pred_input = !deps.is_empty()
                    && d.dests.iter().all(|r| r.contains('P'))
                    && deps.iter().all(
                        |(_, w)| matches!(w, Def::Load(o) if pred_inputs.contains(&(o - o % 8))),
                    );
                if from_pred_input {
                    if let Some((_, w)) = deps.first() {
                        for r in &d.dests {
                            writer.insert(r.clone(), *w);
                        }
                    }
                    continue;
                }
                mach.push((d.opcode.clone(), deps));
                for r in &d.dests {
                    writer.insert(r.clone(), Def::Mach(mach.len() - 1));
                }
            }
        }
    }
    if stored.is_empty() && !kernel.outputs.is_empty() {
        return Err(ListingError::NoStores);
    }
    for &off in stored.keys() {
        let slot = off / 8;
        if off % 8 != 0 || slot < n_in || slot >= n_in + kernel.outputs.len() as u64 {
            return Err(ListingError::BadStore { offset: off });
        }
    }
    // Per output slot, what holds the PTX result: for a predicate, what the
    // storing `selp` (a SEL) reads, and that SEL is the kernel's.
    let mut helpers: HashSet<usize> = HashSet::new();
    let mut results: Vec<Vec<Def>> = Vec::with_capacity(kernel.outputs.len());
    for (k, &(_, reg)) in kernel.outputs.iter().enumerate() {
        let defs = stored
            .get(&(8 * (n_in + k as u64)))
            .cloned()
            .unwrap_or_default();
        if reg_type(trace, reg) == Type::Pred {
            let mut out = Vec::new();
            for d in defs {
                match d {
                    Def::Mach(m) => {
                        let pred = mach[m].1.iter().find(|(r, _)| r.contains('P')).map(|p| p.1);
                        match pred {
                            Some(p) => {
                                helpers.insert(m);
                                out.push(p);
                            }
                            None => out.push(d),
                        }
                    }
                    Def::Load(_) => out.push(d),
                }
            }
            results.push(out);
        } else {
            results.push(defs);
        }
    }
    // What PTX register a definition carries, when it is a region input or
    // a stored result.
    let mut carries: HashMap<Def, RegId> = HashMap::new();
    for (k, &r) in kernel.inputs.iter().enumerate() {
        carries.insert(Def::Load(8 * k as u64), r);
        carries.insert(Def::Load(8 * k as u64 + 4), r);
    }
    for (defs, &(_, r)) in results.iter().zip(&kernel.outputs) {
        for d in defs {
            if let Def::Mach(_) = d {
                carries.entry(*d).or_insert(r);
            }
        }
    }
    // Charge each machine instruction to the first PTX instruction whose
    // result depends on it.
    let mut owner: Vec<Option<usize>> = vec![None; mach.len()];
    let mut rows = Vec::new();
    for (pos, &i) in region.insts.iter().enumerate() {
        let Some(inst) = trace.insts.get(i as usize) else {
            continue;
        };
        // What it wrote (a pair's halves included; an instruction that
        // writes nothing has no row).
        if !kernel.outputs.iter().any(|&(p, _)| p == pos) {
            continue;
        }
        let outs_defs: Vec<Def> = kernel
            .outputs
            .iter()
            .zip(&results)
            .enumerate()
            .filter(|(_, ((p, _), _))| *p == pos)
            .flat_map(|(_, (_, d))| d.clone())
            .collect();
        let mut stack: Vec<usize> = outs_defs
            .iter()
            .filter_map(|d| match d {
                Def::Mach(m) => Some(*m),
                Def::Load(_) => None,
            })
            .collect();
        let mut mine: Vec<usize> = Vec::new();
        while let Some(m) = stack.pop() {
            if owner[m].is_some() || helpers.contains(&m) {
                continue;
            }
            owner[m] = Some(pos);
            mine.push(m);
            for (_, d) in &mach[m].1 {
                if let Def::Mach(p) = d {
                    stack.push(*p);
                }
            }
        }
        mine.sort_unstable();
        let local: HashMap<usize, u8> = mine
            .iter()
            .enumerate()
            .filter_map(|(j, &m)| u8::try_from(j).ok().map(|j| (m, j)))
            .collect();
        let srcs = source_registers(inst);
        let letter_of = |r: RegId| {
            srcs.iter()
                .position(|s| *s == Some(r))
                .map(|p| [Src::A, Src::B, Src::C, Src::D][p])
        };
        let first_reg = srcs
            .iter()
            .position(Option::is_some)
            .map(|p| [Src::A, Src::B, Src::C, Src::D][p]);
        let name = |d: &Def| -> Option<Src> {
            if let Def::Mach(m) = d {
                if let Some(&j) = local.get(m) {
                    return Some(Src::Inst(j));
                }
            }
            carries.get(d).and_then(|&r| letter_of(r)).or(first_reg)
        };
        let mut insts = Vec::with_capacity(mine.len());
        let mut ok = mine.len() == local.len();
        for &m in &mine {
            let (opcode, deps) = &mach[m];
            let mut ds: Vec<Src> = Vec::new();
            for (_, d) in deps {
                if let Some(s) = name(d) {
                    if !ds.contains(&s) && ds.len() < MAX_DEPS {
                        ds.push(s);
                    }
                }
            }
            let (op, mods) = match opcode.find('.') {
                Some(p) => opcode.split_at(p),
                None => (opcode.as_str(), ""),
            };
            match MachineInst::new(op, mods, &ds) {
                Some(mi) => insts.push(mi),
                None => ok = false,
            }
        }
        let mut outs: Vec<Src> = Vec::new();
        for d in &outs_defs {
            if let Some(s) = name(d) {
                if !outs.contains(&s) && outs.len() < sim_core::sass_table::MAX_OUTS {
                    outs.push(s);
                }
            }
        }
        if outs.is_empty() {
            outs.push(first_reg.unwrap_or(Src::A));
        }
        if ok {
            if let Some(row) = Row::compiled(arch, "compiler", insts, &outs) {
                rows.push((i, row));
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_registers_and_listing_lines() {
        assert_eq!(regs("desc[UR4][R2.64+0x8]"), ["UR4", "R2"]);
        assert_eq!(regs("R6.reuse"), ["R6"]);
        assert_eq!(regs("!PT"), Vec::<String>::new());
        assert_eq!(regs("RZ"), Vec::<String>::new());
        assert_eq!(regs("SR_LANEID"), Vec::<String>::new());
        assert_eq!(pair("R4"), ["R4", "R5"]);
        let l = "        /*0030*/                   LDG.E R0, desc[UR4][R2.64] ;\n\
                 /*0040*/ IADD3 R1, R2, R3, RZ ; /* 0x000fe20007ffe0ff */\n.L_x_0:\n";
        assert_eq!(
            listing_instructions(l),
            [
                "LDG.E R0, desc[UR4][R2.64]",
                "IADD3 R1, R2, R3, RZ",
                ".L_x_0:"
            ]
        );
        assert_eq!(offset("desc[UR4][R2.64+0x18]"), 0x18);
        let d = decode("ISETP.GE.U32.AND P0, PT, R3, R5, PT", SassArch::Sm90);
        assert_eq!(d.dests, ["P0"]);
        assert_eq!(d.srcs, ["R3", "R5"]);
    }
}

#[cfg(test)]
mod region_tests {
    use super::*;

    const KERNEL: &str =
        ".version 7.8\n.target sm_90\n.warps 1\n.reg .b32 %a, %b, %c, %d;\n.reg .pred %p;\n\
        mov.u32 %a, %laneid;\n.repeat 4 {\n add.u32 %b, %a, %c;\n mul.lo.u32 %c, %b, %b;\n\
        setp.lt.u32 %p, %c, %a;\n selp.b32 %d, %b, %c, %p;\n}\n";

    /// What nvdisasm 13.2 prints for the loop body's kernel assembled by
    /// ptxas 13.0.88 for sm_90 (the NOP padding left out).
    const LISTING: &str = "
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0020*/                   ULDC.64 UR4, c[0x0][0x208] ;
        /*0030*/                   LDG.E.STRONG.SYS R0, desc[UR4][R2.64] ;
        /*0040*/                   LDG.E.STRONG.SYS R5, desc[UR4][R2.64+0x8] ;
        /*0050*/                   IMAD.IADD R5, R0, 0x1, R5 ;
        /*0060*/                   IMAD R7, R5, R5, RZ ;
        /*0070*/                   STG.E desc[UR4][R2.64+0x10], R5 ;
        /*0080*/                   ISETP.GE.U32.AND P0, PT, R7, R0, PT ;
        /*0090*/                   STG.E desc[UR4][R2.64+0x18], R7 ;
        /*00a0*/                   SEL R9, RZ, 0x1, P0 ;
        /*00b0*/                   SEL R11, R5, R7, !P0 ;
        /*00c0*/                   STG.E desc[UR4][R2.64+0x20], R9 ;
        /*00d0*/                   STG.E desc[UR4][R2.64+0x28], R11 ;
        /*00e0*/                   EXIT ;
.L_x_0:
        /*00f0*/                   BRA `(.L_x_0);
";

    fn text(row: &Row) -> String {
        let insts: Vec<String> = row
            .insts
            .iter()
            .map(|m| {
                let d: Vec<String> = m
                    .deps()
                    .map(|s| match s {
                        Src::Inst(j) => j.to_string(),
                        s => format!("{s:?}").to_lowercase(),
                    })
                    .collect();
                format!("{}:{}", m.mnemonic(), d.join(","))
            })
            .collect();
        let outs: Vec<String> = row.outs().map(|s| format!("{s:?}")).collect();
        format!("{} -> {}", insts.join(" "), outs.join(","))
    }

    #[test]
    fn regions_kernel_and_attribution() {
        let t = crate::kernel::parse_kernel("k.ptx", KERNEL).unwrap();
        let r = regions(&t);
        assert_eq!(
            r,
            [
                Region { insts: vec![0] },
                Region {
                    insts: vec![1, 2, 3, 4]
                }
            ]
        );
        let k = region_kernel(&t, &r[1], SassArch::Sm90);
        let names: Vec<&str> = k.inputs.iter().map(|&x| t.syms.name(x)).collect();
        assert_eq!(names, ["%a", "%c"]);
        assert_eq!(k.outputs.len(), 4);
        assert!(k
            .text
            .contains("ld.volatile.global.b32 %c, [%simcli_base+8];"));
        assert!(k.text.contains("selp.u32 %simcli_word, 1, 0, %p;"));
        let rows = attribute(&t, &r[1], &k, LISTING, SassArch::Sm90).unwrap();
        let got: Vec<(u32, String)> = rows.iter().map(|(i, r)| (*i, text(r))).collect();
        assert_eq!(
            got,
            [
                (1, "IMAD.IADD:a,b -> Inst(0)".to_string()),
                (2, "IMAD:a -> Inst(0)".to_string()),
                // The SEL that stores the predicate is the kernel's, not setp's.
                (3, "ISETP.GE.U32.AND:a,b -> Inst(0)".to_string()),
                (4, "SEL:a,b,c -> Inst(0)".to_string()),
            ]
        );
        assert_eq!(
            attribute(&t, &r[1], &k, "", SassArch::Sm90).err(),
            Some(ListingError::NoStores)
        );
    }

    /// An assembler that refuses: the error names the region.
    struct Refuses;
    #[derive(Debug, thiserror::Error)]
    #[error("rejected")]
    struct No;
    impl Assembler for Refuses {
        type Error = No;
        fn assemble(&mut self, _: &str, _: &str) -> Result<String, No> {
            Err(No)
        }
    }

    #[test]
    fn tool_errors_name_the_region() {
        let t = crate::kernel::parse_kernel("k.ptx", KERNEL).unwrap();
        let e = lower(&t, Some(SassArch::Sm90), "sm_90", &mut Refuses).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--lowering compiler: region of 1 instructions from line 6 (`mov.u32 %a, %laneid;`): rejected"
        );
        let e = lower(&t, None, "sm_13 (GT200)", &mut Refuses).unwrap_err();
        assert!(e.to_string().contains("no machine-code model"));
    }
}
