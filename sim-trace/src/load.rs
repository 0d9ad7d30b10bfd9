//! Reading a trace in either format from any byte stream, once: the format is
//! told from the first bytes (so pipes and standard input work), and size
//! limits hold while reading, so memory is bounded by the limits, not by the
//! input.

use crate::binfmt::{self, TraceError, MAGIC};
use crate::kernel::{self, KernelError};
use crate::limits;
use crate::trace::Trace;
use std::io::{self, Read};

/// Why an input could not be loaded. Every variant names the input.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The OS refused a read.
    #[error("reading {name}: {source}")]
    Io {
        /// The input, as given.
        name: String,
        /// The error.
        source: io::Error,
    },
    /// Kernel text beyond [`limits::MAX_TEXT`]; nothing past the limit was read.
    #[error("{name}: kernel text is larger than {} bytes", limits::MAX_TEXT)]
    TooLarge {
        /// The input.
        name: String,
    },
    /// Kernel text that is not UTF-8.
    #[error("{name}: kernel text is not UTF-8 (byte {at})")]
    NotUtf8 {
        /// The input.
        name: String,
        /// Offset of the first bad byte.
        at: usize,
    },
    /// Kernel text that does not assemble (its message names file, line, column).
    #[error(transparent)]
    Kernel(#[from] KernelError),
    /// A binary trace that cannot be read.
    #[error("{name}: {source}")]
    Trace {
        /// The input.
        name: String,
        /// The error, with its chunk and byte offset.
        source: TraceError,
    },
}

impl LoadError {
    /// The kernel-text error, when that is what this is.
    pub fn as_kernel(&self) -> Option<&KernelError> {
        match self {
            LoadError::Kernel(k) => Some(k),
            LoadError::Io { .. }
            | LoadError::TooLarge { .. }
            | LoadError::NotUtf8 { .. }
            | LoadError::Trace { .. } => None,
        }
    }
}

/// Which reader an input needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The binary trace (`SIMTRACE` magic).
    Binary,
    /// Kernel text.
    Text,
}

/// Loads a trace from `r`. `name` only names the input in messages; a name
/// ending in `.bin` selects the binary reader whatever the content (so kernel
/// text named `.bin` gets "bad magic" rather than being run), otherwise the
/// content decides: the binary magic, or kernel text.
pub fn load<R: Read>(name: &str, mut r: R) -> Result<(Trace, Format), LoadError> {
    let mut head = [0u8; MAGIC.len()];
    let n = binfmt::read_full(&mut r, &mut head).map_err(|source| LoadError::Io {
        name: name.to_string(),
        source,
    })?;
    let rest = (&head[..n]).chain(r);
    if binfmt::looks_binary(&head[..n]) || name.ends_with(".bin") {
        Ok((load_binary(name, rest)?, Format::Binary))
    } else {
        Ok((load_text(name, rest)?, Format::Text))
    }
}

/// Loads kernel text from `r` (see [`read_text`]).
pub fn load_text<R: Read>(name: &str, r: R) -> Result<Trace, LoadError> {
    let text = read_text(name, r)?;
    Ok(kernel::parse_kernel(name, &text)?)
}

/// Loads a binary trace from `r`, chunk by chunk.
pub fn load_binary<R: Read>(name: &str, r: R) -> Result<Trace, LoadError> {
    binfmt::read_trace(r).map_err(|source| match source {
        TraceError::Io(source) => LoadError::Io {
            name: name.to_string(),
            source,
        },
        source => LoadError::Trace {
            name: name.to_string(),
            source,
        },
    })
}

/// Reads kernel text, refusing it as soon as it passes [`limits::MAX_TEXT`]
/// (through [`sim_isa::bounded`], the project's one bounded reader).
pub fn read_text<R: Read>(name: &str, r: R) -> Result<String, LoadError> {
    use sim_isa::bounded::{read_limited_string, ReadError};
    let path = std::path::Path::new(name);
    read_limited_string(r, path, limits::MAX_TEXT as u64).map_err(|e| {
        let name = name.to_string();
        match e {
            ReadError::Io { source, .. } => LoadError::Io { name, source },
            // `Short` is only for exact reads; kept here for exhaustiveness.
            ReadError::TooLarge { .. } | ReadError::Short { .. } => LoadError::TooLarge { name },
            ReadError::NotUtf8 { at, .. } => LoadError::NotUtf8 { name, at },
            // Only for files opened by path; kept for exhaustiveness.
            e @ ReadError::NotAFile { .. } => LoadError::Io {
                name,
                source: std::io::Error::other(e.to_string()),
            },
        }
    })
}
