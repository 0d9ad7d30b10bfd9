//! The text formats: `kernelslist.g` (the command list) and
//! `kernel-N.traceg` (one kernel's per-warp SASS trace), as Accel-Sim's
//! tracer (NVBit) writes them and Accel-Sim's `trace_parser.cc` reads them.
//!
//! A kernel file is a header of `-key = value` lines, then blocks:
//! `#BEGIN_TB`, `thread block = x,y,z`, per warp `warp = n`, `insts = n`
//! and n instruction lines, `#END_TB`. An instruction line (tracer versions
//! 3 and 4) is `[line_num] PC mask dest_num [dests] opcode src_num [srcs]
//! mem_width [mode addresses]`, `line_num` only where the header says
//! `-enable lineinfo = 1`. Addresses come in three forms (`mode`): 0, one
//! per active lane; 1, the first active lane's and a stride to each next
//! active lane; 2, the first active lane's and, per further active lane, the
//! difference from the previous active lane's.
//!
//! Everything is checked as it is read, with the file and line in the
//! error; counts are bounded ([`MAX_DIM`], [`MAX_BLOCK_THREADS`],
//! [`MAX_WARP_INSTS`]) and nothing is allocated from a count the file
//! states before the items themselves are read.

use crate::error::AccelError;
use sim_isa::WARP_SIZE;

/// Largest grid dimension accepted (CUDA's x limit).
pub const MAX_DIM: u64 = (1 << 31) - 1;
/// Most threads a block may have (CUDA's limit).
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// Most instructions one warp's `insts =` may state.
pub const MAX_WARP_INSTS: u64 = 1 << 28;
/// Most registers an instruction line may list on either side.
pub const MAX_REGS: usize = 8;
/// Widest memory access per lane, bytes (`.128` is 16).
pub const MAX_MEM_WIDTH: u32 = 128;

/// One line of `kernelslist.g`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `MemcpyHtoD,0xADDR,BYTES`: the host copied `bytes` to `addr`.
    MemcpyHtoD {
        /// Device address.
        addr: u64,
        /// Bytes copied.
        bytes: u64,
    },
    /// A kernel launch: its trace file, relative to the directory.
    Kernel(String),
}

/// Reads `kernelslist.g` (named `file`).
pub fn parse_kernelslist(file: &str, text: &str) -> Result<Vec<Command>, AccelError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let n = i + 1;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("MemcpyHtoD,") {
            let mut parts = rest.split(',').map(str::trim);
            let (Some(a), Some(b), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(AccelError::syntax(
                    file,
                    n,
                    "expected `MemcpyHtoD,0xADDRESS,BYTES`",
                ));
            };
            let addr = hex(a).ok_or_else(|| {
                AccelError::syntax(file, n, format!("bad address `{a}` (hexadecimal)"))
            })?;
            let bytes = b.parse::<u64>().map_err(|_| {
                AccelError::syntax(file, n, format!("bad byte count `{b}` (decimal)"))
            })?;
            out.push(Command::MemcpyHtoD { addr, bytes });
        } else if line.contains(',') {
            return Err(AccelError::syntax(
                file,
                n,
                format!("unknown command `{line}` (MemcpyHtoD and kernel files are read)"),
            ));
        } else {
            let bad = line.starts_with('/')
                || line.split('/').any(|c| c == "..")
                || line.contains(char::is_whitespace);
            if bad {
                return Err(AccelError::syntax(
                    file,
                    n,
                    format!("kernel file `{line}` must be a plain name inside the directory"),
                ));
            }
            out.push(Command::Kernel(line.to_string()));
        }
    }
    Ok(out)
}

// A field list alike in shape to other records' (issue 27): its own fields, nothing to share.
/// A kernel file's header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// `-kernel name` (mangled).
    pub name: String,
    /// `-kernel id`.
    pub id: u64,
    /// `-grid dim`.
    pub grid: [u32; 3],
    /// `-block dim`.
    pub block: [u32; 3],
    /// `-shmem`: shared memory per block, bytes.
    pub shmem: u64,
    /// `-nregs`: registers per thread.
    pub nregs: u32,
    /// `-binary version` (61: sm_61).
    pub binary_version: u32,
    /// `-shmem base_addr`: where shared memory starts in the traced addresses.
    pub shmem_base: u64,
    /// `-local mem base_addr`.
    pub local_base: u64,
    /// `-accelsim tracer version` (3 or 4).
    pub tracer_version: u32,
    /// `-enable lineinfo`: instruction lines start with a source line.
    pub lineinfo: bool,
}

impl Header {
    /// Threads per block.
    pub fn block_threads(&self) -> u64 {
        self.block.iter().map(|&d| u64::from(d)).product()
    }

    /// Warps per block.
    pub fn warps_per_block(&self) -> u32 {
        self.block_threads().div_ceil(WARP_SIZE as u64) as u32
    }

    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&d| u64::from(d)).product()
    }
}

/// One traced warp instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// The line of the kernel file it came from.
    pub line: u32,
    /// Its PC (byte offset in the kernel's code).
    pub pc: u64,
    /// Lanes that executed it (guard true).
    pub mask: u32,
    /// Index into [`Kernel::opcodes`] (`LDG.E.CG`: opcode with modifiers).
    pub opcode: u16,
    /// Destination registers (`R4` is 4; uniform registers `UR4` are 4 + 256).
    pub dests: Vec<u16>,
    /// Source registers, as `dests`.
    pub srcs: Vec<u16>,
    /// For a memory instruction: bytes per lane and where its addresses
    /// start in [`Kernel::addrs`] (one per active lane, ascending lanes).
    pub mem: Option<(u32, u32)>,
}

/// One warp's instructions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Warp {
    /// The warp's index in its block.
    pub index: u32,
    /// Its instructions in execution order.
    pub insts: Vec<Inst>,
}

/// One block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// `thread block = x,y,z`.
    pub id: [u32; 3],
    /// Its warps, as listed.
    pub warps: Vec<Warp>,
}

// A field list alike in shape to other records' (issue 27): its own fields, nothing to share.
/// One kernel file, read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kernel {
    /// The file's name.
    pub file: String,
    /// The header.
    pub header: Header,
    /// Distinct opcodes (with modifiers), in order of first appearance.
    pub opcodes: Vec<String>,
    /// Every memory instruction's lane addresses, concatenated.
    pub addrs: Vec<u64>,
    /// The blocks, as listed.
    pub blocks: Vec<Block>,
}

impl Kernel {
    /// Warp instructions in the trace.
    pub fn warp_instructions(&self) -> u64 {
        self.blocks
            .iter()
            .flat_map(|b| &b.warps)
            .map(|w| w.insts.len() as u64)
            .sum()
    }

    /// Thread instructions: each warp instruction's active lanes, summed
    /// (what Accel-Sim reports as `gpu_sim_insn`).
    pub fn thread_instructions(&self) -> u64 {
        self.blocks
            .iter()
            .flat_map(|b| &b.warps)
            .flat_map(|w| &w.insts)
            .map(|i| u64::from(i.mask.count_ones()))
            .sum()
    }

    /// The lane addresses of a memory instruction `mem` field (one per active lane).
    pub fn lane_addrs(&self, start: u32, mask: u32) -> &[u64] {
        let s = start as usize;
        let n = mask.count_ones() as usize;
        self.addrs.get(s..s + n).unwrap_or(&[])
    }
}

fn hex(s: &str) -> Option<u64> {
    let d = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if d.is_empty() || d.len() > 16 {
        return None;
    }
    u64::from_str_radix(d, 16).ok()
}

/// Where the reader is in a kernel file.
struct Cursor<'a> {
    file: &'a str,
    line: usize,
}

impl Cursor<'_> {
    fn err(&self, message: impl Into<String>) -> AccelError {
        AccelError::syntax(self.file, self.line, message)
    }
}

/// Reads a kernel file (named `file`).
pub fn parse_kernel(file: &str, text: &str) -> Result<Kernel, AccelError> {
    let mut k = Kernel {
        file: file.to_string(),
        ..Kernel::default()
    };
    let mut seen = Seen::default();
    let mut body = Body::default();
    let mut lines = text.lines().enumerate();
    while let Some((i, raw)) = lines.next() {
        let cur = Cursor { file, line: i + 1 };
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(h) = line.strip_prefix('-') {
            if body.started {
                return Err(cur.err("header line after the first block"));
            }
            header_line(&cur, h, &mut k.header, &mut seen)?;
            continue;
        }
        if !body.started {
            if line.starts_with('#') && line != "#BEGIN_TB" {
                continue;
            }
            seen.check(file)?;
            check_header(file, &k.header)?;
            body.started = true;
        }
        body_line(&cur, line, &mut k, &mut body)?;
        // A warp's instruction lines follow its `insts =` line.
        while body.left > 0 {
            let Some((j, raw)) = lines.next() else { break };
            let cur = Cursor { file, line: j + 1 };
            let inst = inst_line(&cur, raw.trim(), &mut k)?;
            body.push(&cur, inst, &mut k)?;
        }
    }
    if !body.started {
        seen.check(file)?;
        check_header(file, &k.header)?;
    }
    if body.left > 0 {
        return Err(AccelError::File {
            file: file.to_string(),
            message: format!(
                "ends {} instruction lines short of a warp's `insts`",
                body.left
            ),
        });
    }
    if body.in_block {
        return Err(AccelError::File {
            file: file.to_string(),
            message: "ends inside a block (no `#END_TB`)".to_string(),
        });
    }
    Ok(k)
}

/// Required header fields seen.
#[derive(Default)]
struct Seen {
    grid: bool,
    block: bool,
    version: bool,
}

impl Seen {
    fn check(&self, file: &str) -> Result<(), AccelError> {
        let missing = [
            (self.grid, "-grid dim"),
            (self.block, "-block dim"),
            (self.version, "-accelsim tracer version"),
        ];
        match missing.iter().find(|(s, _)| !s) {
            Some((_, what)) => Err(AccelError::File {
                file: file.to_string(),
                message: format!("the header has no `{what}` line"),
            }),
            None => Ok(()),
        }
    }
}

fn check_header(file: &str, h: &Header) -> Result<(), AccelError> {
    let t = h.block_threads();
    if t == 0 || t > MAX_BLOCK_THREADS {
        return Err(AccelError::File {
            file: file.to_string(),
            message: format!("a block of {t} threads (1 to {MAX_BLOCK_THREADS})"),
        });
    }
    if h.blocks() == 0 {
        return Err(AccelError::File {
            file: file.to_string(),
            message: "an empty grid".to_string(),
        });
    }
    Ok(())
}

fn dim3(cur: &Cursor<'_>, v: &str) -> Result<[u32; 3], AccelError> {
    let inner = v
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(v);
    let mut out = [0u32; 3];
    let mut parts = inner.split(',').map(str::trim);
    for slot in &mut out {
        let p = parts.next().unwrap_or("");
        let n: u64 = p
            .parse()
            .map_err(|_| cur.err(format!("bad dimension `{v}` (expected (x,y,z))")))?;
        if n == 0 || n > MAX_DIM {
            return Err(cur.err(format!("dimension {n} out of range (1 to {MAX_DIM})")));
        }
        *slot = n as u32;
    }
    if parts.next().is_some() {
        return Err(cur.err(format!("bad dimension `{v}` (expected (x,y,z))")));
    }
    Ok(out)
}

fn num<T: std::str::FromStr>(cur: &Cursor<'_>, what: &str, v: &str) -> Result<T, AccelError> {
    v.parse()
        .map_err(|_| cur.err(format!("bad {what} `{v}` (expected a decimal number)")))
}

fn header_line(
    cur: &Cursor<'_>,
    h: &str,
    k: &mut Header,
    seen: &mut Seen,
) -> Result<(), AccelError> {
    let Some((key, value)) = h.split_once('=') else {
        return Err(cur.err("header line without `=`"));
    };
    let (key, v) = (key.trim(), value.trim());
    let addr = |v: &str| hex(v).ok_or_else(|| cur.err(format!("bad address `{v}`")));
    match key {
        "kernel name" => k.name = v.to_string(),
        "kernel id" => k.id = num(cur, "kernel id", v)?,
        "grid dim" => {
            k.grid = dim3(cur, v)?;
            seen.grid = true;
        }
        "block dim" => {
            k.block = dim3(cur, v)?;
            seen.block = true;
        }
        "shmem" => k.shmem = num(cur, "shared memory size", v)?,
        "nregs" => k.nregs = num(cur, "register count", v)?,
        "binary version" => k.binary_version = num(cur, "binary version", v)?,
        "shmem base_addr" => k.shmem_base = addr(v)?,
        "local mem base_addr" => k.local_base = addr(v)?,
        "accelsim tracer version" | "trace version" => {
            let n: u32 = num(cur, "tracer version", v)?;
            if !(3..=4).contains(&n) {
                return Err(cur.err(format!("tracer version {n}: versions 3 and 4 are read")));
            }
            k.tracer_version = n;
            seen.version = true;
        }
        "enable lineinfo" => k.lineinfo = num::<u32>(cur, "lineinfo flag", v)? != 0,
        // The rest (`-nvbit version`, `-cuda stream id`) is not needed.
        _ => {}
    }
    Ok(())
}

/// The block structure being read.
#[derive(Default)]
struct Body {
    started: bool,
    in_block: bool,
    /// Warps of the current block seen (bit per warp index, as a list).
    warps_seen: Vec<bool>,
    /// Instruction lines still due for the current warp.
    left: u64,
    /// The block ids seen.
    blocks_seen: std::collections::HashSet<[u32; 3]>,
}

impl Body {
    fn push(&mut self, cur: &Cursor<'_>, inst: Inst, k: &mut Kernel) -> Result<(), AccelError> {
        let w = k
            .blocks
            .last_mut()
            .and_then(|b| b.warps.last_mut())
            .ok_or_else(|| cur.err("an instruction outside a warp"))?;
        w.insts.push(inst);
        self.left -= 1;
        Ok(())
    }
}

fn body_line(cur: &Cursor<'_>, line: &str, k: &mut Kernel, b: &mut Body) -> Result<(), AccelError> {
    if line == "#BEGIN_TB" {
        if b.in_block {
            return Err(cur.err("`#BEGIN_TB` inside a block (no `#END_TB` before it)"));
        }
        if k.blocks.len() as u64 >= k.header.blocks() {
            return Err(cur.err(format!("more blocks than the grid's {}", k.header.blocks())));
        }
        b.in_block = true;
        b.warps_seen = vec![false; k.header.warps_per_block() as usize];
        k.blocks.push(Block::default());
        return Ok(());
    }
    if line == "#END_TB" {
        if !b.in_block {
            return Err(cur.err("`#END_TB` outside a block"));
        }
        b.in_block = false;
        return Ok(());
    }
    if line.starts_with('#') {
        return Ok(());
    }
    if !b.in_block {
        return Err(cur.err(format!("`{line}` outside a block (`#BEGIN_TB`)")));
    }
    let Some((key, v)) = line.split_once('=') else {
        return Err(cur.err(format!(
            "`{line}`: expected `thread block =`, `warp =` or `insts =` (an instruction line must follow `insts =`)"
        )));
    };
    let (key, v) = (key.trim(), v.trim());
    let block = k
        .blocks
        .last_mut()
        .ok_or_else(|| cur.err("no block open"))?;
    match key {
        "thread block" => {
            let mut id = [0u32; 3];
            let mut parts = v.split(',').map(str::trim);
            for (slot, dim) in id.iter_mut().zip(k.header.grid) {
                let n: u32 = num(cur, "block index", parts.next().unwrap_or(""))?;
                if n >= dim {
                    return Err(cur.err(format!("block index {v} outside the grid")));
                }
                *slot = n;
            }
            if parts.next().is_some() {
                return Err(cur.err(format!("bad block index `{v}` (expected x,y,z)")));
            }
            if !b.blocks_seen.insert(id) {
                return Err(cur.err(format!("block {v} listed twice")));
            }
            block.id = id;
        }
        "warp" => {
            let n: u32 = num(cur, "warp index", v)?;
            match b.warps_seen.get_mut(n as usize) {
                Some(s) if !*s => *s = true,
                Some(_) => return Err(cur.err(format!("warp {n} listed twice in its block"))),
                None => {
                    return Err(cur.err(format!(
                        "warp {n}: a block of {} threads has {} warps",
                        k.header.block_threads(),
                        k.header.warps_per_block()
                    )))
                }
            }
            block.warps.push(Warp {
                index: n,
                insts: Vec::new(),
            });
        }
        "insts" => {
            let n: u64 = num(cur, "instruction count", v)?;
            if n > MAX_WARP_INSTS {
                return Err(cur.err(format!(
                    "{n} instructions in a warp (at most {MAX_WARP_INSTS})"
                )));
            }
            let w = block
                .warps
                .last_mut()
                .ok_or_else(|| cur.err("`insts =` before `warp =`"))?;
            if !w.insts.is_empty() {
                return Err(cur.err("a second `insts =` for one warp"));
            }
            // Reserve no more than a page's worth: the count is the file's claim.
            w.insts.reserve(n.min(4096) as usize);
            b.left = n;
        }
        _ => return Err(cur.err(format!("unknown line `{line}`"))),
    }
    Ok(())
}

/// Reads one instruction line.
fn inst_line(cur: &Cursor<'_>, line: &str, k: &mut Kernel) -> Result<Inst, AccelError> {
    let mut t = line.split_whitespace();
    let mut next = |what: &str| {
        t.next()
            .ok_or_else(|| cur.err(format!("instruction line ends before its {what}")))
    };
    if k.header.lineinfo {
        let l = next("source line")?;
        let _: u64 = num(cur, "source line", l)?;
    }
    let pc_text = next("PC")?;
    let pc = hex(pc_text).ok_or_else(|| cur.err(format!("bad PC `{pc_text}`")))?;
    let m = next("mask")?;
    let mask = match hex(m) {
        Some(v) if m.len() <= 8 => v as u32,
        _ => return Err(cur.err(format!("bad active mask `{m}` (8 hexadecimal digits)"))),
    };
    let nd = count(cur, "destination count", next("destination count")?)?;
    let mut dests = Vec::with_capacity(nd);
    for _ in 0..nd {
        dests.push(reg(cur, next("destinations")?)?);
    }
    let op = next("opcode")?;
    if !op.starts_with(|c: char| c.is_ascii_uppercase())
        || !op
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
    {
        return Err(cur.err(format!("bad opcode `{op}`")));
    }
    let opcode = intern(cur, &mut k.opcodes, op)?;
    let ns = count(cur, "source count", next("source count")?)?;
    let mut srcs = Vec::with_capacity(ns);
    for _ in 0..ns {
        srcs.push(reg(cur, next("sources")?)?);
    }
    let width: u32 = num(cur, "memory width", next("memory width")?)?;
    if width > MAX_MEM_WIDTH {
        return Err(cur.err(format!(
            "memory width {width} (at most {MAX_MEM_WIDTH} bytes a lane)"
        )));
    }
    let mem = if width > 0 {
        let start = u32::try_from(k.addrs.len())
            .map_err(|_| cur.err("more than 2^32 addresses in one kernel"))?;
        let mode = next("address mode")?;
        addresses(cur, mode, mask, &mut next, &mut k.addrs)?;
        // The memory model adds the width to each address.
        let tail = k.addrs.get(start as usize..).unwrap_or(&[]);
        if let Some(a) = tail
            .iter()
            .find(|a| a.checked_add(u64::from(width)).is_none())
        {
            return Err(cur.err(format!("address {a:#x} + {width} bytes passes 2^64")));
        }
        Some((width, start))
    } else {
        None
    };
    if let Some(extra) = t.next() {
        return Err(cur.err(format!("unexpected `{extra}` after the instruction")));
    }
    Ok(Inst {
        line: u32::try_from(cur.line).unwrap_or(u32::MAX),
        pc,
        mask,
        opcode,
        dests,
        srcs,
        mem,
    })
}

fn count(cur: &Cursor<'_>, what: &str, v: &str) -> Result<usize, AccelError> {
    let n: usize = num(cur, what, v)?;
    if n > MAX_REGS {
        return Err(cur.err(format!("{what} {n} (at most {MAX_REGS})")));
    }
    Ok(n)
}

fn reg(cur: &Cursor<'_>, v: &str) -> Result<u16, AccelError> {
    let (base, digits) = match v.strip_prefix("UR") {
        Some(d) => (256u16, d),
        None => (0, v.strip_prefix('R').unwrap_or("")),
    };
    match digits.parse::<u16>() {
        Ok(n) if n <= 255 && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(base + n)
        }
        _ => Err(cur.err(format!("bad register `{v}` (R0..R255 or UR0..UR255)"))),
    }
}

/// Most distinct opcodes a kernel may name (SASS has a few hundred).
const MAX_OPCODES: usize = 4096;

fn intern(cur: &Cursor<'_>, ops: &mut Vec<String>, op: &str) -> Result<u16, AccelError> {
    if let Some(i) = ops.iter().position(|o| o == op) {
        return Ok(i as u16);
    }
    if ops.len() >= MAX_OPCODES {
        return Err(cur.err(format!("more than {MAX_OPCODES} distinct opcodes")));
    }
    ops.push(op.to_string());
    Ok((ops.len() - 1) as u16)
}

/// Reads a memory instruction's addresses in `mode`'s form, one per
/// active lane (ascending lanes) onto `out`.
fn addresses<'t>(
    cur: &Cursor<'_>,
    mode: &str,
    mask: u32,
    next: &mut impl FnMut(&str) -> Result<&'t str, AccelError>,
    out: &mut Vec<u64>,
) -> Result<(), AccelError> {
    let active = mask.count_ones() as usize;
    let mut addr = |what: &str| -> Result<u64, AccelError> {
        let v = next(what)?;
        hex(v).ok_or_else(|| cur.err(format!("bad address `{v}` (hexadecimal)")))
    };
    match mode {
        "0" => {
            for _ in 0..active {
                let a = addr("addresses (one per active lane)")?;
                out.push(a);
            }
        }
        "1" => {
            let base = addr("base address")?;
            let s = next("stride")?;
            let stride: i64 = num(cur, "stride", s)?;
            let mut a = base;
            for k in 0..active {
                if k > 0 {
                    a = a
                        .checked_add_signed(stride)
                        .ok_or_else(|| cur.err("a strided address passes 0 or 2^64"))?;
                }
                out.push(a);
            }
        }
        "2" => {
            let base = addr("base address")?;
            let mut a = base;
            for k in 0..active {
                if k > 0 {
                    let d = next("address deltas (one per active lane after the first)")?;
                    let delta: i64 = num(cur, "address delta", d)?;
                    a = a
                        .checked_add_signed(delta)
                        .ok_or_else(|| cur.err("an address delta passes 0 or 2^64"))?;
                }
                out.push(a);
            }
        }
        m => {
            return Err(cur.err(format!(
                "bad address mode `{m}` (0: list, 1: base and stride, 2: base and deltas)"
            )))
        }
    }
    Ok(())
}
