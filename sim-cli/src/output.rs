//! Output files that never cost the user data: a file is written to a
//! temporary file beside it and renamed into place only once every byte is
//! written and flushed, so a failed or interrupted write leaves the previous
//! file as it was; and no output may be one of the command's inputs.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Why an output was not written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The output resolves to a file the command reads.
    #[error("output {} is the input {input}; refusing to overwrite it (choose another output)", .output.display())]
    IsInput {
        /// The output path, as given.
        output: PathBuf,
        /// The input it coincides with, as given.
        input: String,
    },
    /// The OS refused a step; nothing at the output path changed.
    #[error("writing {}: {source}", .path.display())]
    Io {
        /// The output path, as given.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

/// Identity of a file: device and inode where the OS has them, else its
/// canonical path.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FileId(Option<(u64, u64)>, Option<PathBuf>);

impl FileId {
    fn of_path(path: &Path) -> Option<FileId> {
        let m = fs::metadata(path).ok()?;
        Some(FileId(dev_ino(&m), fs::canonicalize(path).ok()))
    }

    fn same(&self, other: &FileId) -> bool {
        match (self.0, other.0) {
            (Some(a), Some(b)) => a == b,
            _ => self.1.is_some() && self.1 == other.1,
        }
    }
}

#[cfg(unix)]
fn dev_ino(m: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn dev_ino(_: &fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// The files a command reads, so that its outputs can be kept off them.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    files: Vec<(String, FileId)>,
}

impl Inputs {
    /// No inputs.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records an opened input file (`name` as the user gave it).
    pub fn add_file(&mut self, name: &str, file: &fs::File) {
        if let Ok(m) = file.metadata() {
            let canon = fs::canonicalize(name).ok();
            self.files
                .push((name.to_string(), FileId(dev_ino(&m), canon)));
        }
    }

    /// Records standard input (whatever file or pipe it is).
    pub fn add_stdin(&mut self) {
        #[cfg(unix)]
        if let Some(id) = FileId::of_path(Path::new("/dev/stdin")) {
            self.files.push(("-".to_string(), FileId(id.0, None)));
        }
    }

    /// Refuses `output` when it is one of the inputs.
    pub fn check(&self, output: &Path) -> Result<(), OutputError> {
        let Some(out) = FileId::of_path(output) else {
            return Ok(()); // does not exist yet
        };
        match self.files.iter().find(|(_, id)| id.same(&out)) {
            Some((input, _)) => Err(OutputError::IsInput {
                output: output.to_path_buf(),
                input: input.clone(),
            }),
            None => Ok(()),
        }
    }
}

/// Writes `path` with `fill`, after refusing it if it is one of `inputs`.
///
/// A regular file (or a new one) is written to a temporary file in the same
/// directory, flushed to disk and renamed over `path` only when `fill` and
/// every write succeeded; on any error the temporary file is removed and
/// `path` is untouched. The file keeps the permissions of the one it replaces
/// (new files get `rw-r--r--`). A symbolic link is followed, so the file it
/// points to is replaced, not the link. Anything that is not a regular file
/// (`/dev/null`, a pipe, a terminal) is written in place, since it cannot be
/// replaced.
pub fn write_file(
    path: &Path,
    inputs: &Inputs,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), OutputError> {
    inputs.check(path)?;
    let io_err = |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    };
    let existing = fs::metadata(path).ok();
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        let f = fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io_err)?;
        let mut w = BufWriter::new(f);
        return fill(&mut w).and_then(|()| w.flush()).map_err(io_err);
    }
    let real = match &existing {
        Some(_) => fs::canonicalize(path).map_err(io_err)?,
        None => path.to_path_buf(),
    };
    let dir = match real.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".simcli-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io_err)?;
    let perms = match &existing {
        Some(m) => Some(m.permissions()),
        None => default_permissions(),
    };
    if let Some(p) = perms {
        fs::set_permissions(tmp.path(), p).map_err(io_err)?;
    }
    {
        let mut w = BufWriter::new(tmp.as_file());
        fill(&mut w).and_then(|()| w.flush()).map_err(io_err)?;
    }
    tmp.as_file().sync_all().map_err(io_err)?;
    tmp.persist(&real).map_err(|e| io_err(e.error))?;
    Ok(())
}

#[cfg(unix)]
fn default_permissions() -> Option<fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn default_permissions() -> Option<fs::Permissions> {
    None // the platform's default for a new file
}
