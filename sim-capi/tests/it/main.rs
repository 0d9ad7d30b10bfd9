//! sim-capi tests: the checked-in header is what cbindgen generates, the C
//! and C++ examples build and print what the Rust example prints, and the
//! ABI reports bad input as errors.

mod abi;
mod examples;
mod header;
