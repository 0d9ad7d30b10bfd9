//! `simcli exec --save-launches DIR`: each launch written as a launch file
//! (docs/launch-format.md) that `simcli run --check` reproduces.
//!
//! For launch N: `launch-N.json`, its module `module-F.ptx` (once per
//! fatbinary; `launch-N.ptx` when the program changed its `__device__` or
//! `__constant__` variables, which are then declared with the values they
//! hold), every allocation the program held as `launch-N.bK.bin`
//! (its bytes before the launch) and `launch-N.bK.expected.bin` (after).
//! An argument equal to an allocation's start becomes that buffer; every
//! other argument is its bits (`b8` to `b64`, or `bytes`). What a launch
//! file cannot say is left out, as `README.txt` in DIR says ([`README`]).

use sim_kernel::device::ParamSlot;
use std::path::{Path, PathBuf};

/// The most bytes of buffers one saved launch may hold (the launch
/// format's own limit: 4 GiB in all).
pub const MAX_SAVED_BYTES: u64 = 4 << 30;

/// What a launch is saved from. (Its fields are alike in shape to other
/// records', `protocol::LaunchRow`'s among them; each is its own format.)
pub struct Saving {
    /// Where the files go.
    pub dir: PathBuf,
    /// The launch's number in the program.
    pub index: u64,
    /// The module's file name in `dir`: `module-F.ptx` for fatbinary F
    /// as it was, `launch-N.ptx` when its variables hold the program's
    /// values.
    pub module: String,
    /// The kernel.
    pub kernel: String,
    /// Blocks and threads.
    pub grid: [u32; 3],
    /// Threads a block.
    pub block: [u32; 3],
    /// Dynamic shared memory.
    pub dynamic_shared: u32,
    /// The kernel's parameters.
    pub slots: Vec<ParamSlot>,
    /// The packed parameter buffer.
    pub params: Vec<u8>,
    /// The allocations: base, bytes before the launch.
    pub buffers: Vec<(u64, Vec<u8>)>,
    /// Registers a thread, where the program's machine code says.
    pub registers: Option<u32>,
}

fn io(p: &Path, e: std::io::Error) -> String {
    format!("--save-launches: {}: {e}", p.display())
}

/// Writes `bytes` to `dir/name` through a temporary file renamed into place,
/// so a program that dies mid-write never leaves a half-written launch file
/// behind (the house rule for every output).
pub(crate) fn put(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    let p = dir.join(name);
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, &p))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io(&p, e)
        })
}

/// One argument as the launch file gives it.
fn argument(slot: &ParamSlot, bytes: &[u8], bases: &[u64]) -> serde_json::Value {
    let mut v = [0u8; 8];
    if bytes.len() <= 8 {
        v[..bytes.len()].copy_from_slice(bytes);
    }
    let x = u64::from_le_bytes(v);
    match slot.size {
        8 if bases.contains(&x) => {
            let k = bases.iter().position(|&b| b == x).unwrap_or(0);
            serde_json::json!({ "buffer": format!("b{k}") })
        }
        1 | 2 | 4 | 8 => serde_json::json!({ format!("b{}", 8 * slot.size): x }),
        _ => serde_json::json!({ "bytes": bytes }),
    }
}

impl Saving {
    /// The same, with the kernel's registers a thread.
    pub fn with_registers(mut self, registers: Option<u32>) -> Saving {
        self.registers = registers;
        self
    }

    /// Writes the module `ptx` (if new) and the buffers' bytes before the
    /// launch.
    pub fn before(&self, ptx: &str) -> Result<(), String> {
        let dir = self.dir.as_path();
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        if !dir.join(&self.module).exists() {
            put(dir, &self.module, ptx.as_bytes())?;
        }
        for (k, (_, b)) in self.buffers.iter().enumerate() {
            put(dir, &format!("launch-{}.b{k}.bin", self.index), b)?;
        }
        Ok(())
    }

    /// Writes the launch file, with the buffers' bytes after the launch
    /// (`after`, in the same order) as its expected outputs when it ran.
    pub fn after(&self, after: Option<&[Vec<u8>]>) -> Result<PathBuf, String> {
        let i = self.index;
        let bases: Vec<u64> = self.buffers.iter().map(|(b, _)| *b).collect();
        let mut buffers = serde_json::Map::new();
        for (k, (_, b)) in self.buffers.iter().enumerate() {
            buffers.insert(
                format!("b{k}"),
                serde_json::json!({"bytes": b.len(), "file": format!("launch-{i}.b{k}.bin")}),
            );
        }
        let params: Vec<serde_json::Value> = self
            .slots
            .iter()
            .map(|s| {
                let end = (s.offset + s.size) as usize;
                let bytes = self.params.get(s.offset as usize..end).unwrap_or(&[]);
                argument(s, bytes, &bases)
            })
            .collect();
        let names: Vec<String> = (0..self.buffers.len()).map(|k| format!("b{k}")).collect();
        let mut expected = serde_json::Map::new();
        if let Some(after) = after {
            for (k, b) in after.iter().enumerate() {
                let f = format!("launch-{i}.b{k}.expected.bin");
                put(&self.dir, &f, b)?;
                expected.insert(format!("b{k}"), serde_json::Value::String(f));
            }
        }
        let mut launch = serde_json::json!({
            "ptx": self.module,
            "entry": self.kernel,
            "grid": self.grid,
            "block": self.block,
            "buffers": buffers,
            "params": params,
            "outputs": names,
        });
        if let serde_json::Value::Object(o) = &mut launch {
            if self.dynamic_shared > 0 {
                o.insert("dynamic_shared_bytes".into(), self.dynamic_shared.into());
            }
            if let Some(r) = self.registers {
                o.insert("registers".into(), r.into());
            }
            if !expected.is_empty() {
                o.insert("expected".into(), serde_json::Value::Object(expected));
            }
        }
        let name = format!("launch-{i}.json");
        let text =
            serde_json::to_vec_pretty(&launch).map_err(|e| format!("--save-launches: {e}"))?;
        put(&self.dir, &name, &text)?;
        Ok(self.dir.join(name))
    }
}

/// `README.txt` of the folder: what the files are and what they leave out.
pub const README: &str = "Launches saved by `simcli exec --save-launches` (docs/exec.md).
Each launch-N.json runs with `simcli run launch-N.json --check`: its buffers
are every allocation the program held, before (launch-N.bK.bin) and after
(launch-N.bK.expected.bin) the launch. An argument equal to an allocation's
start is that buffer; any other argument is saved as its bits. __device__
and __constant__ variables the program changed are declared in launch-N.ptx
with the values they held. Not saved: a pointer into the middle of an
allocation, stored inside one or held in such a variable (the replay places
the buffers and variables elsewhere).
";

/// The natural alignment of a PTX scalar type (`.u32`: 4), if `t` is one.
fn type_align(t: &str) -> Option<u64> {
    let bits: u64 = t.trim_start_matches(".").get(1..)?.parse().ok()?;
    let kind = t.as_bytes().get(1).copied()?;
    (matches!(kind, b'b' | b'u' | b's' | b'f') && matches!(bits, 8 | 16 | 32 | 64))
        .then_some(bits / 8)
}

/// The module-scope declaration `stmt` rewritten to hold `bytes`, if it
/// declares one of `values` (a `.global` or `.const` variable, not
/// `.extern`).
fn redeclare(stmt: &str, values: &[(String, Vec<u8>)]) -> Option<String> {
    let head = stmt.split('=').next()?.trim();
    let tokens: Vec<&str> = head.split_whitespace().collect();
    let space = tokens.iter().any(|t| *t == ".global" || *t == ".const");
    if !space || tokens.contains(&".extern") {
        return None;
    }
    let declarator = tokens.last()?;
    let name = declarator.split('[').next()?;
    let (_, bytes) = values.iter().find(|(n, _)| n == name)?;
    let mut prefix = Vec::new();
    let mut align = None;
    let mut i = 0;
    while i + 1 < tokens.len() {
        match tokens[i] {
            ".align" => {
                align = tokens.get(i + 1).and_then(|a| a.parse::<u64>().ok());
                i += 1;
            }
            t if t.starts_with(".attribute")
                || matches!(t, ".visible" | ".weak" | ".common" | ".global" | ".const") =>
            {
                prefix.push(t)
            }
            t => align = align.or_else(|| type_align(t)),
        }
        i += 1;
    }
    let list: Vec<String> = bytes.iter().map(u8::to_string).collect();
    Some(format!(
        "{} .align {} .b8 {name}[{}] = {{{}}}",
        prefix.join(" "),
        align.unwrap_or(1),
        bytes.len(),
        list.join(", ")
    ))
}

/// `ptx` with each module-scope `.global`/`.const` variable named in
/// `values` declared with those bytes as its initialiser: the state a
/// program left in them (`cudaMemcpyToSymbol`, earlier launches) travels
/// with the saved launch.
pub fn with_values(ptx: &str, values: &[(String, Vec<u8>)]) -> String {
    let mut out = String::with_capacity(ptx.len());
    let (mut depth, mut in_init, mut start) = (0u32, false, 0usize);
    for (i, c) in ptx.char_indices() {
        match c {
            '=' if depth == 0 => in_init = true,
            '{' if !in_init => depth += 1,
            '}' if !in_init => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    out.push_str(&ptx[start..=i]);
                    start = i + 1;
                }
            }
            ';' if depth == 0 => {
                let stmt = &ptx[start..i];
                // The declaration starts on the line naming its space;
                // lines before it (directives without a `;`) stay.
                let at = stmt
                    .match_indices('\n')
                    .map(|(k, _)| k + 1)
                    .chain([0])
                    .filter(|&k| {
                        let line = stmt[k..].lines().next().unwrap_or("");
                        line.split_whitespace()
                            .any(|t| t == ".global" || t == ".const")
                    })
                    .min();
                match at.and_then(|k| redeclare(&stmt[k..], values).map(|new| (k, new))) {
                    Some((k, new)) => {
                        out.push_str(&stmt[..k]);
                        let decl = &stmt[k..];
                        // Keep the statement's leading whitespace and its
                        // line count, so later line numbers hold.
                        let lead = decl.len() - decl.trim_start().len();
                        out.push_str(&decl[..lead]);
                        out.push_str(&new);
                        let lines = decl.trim_start().matches('\n').count();
                        out.push_str(&"\n".repeat(lines));
                    }
                    None => out.push_str(stmt),
                }
                out.push(';');
                start = i + 1;
                in_init = false;
            }
            _ => {}
        }
    }
    out.push_str(&ptx[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_variables_carry_their_bytes() {
        let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
            .const .align 4 .b8 bias[4];\n.global .u32 counter = 7;\n\
            .global .attribute(.managed) .align 4 .u32 total = 5;\n\
            .extern .global .u32 other;\n\
            .visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<2>;\nld.const.u32 %r1, [bias];\nret;\n}\n";
        let v = vec![
            ("bias".to_string(), vec![3, 0, 0, 0]),
            ("counter".to_string(), vec![1, 2, 0, 0]),
            ("total".to_string(), vec![79, 0, 0, 0]),
            ("other".to_string(), vec![9, 9, 9, 9]),
        ];
        let got = with_values(ptx, &v);
        assert!(
            got.contains(".const .align 4 .b8 bias[4] = {3, 0, 0, 0};"),
            "{got}"
        );
        assert!(
            got.contains(".global .align 4 .b8 counter[4] = {1, 2, 0, 0};"),
            "{got}"
        );
        assert!(
            got.contains(".global .attribute(.managed) .align 4 .b8 total[4] = {79, 0, 0, 0};"),
            "{got}"
        );
        assert!(got.contains(".extern .global .u32 other;"), "{got}");
        assert!(got.contains("ld.const.u32 %r1, [bias];\nret;\n}"), "{got}");
        assert_eq!(got.lines().count(), ptx.lines().count());
        sim_module::parse_module(&got, "saved.ptx").unwrap();
    }
}
