//! Accel-Sim traces in: the trace directory's text formats
//! ([`read`]: `kernelslist.g` and `kernel-N.traceg`, tracer versions 3 and
//! 4, the three address forms, `MemcpyHtoD` lines), the mapping of SASS
//! opcodes onto the SM model's pipes ([`opcode`]), and a run of each kernel
//! on the SM model with sim-kernel's memory model ([`sim`]).
//! docs/accelsim.md describes the mapping and what is approximated.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod error;
pub mod opcode;
pub mod program;
pub mod read;
pub mod sim;

pub use error::AccelError;
pub use read::{parse_kernel, parse_kernelslist, Command, Header, Kernel};
pub use sim::{run_kernel, KernelRun, Options};

use std::path::{Path, PathBuf};

/// Largest `kernelslist.g` read, bytes.
pub const MAX_LIST_BYTES: u64 = 16 << 20;
/// Largest kernel trace file read, bytes (the whole file is held while read).
pub const MAX_KERNEL_BYTES: u64 = 4 << 30;

/// A trace directory, read: the commands in order, each kernel's file read.
#[derive(Clone, Debug)]
pub struct TraceDir {
    /// The directory.
    pub dir: PathBuf,
    /// The commands, kernels read.
    pub items: Vec<Item>,
}

/// One command of a trace directory.
#[derive(Clone, Debug)]
pub enum Item {
    /// `MemcpyHtoD`.
    Memcpy {
        /// Device address.
        addr: u64,
        /// Bytes.
        bytes: u64,
    },
    /// A kernel, read.
    Kernel(Box<Kernel>),
}

/// Whether `path` names an Accel-Sim trace: a `kernelslist.g` file, or a
/// directory holding one.
pub fn is_trace_path(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "kernelslist.g")
        || (path.is_dir() && path.join("kernelslist.g").is_file())
}

/// Reads the trace at `path` (`DIR/kernelslist.g` or `DIR`) and every
/// kernel it lists.
pub fn read_dir(path: &Path) -> Result<TraceDir, AccelError> {
    let (dir, list) = if path.is_dir() {
        (path.to_path_buf(), path.join("kernelslist.g"))
    } else {
        let dir = path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        (dir, path.to_path_buf())
    };
    let text = sim_isa::bounded::read_file_string(&list, MAX_LIST_BYTES)?;
    let list_name = list.display().to_string();
    let mut items = Vec::new();
    for c in parse_kernelslist(&list_name, &text)? {
        items.push(match c {
            Command::MemcpyHtoD { addr, bytes } => Item::Memcpy { addr, bytes },
            Command::Kernel(name) => {
                let file = dir.join(&name);
                let text = sim_isa::bounded::read_file_string(&file, MAX_KERNEL_BYTES)?;
                Item::Kernel(Box::new(parse_kernel(&file.display().to_string(), &text)?))
            }
        });
    }
    Ok(TraceDir { dir, items })
}
