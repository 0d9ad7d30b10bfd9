//! Tables generated from NVIDIA's CUDA 13 runtime wheel by
//! `tools/cudart/generate.sh` (struct layouts, enum values, error names),
//! and `layout12` from CUDA 12's (nvidia-cuda-runtime-cu12 12.9.79).
//!
//! `layout.rs` and `layout12.rs` repeat each other line for line where the two
//! versions' structs agree: they are generated data tables, one per header
//! set, and stay duplicated on purpose (regenerate, do not fold by hand).

#[allow(non_upper_case_globals, missing_docs)]
pub mod errors;
// Some layouts are read only by the tests that hold our structs to them.
#[allow(non_upper_case_globals, missing_docs, dead_code)]
pub mod layout;
// Only the layouts that differ from CUDA 13's are read (cudaDeviceProp,
// cudaPointerAttributes); the rest stay for comparison.
#[allow(non_upper_case_globals, missing_docs, dead_code)]
pub mod layout12;
