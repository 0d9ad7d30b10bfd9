//! The one reader of NVIDIA disassembly listings: `nvdisasm -c` (with or
//! without `-hex`) and `cuobjdump -sass`. Every user of a listing reads it
//! here: sim-trace's `--lowering compiler`, xtask's SASS interpreter, and the
//! Python scripts under `tools/` through `cargo xtask sass-listing`.
//!
//! ```
//! let text = ".text.k:\n /*0010*/ @!P0 IMAD.WIDE.U32 R2, R4, 0x4, R2 ; /* 0x0000000404027825 */\n\
//!                                                        /* 0x000fe200078e0002 */\n";
//! let listing = sim_sass::Listing::parse(text);
//! let inst = listing.functions[0].insts().next().unwrap();
//! assert_eq!((inst.addr, inst.base(), inst.operands.len()), (0x10, "IMAD", 4));
//! let regs = inst.registers(90);
//! assert_eq!(regs.dests, ["R2", "R3"]); // .WIDE writes a pair
//! assert_eq!(inst.control().unwrap().stall, 1);
//! ```
//!
//! - [`listing`]: functions, labels and instruction lines (address, guard,
//!   opcode with its modifiers, operands, the encoding words and, from
//!   Volta on, the control fields of the second word). A malformed
//!   instruction line is kept in place as an [`Item::Bad`] with its line
//!   number; nothing here panics on any text.
//! - [`regs`]: the registers an instruction reads and writes (register
//!   pairs, the Kepler/Maxwell condition code, predicated writes).
//! - [`operand`]: an operand's typed form (register with its modifiers,
//!   predicate, immediate, constant, memory address), as an interpreter
//!   reads it.

pub mod listing;
pub mod operand;
pub mod regs;

pub use listing::{Control, Function, Guard, Inst, Item, Label, LineError, LineErrorKind, Listing};
pub use operand::{Operand, OperandError};
pub use regs::Registers;
