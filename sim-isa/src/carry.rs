//! The extended-precision integer forms' carry flag (issue 23): `add.cc`,
//! `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}`
//! over `.u32 .s32 .u64 .s64` (PTX ISA 9.7.2).
//!
//! `CC.CF` is per-thread state no statement names: the `.cc` forms write it
//! and the carry-in forms (`addc`, `subc`, `madc`) read it. It is modelled
//! as one hidden register per function, [`CARRY_FLAG`] (interned by the
//! parser, as the async-copy token is; no text names it), that each form's
//! [`Carry`] names, so that its register uses say the dependency: the
//! scoreboard orders an `addc` after its `add.cc`, a reorder window never
//! swaps them, dead-code removal keeps an `add.cc` whose carry is read and
//! register allocation gives the flag a slot of its own.
//!
//! The flag holds the carry-out of the sum the hardware forms, as ptxas
//! 13.0.88 lowers it for sm_90 (`tests/data/carry-sass-sm90.txt`): a
//! subtraction `a - b` is `a + ~b + 1` (`sub.cc`) or `a + ~b + CF`
//! (`subc`), so after a subtraction the flag is 1 when nothing was
//! borrowed. A chain of `sub.cc`/`subc` therefore computes the manual's
//! `a - (b + borrow)` word by word, and a mixed chain what the machine does.

use crate::operand::RegId;

/// The register name the carry flag is interned under: no PTX identifier
/// (it has dots), so no program's register can clash.
pub const CARRY_FLAG: &str = "%cc.cf";

/// Whether `name` is a register the parser interns for state no text
/// declares (the async-copy token, the carry flag): exempt from the
/// checks that every register is a declared PTX identifier, and from the
/// registers a statement's result lists.
pub fn is_hidden_register(name: &str) -> bool {
    name == CARRY_FLAG || name == crate::async_inst::ASYNC_TOKEN
}

/// The carry flag an extended-precision form names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Carry {
    /// The flag's register ([`CARRY_FLAG`]).
    pub cf: RegId,
    /// `.cc`: the form writes its carry-out to the flag.
    pub out: bool,
}
