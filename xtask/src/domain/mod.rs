//! `domain-check`: the whole-domain GPU outputs of tools/gpu/domain compared
//! with sim-isa's semantics, form by form (issue 23); `--extract` cuts the
//! small committed test file out of them; `--fake` writes a file of sim-isa's
//! own values (to test this command and the format without a GPU).

pub mod format;
pub mod sim;

use anyhow::{Context, Result};
use format::{Kind, Record, N};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub struct Opts {
    pub files: Vec<PathBuf>,
    pub jobs: usize,
    pub show: usize,
    /// Form indices to check (all when empty).
    pub only: Vec<u32>,
    pub extract: Option<PathBuf>,
    /// Keys per two16/one32 form in an extract or fake file.
    pub samples: usize,
    /// With `extract`: one16 tables cut to this many keys too (whole when None).
    pub tables: Option<usize>,
    pub fake: Option<PathBuf>,
    /// With `fake`: forms.txt to take the forms from.
    pub forms: PathBuf,
    /// With `fake`: the first value of each record off by one (a test that the
    /// check notices).
    pub tamper: bool,
}

/// Fixed keys for samples: special 16-bit patterns (zeros, subnormal edges,
/// one, the largest finite, infinities, NaNs of f16 and bf16) first, then a
/// fixed pseudo-random sequence, `count` in all.
pub fn sample_keys(count: usize) -> Vec<u32> {
    const SPECIAL: [u32; 24] = [
        0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x83ff, 0x8400, 0x3c00, 0xbc00, 0x7bff,
        0xfbff, 0x7c00, 0xfc00, 0x7c01, 0x7e00, 0x7fff, 0xffff, 0x007f, 0x0080, 0x3f80, 0x7f7f,
        0x7f80, 0x7fc0,
    ];
    let mut keys: Vec<u32> = SPECIAL.iter().copied().take(count).collect();
    let mut x = 0x2545_f491u32;
    while keys.len() < count.min(N) {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let k = x >> 16;
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}

pub fn run(o: &Opts) -> Result<bool> {
    if let Some(out) = &o.fake {
        return fake(o, out).map(|()| true);
    }
    let mut records = Vec::new();
    for f in &o.files {
        records.extend(format::read(f)?);
    }
    records.retain(|r| o.only.is_empty() || o.only.contains(&r.index));
    if let Some(out) = &o.extract {
        return extract(&records, out, o.samples, o.tables).map(|()| true);
    }
    let (mut equal, mut differ, mut unusable) = (0, 0, 0);
    for r in &records {
        let t = Instant::now();
        let checked = check(r, o);
        let head = format!("[{}] {} ({}", r.index, r.text, r.kind.name());
        let (n, secs) = (r.values.len(), t.elapsed().as_secs_f64());
        match checked {
            Ok(diffs) if diffs.is_empty() => {
                equal += 1;
                println!("{head}, {n} values): equal ({secs:.1} s)");
            }
            Ok(diffs) => {
                differ += 1;
                let d = diffs.len();
                println!("{head}): {d} of {n} values differ ({secs:.1} s)");
                for (a, gpu, sim) in diffs.iter().take(o.show) {
                    println!("    a={a:#06x}: gpu {gpu:#010x}, sim {sim:#010x}");
                }
            }
            Err(e) => {
                unusable += 1;
                println!("[{}] {}: {e:#}", r.index, r.text);
            }
        }
    }
    println!(
        "{equal} equal, {differ} differ, {unusable} not checked ({} forms)",
        records.len()
    );
    Ok(differ == 0 && unusable == 0)
}

/// (a, GPU value, sim-isa value) for every key where they differ.
fn check(r: &Record, o: &Opts) -> Result<Vec<(u32, u32, u32)>> {
    let form = sim::Form::new(&r.text)?;
    if form.kind != r.kind {
        anyhow::bail!(
            "kind {} in the file, {} for sim-isa",
            r.kind.name(),
            form.kind.name()
        );
    }
    let sim = form.values(&r.keys, o.jobs)?;
    Ok(r.keys
        .iter()
        .zip(&r.values)
        .zip(&sim)
        .filter(|((_, g), s)| g != s)
        .map(|((k, g), s)| (*k, *g, *s))
        .collect())
}

fn sampled(r: &Record, keys: &[u32]) -> Record {
    let mut out = r.clone();
    out.keys.clear();
    out.values.clear();
    for &k in keys {
        if let Some(i) = r.keys.iter().position(|x| *x == k) {
            out.keys.push(k);
            out.values.push(r.values[i]);
        }
    }
    out
}

fn extract(records: &[Record], out: &Path, samples: usize, tables: Option<usize>) -> Result<()> {
    let keys = sample_keys(samples);
    let table_keys = tables.map(sample_keys);
    let cut: Vec<Record> = records
        .iter()
        .map(|r| match (r.kind, &table_keys) {
            (Kind::One16, None) => r.clone(),
            (Kind::One16, Some(k)) => sampled(r, k),
            (Kind::Two16 | Kind::One32, _) => sampled(r, &keys),
        })
        .collect();
    format::write(out, &cut)?;
    let size = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    println!("{}: {} forms, {size} bytes", out.display(), cut.len());
    Ok(())
}

fn fake(o: &Opts, out: &Path) -> Result<()> {
    let text = std::fs::read_to_string(&o.forms)
        .with_context(|| format!("reading {}", o.forms.display()))?;
    let forms = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    let keys = sample_keys(o.samples);
    let mut records = Vec::new();
    for (i, t) in forms.enumerate() {
        let i = i as u32;
        if !o.only.is_empty() && !o.only.contains(&i) {
            continue;
        }
        let form = sim::Form::new(t).with_context(|| format!("form {i}: {t}"))?;
        let all: Vec<u32> = (0..N as u32).collect();
        let k = if form.kind == Kind::One16 {
            &all
        } else {
            &keys
        };
        // As the GPU file: 2 bytes for a 16-bit table entry, else 4.
        let elem = match (form.kind, t.split_whitespace().nth(1)) {
            (Kind::One16, Some(d)) if d.starts_with("%h") => 2,
            _ => 4,
        };
        let mut values = form.values(k, o.jobs)?;
        if o.tamper {
            if let Some(v) = values.first_mut() {
                *v ^= 1;
            }
        }
        let mut r = Record::full(i, t, form.kind, elem, values);
        r.keys = k.clone();
        records.push(r);
    }
    format::write(out, &records)?;
    println!(
        "{}: {} forms of sim-isa's values (fake GPU file)",
        out.display(),
        records.len()
    );
    Ok(())
}
