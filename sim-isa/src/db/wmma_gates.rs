//! The WMMA statements' gates (`wmma.load`, `wmma.store`, `wmma.mma`):
//! ptxas 13.0.88's verdicts (`tests/data/wmma-ptxas.txt`, made by
//! `tools/ptxas_grid/wmma_grid.py`, with ptxas 11.8 below sm_75): sm_70,
//! and PTX 6.3 for the `.aligned` every form here is written with; the
//! integer types ("WMMA with integer types") sm_72; `.s4`/`.u4` sm_75;
//! `.bf16`, `.tf32` and `.f64` sm_80 and PTX 7.0; `.b1` sm_75 and PTX 6.3,
//! its `.and.popc` sm_80 and PTX 7.1.

use super::{Gate, OpTag};
use crate::inst::{B1Op, Instruction, MemOp, MmaType, Op};
use crate::target::Feature;

/// The element types a WMMA statement names: a load's or store's one, or
/// `wmma.mma`'s `a`'s and `c`'s. `None` for every other instruction.
fn wmma_types(i: &Instruction) -> Option<[MmaType; 2]> {
    match i.op {
        Op::Mem(m) => match m.op {
            MemOp::Wmma(w) => Some([w.ty; 2]),
            _ => None,
        },
        Op::Mma(m) if m.shape.is_wmma() => Some([m.types[1], m.types[3]]),
        _ => None,
    }
}

/// Checked with the others by `check_target` (`super::gates`).
pub(crate) const WMMA_GATES: &[Gate] = &[
    Gate {
        what: "wmma",
        feature: Some(Feature::Volta),
        ptx: (6, 3),
        on: &[OpTag::Mem, OpTag::Mma],
        applies: |i| wmma_types(i).is_some(),
    },
    Gate {
        what: "wmma with integer types",
        feature: Some(Feature::WmmaInt),
        ptx: (6, 3),
        on: &[OpTag::Mem, OpTag::Mma],
        applies: |i| {
            wmma_types(i).is_some_and(|t| {
                t.iter()
                    .any(|x| matches!(x, MmaType::S8 | MmaType::U8 | MmaType::S32))
            })
        },
    },
    Gate {
        what: "wmma with bf16",
        feature: Some(Feature::MmaAmpere),
        ptx: (7, 0),
        on: &[OpTag::Mem, OpTag::Mma],
        applies: |i| wmma_types(i).is_some_and(|t| t.contains(&MmaType::Bf16)),
    },
    Gate {
        what: "wmma with s4 or u4",
        feature: Some(Feature::MatrixTuring),
        ptx: (6, 3),
        on: &[OpTag::Mem, OpTag::Mma],
        applies: |i| {
            wmma_types(i).is_some_and(|t| t.iter().any(|x| matches!(x, MmaType::S4 | MmaType::U4)))
        },
    },
    Gate {
        what: "wmma with tf32",
        feature: Some(Feature::MmaAmpere),
        ptx: (7, 0),
        on: &[OpTag::Mem, OpTag::Mma],
        applies: |i| wmma_types(i).is_some_and(|t| t.contains(&MmaType::Tf32)),
    },
    Gate {
        what: "wmma with b1",
        feature: Some(Feature::MatrixTuring),
        ptx: (6, 3),
        on: &[OpTag::Mem, OpTag::Mma],
        applies: |i| wmma_types(i).is_some_and(|t| t.contains(&MmaType::B1)),
    },
    // ptxas: "Modifier '.and' on 'wmma.mma' requires .target sm_80" and
    // "PTX ISA .version 7.1".
    Gate {
        what: "wmma.mma.and.popc",
        feature: Some(Feature::MmaAmpere),
        ptx: (7, 1),
        on: &[OpTag::Mma],
        applies: |i| matches!(i.op, Op::Mma(m) if m.bop == Some(B1Op::And)),
    },
    Gate {
        what: "wmma with f64",
        feature: Some(Feature::MmaAmpere),
        ptx: (7, 0),
        on: &[OpTag::Mem, OpTag::Mma],
        applies: |i| wmma_types(i).is_some_and(|t| t.contains(&MmaType::F64)),
    },
];
