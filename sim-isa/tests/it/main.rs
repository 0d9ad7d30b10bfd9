//! sim-isa integration tests: one binary, one submodule per area.

mod conform;
mod enumerate;
mod examples;
mod exec;
mod fastpath;
mod fuzz;
mod lane_model;
mod model;
mod parse;
mod props;
mod public_sample;
mod strategies;
mod vectors;
