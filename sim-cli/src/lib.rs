//! sim-cli: kernel text, the binary trace format, and the pieces behind the
//! `simcli` commands (assemble, dump, generate, replay, report).
//!
//! Kernel text ([`kernel::parse_kernel`]) and binary traces
//! ([`binfmt::read_trace`]) both produce a [`trace::Trace`]: a program of
//! static instructions plus, per warp, a compact loop-structured stream of
//! instruction indices replayed lazily by [`stream::Cursor`].

pub mod binfmt;
pub mod dump;
pub mod gen;
pub mod kernel;
pub mod limits;
pub mod replay;
pub mod report;
pub mod stream;
pub mod trace;
