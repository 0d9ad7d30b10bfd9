//! sim-core integration tests: the issue-3 microbenchmarks on every preset,
//! scoreboard and scheduler unit tests, thread-count determinism, and the
//! bounds (run limits, worker-spawn errors, memory per SM), host-executed
//! warps and bounded runs.

mod bounded;
mod core_model;
mod database;
mod executed;
mod fuzz;
mod host;
mod insts;
mod limits;
mod ranges;
mod states;
mod text_edits;
