//! sim-isa integration tests: one binary, one submodule per area.

mod conform;
mod enumerate;
mod examples;
mod exec;
mod fuzz;
mod model;
mod parse;
mod props;
