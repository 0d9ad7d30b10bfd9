//! sim-kernel: the H100 launches, values byte for byte.

mod branches;
mod errors;
mod launches;
