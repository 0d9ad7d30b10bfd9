//! sim-cli: the pieces behind the `simcli` commands that are not file
//! formats (those live in sim-trace): reports and safe output files.

pub mod output;
pub mod report;
