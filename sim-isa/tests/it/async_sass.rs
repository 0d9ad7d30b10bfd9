//! The async copies and `mbarrier` against the SASS oracle:
//! `tests/data/sass-async.jsonl`, made by `xtask values --family async`
//! (ptxas 13.0.88's sm_90 code for each statement of
//! `tests/data/async-forms.txt`, run by xtask's SASS interpreter on drawn
//! registers, shared bytes and global bytes). Each vector runs on lane 0
//! here, and the registers it writes and all 32 bytes of the shared
//! variable must come out bit for bit.

use sim_isa::exec::{execute_mem, FaultKind};
use sim_isa::parse::parse_instruction;
use sim_isa::{ExecCtx, Space, Symbols, Target, WarpRegs};
use std::collections::BTreeMap;

const VECTORS: &str = include_str!("../data/sass-async.jsonl");

/// Where this memory puts the shared variable `sm`.
const SM_AT: u64 = 0x40;

/// Shared memory with `sm` at [`SM_AT`], and the global bytes at `global_at`.
struct Mem {
    shared: Vec<u8>,
    global_at: u64,
    global: Vec<u8>,
}

impl Mem {
    fn bytes(&mut self, space: Space, addr: u64, n: u32) -> Result<&mut [u8], FaultKind> {
        let (buf, at) = match space {
            Space::Shared => (&mut self.shared, addr),
            Space::Global => (
                &mut self.global,
                addr.checked_sub(self.global_at)
                    .ok_or(FaultKind::OutOfBounds)?,
            ),
            _ => return Err(FaultKind::ReadOnly),
        };
        buf.get_mut(at as usize..at as usize + n as usize)
            .ok_or(FaultKind::OutOfBounds)
    }
}

crate::bytes::byte_memory!(Mem, SM_AT);

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|k| u8::from_str_radix(&s[k..k + 2], 16).expect("hex byte"))
        .collect()
}

/// A register value of a vector: `true`/`false` or `"0x.."`.
fn value(v: &serde_json::Value) -> u64 {
    match v {
        serde_json::Value::Bool(b) => u64::from(*b),
        serde_json::Value::String(s) => {
            u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex value")
        }
        other => panic!("register value {other}"),
    }
}

/// The width of a register by its name (`%p` predicates, `%rd` 64 bits).
fn mask(name: &str) -> u64 {
    match name
        .trim_start_matches('%')
        .trim_end_matches(|c: char| c.is_ascii_digit())
    {
        "rd" => u64::MAX,
        "p" => 1,
        _ => 0xffff_ffff,
    }
}

/// Runs one vector; `Err` says what differs.
fn check(v: &serde_json::Value) -> Result<(), String> {
    let s = |k: &str| v[k].as_str().unwrap_or_else(|| panic!("field {k}"));
    let text = s("ptx");
    let mut syms = Symbols::new();
    let inst = parse_instruction(text, &mut syms).map_err(|e| format!("parse: {e}"))?;
    let mut regs = WarpRegs::new(syms.len());
    for (name, val) in v["in"].as_object().expect("in") {
        let r = syms.get(name).unwrap_or_else(|| syms.intern(name));
        regs.ensure(syms.len());
        regs.set_lane(r, 0, value(val));
    }
    let mut shared = vec![0xa5; 2 * SM_AT as usize];
    shared[SM_AT as usize..SM_AT as usize + 32].copy_from_slice(&unhex(s("shared")));
    let mut mem = Mem {
        shared,
        global_at: u64::from_str_radix(s("global_at").trim_start_matches("0x"), 16).unwrap(),
        global: unhex(s("global")),
    };
    let ctx = ExecCtx::new(Target::SM_90, 0);
    execute_mem(&inst, &ctx, &mut regs, 1, &mut mem).map_err(|f| format!("fault {f:?}"))?;
    sim_isa::execute(&inst, &ctx, &mut regs, 1);
    let mut bad = Vec::new();
    for (name, val) in v["out"].as_object().expect("out") {
        let r = syms.get(name).expect("an output the statement names");
        let got = regs.lane(r, 0) & mask(name);
        if got != value(val) {
            bad.push(format!("{name}: {got:#x}, oracle {:#x}", value(val)));
        }
    }
    let after = &mem.shared[SM_AT as usize..SM_AT as usize + 32];
    let want = unhex(s("shared_out"));
    if after != want.as_slice() {
        bad.push(format!("sm: {after:02x?}, oracle {want:02x?}"));
    }
    match bad.is_empty() {
        true => Ok(()),
        false => Err(bad.join("; ")),
    }
}

/// Every vector agrees, and every statement of the forms file has vectors.
#[test]
fn async_copies_and_mbarrier_match_the_sass_oracle() {
    let mut per_form: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let lines: Vec<&str> = VECTORS.lines().filter(|l| l.starts_with('{')).collect();
    for line in &lines {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let text = v["ptx"].as_str().expect("ptx").to_string();
        if let Err(e) = check(&v) {
            failures.push(format!("{text}: {e}"));
        }
        *per_form.entry(text).or_default() += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {} disagree:\n{}",
        failures.len(),
        lines.len(),
        failures[..failures.len().min(12)].join("\n")
    );
    let forms = include_str!("../data/async-forms.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    for f in forms {
        assert_eq!(per_form.get(f.trim()), Some(&20), "{f}");
    }
    assert_eq!(per_form.values().sum::<usize>(), 740);
}

/// The same kernels on an H200 (2026-11-30, `tools/gpu/warp_run.py`):
/// `tests/data/h200-async.jsonl.gz`, 200 input sets of each statement
/// whose vectors all equal the oracle's there: every copy, and what reads
/// an mbarrier object (`test_wait`, `try_wait`, `pending_count`, `inval`,
/// `cp.async.mbarrier.arrive`). The statements that write one (`init`,
/// `arrive`, `arrive_drop`, `.noinc`) differ on the GPU in what a load
/// right after them sees and in the state's low word (docs/async-copies.md).
#[test]
fn async_copies_and_mbarrier_reads_match_an_h200() {
    let text = super::mma_sass::vector_file("h200-async.jsonl.gz");
    let mut per_form: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for line in text.lines().filter(|l| l.starts_with('{')) {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        assert_eq!(v["source"], "h200");
        let form = v["ptx"].as_str().expect("ptx").to_string();
        if let Err(e) = check(&v) {
            failures.push(format!("{form}: {e}"));
        }
        *per_form.entry(form).or_default() += 1;
    }
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(12)].join("\n")
    );
    assert_eq!(per_form.len(), 25, "{per_form:?}");
    assert!(per_form.values().all(|&n| n == 200), "{per_form:?}");
    assert!(per_form.keys().all(|f| !f.starts_with("mbarrier.init")
        && !f.starts_with("mbarrier.arrive")
        && !f.contains(".noinc")));
}
