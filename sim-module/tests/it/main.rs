//! sim-module integration tests.

mod cfg;
mod fuzz;
mod inline;
mod launch;
mod launch_params;
mod module;

use sim_module::{parse_module, Module};

/// The test data folder: the public H100 kernels and launch files.
pub fn data() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/h100")
}

/// `public.ptx`: nvcc 13.0 `-ptx -arch=sm_90 -O3` of the project's sample kernels.
pub fn public_ptx() -> String {
    std::fs::read_to_string(data().join("public.ptx")).unwrap()
}

/// A module with one kernel `k` whose body is `body`, after 8 registers of
/// each of `.pred %p`, `.b32 %r`, `.b64 %rd`.
pub fn kernel(body: &str) -> Result<Module, sim_module::ModuleError> {
    parse_module(&kernel_text(body), "k.ptx")
}

/// The text [`kernel`] parses; the body starts on line 7.
pub fn kernel_text(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 k_p0)\n{{\n\
         .reg .pred %p<8>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n{body}\n}}\n"
    )
}
