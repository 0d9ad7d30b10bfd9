//! xtask integration tests: the committed results of the differential
//! validation (docs/validation.md), checked without ptxas, nvdisasm or a GPU.

mod compiler_vectors;
mod domain;
mod validity_regressions;
