//! Part 1: does sim-isa accept exactly what ptxas 11.8 accepts, per target?

use crate::gen::{self, Case};
use crate::ptxas::{self, Verdict};
use crate::tools::{Common, Tools};
use anyhow::{Context, Result};
use sim_isa::{ErrorKind, PtxVersion, Symbols, Target};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Targets compared; `sm_30` is assembled as `sm_35` (ptxas 11.8's oldest).
pub const ARCHS: [&str; 3] = ["sm_30", "sm_53", "sm_90"];

/// Options of `xtask validity`.
#[derive(Clone, Debug)]
pub struct Opts {
    /// Number of random instructions.
    pub count: usize,
    /// Seed, parallelism, batch size, disagreements shown.
    pub common: Common,
    /// Where to write disagreements as regression cases (JSON Lines).
    pub regressions: Option<PathBuf>,
    /// Verdict cache (text+arch -> verdict), reused across runs.
    pub cache: Option<PathBuf>,
    /// Write every case with ptxas's verdicts here (tab-separated), for review.
    pub dump: Option<PathBuf>,
}

/// Texts that must always be in the run: the spec's examples and the errata's.
pub const FIXED: &[&str] = &[
    "vadd2.s32.s32.u32.sat %r1, %r2, %r3, %r1;",
    "vsub2.s32.s32.s32.sat %r1.h0, %r2.h10, %r3.h32, %r1;",
    "vmin2.s32.u32.u32.add %r1.h10, %r2.h00, %r3.h22, %r1;",
    "vadd4.s32.s32.u32.sat %r1, %r2, %r3, %r1;",
    "vsub4.s32.s32.s32.sat %r1.b0, %r2.b3210, %r3.b7654, %r1;",
    "vmin4.s32.u32.u32.add %r1.b00, %r2.b0000, %r3.b2222, %r1;",
    "vset2.s32.u32.lt %r1, %r2, %r3, %r4;",
    "vset2.u32.u32.ne.add %r1, %r2, %r3, %r4;",
    "vset4.s32.u32.lt %r1, %r2, %r3, %r4;",
    "vset4.u32.u32.ne.max %r1, %r2, %r3, %r4;",
    "vadd4.sat.s32.s32.s32 %r1, %r2, %r3, %r4;",
    "vadd4.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;",
    "vadd2.u32.u32.u32 %r1.h01, %r2, %r3, %r4;",
    "vadd4.u32.u32.u32 %r1.b01, %r2, %r3, %r4;",
    "vadd4.u32.u32.u32 %r1.b02, %r2, %r3, %r4;",
    "vadd4.u32.u32.u32 %r1, %r2.h10, %r3, %r4;",
    "vadd2.u32.u32.u32 %r1, %r2.b3210, %r3, %r4;",
    "@%p1 set.lt.and.f32.s32 %r1, %r2, %r3, %p2;",
    "set.eq.u32.u32 %r1, %r2, %r3;",
    "setp.lt.and.s32 %p1|%p2, %r1, %r2, %p3;",
    "@%p2 setp.eq.u32 %p1, %r1, %r2;",
    "selp.s32 %r1, %r2, %r3, %p1;",
    "@%p2 selp.f32 %r1, %r2, %r3, %p1;",
    "slct.u32.s32 %r1, %r2, %r3, %r4;",
    "slct.ftz.u64.f32 %rd1, %rd2, %rd3, %r4;",
    "set.lt.and.f16.f16 %h1, %h2, %h3, %p1;",
    "set.eq.f16x2.f16x2 %r1, %r2, %r3;",
    "set.eq.u32.f16x2 %r1, %r2, %r3;",
    "set.lt.and.u16.f16 %h1, %h2, %h3, %p1;",
    "set.ltu.or.bf16.f16 %h1, %h2, %h3, %p1;",
    "set.equ.bf16x2.bf16x2 %r1, %r2, %r3;",
    "set.geu.s32.bf16x2 %r1, %r2, %r3;",
    "set.num.xor.s32.bf16 %r1, %h2, %h3, %p1;",
    "set.lt.u32.s32 %r1, %r2, %r3;",
    "set.lo.u32.s32 %r1, %r2, %r3;",
    "set.lt.u32.b32 %r1, %r2, %r3;",
    "setp.equ.s32 %p1, %r1, %r2;",
    "setp.lo.f32 %p1, %r1, %r2;",
    "set.lt.ftz.f16.f32 %h1, %r2, %r3;",
    "set.lt.ftz.f16x2.f16x2 %r1, %r2, %r3;",
    "set.lt.ftz.u32.f64 %r1, %rd2, %rd3;",
    "set.lt.ftz.u32.s32 %r1, %r2, %r3;",
    "set.lt.ftz.u32.bf16 %r1, %h2, %h3;",
    "set.lt.bf16.bf16 %h1, %h2, %h3;",
    "set.lt.f16.bf16 %h1, %h2, %h3;",
    "set.lt.s16.u16 %h1, %h2, %h3;",
    "slct.ftz.u32.s32 %r1, %r2, %r3, %r4;",
    "@%p3 setp.ne.s32 _|%p2, %r1, %r2;",
    "setp.ne.s32 _|%p2, %r1, %r2;",
    "setp.ne.s32 %p1|_, %r1, %r2;",
    "set.lt.u32.u32 %r1, 5, %r2;",
    "setp.lt.f32 %p1, %r1, 0f3F800000;",
    "selp.u32 %r1, 1, 0, %p1;",
    "setp.lt.or.s32 %p1, %r1, %r2, 1;",
    "vadd4.u32.u32.u32 %r1, %r2, 7, %r4;",
];

/// ptxas answers that no single three-way outcome can express, named here so
/// they are counted apart instead of hiding among agreements or failures.
/// `vset2/vset4` with `lo ls hi hs` and an unsigned b: ptxas 11.8 accepts it for
/// sm_35 (native VSET) but rejects it for sm_53/sm_90 with one "Mismatch between
/// instruction type and comparison qualifier" per emulated lane, i.e. the error
/// comes from its own emulation sequence. The PTX text lists only
/// eq/ne/lt/le/gt/ge for vset, which is what sim-isa follows.
fn ptxas_quirk(text: &str, row: &[Verdict]) -> Option<&'static str> {
    let body = text.trim_start_matches(|c: char| c != 'v').trim_start();
    let unsigned_cmp = [".lo", ".ls", ".hi", ".hs"]
        .iter()
        .any(|c| body.contains(&format!("{c} ")) || body.contains(&format!("{c}.")));
    let split = matches!(row.first(), Some(Verdict::Accept))
        && row[1..].iter().all(|v| matches!(v, Verdict::Invalid(_)));
    (body.starts_with("vset") && unsigned_cmp && split).then_some("vset-unsigned-cmp")
}

fn sim_outcome(text: &str, arch: &str) -> Result<(), ErrorKind> {
    let target = Target::parse(arch).expect("fixed target names parse");
    let mut syms = Symbols::new();
    sim_isa::parse::parse_for_target(text, &mut syms, target, Some(PtxVersion::new(7, 8)))
        .map(|_| ())
        .map_err(|e| e.kind())
}

fn verdict_kind(v: &Verdict) -> Option<Result<(), ErrorKind>> {
    match v {
        Verdict::Accept => Some(Ok(())),
        Verdict::Arch(_) => Some(Err(ErrorKind::Unsupported)),
        Verdict::Invalid(_) => Some(Err(ErrorKind::Invalid)),
        Verdict::NoAnswer(_) => None,
    }
}

fn show(o: &Result<(), ErrorKind>) -> &'static str {
    match o {
        Ok(()) => "accept",
        Err(ErrorKind::Invalid) => "invalid",
        Err(ErrorKind::Unsupported) => "arch",
        Err(ErrorKind::Unimplemented) => "unimplemented",
    }
}

fn esc(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn load_cache(p: &Path) -> HashMap<(String, String), Verdict> {
    let mut m = HashMap::new();
    let Ok(text) = std::fs::read_to_string(p) else {
        return m;
    };
    for l in text.lines() {
        let f: Vec<&str> = l.splitn(4, '\t').collect();
        if f.len() < 3 {
            continue;
        }
        let msg = f.get(3).unwrap_or(&"").to_string();
        let v = match f[2] {
            "accept" => Verdict::Accept,
            "arch" => Verdict::Arch(msg),
            "invalid" => Verdict::Invalid(msg),
            _ => continue,
        };
        m.insert((f[0].to_string(), f[1].to_string()), v);
    }
    m
}

/// Verdicts per target (rows in [`ARCHS`] order), per case.
type Verdicts = Vec<Vec<Option<Verdict>>>;

/// Runs part 1. Returns the number of failed instructions.
pub fn run(tools: &Tools, o: &Opts) -> Result<usize> {
    let mut cases: Vec<Case> = FIXED
        .iter()
        .map(|t| Case {
            text: t.to_string(),
            family: "fixed",
            mutation: None,
        })
        .collect();
    cases.extend(gen::cases(
        o.common.seed,
        o.count.saturating_sub(FIXED.len()),
    ));
    let texts: Vec<String> = cases.iter().map(|c| c.text.clone()).collect();
    let verdicts = gather_verdicts(tools, o, &texts)?;
    if let Some(p) = &o.dump {
        write_dump(p, &cases, &verdicts)?;
    }
    let t = compare(&cases, &verdicts, o.common.show);
    println!("by family/mutation (passed/failed):");
    for (k, (p, f)) in &t.per_mut {
        println!("  {k:<40} {p:>6} {f:>6}");
    }
    for (q, (n, ex)) in &t.quirks {
        println!("skipped {n} for the ptxas quirk {q}, e.g. {ex}");
    }
    println!(
        "{} of {} instructions were accepted by ptxas on at least one target",
        t.accepted_somewhere,
        cases.len()
    );
    if let Some(p) = &o.regressions {
        std::fs::write(p, &t.regress).with_context(|| format!("writing {}", p.display()))?;
    }
    if t.skipped > 0 {
        println!(
            "{} passed, {} failed, {} skipped",
            t.passed, t.failed, t.skipped
        );
    } else {
        println!("{} passed, {} failed", t.passed, t.failed);
    }
    Ok(t.failed)
}

/// ptxas's verdict on every text for every target: from the cache where it
/// has one, from ptxas otherwise (and then appended to the cache).
fn gather_verdicts(tools: &Tools, o: &Opts, texts: &[String]) -> Result<Verdicts> {
    let mut cache = o.cache.as_deref().map(load_cache).unwrap_or_default();
    let mut verdicts: Verdicts = vec![vec![None; texts.len()]; ARCHS.len()];
    let mut todo = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let mut need = false;
        for (ai, a) in ARCHS.iter().enumerate() {
            match cache.get(&(a.to_string(), t.clone())) {
                Some(v) => verdicts[ai][i] = Some(v.clone()),
                None => need = true,
            }
        }
        if need {
            todo.push(i);
        }
    }
    if todo.is_empty() {
        return Ok(verdicts);
    }
    let dir = std::env::temp_dir().join(format!("xtask-validity-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let sub: Vec<String> = todo.iter().map(|&i| texts[i].clone()).collect();
    let t0 = std::time::Instant::now();
    let got = ptxas::judge_all(tools, &ARCHS, &sub, o.common.batch, o.common.jobs, &dir);
    eprintln!(
        "ptxas judged {} texts x {} targets in {:.1}s",
        sub.len(),
        ARCHS.len(),
        t0.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
    let mut add = String::new();
    for (ai, row) in got.into_iter().enumerate() {
        for (k, v) in row.into_iter().enumerate() {
            let i = todo[k];
            let (tag, msg) = match &v {
                Verdict::Accept => ("accept", ""),
                Verdict::Arch(m) => ("arch", m.as_str()),
                Verdict::Invalid(m) => ("invalid", m.as_str()),
                Verdict::NoAnswer(_) => ("", ""),
            };
            if !tag.is_empty() {
                add += &format!(
                    "{}\t{}\t{tag}\t{}\n",
                    ARCHS[ai],
                    texts[i],
                    msg.replace(['\t', '\n'], " ")
                );
                cache.insert((ARCHS[ai].to_string(), texts[i].clone()), v.clone());
            }
            verdicts[ai][i] = Some(v);
        }
    }
    if let Some(p) = &o.cache {
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d)?;
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)?;
        f.write_all(add.as_bytes())?;
    }
    Ok(verdicts)
}

/// The verdict of target row `ai` on case `i`; `NoAnswer` where none came.
fn verdict_at(verdicts: &Verdicts, ai: usize, i: usize) -> Verdict {
    verdicts[ai][i]
        .clone()
        .unwrap_or(Verdict::NoAnswer("missing".into()))
}

/// `--dump`: every case with ptxas's verdicts, tab-separated.
fn write_dump(p: &Path, cases: &[Case], verdicts: &Verdicts) -> Result<()> {
    let mut d = String::new();
    for (i, c) in cases.iter().enumerate() {
        d += &format!(
            "{}\t{}\t{}",
            c.family,
            c.mutation.unwrap_or("valid"),
            c.text
        );
        for ai in 0..verdicts.len() {
            d += &format!("\t{:?}", verdict_at(verdicts, ai, i));
        }
        d.push('\n');
    }
    std::fs::write(p, d).with_context(|| format!("writing {}", p.display()))
}

/// The comparison's counts, per family/mutation and in total, and the
/// disagreements as regression cases (JSON Lines).
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
    accepted_somewhere: usize,
    per_mut: BTreeMap<String, (usize, usize)>,
    quirks: BTreeMap<&'static str, (usize, String)>,
    regress: String,
    shown: usize,
}

/// Compares sim-isa with ptxas on every case, printing the first `show`
/// disagreements.
fn compare(cases: &[Case], verdicts: &Verdicts, show: usize) -> Tally {
    let mut t = Tally::default();
    for (i, c) in cases.iter().enumerate() {
        let row: Vec<Verdict> = (0..verdicts.len())
            .map(|ai| verdict_at(verdicts, ai, i))
            .collect();
        if let Some(q) = ptxas_quirk(&c.text, &row) {
            let e = t.quirks.entry(q).or_insert((0, c.text.clone()));
            e.0 += 1;
            t.skipped += 1;
            continue;
        }
        let (any, ok) = compare_case(c, &row, show, &mut t);
        let e = t
            .per_mut
            .entry(format!("{}/{}", c.family, c.mutation.unwrap_or("valid")))
            .or_default();
        if !any {
            t.skipped += 1;
        } else if ok {
            t.passed += 1;
            e.0 += 1;
        } else {
            t.failed += 1;
            e.1 += 1;
        }
    }
    t
}

/// Compares one case on every target ptxas answered for. Returns whether
/// ptxas answered for any, and whether sim-isa agreed on all of them.
fn compare_case(c: &Case, row: &[Verdict], show_max: usize, t: &mut Tally) -> (bool, bool) {
    let mut ok = true;
    let mut any = false;
    let mut acc = false;
    for (a, v) in ARCHS.iter().zip(row) {
        let Some(want) = verdict_kind(v) else {
            continue;
        };
        any = true;
        acc |= want.is_ok();
        let got = std::panic::catch_unwind(|| sim_outcome(&c.text, a));
        let got = match got {
            Ok(g) => g,
            Err(_) => {
                ok = false;
                if t.shown < show_max {
                    println!("PANIC {a}: {}", c.text);
                    t.shown += 1;
                }
                continue;
            }
        };
        if got != want {
            ok = false;
            let msg = match v {
                Verdict::Arch(m) | Verdict::Invalid(m) => m.clone(),
                Verdict::Accept | Verdict::NoAnswer(_) => String::new(),
            };
            if t.shown < show_max {
                println!(
                    "FAIL {a}: {}  ptxas={} sim-isa={}  [{}] {}",
                    c.text,
                    show(&want),
                    show(&got),
                    c.mutation.unwrap_or("valid"),
                    msg
                );
                t.shown += 1;
            }
            t.regress += &format!(
                "{{\"arch\":{},\"ptx\":{},\"expect\":\"{}\",\"name\":{},\"ptxas\":{}}}\n",
                esc(a),
                esc(&c.text),
                show(&want),
                esc(&format!("{}/{}", c.family, c.mutation.unwrap_or("valid"))),
                esc(&msg)
            );
        }
    }
    t.accepted_somewhere += acc as usize;
    (any, ok)
}
