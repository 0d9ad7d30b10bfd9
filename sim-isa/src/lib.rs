//! sim-isa: bit-exact PTX semantics for the SIMD video instructions
//! (`vadd2` ... `vset4`), `set`/`setp`/`selp`/`slct`, half-precision `set`,
//! and the integer `add`/`sub`/`mul`/`mad` family.
//!
//! Every instruction family is declared once, as data, in [`db`]; text goes
//! in through [`parse::parse_instruction`], is gated per target by
//! [`parse::check_target`], prints back through `Display`
//! ([`Instruction::display`]), and runs per lane over a 32-lane warp with
//! [`exec::execute`]. This crate knows nothing of cycles: it classifies an
//! instruction for a timing model ([`db::lowering_key`], [`db::unit_class`])
//! without costing it.

// Library code states its invariants instead of unwrapping (issue 13).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

/// Declares an operation enum and its opcode-word twin from one variant
/// list: the twin has the same names without payloads (the operation
/// before its modifiers are read, what the database declares), and
/// `word()` maps an operation to its word. One list, so a new operation
/// is a new word too.
macro_rules! op_with_word {
    (
        $(#[$m:meta])*
        $vis:vis enum $name:ident;
        $(#[$wm:meta])*
        $wvis:vis enum $word:ident;
        {
            $(
                $(#[$vm:meta])*
                $v:ident $(( $($tf:tt)* ))? $({ $($sf:tt)* })?
            ),* $(,)?
        }
    ) => {
        $(#[$m])*
        $vis enum $name {
            $(
                $(#[$vm])*
                $v $(( $($tf)* ))? $({ $($sf)* })?
            ),*
        }

        $(#[$wm])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $wvis enum $word {
            $(
                #[allow(missing_docs)]
                $v
            ),*
        }

        impl $name {
            /// The opcode word of this operation (its modifiers dropped).
            // `{ .. }` matches each variant whatever its payload.
            #[allow(dead_code, clippy::unneeded_struct_pattern)]
            pub(crate) const fn op_word(self) -> $word {
                match self {
                    $( $name::$v { .. } => $word::$v ),*
                }
            }
        }
    };
}

mod async_inst;
mod bit_inst;
pub mod bounded;
pub mod carry;
pub mod conform;
pub mod conform_warp;
mod cvt_inst;
pub mod db;
pub mod error;
pub mod exec;
pub mod inst;
mod mem_inst;
mod mma_inst;
mod operand;
pub mod parse;
pub mod symbols;
pub mod target;
mod wmma_inst;

pub use error::{ErrorKind, InvalidReason, IsaError, Requirement};
pub use exec::{execute, width_mask, ExecCtx, ThreadCtx, WarpRegs, WARP_SIZE};
pub use inst::*;
pub use symbols::{Symbols, SymbolsMark};
pub use target::{Feature, PtxVersion, Target, TargetError};
