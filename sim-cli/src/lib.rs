//! sim-cli: the pieces behind the `simcli` commands that are not file
//! formats (those live in sim-trace): reports, timelines, sweeps and safe
//! output files.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod alloc;
pub mod calibrate;
pub mod compiler;
pub mod html;
pub mod launch_timeline;
pub mod memreport;
pub mod output;
pub mod profile;
pub mod report;
pub mod sweep;
pub mod timeline;

/// The crate's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The git commit the binary was built from (`unknown` outside a checkout).
pub const COMMIT: &str = env!("SIMCLI_COMMIT");
