//! Tables generated from NVIDIA's CUDA 13 runtime wheel by
//! `tools/cudart/generate.sh` (struct layouts, enum values, error names),
//! and `layout12` from CUDA 12's (nvidia-cuda-runtime-cu12 12.9.79).
//!
//! `layout12.rs` holds only what differs from CUDA 13's `layout.rs` and
//! re-exports the rest, each name generated once (`tools/cudart/share.py`).

#[allow(non_upper_case_globals, missing_docs)]
pub mod errors;
// Some layouts are read only by the tests that hold our structs to them.
#[allow(non_upper_case_globals, missing_docs, dead_code)]
pub mod layout;
// Only the layouts that differ from CUDA 13's are read (cudaDeviceProp,
// cudaPointerAttributes); the names it re-exports need not all be.
#[allow(non_upper_case_globals, missing_docs, dead_code, unused_imports)]
pub mod layout12;
