//! PTX modules as `nvcc -ptx` emits them, their control-flow graphs, and launch files.
//!
//! [`parse_module`] reads a module: `.version`/`.target`/`.address_size`,
//! `.entry` and `.func` with parameters, `.reg` declarations, labels, nested
//! `{ }` scopes, variables with initialisers, and statements. Instructions go to
//! sim-isa's parser; control flow (`bra`, `ret`, `exit`, `call`) is read here;
//! valid PTX that simcli does not run is kept as
//! [`StatementKind::Unimplemented`], so a later stage can name it with its
//! position. [`Cfg`] splits a body into basic blocks and finds each block's
//! immediate post-dominator, the reconvergence point of a divergent branch.
//! [`Launch`] reads a launch file (grid, block, buffers, parameters, expected outputs).

// Library code states its invariants instead of unwrapping.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod body;
pub mod cfg;
mod control;
mod cursor;
mod error;
mod init;
pub mod inline;
mod inline_param;
pub mod launch;
mod lex;
mod names;
mod parse;
mod types;
mod variable;

pub use body::{MAX_REGISTERS, MAX_SCOPE_DEPTH};
pub use cfg::{BlockId, Cfg, Node};
pub use error::{ModuleError, ModuleErrorKind, Pos};
pub use init::MAX_INIT_ELEMENTS;
pub use inline::{inline_calls, MAX_CALL_DEPTH, MAX_INLINED_STATEMENTS};
pub use launch::{Launch, LaunchError};
pub use names::{is_ptx_opcode, is_special_register};
pub use parse::{parse_module, MAX_MODULE_BYTES, MAX_PARAMS};
pub use types::*;
pub use variable::MAX_VARIABLE_BYTES;
