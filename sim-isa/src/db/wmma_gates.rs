//! The WMMA statements' gate (`wmma.load`, `wmma.store`, `wmma.mma`):
//! ptxas 13.0.88's verdicts (`tests/data/wmma-ptxas.txt`, made by
//! `tools/ptxas_grid/wmma_grid.py`, with ptxas 11.8 for sm_70): sm_70, and
//! PTX 6.3 for the `.aligned` every form here is written with.

use super::Gate;
use crate::inst::{MemOp, MmaShape, Op};
use crate::target::Feature;

/// Checked with the others by `check_target` (`super::gates`).
pub(crate) const WMMA_GATES: &[Gate] = &[Gate {
    what: "wmma",
    feature: Some(Feature::Volta),
    ptx: (6, 3),
    applies: |i| {
        matches!(i.op, Op::Mem(m) if matches!(m.op, MemOp::Wmma(_)))
            || matches!(i.op, Op::Mma(m) if m.shape == MmaShape::M16n16k16)
    },
}];
