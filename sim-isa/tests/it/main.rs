//! sim-isa integration tests (one binary, one submodule per area).

mod conform;
mod exec;
mod parse;
