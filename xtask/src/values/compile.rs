//! Compiling kernels with ptxas and disassembling them with nvdisasm, in
//! batches on worker threads; a kernel ptxas rejects is pinned by line, or
//! found by splitting its batch.

use crate::sass::{self, SInst};
use crate::tools::Tools;
use anyhow::{bail, Result};
use std::collections::HashMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::kernel::kernel;

/// A kernel's machine code, or why there is none.
pub(super) type Listing = Result<Vec<SInst>, String>;

struct Compiled {
    /// Kernel index -> listing, or why it could not be compiled.
    progs: Vec<Result<Vec<SInst>, String>>,
}

/// A kernel around one instruction text: `(name, text) -> PTX`.
pub(super) type Wrap = fn(&str, &str) -> String;

fn compile_batch(tools: &Tools, texts: &[&str], dir: &Path, id: usize, wrap: Wrap) -> Compiled {
    let mut progs: Vec<Option<Result<Vec<SInst>, String>>> = vec![None; texts.len()];
    let mut stack: Vec<Vec<usize>> = vec![(0..texts.len()).collect()];
    let ptx = dir.join(format!("v{id}.ptx"));
    let cubin = dir.join(format!("v{id}.cubin"));
    while let Some(group) = stack.pop() {
        if group.is_empty() {
            continue;
        }
        let mut src = format!(
            ".version {}\n.target sm_90\n.address_size 64\n",
            tools.ptx_version
        );
        let mut starts = Vec::new();
        for &i in &group {
            starts.push(src.lines().count() + 1);
            src += &wrap(&format!("k{i}"), texts[i]);
        }
        let res = (|| -> Result<std::result::Result<String, String>> {
            std::fs::write(&ptx, &src)?;
            let out = Command::new(&tools.ptxas)
                .arg("-arch=sm_90")
                .arg(&ptx)
                .arg("-o")
                .arg(&cubin)
                .output()?;
            if let Some(sig) = out.status.signal() {
                return Ok(Err(format!("ptxas killed by signal {sig}")));
            }
            if !out.status.success() {
                return Ok(Err(String::from_utf8_lossy(&out.stderr).into_owned()));
            }
            let dis = Command::new(tools.nvdisasm()?)
                .arg("-c")
                .arg(&cubin)
                .output()?;
            if !dis.status.success() {
                bail!("nvdisasm failed: {}", String::from_utf8_lossy(&dis.stderr));
            }
            Ok(Ok(String::from_utf8_lossy(&dis.stdout).into_owned()))
        })();
        match res {
            Ok(Ok(listing)) => match sass::parse_listing(&listing) {
                Ok(funcs) => {
                    let by_name: HashMap<String, Vec<SInst>> = funcs.into_iter().collect();
                    for &i in &group {
                        progs[i] = Some(
                            by_name
                                .get(&format!("k{i}"))
                                .cloned()
                                .ok_or_else(|| "function missing from listing".to_string()),
                        );
                    }
                }
                Err(e) => group
                    .iter()
                    .for_each(|&i| progs[i] = Some(Err(format!("listing: {e:#}")))),
            },
            Ok(Err(msg)) => {
                // Pin errors on kernels by line; split when nothing can be pinned.
                let mut bad = Vec::new();
                for l in msg.lines() {
                    let Some(n) = l
                        .split_once(", line ")
                        .and_then(|x| x.1.split_once(';'))
                        .and_then(|x| x.0.trim().parse::<usize>().ok())
                    else {
                        continue;
                    };
                    if let Some(k) = starts.iter().rposition(|&s| s <= n) {
                        if !bad.contains(&k) {
                            bad.push(k);
                            progs[group[k]] = Some(Err(l.to_string()));
                        }
                    }
                }
                if bad.is_empty() {
                    if group.len() == 1 {
                        progs[group[0]] = Some(Err(msg.lines().next().unwrap_or("").to_string()));
                    } else {
                        let (a, b) = group.split_at(group.len() / 2);
                        stack.push(a.to_vec());
                        stack.push(b.to_vec());
                    }
                } else {
                    stack.push(
                        group
                            .iter()
                            .enumerate()
                            .filter(|(k, _)| !bad.contains(k))
                            .map(|(_, &i)| i)
                            .collect(),
                    );
                }
            }
            Err(e) => group
                .iter()
                .for_each(|&i| progs[i] = Some(Err(format!("{e:#}")))),
        }
    }
    Compiled {
        progs: progs
            .into_iter()
            .map(|p| p.unwrap_or_else(|| Err("not compiled".into())))
            .collect(),
    }
}

/// Compiles every kernel text on `jobs` worker threads, `batch` kernels per
/// ptxas run. Entry `i` is the listing of `texts[i]`.
pub(super) fn compile_all(
    tools: &Tools,
    texts: &[&str],
    batch: usize,
    jobs: usize,
) -> Result<Vec<Option<Listing>>> {
    compile_all_with(tools, texts, batch, jobs, kernel)
}

/// [`compile_all`] with each text wrapped by `wrap` instead of [`kernel`].
pub(super) fn compile_all_with(
    tools: &Tools,
    texts: &[&str],
    batch: usize,
    jobs: usize,
    wrap: Wrap,
) -> Result<Vec<Option<Listing>>> {
    let dir = std::env::temp_dir().join(format!("xtask-values-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let t0 = std::time::Instant::now();
    let chunks: Vec<(usize, usize)> = (0..texts.len())
        .step_by(batch.max(1))
        .map(|s| (s, (s + batch).min(texts.len())))
        .collect();
    let next = AtomicUsize::new(0);
    let progs: Mutex<Vec<Option<Listing>>> = Mutex::new(vec![None; texts.len()]);
    std::thread::scope(|s| {
        for w in 0..jobs.max(1) {
            let (chunks, next, progs, dir) = (&chunks, &next, &progs, &dir);
            s.spawn(move || loop {
                let c = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(lo, hi)) = chunks.get(c) else {
                    break;
                };
                let got = compile_batch(tools, &texts[lo..hi], dir, w, wrap);
                let mut p = progs.lock().unwrap_or_else(|e| e.into_inner());
                for (k, r) in got.progs.into_iter().enumerate() {
                    p[lo + k] = Some(r);
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let progs = progs.into_inner().unwrap_or_else(|e| e.into_inner());
    eprintln!(
        "compiled and disassembled {} variants in {:.1}s",
        texts.len(),
        t0.elapsed().as_secs_f64()
    );
    Ok(progs)
}
