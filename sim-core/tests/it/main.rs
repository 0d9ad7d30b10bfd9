//! sim-core integration tests.
