//! `--timeline`: a replay's instruction starts as a Chrome/Perfetto trace
//! (Trace Event Format, the JSON object form), which ui.perfetto.dev and
//! chrome://tracing open.
//!
//! One process per SM; in it one track per scheduler and one per warp. One
//! clock is drawn as one microsecond. Events (`ph` "X", complete events):
//! - on a warp's track, each instruction from issue to completion (result
//!   ready), category `issue`; between two instructions, the wait, category
//!   `stall`, named `dependency` while an operand of the next one was still
//!   pending and `not selected` after (the scheduler issued another warp, or
//!   the unit was busy);
//! - on a scheduler's track, the clocks it spent issuing each instruction's
//!   micro-ops, category `sched`, and the gaps between, `no issue`
//!   (category `stall`).
//!
//! The schedule is sim-core's issue log ([`sim_core::Sm::record_issues`]);
//! the pending operands are rebuilt from it with each instruction's
//! registers and result delay, exactly as the scoreboard holds them.

use crate::report::RunInfo;
use serde_json::{json, Value};
use sim_core::{IssueEvent, ProgramTables};
use sim_trace::trace::Trace;
use std::collections::BTreeMap;

/// Tracks of warps start here, after the schedulers'.
const WARP_TID_BASE: u64 = 1000;

/// What the timeline is drawn from.
pub struct TimelineInput<'a> {
    /// The trace replayed (instruction texts and registers).
    pub trace: &'a Trace,
    /// Per SM, its recorded instruction starts in issue order.
    pub issues: &'a [Vec<IssueEvent>],
    /// The program's tables (micro-ops and result delays).
    pub tables: &'a ProgramTables,
    /// The most starts recorded per SM (`--timeline-limit`).
    pub limit: usize,
    /// Warp instructions the run issued in all (more than drawn when cut).
    pub total_issues: u64,
}

fn opcode(text: &str) -> &str {
    let t = text.trim_start();
    let t = if t.starts_with('@') {
        t.split_once(char::is_whitespace)
            .map_or(t, |(_, r)| r.trim_start())
    } else {
        t
    };
    t.split(|c: char| c.is_whitespace() || c == ';')
        .next()
        .unwrap_or(t)
}

fn span(name: &str, cat: &str, pid: usize, tid: u64, ts: u64, dur: u64, args: Value) -> Value {
    json!({"name": name, "cat": cat, "ph": "X", "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args})
}

/// A metadata event (`ph` "M") of process `pid`, track `tid`.
pub(crate) fn meta(name: &str, pid: usize, tid: u64, args: Value) -> Value {
    json!({"name": name, "ph": "M", "pid": pid, "tid": tid, "args": args})
}

/// The metadata events that name SM `pid`'s process and sort it (the
/// launch timeline's too).
pub(crate) fn sm_process(pid: usize) -> [Value; 2] {
    [
        meta("process_name", pid, 0, json!({"name": format!("SM {pid}")})),
        meta("process_sort_index", pid, 0, json!({"sort_index": pid})),
    ]
}

/// The Trace Event Format document for `input`, described by `info`.
pub fn timeline(input: &TimelineInput<'_>, info: &RunInfo) -> Value {
    let cfg = input.tables.config();
    let (width, interval) = (
        cfg.issue_width.max(1) as u64,
        cfg.issue_interval.max(1) as u64,
    );
    let mut events = Vec::new();
    let mut drawn = 0u64;
    for (pid, log) in input.issues.iter().enumerate() {
        events.extend(sm_process(pid));
        for s in 0..cfg.schedulers as u64 {
            events.push(meta(
                "thread_name",
                pid,
                s,
                json!({"name": format!("scheduler {s}")}),
            ));
            events.push(meta("thread_sort_index", pid, s, json!({"sort_index": s})));
        }
        let mut warps: BTreeMap<u32, WarpState> = BTreeMap::new();
        let mut sched_free: BTreeMap<u32, u64> = BTreeMap::new();
        for e in log {
            drawn += 1;
            let i = e.inst as usize;
            let (uops, delay) = input.tables.issue_timing(i).unwrap_or((1, 1));
            let text = input.trace.texts.get(i).map_or("", String::as_str);
            let name = opcode(text);
            // A forwarded `mov` has no machine instructions but still takes its slot.
            let busy = (uops.max(1) as u64).div_ceil(width) * interval;
            let wtid = WARP_TID_BASE + e.warp_id as u64;
            let w = warps.entry(e.warp_id).or_insert_with(|| {
                events.push(meta(
                    "thread_name",
                    pid,
                    wtid,
                    json!({"name": format!("warp {}", e.warp_id)}),
                ));
                events.push(meta(
                    "thread_sort_index",
                    pid,
                    wtid,
                    json!({"sort_index": wtid}),
                ));
                WarpState::default()
            });
            // The wait before this instruction, split where its operands became ready.
            let regs: Vec<u32> = input.trace.insts.get(i).map_or(Vec::new(), |inst| {
                inst.reg_uses().iter().map(|u| u.reg.0).collect()
            });
            if let Some(free) = w.free {
                let operands = regs
                    .iter()
                    .filter_map(|r| w.ready.get(r))
                    .max()
                    .copied()
                    .unwrap_or(0);
                let dep_end = operands.clamp(free, e.cycle);
                if dep_end > free {
                    events.push(span(
                        "dependency",
                        "stall",
                        pid,
                        wtid,
                        free,
                        dep_end - free,
                        json!({}),
                    ));
                }
                if e.cycle > dep_end {
                    events.push(span(
                        "not selected",
                        "stall",
                        pid,
                        wtid,
                        dep_end,
                        e.cycle - dep_end,
                        json!({}),
                    ));
                }
            }
            let done = e.cycle + delay;
            let args = json!({"inst": e.inst, "text": text, "sched": e.sched, "uops": uops, "complete": done});
            events.push(span(name, "issue", pid, wtid, e.cycle, delay.max(1), args));
            w.free = Some(e.cycle + busy);
            if let Some(inst) = input.trace.insts.get(i) {
                for u in inst.reg_uses().writes() {
                    w.ready.insert(u.reg.0, done);
                }
            }
            // The scheduler's track: the gap since it last issued, then this issue.
            let s = sched_free.entry(e.sched).or_insert(0);
            if e.cycle > *s {
                events.push(span(
                    "no issue",
                    "stall",
                    pid,
                    e.sched as u64,
                    *s,
                    e.cycle - *s,
                    json!({}),
                ));
            }
            let args = json!({"warp": e.warp_id, "inst": e.inst, "uops": uops});
            events.push(span(
                name,
                "sched",
                pid,
                e.sched as u64,
                e.cycle,
                busy,
                args,
            ));
            *s = e.cycle + busy;
        }
    }
    let counts = json!({
        "limit_per_sm": input.limit,
        "issues_drawn": drawn,
        "issues_total": input.total_issues,
        "truncated": drawn < input.total_issues,
    });
    document(info, events, counts)
}

/// The Trace Event Format document: `events`, and in `otherData` the run
/// (`info`) and `counts`' fields (the launch timeline's too).
pub(crate) fn document(info: &RunInfo, events: Vec<Value>, counts: Value) -> Value {
    let mut other = json!({
        "tool": crate::report::tool_version(),
        "input": info.input,
        "arch": info.target.to_string(),
        "clock": "one SM clock is drawn as 1 us",
    });
    if let (Some(o), Value::Object(c)) = (other.as_object_mut(), counts) {
        o.extend(c);
    }
    json!({
        "displayTimeUnit": "ns",
        "otherData": other,
        "traceEvents": events,
    })
}

/// A warp's state while its instructions are drawn.
#[derive(Default)]
struct WarpState {
    /// When the warp could next issue: after its last instruction's micro-ops.
    free: Option<u64>,
    /// Register id to the clock its pending write completes.
    ready: BTreeMap<u32, u64>,
}
