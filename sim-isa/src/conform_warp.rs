//! Warp-wide conformance vectors (`docs/conformance-format.md`, "Warp
//! vectors"): an instruction whose lanes read each other's registers
//! (`mma`, `ldmatrix`, `stmatrix`, `movmatrix`) run on a whole warp, every
//! register given as 32 lane values, and a shared-memory image for those
//! that read or write it. No files are opened here.
//!
//! ```text
//! {"arch":"sm_90","ptx":"ldmatrix... {%r2}, [%r1];",
//!  "in":{"%r1":["0x0",...32 values]}, "shared":"00ff...",
//!  "out":{"%r2":[...32 values]}, "shared_out":"...", "family":"mma"}
//! ```
//!
//! `shared` (hex bytes, shared address 0 onwards) is the memory before the
//! instruction and `shared_out` the memory it must leave; a vector without
//! `shared` runs with none.

use crate::exec::{execute_mem, width_mask, Access, FaultKind, Memory};
use crate::inst::{Instruction, RegId, Space};
use crate::parse::{check_target, parse_instruction};
use crate::symbols::Symbols;
use crate::target::Target;
use crate::{ExecCtx, WarpRegs, WARP_SIZE};
use serde_json::Value as Json;

/// Why a warp vector could not be run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WarpVectorError {
    /// Not a JSON object, or a field missing or of the wrong type.
    #[error("field '{0}': missing or malformed")]
    Field(&'static str),
    /// A register's lane values are not 32 hex strings.
    #[error("register {0}: expected 32 hex strings")]
    Lanes(String),
    /// A register the instruction reads has no lane values in `in`.
    #[error("register {0}: read but not given in 'in'")]
    MissingInput(String),
    /// `shared`/`shared_out` is not a string of hex byte pairs.
    #[error("field '{0}': expected hex bytes")]
    Bytes(&'static str),
    /// The target or the instruction was refused.
    #[error("{0}")]
    Refused(String),
    /// The instruction faulted on the shared memory given.
    #[error("fault: {0}")]
    Fault(String),
}

/// One warp vector's outcome: `Ok(None)` passed, `Ok(Some(diff))` the
/// simulator disagrees (the first differing values named).
pub type WarpOutcome = Result<Option<String>, WarpVectorError>;

/// The shared memory of one vector, addressed from 0.
struct Shared(Vec<u8>);

impl Shared {
    /// The bytes `addr..addr + n`, if inside the image.
    fn range(&self, addr: u64, n: u32) -> Result<std::ops::Range<usize>, FaultKind> {
        let a = usize::try_from(addr).map_err(|_| FaultKind::OutOfBounds)?;
        let end = a.checked_add(n as usize).ok_or(FaultKind::OutOfBounds)?;
        if end > self.0.len() {
            return Err(FaultKind::OutOfBounds);
        }
        Ok(a..end)
    }
    fn bytes(&self, addr: u64, n: u32) -> Result<&[u8], FaultKind> {
        Ok(&self.0[self.range(addr, n)?])
    }
}

impl Memory for Shared {
    fn load(&mut self, a: Access) -> Result<u64, FaultKind> {
        let s = self.bytes(a.addr, a.bytes)?;
        Ok(s.iter().rev().fold(0, |v, &b| v << 8 | u64::from(b)))
    }
    fn store(&mut self, a: Access, v: u64) -> Result<(), FaultKind> {
        let r = self.range(a.addr, a.bytes)?;
        let s = &mut self.0[r];
        for (k, b) in s.iter_mut().enumerate() {
            *b = (v >> (8 * k)) as u8;
        }
        Ok(())
    }
    fn var(&self, _: u32) -> Result<(Space, u64), FaultKind> {
        Err(FaultKind::UnknownVariable)
    }
    fn to_generic(&self, _: Space, a: u64) -> u64 {
        a
    }
    fn generic_to_space(&self, _: Space, a: u64) -> u64 {
        a
    }
}

fn hex_bytes(field: &'static str, v: Option<&Json>) -> Result<Option<Vec<u8>>, WarpVectorError> {
    let Some(v) = v else { return Ok(None) };
    let s = v.as_str().ok_or(WarpVectorError::Bytes(field))?;
    if s.len() % 2 != 0 || !s.is_ascii() {
        return Err(WarpVectorError::Bytes(field));
    }
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
        .map_err(|_| WarpVectorError::Bytes(field))
}

/// A register's 32 lane values.
fn lanes(name: &str, v: &Json) -> Result<[u64; WARP_SIZE], WarpVectorError> {
    let bad = || WarpVectorError::Lanes(name.to_string());
    let a = v
        .as_array()
        .filter(|a| a.len() == WARP_SIZE)
        .ok_or_else(bad)?;
    let mut out = [0; WARP_SIZE];
    for (o, x) in out.iter_mut().zip(a) {
        let s = x
            .as_str()
            .and_then(|s| s.strip_prefix("0x"))
            .ok_or_else(bad)?;
        *o = u64::from_str_radix(s, 16).map_err(|_| bad())?;
    }
    Ok(out)
}

/// The widest width `r` is used at in `inst` (64 if unused).
fn width(inst: &Instruction, r: RegId) -> u32 {
    let u = inst.reg_uses();
    let w = u.writes().chain(u.reads()).filter(|x| x.reg == r);
    w.map(|x| x.bits).max().unwrap_or(64)
}

/// Runs one warp vector line.
pub fn run_warp_vector(line: &str) -> WarpOutcome {
    let j: Json = serde_json::from_str(line).map_err(|_| WarpVectorError::Field("json"))?;
    let field = |k: &'static str| j.get(k).ok_or(WarpVectorError::Field(k));
    let text = |k| field(k)?.as_str().ok_or(WarpVectorError::Field(k));
    let object = |k| field(k)?.as_object().ok_or(WarpVectorError::Field(k));
    let (arch, ptx) = (text("arch")?, text("ptx")?);
    let target = Target::parse(arch).map_err(|e| WarpVectorError::Refused(e.to_string()))?;
    let mut syms = Symbols::new();
    let inst = parse_instruction(ptx, &mut syms)
        .and_then(|i| check_target(&i, target, None).map(|()| i))
        .map_err(|e| WarpVectorError::Refused(e.to_string()))?;
    let (ins, outs) = (object("in")?, object("out")?);
    let mut regs = WarpRegs::new(syms.len());
    for (name, v) in ins {
        let id = syms.intern(name);
        regs.ensure(id.0 as usize + 1);
        *regs.get_mut(id) = lanes(name, v)?;
    }
    for u in inst.reg_uses().reads() {
        let name = syms.name(u.reg);
        if !ins.contains_key(name) {
            return Err(WarpVectorError::MissingInput(name.to_string()));
        }
    }
    let mut mem = Shared(hex_bytes("shared", j.get("shared"))?.unwrap_or_default());
    let ctx = ExecCtx::new(target, 0);
    execute_mem(&inst, &ctx, &mut regs, u32::MAX, &mut mem)
        .map_err(|e| WarpVectorError::Fault(format!("{e:?}")))?;
    let mut diffs = Vec::new();
    for (name, v) in outs {
        let want = lanes(name, v)?;
        let id = syms.intern(name);
        regs.ensure(id.0 as usize + 1);
        let mask = width_mask(width(&inst, id));
        let got = regs.get(id);
        if let Some(l) = (0..WARP_SIZE).find(|&l| got[l] & mask != want[l]) {
            diffs.push(format!(
                "{name} lane {l}: expected {:#x}, got {:#x}",
                want[l],
                got[l] & mask
            ));
        }
    }
    if let Some(want) = hex_bytes("shared_out", j.get("shared_out"))? {
        if let Some(a) = (0..want.len()).find(|&a| mem.0.get(a) != Some(&want[a])) {
            diffs.push(format!(
                "shared byte {a:#x}: expected {:#04x}, got {:?}",
                want[a],
                mem.0.get(a)
            ));
        }
    }
    Ok((!diffs.is_empty()).then(|| diffs.join("; ")))
}
