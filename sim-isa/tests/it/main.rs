//! sim-isa integration tests: one binary, one submodule per area.

mod bit;
mod conform;
mod cvt;
mod enumerate;
mod enumerate_set;
mod examples;
mod exec;
mod fastpath;
mod float_arith;
mod fuzz;
mod int_arith;
mod int_more;
mod lane_model;
mod mem;
mod model;
mod mufu;
mod parse;
mod parse_errors;
mod parse_video;
mod prepared;
mod props;
mod ptxas_grid;
mod public_sample;
mod strategies;
mod target;
mod vectors;
