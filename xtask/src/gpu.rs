//! Part 3: conformance vectors -> PTX kernels + manifest for `tools/gpu/run.py`,
//! which runs them on an NVIDIA GPU and writes the observed values back.

use crate::tools::Tools;
use crate::values;
use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Renames every register of `text` to the kernel pools (`%rN`, `%hN`, `%rdN`,
/// `%pN`) by its width. Returns the new text and `(pool name, original name)`.
fn pooled(text: &str, widths: &BTreeMap<String, u32>) -> Result<(String, Vec<(String, String)>)> {
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    let mut counters: BTreeMap<u32, u32> = BTreeMap::new();
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let starts = c == '%' || c.is_ascii_alphabetic() || c == '_' || c == '$';
        if starts
            && (i == 0
                || !(chars[i - 1].is_ascii_alphanumeric()
                    || chars[i - 1] == '.'
                    || chars[i - 1] == '_'))
        {
            let mut j = i + 1;
            while j < chars.len()
                && (chars[j].is_ascii_alphanumeric() || chars[j] == '_' || chars[j] == '$')
            {
                j += 1;
            }
            let name: String = chars[i..j].iter().collect();
            if let Some(&w) = widths.get(&name) {
                let new = match map.get(&name) {
                    Some(n) => n.clone(),
                    None => {
                        let k = counters.entry(w).or_insert(0);
                        *k += 1;
                        if *k > 8 {
                            bail!("too many {w}-bit registers in '{text}'");
                        }
                        let n = gen_pool(w, *k as u8);
                        map.insert(name.clone(), n.clone());
                        n
                    }
                };
                out.push_str(&new);
            } else {
                out.push_str(&name);
            }
            i = j;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok((
        out,
        map.into_iter().map(|(orig, pool)| (pool, orig)).collect(),
    ))
}

fn gen_pool(w: u32, k: u8) -> String {
    crate::gen::reg_name(w, k, false)
}

/// Text with pooled registers, slots (name, width), destinations, vectors;
/// keyed by the original text, whose register names the vectors use.
type KernelVectors = (String, Vec<(String, u32)>, Vec<String>, Vec<Value>);

/// Writes `kernels.ptx` and `manifest.json` into `outdir` for every vector of
/// `vectors` that has expected values and a target whose semantics a modern
/// GPU shares (sm_20 and up; sm_1x flushes f32 subnormals). Assembles the
/// module with ptxas when it is available. Returns the number of vectors.
pub fn gen_kernels(
    tools: Option<&Tools>,
    vectors: &Path,
    outdir: &Path,
    arch: &str,
    ptx_version: &str,
) -> Result<usize> {
    let text = std::fs::read_to_string(vectors)
        .with_context(|| format!("reading {}", vectors.display()))?;
    let mut kernels: BTreeMap<String, KernelVectors> = BTreeMap::new();
    let mut count = 0;
    for (n, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let v: Value =
            serde_json::from_str(l).with_context(|| format!("line {}: bad JSON", n + 1))?;
        let (Some(ptx), Some(inp), Some(exp)) =
            (v["ptx"].as_str(), v["in"].as_object(), v["out"].as_object())
        else {
            continue;
        };
        let sm: u32 = v["arch"]
            .as_str()
            .and_then(|a| a.strip_prefix("sm_"))
            .and_then(|d| d.trim_end_matches(['a', 'f']).parse().ok())
            .unwrap_or(0);
        if sm < 20 {
            continue;
        }
        let mut syms = sim_isa::Symbols::new();
        let Ok(inst) = sim_isa::parse::parse_instruction(ptx, &mut syms) else {
            continue;
        };
        let mut widths = BTreeMap::new();
        for u in inst.reg_uses().iter() {
            widths.insert(syms.name(u.reg).to_string(), u.bits);
        }
        let (ptext, names) = pooled(ptx, &widths)?;
        let (regs, dsts) = values::layout(&ptext);
        let to_orig = |p: &str| {
            names
                .iter()
                .find(|(pool, _)| pool == p)
                .map(|x| x.1.clone())
                .unwrap_or_else(|| p.to_string())
        };
        let slots: Vec<(String, u32)> = regs.iter().map(|r| (to_orig(&r.name), r.width)).collect();
        let mut ins = Vec::new();
        for (name, w) in &slots {
            let val = inp
                .get(name)
                .with_context(|| format!("line {}: \"in\" lacks {name}", n + 1))?;
            let raw = match val {
                Value::Bool(b) => *b as u64,
                Value::String(s) => u64::from_str_radix(s.trim_start_matches("0x"), 16)
                    .with_context(|| format!("line {}: {name}", n + 1))?,
                _ => bail!("line {}: bad value for {name}", n + 1),
            };
            let _ = w;
            ins.push(format!("0x{raw:x}"));
        }
        let e = kernels.entry(ptx.to_string()).or_insert_with(|| {
            (
                ptext.clone(),
                slots.clone(),
                dsts.iter().map(|d| to_orig(d)).collect(),
                Vec::new(),
            )
        });
        e.3.push(json!({"line": n + 1, "in": ins, "expect": Value::Object(exp.clone()), "arch": v["arch"]}));
        count += 1;
    }
    std::fs::create_dir_all(outdir)?;
    let mut module = format!(".version {ptx_version}\n.target TARGET\n.address_size 64\n");
    let mut manifest = Vec::new();
    for (k, (orig, (ptext, slots, dsts, vecs))) in kernels.iter().enumerate() {
        let name = format!("k{k}");
        module += &values::kernel_with(&name, ptext, true);
        manifest.push(json!({
            "kernel": name,
            "ptx": orig,
            "slots": slots.iter().map(|(n, w)| json!({"name": n, "width": w})).collect::<Vec<_>>(),
            "dsts": dsts,
            "vectors": vecs,
        }));
    }
    let module = module.replacen("TARGET", arch, 1);
    std::fs::write(outdir.join("kernels.ptx"), &module)?;
    std::fs::write(
        outdir.join("manifest.json"),
        serde_json::to_string_pretty(
            &json!({"target": arch, "source": vectors.display().to_string(), "kernels": manifest}),
        )?,
    )?;
    if let Some(t) = tools {
        let out = Command::new(&t.ptxas)
            .arg(format!("-arch={arch}"))
            .arg(outdir.join("kernels.ptx"))
            .arg("-o")
            .arg(outdir.join("kernels.cubin"))
            .output()?;
        if !out.status.success() {
            bail!(
                "ptxas rejected the generated kernels:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        println!("ptxas {arch}: {} kernels assemble", manifest.len());
    }
    println!(
        "{count} vectors in {} kernels -> {}",
        manifest.len(),
        outdir.display()
    );
    Ok(count)
}

fn parse_hex(v: &Value) -> Option<u64> {
    match v {
        Value::Bool(b) => Some(*b as u64),
        Value::String(s) => u64::from_str_radix(s.trim_start_matches("0x"), 16).ok(),
        _ => None,
    }
}

/// Runs the harness's kernels without a GPU: assembles `dir/kernels.ptx` for
/// sm_90, disassembles it and executes every thread with the SASS interpreter,
/// packing and unpacking the buffers exactly as `tools/gpu/run.py` does. It
/// checks the generated kernels and the manifest end to end; it is not a GPU
/// measurement. Returns the number of failed vectors.
pub fn simulate(tools: &Tools, dir: &Path) -> Result<usize> {
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json"))?)?;
    let cubin = dir.join("kernels.sim.cubin");
    let out = Command::new(&tools.ptxas)
        .arg("-arch=sm_90")
        .arg(dir.join("kernels.ptx"))
        .arg("-o")
        .arg(&cubin)
        .output()?;
    if !out.status.success() {
        bail!("ptxas: {}", String::from_utf8_lossy(&out.stderr));
    }
    let dis = Command::new(tools.nvdisasm()?)
        .arg("-c")
        .arg(&cubin)
        .output()?;
    let _ = std::fs::remove_file(&cubin);
    let listing: BTreeMap<String, Vec<crate::sass::SInst>> =
        crate::sass::parse_listing(&String::from_utf8_lossy(&dis.stdout))?
            .into_iter()
            .collect();
    let (mut passed, mut failed) = (0usize, 0usize);
    let empty = Vec::new();
    for k in manifest["kernels"].as_array().unwrap_or(&empty) {
        let name = k["kernel"].as_str().unwrap_or("");
        let prog = listing
            .get(name)
            .with_context(|| format!("{name} missing from the listing"))?;
        let slots = k["slots"].as_array().unwrap_or(&empty);
        let dsts: Vec<&str> = k["dsts"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let vecs = k["vectors"].as_array().unwrap_or(&empty);
        let nslots = slots.len().max(1);
        let mut input = vec![0u8; 8 * nslots * vecs.len()];
        for (t, v) in vecs.iter().enumerate() {
            for (s, val) in v["in"].as_array().unwrap_or(&empty).iter().enumerate() {
                let x = parse_hex(val).context("input value")?;
                input[8 * (t * nslots + s)..8 * (t * nslots + s) + 8]
                    .copy_from_slice(&x.to_le_bytes());
            }
        }
        let mut output = vec![0u8; input.len()];
        for t in 0..vecs.len() {
            let mut m = crate::sass::Machine::new(input.clone(), 0);
            m.output = std::mem::take(&mut output);
            m.thread = [(t % 128) as u32, (t / 128) as u32, 128, vecs.len() as u32];
            m.run(prog).with_context(|| format!("{name} thread {t}"))?;
            output = m.output;
        }
        for (t, v) in vecs.iter().enumerate() {
            let mut ok = true;
            for (s, slot) in slots.iter().enumerate() {
                let sname = slot["name"].as_str().unwrap_or("");
                if !dsts.contains(&sname) {
                    continue;
                }
                let w = slot["width"].as_u64().unwrap_or(32);
                let raw = u64::from_le_bytes(
                    output[8 * (t * nslots + s)..8 * (t * nslots + s) + 8].try_into()?,
                );
                let got = match w {
                    1 => (raw & 0xffff_ffff != 0) as u64,
                    64 => raw,
                    w => raw & ((1u64 << w) - 1),
                };
                if parse_hex(&v["expect"][sname]) != Some(got) {
                    ok = false;
                    if failed < 20 {
                        println!(
                            "line {}: {}: {sname} expected {}, simulated 0x{got:x}",
                            v["line"], k["ptx"], v["expect"][sname]
                        );
                    }
                }
            }
            if ok {
                passed += 1;
            } else {
                failed += 1;
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_groups_vectors_per_instruction() {
        let dir = std::env::temp_dir().join(format!("xtask-gpu-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let vecs = dir.join("v.jsonl");
        std::fs::write(
            &vecs,
            concat!(
                "# comment\n",
                r#"{"arch":"sm_90","ptx":"@!%g setp.ltu.and.f32 %p1|%p2, %a, %b, !%p3;","in":{"%a":"0x7fc00000","%b":"0x0","%g":false,"%p1":false,"%p2":true,"%p3":false},"out":{"%p1":true,"%p2":true}}"#,
                "\n",
                r#"{"arch":"sm_90","ptx":"@!%g setp.ltu.and.f32 %p1|%p2, %a, %b, !%p3;","in":{"%a":"0x0","%b":"0x0","%g":true,"%p1":false,"%p2":true,"%p3":false},"out":{"%p1":false,"%p2":true}}"#,
                "\n",
                r#"{"arch":"sm_13","ptx":"set.lt.u32.f32 %d, %a, %b;","in":{"%a":"0x1","%b":"0x0","%d":"0x0"},"out":{"%d":"0x0"}}"#,
                "\n",
                r#"{"arch":"sm_90","ptx":"vset4.u32.u32.ne.max %r1, %r2, %r3, %r4;","in":{},"error":"invalid"}"#,
                "\n"
            ),
        )
        .unwrap();
        let out = dir.join("out");
        assert_eq!(
            gen_kernels(None, &vecs, &out, "sm_90", "7.8").unwrap(),
            2,
            "sm_1x and error vectors are left out"
        );
        let m: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap())
                .unwrap();
        let k = &m["kernels"][0];
        assert_eq!(m["kernels"].as_array().unwrap().len(), 1);
        assert_eq!(k["vectors"].as_array().unwrap().len(), 2);
        let slots: Vec<&str> = k["slots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(slots, ["%g", "%p1", "%p2", "%a", "%b", "%p3"]);
        assert_eq!(k["dsts"], json!(["%p1", "%p2"]));
        assert_eq!(
            k["vectors"][0]["in"],
            json!(["0x0", "0x0", "0x1", "0x7fc00000", "0x0", "0x0"])
        );
        let ptx = std::fs::read_to_string(out.join("kernels.ptx")).unwrap();
        assert!(
            ptx.contains(".target sm_90")
                && ptx.contains("@!%p1 setp.ltu.and.f32 %p2|%p3, %r1, %r2, !%p4;"),
            "{ptx}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn pools_registers_by_width() {
        let mut w = BTreeMap::new();
        w.insert("%d".to_string(), 16);
        w.insert("%a".to_string(), 32);
        w.insert("%b".to_string(), 32);
        w.insert("%g".to_string(), 1);
        let (t, names) = pooled("@!%g set.lt.f16.f32 %d, %a, %b;", &w).unwrap();
        assert_eq!(t, "@!%p1 set.lt.f16.f32 %h1, %r1, %r2;");
        assert!(names.contains(&("%h1".to_string(), "%d".to_string())));
        let mut w = BTreeMap::new();
        w.insert("r1".to_string(), 32);
        let (t, _) = pooled("vadd4.u32.u32.u32 r1.b10, r1, r1.b3210, r1;", &w).unwrap();
        assert_eq!(t, "vadd4.u32.u32.u32 %r1.b10, %r1, %r1.b3210, %r1;");
    }
}
