//! Batch judging of instruction texts with ptxas.
//!
//! ptxas reports every semantic error with its line, but stops at the first
//! syntax error ("fatal : Parsing error") and crashes outright on some valid
//! text (erratum 20). So a batch is assembled whole; lines it names are
//! decided; the undecided rest is assembled again until a run succeeds
//! (those lines are accepted). A crash splits the batch in halves, and a
//! single crashing line is "no answer", never a rejection.

use crate::tools::Tools;
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// ptxas's answer for one instruction on one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Assembled.
    Accept,
    /// Rejected only with "requires .target sm_XY or higher" messages.
    Arch(String),
    /// Rejected otherwise.
    Invalid(String),
    /// ptxas crashed (erratum 20) or gave no usable answer.
    NoAnswer(String),
}

/// Register declarations every wrapper kernel carries; the generator only
/// names registers from these pools.
pub const DECLS: &str = ".reg .b32 %r<9>; .reg .b16 %h<9>; .reg .b64 %rd<9>; .reg .pred %p<9>;\n\
.reg .b32 r<9>; .reg .b16 h<9>; .reg .b64 rd<9>; .reg .pred p<9>;";

/// ptxas target name for a simulator target (`sm_30` is assembled as `sm_35`,
/// the oldest target ptxas 11.8 has).
pub fn ptxas_arch(arch: &str) -> &str {
    if arch == "sm_30" {
        "sm_35"
    } else {
        arch
    }
}

fn kernel(arch: &str, lines: &[&str]) -> (String, usize) {
    let mut s = format!(
        ".version 7.8\n.target {}\n.address_size 64\n.visible .entry k() {{\n{DECLS}\n",
        ptxas_arch(arch)
    );
    let first = s.lines().count() + 1;
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    s.push_str("ret;\n}\n");
    (s, first)
}

enum Run {
    Ok,
    Crash(String),
    Errors(BTreeMap<usize, Vec<String>>, String),
}

fn run_ptxas(tools: &Tools, arch: &str, src: &str, path: &Path) -> Run {
    if let Err(e) = std::fs::write(path, src) {
        return Run::Crash(format!("cannot write {}: {e}", path.display()));
    }
    let cubin = path.with_extension("cubin");
    let out = Command::new(&tools.ptxas)
        .arg(format!("-arch={}", ptxas_arch(arch)))
        .arg(path)
        .arg("-o")
        .arg(&cubin)
        .output();
    let _ = std::fs::remove_file(&cubin);
    let out = match out {
        Ok(o) => o,
        Err(e) => return Run::Crash(format!("cannot run ptxas: {e}")),
    };
    if let Some(sig) = out.status.signal() {
        return Run::Crash(format!("ptxas killed by signal {sig}"));
    }
    if out.status.success() {
        return Run::Ok;
    }
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    let mut by_line: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for l in text.lines() {
        // "ptxas k.ptx, line 7; error   : Illegal combination ..."
        let Some(rest) = l.split_once(", line ").map(|x| x.1) else {
            continue;
        };
        let Some((num, msg)) = rest.split_once(';') else {
            continue;
        };
        let msg = msg.trim();
        if msg.starts_with("warning") {
            continue;
        }
        if let Ok(n) = num.trim().parse::<usize>() {
            let msg = msg.split_once(':').map(|x| x.1.trim()).unwrap_or(msg);
            by_line.entry(n).or_default().push(msg.to_string());
        }
    }
    Run::Errors(by_line, text)
}

fn classify(msgs: &[String]) -> Verdict {
    let all = msgs.join(" | ");
    if msgs.iter().all(|m| m.contains("requires .target")) {
        Verdict::Arch(all)
    } else {
        Verdict::Invalid(all)
    }
}

/// Judges `texts` on `arch`, one line each, `batch` lines per ptxas run.
fn judge_chunk(tools: &Tools, arch: &str, texts: &[String], dir: &Path, id: usize) -> Vec<Verdict> {
    let mut res: Vec<Option<Verdict>> = vec![None; texts.len()];
    let mut stack: Vec<Vec<usize>> = vec![(0..texts.len()).collect()];
    let path: PathBuf = dir.join(format!("j{id}.ptx"));
    while let Some(group) = stack.pop() {
        if group.is_empty() {
            continue;
        }
        let lines: Vec<&str> = group.iter().map(|&i| texts[i].as_str()).collect();
        let (src, first) = kernel(arch, &lines);
        match run_ptxas(tools, arch, &src, &path) {
            Run::Ok => group.iter().for_each(|&i| res[i] = Some(Verdict::Accept)),
            Run::Crash(why) => {
                if group.len() == 1 {
                    res[group[0]] = Some(Verdict::NoAnswer(why));
                } else {
                    let (a, b) = group.split_at(group.len() / 2);
                    stack.push(a.to_vec());
                    stack.push(b.to_vec());
                }
            }
            Run::Errors(by_line, raw) => {
                let mut rest = Vec::new();
                for (k, &i) in group.iter().enumerate() {
                    match by_line.get(&(first + k)) {
                        Some(m) => res[i] = Some(classify(m)),
                        None => rest.push(i),
                    }
                }
                if rest.len() == group.len() {
                    // Errors outside the instruction lines: nothing to pin them on.
                    if group.len() == 1 {
                        res[group[0]] = Some(Verdict::NoAnswer(
                            raw.lines().next().unwrap_or("").to_string(),
                        ));
                    } else {
                        let (a, b) = group.split_at(group.len() / 2);
                        stack.push(a.to_vec());
                        stack.push(b.to_vec());
                    }
                } else {
                    stack.push(rest);
                }
            }
        }
    }
    res.into_iter()
        .map(|v| v.unwrap_or(Verdict::NoAnswer("undecided".into())))
        .collect()
}

/// Judges every text on every arch with `jobs` ptxas processes at a time.
/// Returns `verdicts[arch_index][text_index]`.
pub fn judge_all(
    tools: &Tools,
    archs: &[&str],
    texts: &[String],
    batch: usize,
    jobs: usize,
    dir: &Path,
) -> Vec<Vec<Verdict>> {
    let mut tasks = Vec::new();
    for (ai, _) in archs.iter().enumerate() {
        for start in (0..texts.len()).step_by(batch.max(1)) {
            tasks.push((ai, start, (start + batch).min(texts.len())));
        }
    }
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Vec<Option<Verdict>>>> =
        Mutex::new(vec![vec![None; texts.len()]; archs.len()]);
    std::thread::scope(|s| {
        for w in 0..jobs.max(1) {
            let (tasks, next, out) = (&tasks, &next, &out);
            s.spawn(move || loop {
                let t = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(ai, lo, hi)) = tasks.get(t) else {
                    break;
                };
                let v = judge_chunk(tools, archs[ai], &texts[lo..hi], dir, w);
                let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
                for (k, verdict) in v.into_iter().enumerate() {
                    o[ai][lo + k] = Some(verdict);
                }
            });
        }
    });
    out.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|row| {
            row.into_iter()
                .map(|v| v.unwrap_or(Verdict::NoAnswer("not run".into())))
                .collect()
        })
        .collect()
}
