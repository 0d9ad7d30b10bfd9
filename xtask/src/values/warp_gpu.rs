//! `values --family mma|wmma|async --gpu-dir DIR`: the kernels and input
//! buffers the SASS oracle ran (one warp; one thread for `async`), written
//! for `tools/gpu/warp_run.py`, which runs them on a GPU and writes what
//! the machine gives as vectors in the oracle's format.
//! `DIR/kernels.ptx` holds one kernel a form (`w<i>`, the same text the
//! oracle compiled); `DIR/manifest.json.gz` names, for each kernel, the form,
//! its image size, whether it writes the image, its register slots and
//! destinations, and each vector's input buffer (hex) with the oracle's line.

use super::kernel::Reg;
use super::vectors::write_file;
use anyhow::Result;
use serde_json::{json, Value};
use std::path::Path;

/// One form as the oracle compiled it.
pub(super) struct Form<'a> {
    /// The kernel's name in the module (`w<i>`).
    pub name: String,
    /// The kernel's PTX (the family's wrap of `text`).
    pub kernel: String,
    /// The instruction.
    pub text: &'a str,
    /// Bytes of its memory image, and whether it writes the image.
    pub img: usize,
    pub writes: bool,
    /// The registers it names, in slot order, and those it writes.
    pub regs: &'a [Reg],
    pub dsts: Vec<String>,
    /// The async family's layout (`async_family.rs`), else `Value::Null`: a
    /// one-thread kernel's input size (`bytes`), where `sm`'s bytes are read
    /// back, and the address registers that point into the interpreter's
    /// input buffer (the runner moves them into the GPU's).
    pub thread: Value,
}

/// What `--gpu-dir` collects while the family runs.
pub(super) struct GpuDir {
    ptx: String,
    kernels: Vec<Value>,
}

impl GpuDir {
    /// An empty module at `ptx_version` for sm_90, as the oracle compiled.
    pub(super) fn new(ptx_version: &str) -> GpuDir {
        GpuDir {
            ptx: format!(".version {ptx_version}\n.target sm_90\n.address_size 64\n"),
            kernels: Vec::new(),
        }
    }

    /// Starts a form: its kernel and layout.
    pub(super) fn form(&mut self, f: &Form) {
        self.ptx += &f.kernel;
        let slots: Vec<Value> = f
            .regs
            .iter()
            .map(|r| json!({"name": r.name, "width": r.width}))
            .collect();
        self.kernels.push(json!({
            "kernel": f.name, "ptx": f.text, "img": f.img, "writes": f.writes,
            "slots": slots, "dsts": f.dsts, "thread": f.thread, "vectors": [],
        }));
    }

    /// One vector of the current form: the input buffer and the oracle's line.
    pub(super) fn vector(&mut self, input: &[u8], line: &str) {
        let hex: String = input.iter().map(|b| format!("{b:02x}")).collect();
        if let Some(Value::Array(v)) = self.kernels.last_mut().and_then(|k| k.get_mut("vectors")) {
            v.push(json!({"input": hex, "line": line}));
        }
    }

    /// Writes `kernels.ptx` and `manifest.json.gz` into `dir`.
    pub(super) fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir)?;
        write_file(&dir.join("kernels.ptx"), &self.ptx)?;
        let n: usize = self
            .kernels
            .iter()
            .map(|k| k["vectors"].as_array().map_or(0, Vec::len))
            .sum();
        let manifest = json!({"target": "sm_90", "kernels": self.kernels});
        write_file(&dir.join("manifest.json.gz"), &manifest.to_string())?;
        println!(
            "{} kernels, {n} vectors -> {} (tools/gpu/warp_run.py)",
            self.kernels.len(),
            dir.display()
        );
        Ok(())
    }
}
