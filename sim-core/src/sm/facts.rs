//! Program-level facts of ptxas's code that the lowering table's
//! per-instruction sequences cannot show: which operands are loop-invariant
//! (their work hoisted, except where ptxas recomputes it in interleaved
//! chains), which rows apply to an instruction whose `c` is its `a` (`.ca`),
//! and compare-select pairs ptxas fuses across PTX instructions.

use crate::facts::{invariant_registers, sources, SrcOperand};
use crate::lowering;
use crate::program::Program;
use crate::sass_table::{self, MachineInst, Row, SassArch, Src};
use sim_isa::{Instruction, Op, Simd};
use std::collections::{BTreeMap, BTreeSet};

/// Per instruction, which of its PTX sources `a`..`d` are fixed: an
/// immediate, a special register, or a register the program never changes
/// once set (`facts::invariant_registers`). An instruction with no other
/// source keeps everything (nothing of it is hoisted).
pub(super) fn fixed_sources(program: &Program) -> Vec<[bool; 4]> {
    let inv = invariant_registers(&program.insts, program.nregs);
    program
        .insts
        .iter()
        .map(|inst| fixed_operands(inst, |r| inv.get(r).copied().unwrap_or(false)))
        .collect()
}

/// Which of `inst`'s sources are fixed: immediates, special registers and
/// the registers `fixed_reg` names. An instruction with no other source
/// keeps everything (nothing of it is hoisted).
fn fixed_operands(inst: &Instruction, fixed_reg: impl Fn(usize) -> bool) -> [bool; 4] {
    let src = sources(inst);
    let fixed = src.map(|s| match s {
        SrcOperand::Absent | SrcOperand::Fixed => true,
        SrcOperand::Reg(r) => fixed_reg(r.0 as usize),
    });
    let varies = src
        .iter()
        .zip(&fixed)
        .any(|(s, f)| matches!(s, SrcOperand::Reg(_)) && !f);
    if varies {
        fixed
    } else {
        [false; 4]
    }
}

/// Each instruction's lowering key and table row. An instruction whose `c`
/// is the register `a` is (`vabsdiff2.u32.u32.u32.add %x, %x, %z, %x`) takes
/// the row keyed `.ca` where the table has one: ptxas's code for it in a
/// dependent chain, which the copies of the instruction's code alone lack
/// (`tools/lowering/derive_sass.py`, H100 `b13_lat`).
pub(super) fn table_rows(arch: SassArch, program: &Program) -> (Vec<String>, Vec<Option<Row>>) {
    let mut keys: Vec<String> = program.insts.iter().map(lowering::key).collect();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let mut rows = sass_table::rows_for_keys(arch, &refs);
    // Only the few instructions whose `c` is their `a` look further.
    let aliased: Vec<(usize, String)> = program
        .insts
        .iter()
        .enumerate()
        .filter_map(|(i, inst)| {
            let src = lowering::source_registers(inst);
            (src[0].is_some() && src[0] == src[2]).then(|| (i, format!("{}.ca", keys[i])))
        })
        .collect();
    let refs: Vec<&str> = aliased.iter().map(|(_, k)| k.as_str()).collect();
    for ((i, k), row) in aliased.iter().zip(sass_table::rows_for_keys(arch, &refs)) {
        if let Some(r) = row {
            keys[*i] = k.clone();
            rows[*i] = Some(r);
        }
    }
    (keys, rows)
}

/// ptxas recomputes what a two-lane `.ca` instruction (one whose `c` is its
/// `a`, `vabsdiff2 .add`) takes from its fixed operand when the instruction
/// is interleaved with an independent instance of itself (another chain):
/// in such code nothing of it is hoisted. Compiled by ptxas 13.0.88 as loops
/// of 64 instances per chain (`tools/lowering/interleaved_ca.py`), the
/// `vabsdiff2`, `vadd2`, `vsub2`, `vavrg2`, `vmin2`, `vset2` with `.add` and
/// unsigned sources take the `.ca` row with that work hoisted in one chain (9, 7, 7,
/// 12, 8, 12 machine instructions per instance) and about the full row with
/// two or four (10.3-11, 7.9-8, 7.9-8, 12.5-13, 8.5-8.8, 12.5; the rows: 10,
/// 8, 8, 13, 9, 13); the H100's `b13_tput` (four chains of `vabsdiff2 .add`)
/// runs 11. With a signed `a` the one-chain code hoists nothing
/// (`vabsdiff2.s32.s32.u32`: 15, `vmax2.s32.s32.u32`: 12, so the model's 14
/// and 11 there are one short), and the interleaved code is the full row
/// within half an instruction. The four-lane forms keep theirs hoisted when interleaved
/// (`vadd4`, `vsub4 .add`: 2 per instance), and so do the forms whose `c`
/// is another register in the H100's four-chain loops (`b11`, `b12`, `b14`;
/// `b15` recomputes 68 of 256). An instance is interleaved when the
/// instruction before or after it in the program is the same form (`keys`)
/// writing another register, neither reading what the other writes. In a
/// kernel text the program lists each distinct instruction once, so two
/// one-chain loops of one form on different registers, one after the other,
/// count as interleaved too.
pub(super) fn unhoist_interleaved(program: &Program, keys: &[String], fixed: &mut [[bool; 4]]) {
    let dest = |i: usize| program.insts[i].reg_uses().writes().next().map(|u| u.reg);
    let reads = |i: usize, r| {
        program.insts[i]
            .reg_uses()
            .reads()
            .any(|u| Some(u.reg) == r)
    };
    let n = program.insts.len().min(keys.len()).min(fixed.len());
    for i in 0..n {
        let two_lane = matches!(program.insts[i].op, Op::Video(v) if v.simd == Simd::X2);
        if !two_lane || !keys[i].ends_with(".ca") {
            continue;
        }
        let twin = |j: usize| {
            j < n
                && keys[j] == keys[i]
                && dest(j) != dest(i)
                && !reads(j, dest(i))
                && !reads(i, dest(j))
        };
        if (i > 0 && twin(i - 1)) || twin(i + 1) {
            fixed[i] = [false; 4];
        }
    }
}

/// A host program's control flow (`ProgramTables::with_loops`): its loops,
/// one per first instruction (the largest range given for it), and the
/// instructions branches lead to.
pub(super) struct Control {
    pub loops: Vec<(u32, u32)>,
    pub targets: BTreeSet<u32>,
}

impl Control {
    pub fn new(loops: &[(u32, u32)], targets: &[u32]) -> Control {
        let mut by_head: BTreeMap<u32, u32> = BTreeMap::new();
        for &(a, b) in loops {
            let e = by_head.entry(a).or_insert(b);
            *e = (*e).max(b);
        }
        Control {
            loops: by_head.into_iter().collect(),
            targets: targets.iter().copied().collect(),
        }
    }
}

/// [`fixed_sources`] for a program with loops (`ProgramTables::with_loops`):
/// a register operand is fixed where no instruction of the innermost loop
/// holding the instruction writes it; outside loops, and for an instruction
/// with no other source, nothing is.
pub(super) fn loop_fixed_sources(program: &Program, loops: &[(u32, u32)]) -> Vec<[bool; 4]> {
    // Per loop, the registers its instructions write.
    let written: Vec<Vec<bool>> = loops
        .iter()
        .map(|&(a, b)| {
            let mut w = vec![false; program.nregs];
            for inst in &program.insts[a as usize..=b as usize] {
                for u in inst.reg_uses().writes() {
                    if let Some(x) = w.get_mut(u.reg.0 as usize) {
                        *x = true;
                    }
                }
            }
            w
        })
        .collect();
    program
        .insts
        .iter()
        .enumerate()
        .map(|(i, inst)| {
            let i = i as u32;
            let innermost = loops
                .iter()
                .enumerate()
                .filter(|(_, &(a, b))| a <= i && i <= b)
                .min_by_key(|(_, &(a, b))| b - a);
            let Some((k, _)) = innermost else {
                return [false; 4];
            };
            fixed_operands(inst, |r| !written[k].get(r).copied().unwrap_or(true))
        })
        .collect()
}

/// Machine code for the compare-select pairs ptxas fuses across PTX
/// instructions, by instruction (`None`: the table's row): a `set` with an
/// integer result (all ones or zero, its row a compare and a `SEL` of it)
/// followed at once (no branch leads to it: `targets`) by a `slct.s32` that
/// tests that result (`c >= 0`, its
/// row an `ISETP.GE` and a `SEL`) and overwrites it. ptxas selects on the
/// compare's predicate itself: the pair is the compare and one `SEL`, not
/// four instructions (`set.lt.u32.u32 %x, %x, %y; slct.s32.s32 %x, %y, %z,
/// %x` in a chain: ISETP, SEL, 8 clocks; `tools/gpu/ptxas_schedule.py`).
pub(super) fn fused_rows(
    arch: SassArch,
    program: &Program,
    keys: &[String],
    rows: &[Option<Row>],
    targets: &BTreeSet<u32>,
) -> Vec<Option<Row>> {
    let mut out: Vec<Option<Row>> = vec![None; program.insts.len()];
    for i in 1..program.insts.len() {
        let (set, slct) = (&program.insts[i - 1], &program.insts[i]);
        let (Some(set_key), Some(slct_key)) = (keys.get(i - 1), keys.get(i)) else {
            continue;
        };
        if !set_key.starts_with("set.i32.")
            || !slct_key.starts_with("slct.s32.")
            || set.guard.is_some()
            || slct.guard.is_some()
            || out[i - 1].is_some()
            || targets.contains(&(i as u32))
        {
            continue;
        }
        let (Some(d), Some(e)) = (
            set.reg_uses().writes().next().map(|u| u.reg),
            slct.reg_uses().writes().next().map(|u| u.reg),
        ) else {
            continue;
        };
        // The mask dies at the select: no other instruction reads it.
        if lowering::source_registers(slct)[2] != Some(d) || e != d {
            continue;
        }
        let (Some(Some(p)), Some(Some(c))) = (rows.get(i - 1), rows.get(i)) else {
            continue;
        };
        if let Some((fp, fc)) = fuse(arch, p, c) {
            out[i - 1] = Some(fp);
            out[i] = Some(fc);
        }
    }
    out
}

/// The fused pair's rows: the compare alone (its predicate the result), and
/// the select reading it as `c`; `None` where the rows are not a compare
/// then `SEL`, and `ISETP.GE` of `c` then `SEL`.
fn fuse(arch: SassArch, set: &Row, slct: &Row) -> Option<(Row, Row)> {
    let (last, select) = (set.insts.len().checked_sub(1)?, slct.insts.get(1)?);
    let sel = |m: &MachineInst| m.opcode.name() == "SEL";
    let cmp = set.insts.get(last.checked_sub(1)?)?;
    let set_out: Vec<Src> = set.outs().collect();
    let pred = match set.insts[last].deps().collect::<Vec<_>>()[..] {
        [Src::Inst(k)] if usize::from(k) == last - 1 && sel(&set.insts[last]) => Src::Inst(k),
        _ => return None,
    };
    let test = &slct.insts[0];
    let slct_out: Vec<Src> = slct.outs().collect();
    if set_out != [Src::Inst(last as u8)]
        || !cmp.opcode.name().ends_with("SETP")
        || slct.insts.len() != 2
        || test.opcode.name() != "ISETP"
        || !test.modifiers.starts_with(".GE")
        || test.deps().collect::<Vec<_>>() != [Src::C]
        || !sel(select)
        || slct_out != [Src::Inst(1)]
    {
        return None;
    }
    let deps: Vec<Src> = select
        .deps()
        .map(|s| if s == Src::Inst(0) { Src::C } else { s })
        .collect();
    let fused_select = MachineInst::new(select.opcode.name(), select.modifiers, &deps)?;
    Some((
        Row::compiled(arch, "set.fused", set.insts[..last].to_vec(), &[pred])?,
        Row::compiled(arch, "slct.fused", vec![fused_select], &[Src::Inst(0)])?,
    ))
}
