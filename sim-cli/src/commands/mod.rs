//! The larger commands, one file each: `run` and `config` (configuration
//! layers, replay, report files), `kernel` (launch files, kernel recordings,
//! `record`), `sweep` and `merge`, and the progress display and logging
//! they share.

pub mod kernel;
pub mod progress;
pub mod run;
pub mod sweep;
