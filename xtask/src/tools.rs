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
        let nvdisasm = match std::env::var_os("NVDISASM") {
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
        };
        let out = Command::new(&ptxas)
            .arg("--version")
            .output()
            .with_context(|| format!("running {}", ptxas.display()))?;
        let v = String::from_utf8_lossy(&out.stdout);
        if !v.contains("V11.8") {
            bail!(
                "{} is not ptxas 11.8 (the pinned reference): {}",
                ptxas.display(),
                v.trim()
            );
        }
        Ok(Tools { ptxas, nvdisasm })
    }

    /// nvdisasm, or an error saying how to get it.
    pub fn nvdisasm(&self) -> Result<&Path> {
        self.nvdisasm
            .as_deref()
            .context("nvdisasm not found: set $NVDISASM or run tools/validate.sh (pip installs nvidia-cuda-nvdisasm)")
    }
}

/// The workspace root (xtask's parent).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}
