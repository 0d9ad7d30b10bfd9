//! `simcli run --lowering compiler`: finds NVIDIA's ptxas and a
//! disassembler and runs them on each region kernel that
//! [`sim_trace::compiler`] writes (the pure half lives there). Only this
//! module starts processes; temporary files live in a directory removed
//! when each region is done, whatever happens.

use sim_trace::compiler::Assembler;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to install the tools, for the messages.
pub const INSTALL_HINT: &str = "pip install nvidia-cuda-nvcc==13.0.88 gives ptxas for sm_90 \
(in <site-packages>/nvidia/cu13/bin/ptxas) and pip install nvidia-cuda-nvdisasm==13.2.51 \
gives nvdisasm (nvidia/cu13/bin/nvdisasm); tools/validate.sh shows how the project installs \
them into tools/.cache; `--lowering table` (the default) needs no tool";

/// Which disassembler, and so how to ask it for a listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disassembler {
    /// `nvdisasm -c FILE.cubin`.
    Nvdisasm,
    /// `cuobjdump -sass FILE.cubin`.
    Cuobjdump,
}

/// ptxas and a disassembler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    /// The assembler.
    pub ptxas: PathBuf,
    /// The disassembler.
    pub disasm: PathBuf,
    /// Which one it is.
    pub kind: Disassembler,
}

/// Why `--lowering compiler` could not run its tools.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// No ptxas.
    #[error("--lowering compiler needs NVIDIA's ptxas, and {detail}: set PTXAS to its path or put it on PATH ({INSTALL_HINT})")]
    NoPtxas {
        /// Where it was looked for.
        detail: String,
    },
    /// No disassembler.
    #[error("--lowering compiler needs a disassembler beside ptxas ({ptxas}), and {detail}: set NVDISASM to nvdisasm's (or cuobjdump's) path or put one on PATH ({INSTALL_HINT})")]
    NoDisassembler {
        /// The ptxas found.
        ptxas: String,
        /// Where it was looked for.
        detail: String,
    },
    /// A tool did not start.
    #[error("running {tool}: {error}")]
    Spawn {
        /// The tool.
        tool: String,
        /// Why.
        error: std::io::Error,
    },
    /// ptxas rejected the region kernel.
    #[error("ptxas ({tool}) rejected the region kernel for {arch} (exit {status}):\n{stderr}")]
    Rejected {
        /// The tool.
        tool: String,
        /// The target.
        arch: String,
        /// Its exit status.
        status: String,
        /// What it printed.
        stderr: String,
    },
    /// The disassembler failed.
    #[error("{tool} failed on the assembled region (exit {status}):\n{stderr}")]
    Disasm {
        /// The tool.
        tool: String,
        /// Its exit status.
        status: String,
        /// What it printed.
        stderr: String,
    },
    /// Temporary files.
    #[error("temporary files for the region kernel: {0}")]
    Io(std::io::Error),
}

impl From<std::io::Error> for ToolError {
    fn from(e: std::io::Error) -> Self {
        ToolError::Io(e)
    }
}

/// An executable `name` in one of `path`'s directories.
fn on_path(name: &str, path: Option<&OsString>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

impl Toolchain {
    /// The tools from the environment: `$PTXAS` or `ptxas` on `PATH`; then
    /// `$NVDISASM` (a path to nvdisasm or cuobjdump), or `nvdisasm` or
    /// `cuobjdump` next to ptxas or on `PATH`.
    pub fn from_env() -> Result<Toolchain, ToolError> {
        Toolchain::find(
            std::env::var_os("PTXAS"),
            std::env::var_os("NVDISASM"),
            std::env::var_os("PATH"),
        )
    }

    /// As [`Toolchain::from_env`], with the variables given.
    pub fn find(
        ptxas: Option<OsString>,
        disasm: Option<OsString>,
        path: Option<OsString>,
    ) -> Result<Toolchain, ToolError> {
        let ptxas = match ptxas.filter(|p| !p.is_empty()) {
            Some(p) => {
                let p = PathBuf::from(p);
                if !p.is_file() {
                    return Err(ToolError::NoPtxas {
                        detail: format!("PTXAS={} is not a file", p.display()),
                    });
                }
                p
            }
            None => on_path("ptxas", path.as_ref()).ok_or_else(|| ToolError::NoPtxas {
                detail: "PTXAS is not set and no ptxas is on PATH".into(),
            })?,
        };
        let kind_of = |p: &Path| {
            let cuobjdump = p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().contains("cuobjdump"));
            if cuobjdump {
                Disassembler::Cuobjdump
            } else {
                Disassembler::Nvdisasm
            }
        };
        let no_disasm = |detail: String| ToolError::NoDisassembler {
            ptxas: ptxas.display().to_string(),
            detail,
        };
        let disasm = match disasm.filter(|p| !p.is_empty()) {
            Some(p) => {
                let p = PathBuf::from(p);
                if !p.is_file() {
                    return Err(no_disasm(format!("NVDISASM={} is not a file", p.display())));
                }
                p
            }
            None => {
                let beside = ptxas.parent().map(|d| d.as_os_str().to_owned());
                ["nvdisasm", "cuobjdump"]
                    .iter()
                    .find_map(|n| on_path(n, beside.as_ref()).or_else(|| on_path(n, path.as_ref())))
                    .ok_or_else(|| {
                        no_disasm(
                            "NVDISASM is not set and no nvdisasm or cuobjdump is beside it or on PATH"
                                .into(),
                        )
                    })?
            }
        };
        let kind = kind_of(&disasm);
        Ok(Toolchain {
            ptxas,
            disasm,
            kind,
        })
    }
}

fn status(s: std::process::ExitStatus) -> String {
    s.code()
        .map_or_else(|| "by a signal".into(), |c| c.to_string())
}

impl Assembler for Toolchain {
    type Error = ToolError;

    fn assemble(&mut self, ptx: &str, arch: &str) -> Result<String, ToolError> {
        // Removed on drop, on every path out of here.
        let dir = tempfile::Builder::new().prefix("simcli-lower-").tempdir()?;
        let src = dir.path().join("region.ptx");
        let cubin = dir.path().join("region.cubin");
        std::fs::write(&src, ptx)?;
        let mut cmd = Command::new(&self.ptxas);
        cmd.arg(format!("-arch={arch}"))
            .arg(&src)
            .arg("-o")
            .arg(&cubin);
        let (tool, out) = run(&self.ptxas, &mut cmd)?;
        if !out.status.success() {
            return Err(ToolError::Rejected {
                tool,
                arch: arch.to_string(),
                status: status(out.status),
                stderr: String::from_utf8_lossy(&out.stderr).trim_end().to_string(),
            });
        }
        let mut cmd = Command::new(&self.disasm);
        match self.kind {
            Disassembler::Nvdisasm => cmd.arg("-c"),
            Disassembler::Cuobjdump => cmd.arg("-sass"),
        };
        let (tool, out) = run(&self.disasm, cmd.arg(&cubin))?;
        if !out.status.success() {
            return Err(ToolError::Disasm {
                tool,
                status: status(out.status),
                stderr: String::from_utf8_lossy(&out.stderr).trim_end().to_string(),
            });
        }
        dir.close()?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// Runs `cmd` (the tool at `path`) to its end: the tool's name for
/// messages and its output, or the error naming it when it cannot start.
fn run(path: &Path, cmd: &mut Command) -> Result<(String, std::process::Output), ToolError> {
    let tool = path.display().to_string();
    match cmd.output() {
        Ok(out) => Ok((tool, out)),
        Err(error) => Err(ToolError::Spawn { tool, error }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_tools_say_what_is_needed() {
        let e = Toolchain::find(None, None, Some(OsString::new())).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("needs NVIDIA's ptxas"), "{m}");
        assert!(m.contains("pip install nvidia-cuda-nvcc==13.0.88"), "{m}");
        let e = Toolchain::find(Some("/nonexistent/ptxas".into()), None, None).unwrap_err();
        assert!(e
            .to_string()
            .contains("PTXAS=/nonexistent/ptxas is not a file"));
    }
}
