//! The environment registers `%envreg0`..`%envreg31`: the parser and the
//! gates against ptxas's verdicts (`tests/data/envreg-ptxas.txt`, made by
//! `tools/ptxas_grid/envreg_grid.py`), and the values a warp reads.

use crate::grid;
use sim_isa::parse::parse_instruction;
use sim_isa::symbols::is_special_register;
use sim_isa::{execute, ExecCtx, Op, Operand, SpecialReg, Symbols, Target, ThreadCtx, WarpRegs};

const GRID: &str = include_str!("../data/envreg-ptxas.txt");

/// The parser accepts what ptxas 13.0.88 accepts (`mov` of a 32-bit
/// integer type) and calls `Invalid` what it rejects (other widths, floats,
/// a destination, another instruction, a component).
#[test]
fn agrees_with_ptxas_on_the_grid() {
    let (counts, wrong) = grid::verdicts(GRID, &|_| false);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(counts, [19, 8, 0]);
    assert!(grid::reparse_failures(GRID, &|_| false).is_empty());
}

/// No target or `.version` refuses them (ptxas 11.8 on sm_50 at 4.0 and
/// sm_70 at 6.0, 13.0.88 from sm_75).
#[test]
fn gates_agree_with_ptxas() {
    assert_eq!(grid::gates_agree(GRID), 5);
}

/// The names ptxas knows, and the ones it calls "Unknown symbol"
/// (ptxas 13.0.88, `.version 8.0`, sm_90: `%envreg01`, `%envreg1_64`,
/// `%pm01` refused; `%pm1_64` taken).
#[test]
fn names() {
    for s in ["%envreg0", "%envreg9", "%envreg31", "%pm1_64", "%pm0"] {
        assert!(is_special_register(s), "{s}");
    }
    for s in [
        "%envreg32",
        "%envreg01",
        "%envreg1_64",
        "%pm01",
        "%envreg",
        "%ENVREG1",
    ] {
        assert!(!is_special_register(s), "{s}");
    }
    let mut syms = Symbols::new();
    let i = parse_instruction("mov.u32 %r1, %envreg31", &mut syms).unwrap();
    let Op::Alu(a) = &i.op else { panic!("{i:?}") };
    assert_eq!(a.a, Operand::Special(SpecialReg::EnvReg(31)));
    assert_eq!(i.display(&syms).to_string(), "mov.u32 %r1, %envreg31;");
}

/// A warp reads the launch's values, the same in every lane; 0 where the
/// launch gives none.
#[test]
fn values_come_from_the_launch() {
    let mut syms = Symbols::new();
    let hi = parse_instruction("mov.u32 %r1, %envreg1", &mut syms).unwrap();
    let lo = parse_instruction("mov.b32 %r2, %envreg2", &mut syms).unwrap();
    let other = parse_instruction("mov.s32 %r3, %envreg30", &mut syms).unwrap();
    let mut thread = ThreadCtx::default();
    thread.envreg[1] = 0x7f12;
    thread.envreg[2] = 0x8000_0040;
    let ctx = ExecCtx {
        thread,
        ..ExecCtx::new(Target::SM_90, 0)
    };
    let mut regs = WarpRegs::new(syms.len());
    for i in [&hi, &lo, &other] {
        execute(i, &ctx, &mut regs, u32::MAX);
    }
    for (name, want) in [("%r1", 0x7f12), ("%r2", 0x8000_0040), ("%r3", 0)] {
        assert_eq!(*regs.get(syms.get(name).unwrap()), [want; 32], "{name}");
    }
}
