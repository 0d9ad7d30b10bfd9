//! sim-capi tests: the checked-in header is what cbindgen generates, the C
//! and C++ examples build and print what the Rust example prints, and the
//! ABI reports bad input as errors; the device functions launch kernels.

mod abi;
mod device;
mod examples;
mod header;

use sim_capi::pss_last_error;
use std::ffi::{CStr, CString};

/// `s` as a C string.
pub fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// The calling thread's last error message.
pub fn last_error() -> String {
    let p = pss_last_error();
    assert!(!p.is_null());
    // SAFETY: a non-null pointer from pss_last_error is a live C string.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string()
}

/// The last error message says `want`.
pub fn assert_error_says(want: &str) {
    let e = last_error();
    assert!(e.contains(want), "{e}");
}
