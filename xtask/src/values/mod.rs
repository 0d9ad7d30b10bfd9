//! Part 2: values. Each instruction variant is compiled by ptxas for sm_90 in
//! a kernel that loads every register it names from global memory, runs it,
//! and stores what it writes; nvdisasm's listing is executed by
//! [`crate::sass`] on random and edge inputs, and the results, written as
//! conformance vectors, are run through sim-isa's own conformance runner.

mod async_family;
mod async_kernel;
mod compile;
pub(crate) mod kernel;
mod mma;
mod variants;
mod vectors;
mod warp_gpu;
mod wmma;

pub use kernel::{kernel_with, layout};
pub use variants::{half_variants, variants, Variant};
pub(crate) use vectors::value;

use crate::rng::Rng;
use crate::tools::{Common, Tools};
use anyhow::{Context, Result};
use compile::{compile_all, Listing};
use sim_isa::conform::{Outcome, Report};
use std::collections::BTreeMap;
use std::path::PathBuf;
use vectors::{run_machine, vector_line, write_file};

/// Options of `xtask values`.
#[derive(Clone, Debug)]
pub struct Opts {
    /// Number of instruction variants.
    pub variants: usize,
    /// Input sets per variant.
    pub inputs: usize,
    /// Seed, parallelism, batch size, disagreements shown.
    pub common: Common,
    /// Write the agreed vectors here.
    pub write: Option<PathBuf>,
    /// Write disagreeing vectors (machine values) here.
    pub disagreements: Option<PathBuf>,
    /// Instruction texts (one per line, `#` comments) to use instead of
    /// the generated variants.
    pub texts: Option<PathBuf>,
    /// `half`: every half-precision arithmetic form and `copysign`
    /// ([`half_variants`]) instead of the sweep and random variants;
    /// `mma`: the tensor-core forms as warp vectors (`mma.rs`); `wmma`: the
    /// WMMA statements as warp vectors (`wmma.rs`).
    pub family: Option<String>,
    /// `mma`/`wmma`: also write each form's kernel and each vector's input
    /// buffer here, for `tools/gpu/warp_run.py` on a GPU (`mma.rs`, `gpu_dir`).
    pub gpu_dir: Option<PathBuf>,
}

/// Runs part 2. Returns the number of failed vectors.
pub fn run(tools: &Tools, o: &Opts) -> Result<usize> {
    tools.nvdisasm()?;
    if o.family.as_deref() == Some("async") {
        return async_family::run(tools, o);
    }
    let vars = match (&o.texts, o.family.as_deref()) {
        (Some(p), _) => text_variants(p)?,
        (None, None) => variants(o.common.seed, o.variants),
        (None, Some("half")) => half_variants(),
        (None, Some("mma")) => return mma::run(tools, o),
        (None, Some("wmma")) => return wmma::run(tools, o),
        (None, Some(other)) => {
            anyhow::bail!("unknown --family {other} (known: async, half, mma, wmma)")
        }
    };
    let texts: Vec<&str> = vars.iter().map(|v| v.kernel.as_str()).collect();
    let progs = compile_all(tools, &texts, o.common.batch, o.common.jobs)?;
    let ran = execute(&vars, progs, o);
    for (why, t) in &ran.not_run {
        println!("not run ({} variants): {why}\n    e.g. {}", t.len(), t[0]);
    }
    println!(
        "SASS opcodes executed: {}",
        ran.opcodes.keys().cloned().collect::<Vec<_>>().join(" ")
    );
    let judged = judge(&ran.lines, o.common.show);
    write_outputs(o, &judged)?;
    let skipped_variants: usize = ran.not_run.values().map(Vec::len).sum();
    if skipped_variants > 0 {
        println!("{skipped_variants} variants could not be run (listed above)");
    }
    println!("{}", judged.report.summary_line());
    Ok(judged.report.failed() + judged.report.skipped())
}

/// `--texts`: each line an instruction text (its opcode word the family).
fn text_variants(p: &std::path::Path) -> Result<Vec<Variant>> {
    let body = std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
    Ok(body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let word = kernel::strip_guard(l)
                .1
                .split(['.', ' '])
                .next()
                .unwrap_or("");
            Variant {
                text: l.to_string(),
                kernel: l.to_string(),
                family: family_of(word),
                arch: "sm_90",
            }
        })
        .collect())
}

/// A static family name for a `--texts` opcode word (the vectors' `family` key).
fn family_of(word: &str) -> &'static str {
    match word {
        "dp4a" => "dp4a",
        "dp2a" => "dp2a",
        "sad" => "sad",
        "fns" => "fns",
        "bmsk" => "bmsk",
        "testp" => "testp",
        "cvt" => "cvt",
        "ex2" => "ex2",
        _ => "int-simd",
    }
}

/// What running the listings gave: vector lines, the variants that could not
/// be compiled or interpreted (by reason), and the opcodes seen.
struct Executed {
    lines: Vec<String>,
    not_run: BTreeMap<String, Vec<String>>,
    opcodes: BTreeMap<String, usize>,
}

/// Runs each variant's listing on `o.inputs` input sets.
fn execute(vars: &[Variant], progs: Vec<Option<Listing>>, o: &Opts) -> Executed {
    let mut rng = Rng::new(o.common.seed ^ 0xda7a);
    let mut ran = Executed {
        lines: Vec::new(),
        not_run: BTreeMap::new(),
        opcodes: BTreeMap::new(),
    };
    for (var, prog) in vars.iter().zip(progs) {
        let text = &var.text;
        let prog = match prog.unwrap_or_else(|| Err("missing".into())) {
            Ok(p) => p,
            Err(e) => {
                ran.not_run
                    .entry(format!(
                        "compile: {}",
                        e.split(';').next_back().unwrap_or("").trim()
                    ))
                    .or_default()
                    .push(text.clone());
                continue;
            }
        };
        for ins in &prog {
            *ran.opcodes.entry(ins.op.clone()).or_default() += 1;
        }
        let (regs, dsts) = layout(text);
        if regs.len() > 8 {
            continue;
        }
        for _ in 0..o.inputs {
            let mut inputs: Vec<u64> = regs.iter().map(|r| value(&mut rng, r.width)).collect();
            // Equal operands exercise the eq/le/ge edges.
            if rng.chance(1, 5) && regs.len() >= 3 {
                let (x, y) = (1 + rng.below(regs.len() - 1), rng.below(regs.len()));
                if regs[x].width == regs[y].width {
                    inputs[x] = inputs[y];
                }
            }
            match run_machine(&prog, &regs, &dsts, &inputs) {
                Ok(out) => ran.lines.push(vector_line(
                    var.arch, text, var.family, &regs, &inputs, &out,
                )),
                Err(e) => {
                    let key = format!(
                        "interpreter: {}",
                        format!("{e:#}").rsplit(": ").next().unwrap_or("")
                    );
                    ran.not_run.entry(key).or_default().push(text.clone());
                    break;
                }
            }
        }
    }
    ran
}

/// sim-isa's verdict on the machine's vectors: the report, and the agreed and
/// disagreeing lines.
struct Judged {
    report: Report,
    agreed: String,
    bad: String,
}

/// Runs the vectors through sim-isa's conformance runner, printing the first
/// `show` failures and the per-family counts.
fn judge(lines: &[String], show: usize) -> Judged {
    let report = sim_isa::conform::run_vectors(&lines.join("\n"));
    let mut agreed = String::new();
    let mut bad = String::new();
    let mut shown = 0;
    let mut fam_stats: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for r in &report.results {
        let line = &lines[r.line - 1];
        let fam = line
            .rsplit("\"family\":\"")
            .next()
            .unwrap_or("")
            .trim_end_matches("\"}")
            .to_string();
        let e = fam_stats.entry(fam).or_default();
        match &r.outcome {
            Outcome::Passed => {
                e.0 += 1;
                agreed += line;
                agreed.push('\n');
            }
            _ => {
                e.1 += 1;
                if shown < show {
                    println!("FAIL {r}\n    vector: {line}");
                    shown += 1;
                }
                bad += line;
                bad.push('\n');
            }
        }
    }
    println!("by family (passed/failed):");
    for (k, (p, f)) in &fam_stats {
        println!("  {k:<10} {p:>7} {f:>6}");
    }
    Judged {
        report,
        agreed,
        bad,
    }
}

/// Writes the agreed vectors (`--write`, gzip by extension) and the
/// disagreements (`--disagreements`).
fn write_outputs(o: &Opts, judged: &Judged) -> Result<()> {
    if let Some(p) = &o.write {
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d)?;
        }
        let header = match &o.texts {
            Some(t) => format!(
                "# Values derived from ptxas 13.0.88 sm_90 machine code (.version 8.0; nvdisasm, xtask SASS interpreter) and agreed by sim-isa.\n\
                 # Regenerate: PTXAS=<ptxas 13.0.88> cargo run -p xtask --release -- values --texts {} --inputs {} --seed {} --write <this file>\n",
                t.display(), o.inputs, o.common.seed
            ),
            None => format!(
                "# Values derived from ptxas 11.8.89 sm_90 machine code (nvdisasm, xtask SASS interpreter) and agreed by sim-isa;\n# sm_13 lines: the .ftz form's code gives the sm_1x flush semantics (erratum 22).\n\
                 # Regenerate: cargo run -p xtask --release -- values {} --inputs {} --seed {} --write <this file>\n",
                o.family
                    .as_ref()
                    .map_or(format!("--variants {}", o.variants), |f| format!("--family {f}")),
                o.inputs,
                o.common.seed
            ),
        };
        write_file(p, &(header + &judged.agreed))?;
    }
    if let Some(p) = &o.disagreements {
        std::fs::write(p, &judged.bad).with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::kernel::{hex_f32_literals, kernel};
    use super::*;

    #[test]
    fn layout_names_registers_and_destinations() {
        let (regs, dsts) = layout("@!%p2 setp.lt.or.f64 %p1|%p3, %rd1, 1.5, !%p2;");
        let names: Vec<_> = regs.iter().map(|r| (r.name.as_str(), r.width)).collect();
        assert_eq!(names, [("%p2", 1), ("%p1", 1), ("%p3", 1), ("%rd1", 64)]);
        assert_eq!(dsts, ["%p1", "%p3"]);
        let (_, dsts) = layout("vadd4.u32.u32.u32 %r1.b21, %r2, %r3, %r1;");
        assert_eq!(dsts, ["%r1"]);
        let (_, dsts) = layout("setp.ne.s32 _|%p2, %r1, %r2;");
        assert_eq!(dsts, ["%p2"]);
    }

    /// The vector lines `values` writes are those committed in sim-isa's
    /// SASS-oracle files: the first lines of `sass-fns.jsonl` and
    /// `sass-testp.jsonl`, rebuilt from their registers and values.
    #[test]
    fn vector_lines_are_the_committed_format() {
        let fns = "fns.b32 %r5, %r1, %r2, %r3;";
        let (regs, _) = layout(fns);
        let ins = [0x43f4e9cd, 0x5a6468c5, 0x7f800000, 0x107a6a63];
        let out = [("%r5".to_string(), 0xffffffff)];
        assert_eq!(
            vector_line("sm_90", fns, "fns", &regs, &ins, &out),
            r#"{"arch":"sm_90","ptx":"fns.b32 %r5, %r1, %r2, %r3;","in":{"%r5":"0x43f4e9cd","%r1":"0x5a6468c5","%r2":"0x7f800000","%r3":"0x107a6a63"},"out":{"%r5":"0xffffffff"},"family":"fns"}"#
        );
        let testp = "testp.finite.f32 %p1, %r1;";
        let (regs, _) = layout(testp);
        let out = [("%p1".to_string(), 1)];
        assert_eq!(
            vector_line("sm_90", testp, "testp", &regs, &[1, 0x5a6468c5], &out),
            r#"{"arch":"sm_90","ptx":"testp.finite.f32 %p1, %r1;","in":{"%p1":true,"%r1":"0x5a6468c5"},"out":{"%p1":true},"family":"testp"}"#
        );
    }

    #[test]
    fn errata_workarounds_in_kernels() {
        // Erratum 21: guarded set computes into a temporary, then a guarded mov.
        let k = kernel("k", "@%p1 set.lt.f16.f32 %h1, %r1, %r2;");
        assert!(k.contains("set.lt.f16.f32 %th1, %r1, %r2;"), "{k}");
        assert!(k.contains("@%p1 mov.b16 %h1, %th1;"), "{k}");
        // Erratum 20: guarded setp with a sink gets a dead predicate instead.
        let k = kernel("k", "@%p1 setp.ne.s32 _|%p2, %r1, %r2;");
        assert!(k.contains("setp.ne.s32 %psink|%p2"), "{k}");
        // Decimal literal in set.bf16.f32 is spelled in hex.
        assert_eq!(
            hex_f32_literals("set.ltu.bf16.f32 %h3, -2.25, %r1;"),
            "set.ltu.bf16.f32 %h3, 0fC0100000, %r1;"
        );
    }

    #[test]
    fn variants_cover_every_family() {
        let v = variants(3, 3000);
        for fam in ["video", "vset", "set", "half-set", "setp", "selp", "slct"] {
            assert!(v.iter().any(|x| x.family == fam), "{fam}");
        }
        assert!(v.iter().any(|x| x.text.starts_with('@')));
        let twin = v.iter().find(|x| x.arch == "sm_13").expect("sm_13 twins");
        assert!(
            twin.kernel.contains(".ftz") && !twin.text.contains(".ftz"),
            "{twin:?}"
        );
        assert!(v.iter().any(|x| x.text.contains("4.sat.")));
    }
}
