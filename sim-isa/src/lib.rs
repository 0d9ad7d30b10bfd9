//! sim-isa: bit-exact PTX semantics for the SIMD video instructions
//! (`vadd2` ... `vset4`), `set`/`setp`/`selp`/`slct` and half-precision `set`.
//!
//! Text goes in through [`parse::parse_instruction`], is gated per target by
//! [`parse::check_target`], prints back through `Display`
//! ([`Instruction::display`]), and runs per lane over a 32-lane warp with
//! [`exec::execute`]. This crate knows nothing of cycles.

pub mod conform;
pub mod db;
pub mod error;
pub mod exec;
pub mod inst;
pub mod parse;
pub mod symbols;
pub mod target;

pub use error::{ErrorKind, InvalidReason, IsaError, Requirement};
pub use exec::{execute, ExecCtx, WarpRegs, WARP_SIZE};
pub use inst::*;
pub use symbols::Symbols;
pub use target::{Feature, PtxVersion, Target, TargetError};
