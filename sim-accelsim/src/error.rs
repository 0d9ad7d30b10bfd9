//! The reader's and the driver's errors: each names the file and, for text,
//! the 1-based line.

use sim_isa::bounded::ReadError;

/// Why an Accel-Sim trace could not be read or run.
#[derive(Debug, thiserror::Error)]
pub enum AccelError {
    /// A file could not be read (or was larger than the limit).
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A line that is not what the format allows there.
    #[error("{file}:{line}: {message}")]
    Syntax {
        /// The file, as named (the trace directory's file name).
        file: String,
        /// 1-based line.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// The file as a whole lacks something (a header field, a warp's
    /// instructions at its end).
    #[error("{file}: {message}")]
    File {
        /// The file.
        file: String,
        /// What was wrong.
        message: String,
    },
    /// The SM model refused the program or the run (a limit reached).
    #[error("{kernel}: {message}")]
    Sim {
        /// The kernel's trace file.
        kernel: String,
        /// The model's message.
        message: String,
    },
}

impl AccelError {
    pub(crate) fn syntax(file: &str, line: usize, message: impl Into<String>) -> AccelError {
        AccelError::Syntax {
            file: file.to_string(),
            line,
            message: message.into(),
        }
    }
}
