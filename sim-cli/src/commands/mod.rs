//! The commands, one file each or a few related ones together: `run` and
//! `config` (traces and kernel text), `kernel` (launch files, kernel
//! recordings, `record`), `exec` (CUDA programs), `sweep` and `merge`, `calibrate`, `report` (HTML pages), `annotate` (a per-line profile), `trace` (asm,
//! dump, gen), `isa` (conform, eval) and `manual` (man, completions); below
//! them `common` (configuration, run arguments, input and output) and the
//! progress display and logging.

pub mod accelsim;
pub mod annotate;
pub mod calibrate;
pub mod common;
pub mod exec;
pub mod isa;
pub mod kernel;
pub mod manual;
pub mod progress;
pub mod report;
pub mod run;
pub mod sweep;
mod sweep_exec;
pub mod trace;
