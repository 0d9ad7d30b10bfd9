//! Locating and running NVIDIA's tools (ptxas 11.8, nvdisasm).

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The options both differential parts take.
#[derive(Clone, Debug)]
pub struct Common {
    /// Generator seed.
    pub seed: u64,
    /// Parallel ptxas (and nvdisasm) processes.
    pub jobs: usize,
    /// Texts (part 1) or kernels (part 2) per ptxas run.
    pub batch: usize,
    /// Print at most this many disagreements.
    pub show: usize,
}

/// Paths of the external tools.
#[derive(Clone, Debug)]
pub struct Tools {
    /// `ptxas` 11.8.
    pub ptxas: PathBuf,
    /// `nvdisasm` (any version that decodes sm_90).
    pub nvdisasm: Option<PathBuf>,
    /// The `.version` of the kernels part 2 compiles: 7.8 for ptxas 11.8,
    /// 8.0 for a newer ptxas ([`Tools::locate_newer`]).
    pub ptx_version: &'static str,
}

fn first_existing(cands: &[PathBuf]) -> Option<PathBuf> {
    cands.iter().find(|p| p.is_file()).cloned()
}

impl Tools {
    /// `$PTXAS`/`$NVDISASM`, else the pip install under `tools/.cache/py`
    /// (what `tools/validate.sh` creates), else `/work/tools-cache/py`.
    pub fn locate(repo: &Path) -> Result<Tools> {
        let roots = [
            repo.join("tools/.cache/py"),
            PathBuf::from("/work/tools-cache/py"),
        ];
        let ptxas = match std::env::var_os("PTXAS") {
            Some(p) => PathBuf::from(p),
            None => first_existing(&roots.iter().map(|r| r.join("nvidia/cuda_nvcc/bin/ptxas")).collect::<Vec<_>>())
                .context("ptxas not found: set $PTXAS or run tools/validate.sh (pip installs nvidia-cuda-nvcc-cu11==11.8.89)")?,
        };
        let nvdisasm = Tools::locate_nvdisasm(repo);
        Self::checked(ptxas, nvdisasm)
    }

    /// `$NVDISASM`, else the pip installs under `tools/.cache/py` or `/work/tools-cache/py`.
    fn locate_nvdisasm(repo: &Path) -> Option<PathBuf> {
        let roots = [
            repo.join("tools/.cache/py"),
            PathBuf::from("/work/tools-cache/py"),
        ];
        match std::env::var_os("NVDISASM") {
            Some(p) => Some(PathBuf::from(p)),
            None => {
                let mut c = Vec::new();
                for r in &roots {
                    for sub in [
                        "nvidia/cu13/bin/nvdisasm",
                        "nvidia/cuda_nvdisasm/bin/nvdisasm",
                        "nvidia/cu12/bin/nvdisasm",
                    ] {
                        c.push(r.join(sub));
                    }
                }
                first_existing(&c)
            }
        }
    }

    /// ptxas 11.8 at `ptxas`, with `nvdisasm`.
    fn checked(ptxas: PathBuf, nvdisasm: Option<PathBuf>) -> Result<Tools> {
        let v = version(&ptxas)?;
        if !v.contains("V11.8") {
            bail!(
                "{} is not ptxas 11.8 (the pinned reference): {}",
                ptxas.display(),
                v.trim()
            );
        }
        Ok(Tools {
            ptxas,
            nvdisasm,
            ptx_version: "7.8",
        })
    }

    /// For the PTX 8.0 forms (packed `.u16x2`/`.s16x2` integers, `.relu`),
    /// which ptxas 11.8 cannot read: `$PTXAS` must name ptxas 12 or 13
    /// (13.0.88 made the committed vectors), and kernels say `.version 8.0`.
    pub fn locate_newer(repo: &Path) -> Result<Tools> {
        let ptxas =
            PathBuf::from(std::env::var_os("PTXAS").context("set $PTXAS to ptxas 12.0 or later")?);
        let v = version(&ptxas)?;
        if !(v.contains("V12.") || v.contains("V13.")) {
            bail!("{} is not ptxas 12 or 13: {}", ptxas.display(), v.trim());
        }
        let nvdisasm = Tools::locate_nvdisasm(repo);
        Ok(Tools {
            ptxas,
            nvdisasm,
            ptx_version: "8.0",
        })
    }

    /// nvdisasm, or an error saying how to get it.
    pub fn nvdisasm(&self) -> Result<&Path> {
        self.nvdisasm
            .as_deref()
            .context("nvdisasm not found: set $NVDISASM or run tools/validate.sh (pip installs nvidia-cuda-nvdisasm)")
    }
}

/// `ptxas --version`'s output.
fn version(ptxas: &Path) -> Result<String> {
    let out = Command::new(ptxas)
        .arg("--version")
        .output()
        .with_context(|| format!("running {}", ptxas.display()))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The workspace root (xtask's parent).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}
