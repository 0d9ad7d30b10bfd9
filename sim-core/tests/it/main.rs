//! sim-core integration tests: the issue-3 microbenchmarks on every preset,
//! scoreboard and scheduler unit tests, and thread-count determinism.

mod core_model;
mod database;
