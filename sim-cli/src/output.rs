//! Output files that never cost the user data: a file is written to a
//! temporary file beside it and renamed into place only once every byte is
//! written and flushed, so a failed or interrupted write leaves the previous
//! file as it was; no output may be one of the command's inputs; the
//! outputs of one command are distinct files ([`check_outputs`], before
//! anything runs); and none is a FIFO or a device (`-` is standard output).

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};

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
    /// Two outputs of one command are the same file (or both standard
    /// output).
    #[error("{first} {} and {second} {} are the same file; give each output its own name", .a.display(), .b.display())]
    Same {
        /// The first output's flag (or "the report").
        first: String,
        /// Its path, as given.
        a: PathBuf,
        /// The second output's flag.
        second: String,
        /// Its path, as given.
        b: PathBuf,
    },
    /// Two outputs of one command both go to standard output (`-`, or what
    /// the command prints there).
    #[error("{first} and {second} would both go to standard output; name a file for one of them")]
    BothStdout {
        /// The first output's flag (or "the report").
        first: String,
        /// The second output's flag.
        second: String,
    },
    /// A file output lies inside a folder another output fills.
    #[error("{flag} {} is inside the {folder_flag} folder {}; write it elsewhere", .path.display(), .folder.display())]
    InFolder {
        /// The file output's flag.
        flag: String,
        /// Its path, as given.
        path: PathBuf,
        /// The folder output's flag.
        folder_flag: String,
        /// The folder, as given.
        folder: PathBuf,
    },
    /// An output that is a FIFO or a device: writing would block or go
    /// nowhere the user can read back.
    #[error("{flag} {} is {kind}, not a regular file; refusing to write to it (use - for standard output)", .path.display())]
    NotAFile {
        /// The output's flag ("output" where none is known).
        flag: String,
        /// Its path, as given.
        path: PathBuf,
        /// "a FIFO", "a character device", ...
        kind: &'static str,
    },
    /// A folder output that exists and is not a folder.
    #[error("{flag} {} is not a folder", .path.display())]
    NotAFolder {
        /// The output's flag.
        flag: String,
        /// Its path, as given.
        path: PathBuf,
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

    /// Records an input file by its path, without opening it (a FIFO is
    /// not opened here: that would wait for a writer; its reader refuses
    /// it).
    pub fn add_path(&mut self, name: &str, path: &Path) {
        if let Some(id) = FileId::of_path(path) {
            self.files.push((name.to_string(), id));
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
        if is_stdout(output) {
            return Ok(());
        }
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

/// One output a command names: the flag that names it (for messages), its
/// path (`-`: standard output) and whether it is a folder the command fills.
#[derive(Clone, Copy, Debug)]
pub struct Output<'a> {
    /// `--opcode-csv`, `-o`, ... ("the report" for what a command prints).
    pub flag: &'a str,
    /// As given; `-` is standard output.
    pub path: &'a Path,
    /// A folder the command writes files into (`--dump-buffers`).
    pub folder: bool,
}

impl<'a> Output<'a> {
    /// A file output named by `flag`.
    pub fn file(flag: &'a str, path: &'a Path) -> Self {
        Output {
            flag,
            path,
            folder: false,
        }
    }

    /// A folder output named by `flag`.
    pub fn folder(flag: &'a str, path: &'a Path) -> Self {
        Output {
            flag,
            path,
            folder: true,
        }
    }

    /// What the command prints on standard output (`what` names it).
    pub fn stdout(what: &'a str) -> Self {
        Output::file(what, Path::new("-"))
    }
}

fn is_stdout(p: &Path) -> bool {
    p.as_os_str() == "-"
}

/// What `path` is (links followed) when it is a FIFO, a device or a
/// socket: writing there would block (a FIFO without a reader: `record -o
/// FIFO` once waited forever) or go where nothing can read it back.
fn special_kind(path: &Path) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = fs::metadata(path).ok()?.file_type();
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    None
}

/// Where `path` is or would be: its canonical path when it exists, else its
/// nearest existing ancestor's canonical path with the rest appended (`.`
/// and `..` taken lexically), so that a file not yet written compares by
/// where it will land.
fn resolved(path: &Path) -> PathBuf {
    if let Ok(c) = fs::canonicalize(path) {
        return c;
    }
    let abs = match std::env::current_dir() {
        Ok(d) if path.is_relative() => d.join(path),
        _ => path.to_path_buf(),
    };
    let comps: Vec<Component> = abs.components().collect();
    for k in (1..=comps.len()).rev() {
        let prefix: PathBuf = comps[..k].iter().collect();
        if let Ok(mut out) = fs::canonicalize(&prefix) {
            for c in &comps[k..] {
                match c {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::CurDir => {}
                    c => out.push(c),
                }
            }
            return out;
        }
    }
    abs
}

/// An output's identity: device and inode when it exists, else where it
/// will be written.
fn identity(path: &Path) -> FileId {
    FileId::of_path(path).unwrap_or_else(|| FileId(None, Some(resolved(path))))
}

/// Checks a command's outputs before it runs: none is a FIFO or a device
/// (`-`, standard output, is the way to stream), none is one of `inputs`,
/// no two are the same file (by device and inode, or by where a new file
/// will land) or both standard output, and no file output lies inside a
/// folder output.
pub fn check_outputs(outputs: &[Output], inputs: &Inputs) -> Result<(), OutputError> {
    for o in outputs.iter().filter(|o| !is_stdout(o.path)) {
        if let Some(kind) = special_kind(o.path) {
            return Err(OutputError::NotAFile {
                flag: o.flag.to_string(),
                path: o.path.to_path_buf(),
                kind,
            });
        }
        if !o.folder {
            inputs.check(o.path)?;
        } else if fs::metadata(o.path).is_ok_and(|m| !m.is_dir()) {
            return Err(OutputError::NotAFolder {
                flag: o.flag.to_string(),
                path: o.path.to_path_buf(),
            });
        }
    }
    for (i, a) in outputs.iter().enumerate() {
        for b in &outputs[i + 1..] {
            check_pair(a, b)?;
        }
    }
    Ok(())
}

/// Two outputs of one command: distinct, and neither inside the other.
fn check_pair(a: &Output, b: &Output) -> Result<(), OutputError> {
    let same = match (is_stdout(a.path), is_stdout(b.path)) {
        (true, true) => {
            return Err(OutputError::BothStdout {
                first: a.flag.to_string(),
                second: b.flag.to_string(),
            })
        }
        (false, false) => identity(a.path).same(&identity(b.path)),
        _ => false,
    };
    if same {
        return Err(OutputError::Same {
            first: a.flag.to_string(),
            a: a.path.to_path_buf(),
            second: b.flag.to_string(),
            b: b.path.to_path_buf(),
        });
    }
    if is_stdout(a.path) || is_stdout(b.path) {
        return Ok(());
    }
    let (file, folder) = match (a.folder, b.folder) {
        (false, true) => (a, b),
        (true, false) => (b, a),
        _ => return Ok(()),
    };
    if resolved(file.path).starts_with(resolved(folder.path)) {
        return Err(OutputError::InFolder {
            flag: file.flag.to_string(),
            path: file.path.to_path_buf(),
            folder_flag: folder.flag.to_string(),
            folder: folder.path.to_path_buf(),
        });
    }
    Ok(())
}

/// Writes `path` with `fill`, after refusing it if it is one of `inputs`.
///
/// A regular file (or a new one) is written to a temporary file in the same
/// directory, flushed to disk and renamed over `path` only when `fill` and
/// every write succeeded; on any error the temporary file is removed and
/// `path` is untouched. The file keeps the permissions of the one it replaces
/// (new files get `rw-r--r--`). A symbolic link is followed, so the file it
/// points to is replaced, not the link. `-` is standard output. A FIFO, a
/// device or a socket is refused ([`OutputError::NotAFile`]); anything else
/// that is not a regular file (a folder) is opened in place, which fails.
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
    if is_stdout(path) {
        let mut w = BufWriter::new(io::stdout().lock());
        return fill(&mut w).and_then(|()| w.flush()).map_err(io_err);
    }
    if let Some(kind) = special_kind(path) {
        return Err(OutputError::NotAFile {
            flag: "output".to_string(),
            path: path.to_path_buf(),
            kind,
        });
    }
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
