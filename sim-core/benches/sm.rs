//! Criterion bench (filled in below).
fn main() {}
