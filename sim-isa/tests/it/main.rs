//! sim-isa integration tests: one binary, one module per area.

mod enumerate;
mod examples;
mod fuzz;
mod model;
mod props;
