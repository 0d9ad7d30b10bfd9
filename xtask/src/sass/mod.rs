//! A small interpreter of the sm_90 machine code (SASS, as nvdisasm prints it)
//! that ptxas emits for the instructions sim-isa models (part 2).
//!
//! It runs a whole kernel of the shape `values` generates: parameter loads
//! (`LDC`), global loads and stores (`LDG`/`STG`) against two byte buffers, and
//! the integer/compare/permute opcodes between them. Anything it does not know
//! is an error naming the opcode, never a guess. One thread's shared memory,
//! the async copies and the `mbarrier` unit are `exec_async`'s.
//!
//! `decode` reads the listing, `operand` gives the machine's view of each
//! operand form, `logic` holds the pure bit and comparison helpers, and the
//! opcode families execute in `exec_mem` (moves, loads, stores), `exec_int`
//! (integer, logic, permute, bit counts, bit masks and integer compares), `exec_float`
//! (float compares, conversions, half compares and video), `exec_half`
//! (packed half arithmetic) and `exec_mufu` (`MUFU.EX2` and its 16-bit forms).
//! Warp-wide opcodes run on a [`Warp`] of 32 machines: `warp` (lockstep,
//! shared memory, `LDSM STSM MOVM`) and `exec_mma` (`HMMA IMMA DMMA`, with
//! `mma_round`'s f16/bf16 model).

mod decode;
mod exec_async;
mod exec_f2fp;
mod exec_float;
mod exec_half;
mod exec_int;
mod exec_mem;
mod exec_mma;
mod exec_mufu;
mod logic;
mod mma_round;
mod operand;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_warp;
mod warp;

pub use decode::{parse_listing, Opnd, SInst};
pub use warp::{Warp, LANES};

use anyhow::{bail, Context, Result};

/// Fake device address of the input buffer (parameter 0).
pub const IN_BASE: u64 = 0x1000_0000;
/// Fake device address of the output buffer (parameter 1).
pub const OUT_BASE: u64 = 0x2000_0000;
const RZ: u8 = sim_sass::operand::RZ;
const PT: u8 = sim_sass::operand::PT;
/// Instructions one run may execute: the kernels run one PTX instruction,
/// whose longest machine code (a loop over a division, `fns`'s search) is a
/// few hundred.
const MAX_STEPS: usize = 100_000;
/// The scratch register a uniform-datapath twin computes into.
const UNIFORM_SCRATCH: u8 = 254;

/// Machine state: registers, predicates and the two buffers.
#[derive(Clone, Debug)]
pub struct Machine {
    /// R0..R254 (RZ reads 0).
    pub r: [u32; 256],
    /// P0..P6 (PT is P7, always true), then UP0..UP6 from index 8.
    pub p: [bool; 16],
    /// Uniform registers UR0..UR63.
    pub ur: [u32; 64],
    /// `%tid.x`, `%ctaid.x`, `%ntid.x` and the third kernel parameter
    /// (the GPU harness's vector count), for per-thread kernels.
    pub thread: [u32; 4],
    /// Input buffer at [`IN_BASE`].
    pub input: Vec<u8>,
    /// Output buffer at [`OUT_BASE`].
    pub output: Vec<u8>,
    /// Shared memory from address 0 (the kernel's variables from 0x400).
    pub shared: Vec<u8>,
    /// Transaction counts of `mbarrier` objects (see `exec_async`).
    tx: Vec<(u32, i64)>,
    /// The return-address register pair `RPCMOV` uses as scratch (LO, HI).
    rpc: [u32; 2],
}

impl Machine {
    /// A machine with the given input bytes and an output buffer of `out_len` zero bytes.
    pub fn new(input: Vec<u8>, out_len: usize) -> Self {
        Machine {
            r: [0; 256],
            p: [false; 16],
            ur: [0; 64],
            thread: [0, 0, 1, 1],
            input,
            output: vec![0; out_len],
            shared: vec![0; exec_async::SHARED_BYTES],
            tx: Vec::new(),
            rpc: [0; 2],
        }
    }

    /// Runs `prog` until `EXIT`, following branches whose targets
    /// [`parse_listing`] resolved (a branch without one falls through: the
    /// self-loop after the last `EXIT`). Returns the number of instructions
    /// executed; a program that runs [`MAX_STEPS`] is an error, not a hang.
    pub fn run(&mut self, prog: &[SInst]) -> Result<usize> {
        let mut pc = 0;
        for n in 0..MAX_STEPS {
            let Some(i) = prog.get(pc) else {
                bail!("program ran off its end without EXIT")
            };
            pc += 1;
            if let Some((p, not)) = i.guard {
                if !((p == PT || self.p[p as usize]) ^ not) {
                    continue;
                }
            }
            match (i.op.as_str(), i.target) {
                ("EXIT", _) => return Ok(n),
                ("BRA", Some(t)) => pc = t,
                _ => self
                    .step(i)
                    .with_context(|| format!("executing '{}'", i.text))?,
            }
        }
        bail!("program ran {MAX_STEPS} instructions without EXIT")
    }

    /// Executes one instruction (guard already checked).
    pub fn step(&mut self, i: &SInst) -> Result<()> {
        if let Some(base) = uniform_twin(&i.op) {
            return self.step_uniform(i, base);
        }
        match i.op.as_str() {
            "NOP" | "BRA" | "DEPBAR" | "MEMBAR" => Ok(()),
            "UMOV" | "ULDC" => self.uniform_move(i),
            "LDC" => self.ldc(i),
            "MOV" => self.mov(i),
            "LDG" | "LD" => self.load(i),
            "STG" | "ST" => self.store(i),
            "S2R" | "S2UR" => self.s2r(i),
            "IMAD" if i.has("WIDE") => self.imad_wide(i),
            "IMAD" => self.imad(i),
            "IADD3" => self.iadd3(i),
            "LOP3" => self.lop3(i),
            "PLOP3" => self.plop3(i),
            "PRMT" => self.prmt(i),
            "SHF" => self.shf(i),
            "LEA" => self.lea(i),
            "SEL" | "FSEL" => self.sel(i),
            "IABS" => self.iabs(i),
            "VIMNMX" | "IMNMX" => self.imnmx(i),
            "I2I" => self.i2i(i),
            "I2IP" => self.i2ip(i),
            "ISETP" => self.isetp(i),
            "I2F" | "I2FP" => self.i2f(i),
            "FADD" => self.fadd(i),
            "FSETP" | "DSETP" => self.fsetp(i),
            "FSET" => self.fset(i),
            "HSET2" | "HSETP2" => self.hset2(i),
            "VABSDIFF4" => self.vabsdiff4(i),
            "VABSDIFF" => self.vabsdiff(i),
            "VIADD" => self.viadd(i),
            "IDP" => self.idp(i),
            "POPC" => self.popc(i),
            "BREV" => self.brev(i),
            "SGXT" => self.sgxt(i),
            "BMSK" => self.bmsk(i),
            "HFMA2" => self.hfma2_any(i),
            "HADD2" | "HMUL2" | "HMNMX2" => self.half_arith(i),
            "F2FP" => self.f2fp(i),
            "MUFU" => self.mufu(i),
            "LDS" | "STS" | "LDGSTS" | "LDGDEPBAR" | "SYNCS" | "ARRIVES" | "R2UR" | "FENCE"
            | "RPCMOV" | "NANOSLEEP" | "ERRBAR" | "CGAERRBAR" => self.step_async(i),
            "?" => bail!("unreadable instruction"),
            other => bail!("opcode {other} not modelled"),
        }
    }

    /// Uniform-datapath twins (ULOP3, UIADD3, ...) compute the same thing on
    /// uniform registers: run the vector form into a scratch register, then
    /// move the result over.
    fn step_uniform(&mut self, i: &SInst, base: &str) -> Result<()> {
        let Some(Opnd::UReg(d, false)) = i.ops.first().cloned() else {
            bail!("uniform op without a uniform destination")
        };
        let mut j = i.clone();
        j.op = base.to_string();
        j.ops[0] = Opnd::Reg {
            r: UNIFORM_SCRATCH,
            neg: false,
            not: false,
            abs: false,
            halves: None,
        };
        let saved = self.r[UNIFORM_SCRATCH as usize];
        self.step(&j)?;
        if d != RZ {
            self.ur[(d & 63) as usize] = self.r[UNIFORM_SCRATCH as usize];
        }
        self.r[UNIFORM_SCRATCH as usize] = saved;
        Ok(())
    }
}

/// The vector opcode a uniform-datapath opcode (`ULOP3`) mirrors, if it is one.
fn uniform_twin(op: &str) -> Option<&str> {
    op.strip_prefix('U').filter(|base| {
        matches!(
            *base,
            "LOP3" | "IADD3" | "IMAD" | "SEL" | "PRMT" | "SHF" | "LEA" | "MOV" | "ISETP" | "IABS"
        )
    })
}
