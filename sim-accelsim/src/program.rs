//! A kernel trace as a program of the SM model: each distinct traced
//! instruction (opcode and registers) becomes one program instruction.
//!
//! The SM model's program is PTX (`sim_isa::Instruction`): its registers
//! give the scoreboard its dependencies. Each traced SASS instruction is
//! stood for by a PTX instruction over the same registers (`R4` is `%r4`,
//! `UR4` `%ur4`; `RZ`, `R255`, is no register): `mov`/`add`/`mad` by its
//! number of sources (at most three are kept), `ld`/`st`/`atom`/`red` of
//! its space for memory, `bar.sync` for a barrier. Its timing is not the
//! stand-in's: arithmetic runs the traced machine opcode (or its mapping,
//! [`crate::opcode`]) as given machine code
//! ([`ProgramTables::with_machine_code`]); memory instructions and barriers
//! are external, timed by the memory model and the block's warps.
//! Predicates are not traced (Accel-Sim lists general registers only), so
//! a compare's result is written to a sink register of its own.

use crate::error::AccelError;
use crate::opcode::{Class, Mapped, Mapper};
use crate::read::{Inst, Kernel};
use sim_core::sass_table::{MachineInst, Row, SassArch, Src};
use sim_core::{Program, ProgramTables, SmConfig};
use sim_isa::{Space, Symbols};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

/// `RZ`: reads zero, writes nothing.
const RZ: u16 = 255;

/// The program of one kernel and, per traced instruction, its index.
pub struct Built {
    /// The tables the SMs run.
    pub tables: Arc<ProgramTables>,
    /// Per program instruction: what it does.
    pub class: Vec<Class>,
    /// Per program instruction: the traced opcode (index into [`Kernel::opcodes`]).
    pub opcode: Vec<u16>,
    /// Per block, per warp (as listed), per instruction: the program index.
    pub index: Vec<Vec<Vec<u32>>>,
    /// Each traced opcode's mapping, in [`Kernel::opcodes`] order.
    pub mapped: Vec<(String, Mapped)>,
}

fn reg_name(r: u16) -> String {
    if r >= 256 {
        format!("%ur{}", r - 256)
    } else {
        format!("%r{r}")
    }
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Shared => "shared",
        Space::Local => "local",
        Space::Const | Space::Param => "const",
        Space::Global | Space::Generic => "global",
    }
}

/// The stand-in's PTX text and the PTX operands its machine code reads.
fn proxy(inst: &Inst, class: Class) -> (String, Vec<Src>) {
    // The first `n` registers of `regs` that are not RZ, by name.
    let named = |regs: &[u16], n: usize| -> Vec<String> {
        regs.iter()
            .filter(|&&r| r != RZ)
            .take(n)
            .map(|&r| reg_name(r))
            .collect()
    };
    let (srcs, dests) = (named(&inst.srcs, 3), named(&inst.dests, 2));
    // A sink per PC slot, so that unrelated sinks do not chain.
    let sink = format!("%sink{}", (inst.pc / 8) % 8);
    let d0 = dests.first().cloned().unwrap_or_else(|| sink.clone());
    // An address register no instruction writes, for an access without one.
    let addr = srcs
        .first()
        .cloned()
        .unwrap_or_else(|| "%noaddr".to_string());
    let mut t = String::new();
    let deps = match class {
        Class::Alu => match srcs.as_slice() {
            // A machine instruction that reads nothing would count as
            // hoisted work (`pipes::schedule`): read a register no
            // instruction writes instead of an immediate.
            [] => {
                let _ = write!(t, "mov.u32 {d0}, %nosrc;");
                vec![Src::A]
            }
            [a] => {
                let _ = write!(t, "mov.u32 {d0}, {a};");
                vec![Src::A]
            }
            [a, b] => {
                let _ = write!(t, "add.u32 {d0}, {a}, {b};");
                vec![Src::A, Src::B]
            }
            [a, b, c, ..] => {
                let _ = write!(t, "mad.lo.u32 {d0}, {a}, {b}, {c};");
                vec![Src::A, Src::B, Src::C]
            }
        },
        Class::Load(s) => {
            let sp = space_name(s);
            match dests.as_slice() {
                [a, b] => {
                    let _ = write!(t, "ld.{sp}.v2.u32 {{{a}, {b}}}, [{addr}];");
                }
                _ => {
                    let _ = write!(t, "ld.{sp}.u32 {d0}, [{addr}];");
                }
            }
            vec![]
        }
        Class::Store(s) => {
            let v = srcs.get(1).unwrap_or(&addr);
            let _ = write!(t, "st.{}.u32 [{addr}], {v};", space_name(s));
            vec![]
        }
        Class::Atomic(s) => {
            let v = srcs.get(1).unwrap_or(&addr);
            let sp = space_name(s);
            if dests.is_empty() {
                let _ = write!(t, "red.{sp}.add.u32 [{addr}], {v};");
            } else {
                let _ = write!(t, "atom.{sp}.add.u32 {d0}, [{addr}], {v};");
            }
            vec![]
        }
        Class::Barrier => {
            t.push_str("bar.sync 0;");
            vec![]
        }
    };
    (t, deps)
}

/// Builds the program of `k` for `config` (`arch`: its machine-code
/// table, `None` for an SM that runs native instructions).
pub fn build(k: &Kernel, config: &SmConfig, arch: Option<SassArch>) -> Result<Built, AccelError> {
    let mapper = Mapper::new(arch.unwrap_or(SassArch::Sm35));
    let mapped: Vec<(String, Mapped)> = k
        .opcodes
        .iter()
        .map(|op| (op.clone(), mapper.map(op)))
        .collect();
    let mut syms = Symbols::new();
    let mut insts = Vec::new();
    let mut code: Vec<Option<Row>> = Vec::new();
    let mut class = Vec::new();
    let mut opcode = Vec::new();
    let mut seen: HashMap<(String, u16), u32> = HashMap::new();
    let mut index = Vec::with_capacity(k.blocks.len());
    let sim_err = |message: String| AccelError::Sim {
        kernel: k.file.clone(),
        message,
    };
    for b in &k.blocks {
        let mut bw = Vec::with_capacity(b.warps.len());
        for w in &b.warps {
            let mut wi = Vec::with_capacity(w.insts.len());
            for inst in &w.insts {
                let m = &mapped[usize::from(inst.opcode)].1;
                let (text, deps) = proxy(inst, m.class);
                let key = (text, inst.opcode);
                if let Some(&i) = seen.get(&key) {
                    wi.push(i);
                    continue;
                }
                let i = u32::try_from(insts.len())
                    .map_err(|_| sim_err("too many distinct instructions".to_string()))?;
                let parsed = Program::parse_one(config.target, &key.0, &mut syms, insts.len())
                    .map_err(|e| {
                        sim_err(format!("line {}: stand-in `{}`: {e}", inst.line, key.0))
                    })?;
                insts.push(parsed);
                let row = match (arch, m.class) {
                    (Some(a), Class::Alu) => {
                        let mi = MachineInst::new(&m.opcode, &m.modifiers, &deps);
                        mi.and_then(|mi| Row::compiled(a, "accelsim", vec![mi], &[Src::Inst(0)]))
                    }
                    _ => None,
                };
                code.push(row);
                class.push(m.class);
                opcode.push(inst.opcode);
                seen.insert(key, i);
                wi.push(i);
            }
            bw.push(wi);
        }
        index.push(bw);
    }
    let prog = Program {
        target: config.target,
        insts,
        nregs: syms.len(),
    };
    let code = if arch.is_some() { code } else { Vec::new() };
    let tables = ProgramTables::with_machine_code(config.clone(), Arc::new(prog), code)
        .map_err(|e| sim_err(e.to_string()))?;
    Ok(Built {
        tables,
        class,
        opcode,
        index,
        mapped,
    })
}
