//! sim-module integration tests.

mod cfg;
mod module;
