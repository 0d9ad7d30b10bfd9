//! Tables generated from NVIDIA's CUDA 13 runtime wheel by
//! `tools/cudart/generate.sh` (struct layouts, enum values, error names).

#[allow(non_upper_case_globals, missing_docs)]
pub mod errors;
#[allow(non_upper_case_globals, missing_docs)]
pub mod layout;
