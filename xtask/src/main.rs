//! Project automation: differential validation of sim-isa against NVIDIA's
//! tools (issue 5). `cargo run -p xtask -- help` lists the commands.

mod domain;
mod gen;
mod gpu;
mod listing_json;
mod ptxas;
mod rng;
mod sass;
mod tools;
mod validity;
mod values;

#[cfg(test)]
mod streams_test;

use anyhow::{bail, Context, Result};
use std::process::ExitCode;

const HELP: &str = "\
xtask: validate sim-isa against ptxas 11.8 / nvdisasm (docs/validation.md)

USAGE:
  cargo run -p xtask --release -- validity [--count N] [--seed S] [--batch B] [--jobs J]
        [--regressions FILE] [--cache FILE] [--show N] [--dump FILE]
      Part 1: random valid and near-miss instruction texts, judged by ptxas for
      sm_35 (standing in for sm_30), sm_53 and sm_90, compared with sim-isa.
  cargo run -p xtask --release -- values [--variants N] [--inputs K] [--seed S] [--jobs J] [--batch B]
        [--write FILE] [--disagreements FILE] [--show N] [--family half|async|mma|wmma] [--gpu-dir DIR]
        (`--family async --texts FILE`: the cp.async / mbarrier statements of FILE, on shared memory)
      Part 2: sm_90 machine code for each variant, run by a SASS interpreter on
      random and edge inputs, compared with sim-isa's executor. [--texts FILE]: these
      instruction texts instead (PTX 8.0 kernels; $PTXAS must be ptxas 12 or 13).
      `--family half`: every half-precision arithmetic form and copysign instead of the sweep;
      `--family mma`: the tensor-core forms as warp vectors ($PTXAS as for --texts);
      `--family wmma`: wmma.load/mma/store the same way.
      `--gpu-dir DIR` (mma, wmma, async): also the kernels and input buffers for tools/gpu/warp_run.py.
  cargo run -p xtask --release -- gpu-kernels VECTORS.jsonl OUTDIR [--ptx-version 8.0]
      Part 3: turn conformance vectors into PTX kernels + a manifest for tools/gpu/run.py
      (assembled with ptxas when available). [--arch sm_90]
  cargo run -p xtask --release -- gpu-simulate OUTDIR
      Part 3 without a GPU: run those kernels' sm_90 code, thread by thread, in the
      SASS interpreter with run.py's buffer layout (checks the harness end to end).

  cargo run -p xtask --release -- domain-check FILE... [--jobs J] [--show N] [--only I,J]
        [--extract OUT [--samples 64] [--tables N]] [--fake OUT [--forms F] [--samples K] [--tamper]]
      Issue 23: tools/gpu/domain's whole-domain GPU files recomputed with sim-isa,
      form by form (equal, or the first N differing a with both checksums).
      --extract: one16 tables whole (or at --tables N fixed a), other forms at
      --samples fixed a (the committed test file). --fake: a file of sim-isa's own values for forms.txt (format tests).

  cargo run -p xtask -- sass-listing FILE|- [--arch sm_90]
      An nvdisasm (or cuobjdump -sass) listing read by sim-sass, printed as JSON
      lines (functions, labels, instructions with operands, registers read and
      written, encodings and control fields) for the Python scripts in tools/.

Each part prints `N passed, M failed` last and exits 1 on any failure.
Tools: $PTXAS / $NVDISASM, else tools/.cache/py (tools/validate.sh installs them).
";

struct Args(Vec<String>);

impl Args {
    fn flag<T: std::str::FromStr>(&mut self, name: &str, default: T) -> Result<T> {
        match self.0.iter().position(|a| a == name) {
            Some(i) if i + 1 < self.0.len() => {
                let v = self.0.remove(i + 1);
                self.0.remove(i);
                v.parse()
                    .ok()
                    .with_context(|| format!("bad value '{v}' for {name}"))
            }
            Some(_) => bail!("{name} needs a value"),
            None => Ok(default),
        }
    }
    fn opt(&mut self, name: &str) -> Result<Option<String>> {
        match self.0.iter().position(|a| a == name) {
            Some(i) if i + 1 < self.0.len() => {
                let v = self.0.remove(i + 1);
                self.0.remove(i);
                Ok(Some(v))
            }
            Some(_) => bail!("{name} needs a value"),
            None => Ok(None),
        }
    }
    /// `--seed` (1), `--jobs` (2), `--batch` and `--show` with the part's defaults.
    fn common(&mut self, batch: usize, show: usize) -> Result<tools::Common> {
        Ok(tools::Common {
            seed: self.flag("--seed", 1)?,
            jobs: self.flag("--jobs", 2)?,
            batch: self.flag("--batch", batch)?,
            show: self.flag("--show", show)?,
        })
    }
    /// Refuses leftover arguments, then finds the NVIDIA tools.
    fn tools(&self, root: &std::path::Path) -> Result<tools::Tools> {
        self.done()?;
        tools::Tools::locate(root)
    }
    fn done(&self) -> Result<()> {
        if let Some(a) = self.0.first() {
            bail!("unexpected argument '{a}'\n\n{HELP}");
        }
        Ok(())
    }
}

fn real_main() -> Result<bool> {
    let mut argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.is_empty() {
        print!("{HELP}");
        return Ok(true);
    }
    let cmd = argv.remove(0);
    let mut a = Args(argv);
    let root = tools::repo_root();
    match cmd.as_str() {
        "validity" => {
            let o = validity::Opts {
                count: a.flag("--count", 20_000)?,
                common: a.common(200, 50)?,
                regressions: a.opt("--regressions")?.map(Into::into),
                cache: a.opt("--cache")?.map(Into::into),
                dump: a.opt("--dump")?.map(Into::into),
            };
            let t = a.tools(&root)?;
            Ok(validity::run(&t, &o)? == 0)
        }
        "values" => {
            let o = values::Opts {
                variants: a.flag("--variants", 2400)?,
                inputs: a.flag("--inputs", 22)?,
                common: a.common(60, 30)?,
                write: a.opt("--write")?.map(Into::into),
                disagreements: a.opt("--disagreements")?.map(Into::into),
                texts: a.opt("--texts")?.map(Into::into),
                family: a.opt("--family")?,
                gpu_dir: a.opt("--gpu-dir")?.map(Into::into),
            };
            let t = if o.texts.is_some() || matches!(o.family.as_deref(), Some("mma" | "wmma")) {
                a.done()?;
                tools::Tools::locate_newer(&root)?
            } else {
                a.tools(&root)?
            };
            Ok(values::run(&t, &o)? == 0)
        }
        "gpu-kernels" => {
            let arch = a.flag("--arch", "sm_90".to_string())?;
            // PTX 7.8 covers the seed families; the packed 16-bit integer
            // forms (add.u16x2 ...) need 8.0, so the version is a flag.
            let ptx_version = a.flag("--ptx-version", "7.8".to_string())?;
            if a.0.len() != 2 {
                bail!("usage: gpu-kernels VECTORS.jsonl OUTDIR [--arch sm_90] [--ptx-version 7.8]");
            }
            let (vecs, out) = (
                std::path::PathBuf::from(&a.0[0]),
                std::path::PathBuf::from(&a.0[1]),
            );
            // Kernels of PTX 8.0 forms need ptxas 12 or 13 ($PTXAS).
            let t = tools::Tools::locate(&root)
                .or_else(|_| tools::Tools::locate_newer(&root))
                .ok();
            if t.is_none() {
                eprintln!("note: ptxas not found; kernels are written but not assembled");
            }
            gpu::gen_kernels(t.as_ref(), &vecs, &out, &arch, &ptx_version)?;
            Ok(true)
        }
        "sass-listing" => {
            let arch = a.flag("--arch", "sm_90".to_string())?;
            listing_json::run(listing_json::file_arg(&a.0)?, &arch)?;
            Ok(true)
        }
        "gpu-simulate" => {
            if a.0.len() != 1 {
                bail!("usage: gpu-simulate OUTDIR");
            }
            let dir = std::path::PathBuf::from(&a.0[0]);
            let t = tools::Tools::locate(&root).or_else(|_| tools::Tools::locate_newer(&root))?;
            Ok(gpu::simulate(&t, &dir)? == 0)
        }
        "domain-check" => {
            let only: String = a.flag("--only", String::new())?;
            let o = domain::Opts {
                jobs: a.flag(
                    "--jobs",
                    std::thread::available_parallelism().map_or(2, |n| n.get()),
                )?,
                show: a.flag("--show", 10)?,
                only: only
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse().with_context(|| format!("bad index '{s}'")))
                    .collect::<Result<_>>()?,
                extract: a.opt("--extract")?.map(Into::into),
                samples: a.flag("--samples", 64)?,
                tables: a.opt("--tables")?.map(|v| v.parse()).transpose()?,
                fake: a.opt("--fake")?.map(Into::into),
                forms: a
                    .opt("--forms")?
                    .map_or_else(|| root.join("tools/gpu/domain/forms.txt"), Into::into),
                tamper: a.0.iter().any(|x| x == "--tamper"),
                files: a
                    .0
                    .iter()
                    .filter(|x| *x != "--tamper")
                    .map(Into::into)
                    .collect(),
            };
            if o.files.is_empty() && o.fake.is_none() {
                bail!("usage: domain-check FILE... (see help)");
            }
            domain::run(&o)
        }
        "help" | "--help" | "-h" => {
            print!("{HELP}");
            Ok(true)
        }
        other => bail!("unknown command '{other}'\n\n{HELP}"),
    }
}

fn main() -> ExitCode {
    match real_main() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
