//! `--timeline` for launch files: what the kernel engine recorded
//! ([`sim_kernel::spans`]) as a Chrome/Perfetto trace, in the same Trace
//! Event Format as a trace's timeline (`timeline.rs`): one process per SM,
//! one clock drawn as one microsecond.
//!
//! In an SM's process: one track per block (`block N`, its residency,
//! category `block`), and one per warp (`block N warp W`: the warp's life,
//! category `warp`, with each of its memory instructions inside it from
//! issue to completion, category `memory`, named by the instruction's
//! opcode). The engine keeps at most `--timeline-limit` events per SM
//! (blocks, warps and accesses together) and counts the rest, which
//! `otherData` reports.

use crate::report::RunInfo;
use crate::timeline::{document, meta, sm_process};
use serde_json::{json, Value};
use sim_kernel::spans::LaunchSpans;

/// Warp tracks start here, after the blocks'.
const WARP_TID_BASE: u64 = 1 << 32;

/// What the timeline is drawn from.
pub struct LaunchTimeline<'a> {
    /// What the engine recorded: per SM, its events, and the statements'
    /// text (memory events are named by their opcode).
    pub spans: &'a LaunchSpans,
    /// The most events kept per SM.
    pub limit: usize,
}

fn opcode(text: &str) -> &str {
    let t = text.trim_start();
    let t = match t.strip_prefix('@') {
        Some(r) => r.split_once(char::is_whitespace).map_or(r, |(_, r)| r),
        None => t,
    };
    t.split(|c: char| c.is_whitespace() || c == ';')
        .next()
        .unwrap_or(t)
}

fn span(name: &str, cat: &str, pid: usize, tid: u64, ts: u64, end: u64, args: Value) -> Value {
    let dur = end.saturating_sub(ts);
    json!({"name": name, "cat": cat, "ph": "X", "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args})
}

/// The warp track of warp `w` of block `cta`.
fn warp_tid(cta: u32, w: u32) -> u64 {
    WARP_TID_BASE + (u64::from(cta) << 16) + u64::from(w)
}

/// The Trace Event Format document, described by `info`.
pub fn timeline(t: &LaunchTimeline<'_>, info: &RunInfo) -> Value {
    let mut events = Vec::new();
    let (mut kept, mut dropped) = (0u64, 0u64);
    for (pid, sm) in t.spans.sms.iter().enumerate() {
        if sm.is_empty() && sm.dropped == 0 {
            continue;
        }
        kept += sm.len() as u64;
        dropped += sm.dropped;
        events.extend(sm_process(pid));
        for b in &sm.blocks {
            let tid = u64::from(b.cta);
            let name = format!("block {}", b.cta);
            events.push(meta("thread_name", pid, tid, json!({"name": name})));
            events.push(span(&name, "block", pid, tid, b.start, b.end, json!({})));
        }
        for w in &sm.warps {
            let tid = warp_tid(w.cta, w.warp);
            let name = format!("block {} warp {}", w.cta, w.warp);
            events.push(meta("thread_name", pid, tid, json!({"name": name})));
            let args = json!({"block": w.cta, "warp": w.warp});
            events.push(span("warp", "warp", pid, tid, w.start, w.end, args));
        }
        for m in &sm.memory {
            let text = t
                .spans
                .statements
                .get(m.stmt as usize)
                .map_or("", String::as_str);
            let args = json!({"stmt": m.stmt, "text": text.trim(), "latency": m.done.saturating_sub(m.issue)});
            let tid = warp_tid(m.cta, m.warp);
            events.push(span(
                opcode(text),
                "memory",
                pid,
                tid,
                m.issue,
                m.done,
                args,
            ));
        }
    }
    let counts = json!({
        "limit_per_sm": t.limit,
        "events_drawn": kept,
        "events_dropped": dropped,
        "truncated": dropped > 0,
    });
    document(info, events, counts)
}

/// `--dump-regs` of a launch: `{"block": N, "ctaid": [x, y, z], "warps":
/// [{"%r1": ["0x...", ... 32 lanes], "%p1": [true, ...]}, ...]}`, the
/// block's warps in order, registers in declaration order, as a trace's
/// `--dump-regs` writes each warp. `grid` gives the block's coordinates.
pub fn dump_block_regs(
    regs: &sim_kernel::spans::BlockRegs,
    grid: [u32; 3],
) -> Result<String, serde_json::Error> {
    use sim_trace::trace::{fmt_value, width_mask};
    let (gx, gy) = (grid[0].max(1), grid[1].max(1));
    let cta = regs.cta;
    let head = json!({"block": cta, "ctaid": [cta % gx, cta / gx % gy, cta / (gx * gy)]});
    let mut o = serde_json::to_string(&head)?;
    o.pop();
    o.push_str(",\"warps\":[");
    for (w, wr) in regs.warps.iter().enumerate() {
        // Written by hand: a JSON map here sorts its keys.
        let mut fields = Vec::with_capacity(regs.regs.len());
        for (r, (name, bits)) in regs.regs.iter().enumerate() {
            let lanes: Vec<Value> = wr
                .get(sim_isa::RegId(r as u32))
                .iter()
                .map(|&v| match bits {
                    1 => Value::Bool(v & 1 != 0),
                    _ => Value::String(fmt_value(v & width_mask(*bits), *bits)),
                })
                .collect();
            fields.push(format!(
                "{}:{}",
                serde_json::to_string(name)?,
                serde_json::to_string(&lanes)?
            ));
        }
        o.push_str(if w > 0 { ",\n  " } else { "\n  " });
        o.push_str(&format!("{{{}}}", fields.join(",")));
    }
    o.push_str("\n]}\n");
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_of_guarded_and_plain_statements() {
        assert_eq!(opcode("  @%p1 ld.global.u32 %r1, [%rd1];"), "ld.global.u32");
        assert_eq!(opcode("st.shared.f32 [%r2], %f1;"), "st.shared.f32");
    }
}
