//! sim-kernel: the H100 launches, values byte for byte.

mod errors;
mod launches;
