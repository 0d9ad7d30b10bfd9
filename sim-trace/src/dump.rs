//! Trace -> kernel text that re-assembles to the identical trace.

use crate::limits;
use crate::stream::StreamOp;
use crate::trace::{fmt_value, Lanes, Trace};
use std::fmt::Write;

/// Why a trace has no kernel-text form.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DumpError {
    /// No warps at all.
    #[error("cannot print this trace as kernel text: no warps")]
    NoWarps,
    /// Kernel text launches every warp with one stream and one mask.
    #[error("cannot print this trace as kernel text: its warps have different streams or masks")]
    MixedWarps,
    /// The text would exceed [`limits::MAX_TEXT`] and not assemble again.
    #[error("cannot print this trace as kernel text: it is longer than the {} bytes kernel text may have", limits::MAX_TEXT)]
    TooLong,
}

/// Prints `trace` as kernel text. Kernel text launches every warp with one
/// stream and one mask, so traces with per-warp streams or masks are refused;
/// so is text longer than kernel text may be ([`limits::MAX_TEXT`]), as soon
/// as it gets there, since it would not assemble again.
pub fn dump(trace: &Trace) -> Result<String, DumpError> {
    let w0 = trace.warps.first().ok_or(DumpError::NoWarps)?;
    if trace.warps.iter().any(|w| w != w0) || trace.streams.len() != 1 {
        return Err(DumpError::MixedWarps);
    }
    check_len_at_least(trace)?;
    let mut s = String::new();
    if let Some(v) = trace.version {
        let _ = writeln!(s, ".version {v}");
    }
    let _ = writeln!(s, ".target {}", trace.target);
    let _ = writeln!(s, ".warps {}", trace.warps.len());
    let _ = writeln!(s, ".mask 0x{:08x}", w0.mask);
    write_regs(trace, &mut s);
    let _ = writeln!(s);
    let ops = trace.streams[0].ops();
    // Closing positions of open repeats.
    let mut ends: Vec<usize> = Vec::new();
    for (pc, op) in ops.iter().enumerate() {
        check_len(&s)?;
        while ends.last() == Some(&pc) {
            ends.pop();
            let _ = writeln!(s, "{}}}", "    ".repeat(ends.len()));
        }
        let ind = "    ".repeat(ends.len());
        match *op {
            StreamOp::Inst(i) => {
                let _ = writeln!(s, "{ind}{}", trace.texts[i as usize]);
            }
            StreamOp::Run { start, len } => {
                for i in start..start + len {
                    let _ = writeln!(s, "{ind}{}", trace.texts[i as usize]);
                }
            }
            StreamOp::Repeat { count, body_len } => {
                let _ = writeln!(s, "{ind}.repeat {count} {{");
                ends.push(pc + 1 + body_len as usize);
            }
        }
    }
    while ends.pop().is_some() {
        let _ = writeln!(s, "{}}}", "    ".repeat(ends.len()));
    }
    if !trace.values.is_empty() || !trace.expects.is_empty() {
        let _ = writeln!(s);
    }
    for v in &trace.values {
        check_len(&s)?;
        let _ = writeln!(
            s,
            ".value w{} {} {} = {};",
            v.warp,
            v.dyn_index,
            trace.reg_name(v.reg),
            lanes_text(&v.lanes, trace.reg_type(v.reg).bits())
        );
    }
    for e in &trace.expects {
        check_len(&s)?;
        let w = e.warp.map(|w| format!("w{w} ")).unwrap_or_default();
        let _ = writeln!(
            s,
            ".expect {w}{} = {};",
            trace.reg_name(e.reg),
            lanes_text(&e.lanes, trace.reg_type(e.reg).bits())
        );
    }
    check_len(&s)?;
    Ok(s)
}

/// Refuses up front a trace whose instruction lines alone exceed the limit.
fn check_len_at_least(trace: &Trace) -> Result<(), DumpError> {
    let line = |i: u32| trace.texts[i as usize].len() as u64 + 1;
    let mut n: u64 = 0;
    for op in trace.streams[0].ops() {
        n += match *op {
            StreamOp::Inst(i) => line(i),
            StreamOp::Run { start, len } => (start..start + len).map(line).sum(),
            StreamOp::Repeat { .. } => 0,
        };
    }
    check_len_n(n)
}

fn check_len(s: &str) -> Result<(), DumpError> {
    check_len_n(s.len() as u64)
}

fn check_len_n(n: u64) -> Result<(), DumpError> {
    if n > limits::MAX_TEXT as u64 {
        return Err(DumpError::TooLong);
    }
    Ok(())
}

fn lanes_text(l: &Lanes, bits: u32) -> String {
    match l {
        Lanes::Splat(v) => fmt_value(*v, bits),
        Lanes::Each(a) => format!(
            "{{{}}}",
            a.iter()
                .map(|&v| fmt_value(v, bits))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Declarations, folding `%r0 .. %rN-1` of one type into `%r<N>`.
fn write_regs(trace: &Trace, s: &mut String) {
    let n = trace.nregs() as u32;
    let mut r = 0;
    while r < n {
        let name = trace.reg_name(r);
        let ty = trace.reg_type(r);
        let prefix = name
            .strip_suffix('0')
            .filter(|p| !p.ends_with(|c: char| c.is_ascii_digit()));
        if let Some(p) = prefix {
            let mut k = 1;
            while r + k < n
                && trace.reg_type(r + k) == ty
                && trace.reg_name(r + k) == format!("{p}{k}")
            {
                k += 1;
            }
            if k > 1 {
                let _ = writeln!(s, ".reg .{} {p}<{k}>;", ty.name());
                r += k;
                continue;
            }
        }
        // The async-copy token and the carry flag are no declarations:
        // parsing the first statement that names one interns it again,
        // after every declared register.
        if !sim_isa::carry::is_hidden_register(name) {
            let _ = writeln!(s, ".reg .{} {name};", ty.name());
        }
        r += 1;
    }
}
