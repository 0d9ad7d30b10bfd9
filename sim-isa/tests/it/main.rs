//! sim-isa integration tests: one binary, one submodule per area.

mod conform;
mod enumerate;
mod examples;
mod exec;
mod fastpath;
mod fuzz;
mod int_arith;
mod model;
mod parse;
mod props;
