//! sim-trace integration tests: kernel-text errors, reader fuzzing, and
//! micro-benchmark kernels replayed against the timing model's formulas.

mod fuzz;
mod kernel;
mod microbench;
mod names;

use std::path::{Path, PathBuf};

/// The workspace root (sample kernels live in `traces/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}
