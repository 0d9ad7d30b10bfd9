//! Integration tests: the sample traces, malformed traces, the fuzz targets.

mod fuzz;
mod malformed;
mod samples;
