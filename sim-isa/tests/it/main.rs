//! sim-isa integration tests.

mod parse;
