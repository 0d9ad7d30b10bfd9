//! The async-copy family's gates (`cp.async`, `mbarrier`, `cp.async.bulk`
//! and the transaction count): ptxas 13.0.88's
//! verdicts at the edges of each target and `.version`
//! (`tests/data/async-ptxas.txt`, made by `tools/ptxas_grid/async_grid.py`).

use super::{Gate, OpTag};
use crate::inst::{AsyncOp, MbarOp, Op};
use crate::target::Feature;

/// Checked with the others by `check_target` (`super::gates`).
// A table: its entries' alike shape is the data (one gate each), and stays.
pub(crate) const ASYNC_GATES: &[Gate] = &[
    Gate {
        what: "cp.async",
        feature: Some(Feature::AsyncCopy),
        ptx: (7, 0),
        on: &[OpTag::Async],
        applies: |i| matches!(i.op, Op::Async(a) if a.mbar().is_none()),
    },
    Gate {
        what: "cp.async.bulk",
        feature: Some(Feature::Hopper),
        ptx: (8, 0),
        on: &[OpTag::Async],
        applies: |i| {
            matches!(i.op, Op::Async(a) if a.is_bulk()
                || matches!(a.op, AsyncOp::BulkCommit | AsyncOp::BulkWait { .. }))
        },
    },
    Gate {
        what: "mbarrier's transaction count (expect_tx, complete_tx)",
        feature: Some(Feature::Hopper),
        ptx: (8, 0),
        on: &[OpTag::Async],
        applies: |i| {
            matches!(i.op, Op::Async(a) if matches!(a.mbar(),
                Some(MbarOp::ExpectTx | MbarOp::CompleteTx | MbarOp::Arrive { tx: true, .. })))
        },
    },
    Gate {
        what: "mbarrier with .shared::cluster",
        feature: Some(Feature::Hopper),
        ptx: (8, 0),
        on: &[OpTag::Async],
        applies: |i| matches!(i.op, Op::Async(a) if a.cluster),
    },
    Gate {
        what: "mbarrier",
        feature: Some(Feature::AsyncCopy),
        ptx: (7, 0),
        on: &[OpTag::Async],
        applies: |i| matches!(i.op, Op::Async(a) if a.mbar().is_some()),
    },
    Gate {
        what: "mbarrier.try_wait",
        feature: Some(Feature::MbarrierSm90),
        ptx: (7, 8),
        on: &[OpTag::Async],
        applies: |i| matches!(i.op, Op::Async(a) if matches!(a.mbar(), Some(MbarOp::Wait { try_: true, .. }))),
    },
    Gate {
        what: "mbarrier.arrive with a count and without .noComplete",
        feature: Some(Feature::MbarrierSm90),
        ptx: (7, 8),
        on: &[OpTag::Async],
        applies: |i| {
            matches!(i.op, Op::Async(a) if a.a.is_some() && matches!(a.mbar(),
                Some(MbarOp::Arrive { drop: false, no_complete: false, tx: false })))
        },
    },
    Gate {
        what: "mbarrier.test_wait.parity",
        feature: None,
        ptx: (7, 1),
        on: &[OpTag::Async],
        applies: |i| matches!(i.op, Op::Async(a) if matches!(a.mbar(), Some(MbarOp::Wait { parity: true, .. }))),
    },
    Gate {
        what: "mbarrier.arrive with the sink _",
        feature: None,
        ptx: (7, 1),
        on: &[OpTag::Async],
        applies: |i| matches!(i.op, Op::Async(a) if a.d.is_none() && matches!(a.mbar(), Some(MbarOp::Arrive { .. }))),
    },
    Gate {
        what: "mbarrier with .shared::cta",
        feature: None,
        ptx: (7, 8),
        on: &[OpTag::Async],
        applies: |i| matches!(i.op, Op::Async(a) if a.cta && a.mbar().is_some()),
    },
    Gate {
        what: "mbarrier with a memory order and scope",
        feature: None,
        ptx: (8, 0),
        on: &[OpTag::Async],
        applies: |i| matches!(i.op, Op::Async(a) if a.order != 0),
    },
    Gate {
        what: "cp.async with an .L2 prefetch size",
        feature: None,
        ptx: (7, 4),
        on: &[OpTag::Async],
        applies: |i| matches!(i.op, Op::Async(a) if a.l2 != 0),
    },
    Gate {
        what: "cp.async with ignore-src",
        feature: None,
        ptx: (7, 5),
        on: &[OpTag::Async],
        applies: |i| matches!(i.op, Op::Async(a) if a.ignore_src.is_some()),
    },
];
