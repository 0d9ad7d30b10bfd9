//! Project automation (placeholder until the validation tools land).
fn main() {}
