//! Whole-region lowering through NVIDIA's compiler (`simcli run --lowering
//! compiler`, `docs/lowering.md`): the pure half. The front end (sim-cli)
//! finds ptxas and a disassembler and runs them through an [`Assembler`];
//! this module never starts a process or opens a file.
//!
//! 1. [`regions`]: the program's straight-line regions. Every stream is cut at
//!    each `.repeat` boundary (a loop body is one region, the code before and
//!    after it others) and around instructions that are not register-only
//!    arithmetic (memory and warp instructions keep the table's machine
//!    code); identical regions are compiled once. A launch's kernel
//!    (sim-kernel's straight-line stretches, [`stretch_regions`]) is cut
//!    the same way; [`Source`] is the program either way.
//! 2. [`region_kernel`]: one region as a PTX kernel. Every register the region
//!    reads before writing it is loaded from global memory (a predicate as a
//!    word compared with 0), volatile so that ptxas cannot turn a select
//!    between inputs into a predicated load, and nothing constant-folds; after each
//!    instruction, what it wrote is stored (a predicate through `selp`), so
//!    nothing is dead and every PTX result has a machine register holding it.
//! 3. [`attribute`]: the disassembly read back (by `sim_sass`, the one
//!    listing reader: operands, register pairs, the condition code,
//!    predicated writes; calls and branches along the fast path as
//!    `tools/lowering/derive_sass.py` walks them) and
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
use sim_isa::{Instruction, PtxVersion, RegId, Symbols, Type};
use std::collections::{HashMap, HashSet};

mod listing;
use listing::{dataflow, Def, MachInsts};

/// Most PTX instructions one region kernel holds: longer straight-line runs
/// are cut (ptxas then sees them as separate kernels).
pub const MAX_REGION: usize = 256;

/// The program a region kernel is written from: a trace's
/// ([`Source::of`]), or a launch's kernel as sim-kernel times it (the
/// front end builds it from `sim_kernel::lowering::KernelCode`).
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    /// Static instructions.
    pub insts: &'a [Instruction],
    /// Each instruction's PTX text (its `Display`).
    pub texts: &'a [String],
    /// Each instruction's kernel-text line (0 when unknown).
    pub lines: &'a [u32],
    /// Register names and declared types.
    pub syms: &'a Symbols,
    /// `.version`, if given.
    pub version: Option<PtxVersion>,
}

impl<'a> Source<'a> {
    /// A trace's program.
    pub fn of(trace: &'a Trace) -> Source<'a> {
        Source {
            insts: &trace.insts,
            texts: &trace.texts,
            lines: &trace.lines,
            syms: &trace.syms,
            version: trace.version,
        }
    }
}

/// One straight-line region: static instruction indices in program order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    /// The instructions.
    pub insts: Vec<u32>,
}

impl Region {
    /// How messages name the region: its first instruction's kernel-text
    /// line (when known) and text.
    pub fn describe(&self, trace: &Source<'_>) -> String {
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
    type Error: std::error::Error + 'static;
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
) -> Result<Vec<Option<Row>>, LowerError<A::Error>> {
    lower_regions(&Source::of(trace), regions(trace), arch, config_name, asm)
}

/// As [`lower`], for the program `trace` and its distinct `regions` (a
/// launch's: [`stretch_regions`]): `trace.insts.len()` entries.
pub fn lower_regions<A: Assembler>(
    trace: &Source<'_>,
    regions: Vec<Region>,
    arch: Option<SassArch>,
    config_name: &str,
    asm: &mut A,
) -> Result<Vec<Option<Row>>, LowerError<A::Error>> {
    let Some(arch) = arch else {
        return Err(LowerError::NoMachineCode {
            config: config_name.to_string(),
        });
    };
    let mut code: Vec<Option<Row>> = vec![None; trace.insts.len()];
    for region in regions {
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

/// Cuts straight-line code into distinct regions: a region ends at an
/// instruction that is not compilable and at [`Cutter::flush`], and is cut
/// into pieces of at most [`MAX_REGION`]; each distinct region is kept once,
/// in order of first appearance.
struct Cutter<'a> {
    insts: &'a [Instruction],
    out: Vec<Region>,
    seen: HashSet<Region>,
    cur: Vec<u32>,
}

impl<'a> Cutter<'a> {
    fn new(insts: &'a [Instruction]) -> Self {
        Cutter {
            insts,
            out: Vec::new(),
            seen: HashSet::new(),
            cur: Vec::new(),
        }
    }

    /// Ends the open region.
    fn flush(&mut self) {
        for chunk in self.cur.chunks(MAX_REGION) {
            let r = Region {
                insts: chunk.to_vec(),
            };
            if self.seen.insert(r.clone()) {
                self.out.push(r);
            }
        }
        self.cur.clear();
    }

    /// Instruction `i` runs next.
    fn push(&mut self, i: u32) {
        match self.insts.get(i as usize) {
            Some(inst) if compilable(inst) => self.cur.push(i),
            _ => self.flush(),
        }
    }
}

/// The distinct straight-line regions of `trace`, in order of first
/// appearance (streams in order).
pub fn regions(trace: &Trace) -> Vec<Region> {
    let mut cut = Cutter::new(&trace.insts);
    for stream in &trace.streams {
        // Op indices at which an open loop body ends.
        let mut ends: Vec<usize> = Vec::new();
        let ops = stream.ops();
        for (k, op) in ops.iter().enumerate() {
            while ends.last() == Some(&k) {
                ends.pop();
                cut.flush();
            }
            match *op {
                StreamOp::Inst(i) => cut.push(i),
                StreamOp::Run { start, len } => {
                    for i in start..start.saturating_add(len) {
                        cut.push(i);
                    }
                }
                StreamOp::Repeat { body_len, .. } => {
                    cut.flush();
                    ends.push(k + 1 + body_len as usize);
                }
            }
        }
        cut.flush();
    }
    cut.out
}

/// The distinct regions of a program whose straight-line `stretches` are
/// given (a launch's kernel: each stretch the instructions control runs
/// through in order, between branches and their targets), cut as a
/// trace's streams are.
pub fn stretch_regions(insts: &[Instruction], stretches: &[Vec<u32>]) -> Vec<Region> {
    let mut cut = Cutter::new(insts);
    for s in stretches {
        for &i in s {
            cut.push(i);
        }
        cut.flush();
    }
    cut.out
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
fn version(trace: &Source<'_>) -> PtxVersion {
    let floor = PtxVersion { major: 7, minor: 8 };
    trace.version.map_or(floor, |v| v.max(floor))
}

fn reg_type(trace: &Source<'_>, r: RegId) -> Type {
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
pub fn region_kernel(trace: &Source<'_>, region: &Region, arch: SassArch) -> RegionKernel {
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

/// Each program instruction of `region` with the machine code the listing
/// charges it (see the module documentation).
pub fn attribute(
    trace: &Source<'_>,
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
    let (mach, stored) = dataflow(listing, arch, &pred_inputs);
    if stored.is_empty() && !kernel.outputs.is_empty() {
        return Err(ListingError::NoStores);
    }
    for &off in stored.keys() {
        let slot = off / 8;
        if off % 8 != 0 || slot < n_in || slot >= n_in + kernel.outputs.len() as u64 {
            return Err(ListingError::BadStore { offset: off });
        }
    }
    let (results, helpers) = results(trace, kernel, &stored, &mach);
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

/// Per output slot, what holds the PTX result, and the machine
/// instructions that only move a predicate into a stored word (the
/// kernel's, not the region's).
fn results(
    trace: &Source<'_>,
    kernel: &RegionKernel,
    stored: &HashMap<u64, Vec<Def>>,
    mach: &MachInsts,
) -> (Vec<Vec<Def>>, HashSet<usize>) {
    let n_in = kernel.inputs.len() as u64;
    // For a predicate, what the storing `selp` (a SEL) reads.
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
    (results, helpers)
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
        let src = Source::of(&t);
        let k = region_kernel(&src, &r[1], SassArch::Sm90);
        let names: Vec<&str> = k.inputs.iter().map(|&x| t.syms.name(x)).collect();
        assert_eq!(names, ["%a", "%c"]);
        assert_eq!(k.outputs.len(), 4);
        assert!(k
            .text
            .contains("ld.volatile.global.b32 %c, [%simcli_base+8];"));
        assert!(k.text.contains("selp.u32 %simcli_word, 1, 0, %p;"));
        let rows = attribute(&src, &r[1], &k, LISTING, SassArch::Sm90).unwrap();
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
            attribute(&src, &r[1], &k, "", SassArch::Sm90).err(),
            Some(ListingError::NoStores)
        );
    }

    /// A region whose only result is a constant (`mov.u32 %a, 0;`, stored
    /// as `RZ` by ptxas 13.0.88 for sm_90): its instruction runs no machine
    /// instruction (a launch's kernels have such regions).
    #[test]
    fn a_constant_result_runs_nothing() {
        let k = ".version 7.8\n.target sm_90\n.warps 1\n.reg .b32 %a;\nmov.u32 %a, 0;\n";
        let t = crate::kernel::parse_kernel("k.ptx", k).unwrap();
        let src = Source::of(&t);
        let r = regions(&t);
        let kern = region_kernel(&src, &r[0], SassArch::Sm90);
        let listing = "
        /*0000*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0010*/                   ULDC.64 UR4, c[0x0][0x208] ;
        /*0020*/                   STG.E desc[UR4][R2.64], RZ ;
        /*0030*/                   EXIT ;
";
        let rows = attribute(&src, &r[0], &kern, listing, SassArch::Sm90).unwrap();
        let got: Vec<(u32, String)> = rows.iter().map(|(i, r)| (*i, text(r))).collect();
        assert_eq!(got, [(0, " -> A".to_string())]);
    }

    /// A launch's stretches (sim-kernel's) are cut as streams are: at what
    /// is not compilable, and each distinct region once.
    #[test]
    fn stretches_cut_as_streams() {
        let t = crate::kernel::parse_kernel("k.ptx", KERNEL).unwrap();
        // The loop body twice, then the first instruction and the body.
        let r = stretch_regions(
            &t.insts,
            &[vec![1, 2, 3, 4], vec![1, 2, 3, 4], vec![0, 1, 2]],
        );
        assert_eq!(
            r,
            [
                Region {
                    insts: vec![1, 2, 3, 4]
                },
                Region {
                    insts: vec![0, 1, 2]
                }
            ]
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
