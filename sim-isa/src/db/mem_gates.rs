//! The memory family's gates past its own (`prefetch`, `prefetchu`):
//! ptxas 13.0.88's verdicts at the edges of each target and `.version`
//! (`tests/data/prefetch-ptxas.txt`, made by
//! `tools/ptxas_grid/prefetch_grid.py`), and the PTX ISA's notes (9.7.9.15:
//! `prefetch`/`prefetchu` since PTX 2.0 on sm_20, the eviction priorities
//! since PTX 7.4 on sm_80; `.tensormap` since PTX 8.0 on sm_90).

use super::{Gate, OpTag};
use crate::inst::{MemOp, Op, PrefetchLevel};
use crate::target::Feature;

/// Checked with the others by `check_target` (`super::gates`).
// A table: its entries' alike shape is the data (one gate each), and stays.
pub(crate) const MEM_GATES: &[Gate] = &[
    Gate {
        what: "prefetch",
        feature: Some(Feature::Prefetch),
        ptx: (2, 0),
        on: &[OpTag::Mem],
        applies: |i| matches!(i.op, Op::Mem(m) if matches!(m.op, MemOp::Prefetch(_))),
    },
    Gate {
        what: "prefetch with an L2 eviction priority",
        feature: Some(Feature::PrefetchEviction),
        ptx: (7, 4),
        on: &[OpTag::Mem],
        applies: |i| {
            matches!(i.op, Op::Mem(m) if matches!(
                m.op,
                MemOp::Prefetch(PrefetchLevel::L2EvictLast | PrefetchLevel::L2EvictNormal)
            ))
        },
    },
    Gate {
        what: "prefetch.tensormap",
        feature: Some(Feature::Hopper),
        ptx: (8, 0),
        on: &[OpTag::Mem],
        applies: |i| matches!(i.op, Op::Mem(m) if m.op == MemOp::Prefetch(PrefetchLevel::Tensormap)),
    },
];
