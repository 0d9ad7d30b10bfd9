//! sim-trace: the simulator's file formats, without any command-line
//! machinery, so an embedder can read, write and replay traces.
//!
//! Kernel text ([`kernel::parse_kernel`]) and binary traces
//! ([`binfmt::read_trace`]) both produce a [`trace::Trace`]: a program of
//! static instructions (built by [`program::ProgramBuilder`]) plus, per warp,
//! a compact loop-structured stream of instruction indices replayed lazily by
//! [`stream::Cursor`]. [`load`] reads either format from any byte stream with
//! the size limits of [`limits`] enforced while reading.

// Library code states its invariants instead of unwrapping (issue 13).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod binfmt;
pub mod compiler;
pub mod dump;
pub mod gen;
pub mod kernel;
pub mod limits;
pub mod load;
pub mod program;
pub mod replay;
pub mod stream;
pub mod trace;
