//! sim-capi tests: the checked-in header is what cbindgen generates, the C
//! and C++ examples build and print what the Rust example prints, and the
//! ABI reports bad input as errors; the device functions launch kernels.

mod abi;
mod device;
mod examples;
mod header;
