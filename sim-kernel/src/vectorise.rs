//! Shared loads merged as ptxas merges them. A tiled kernel reads a row
//! of a shared tile one word at a time (`ld.shared.f32 [%r9]`, `[%r9+4]`,
//! `[%r9+8]`, `[%r9+12]`, each in a different unrolled step); ptxas emits
//! one `LDS.128` for the four when it can tell the base is 16-byte
//! aligned, and one `LDS.64` for an aligned pair. The timing model issues
//! what the machine issues: the first load of a group becomes the vector
//! load (all the group's destinations, the group's bytes), the others
//! issue nothing (as dead code does), and values are computed statement by
//! statement as before.
//!
//! Evidence: ptxas 13.0.88, sm_90, `workloads/sgemm.ptx`: each 32-step
//! tile loop's 128 `ld.shared.f32` of `As` (`[%r9+4k]`, `[%r9+1024+4k]`,
//! ...) become 32 `LDS.128 [R29+16j]`, and its 32 loads of `Bs`
//! (`[%r8+128k]`, a word per row) stay 32 `LDS`.
//!
//! What ptxas needs to merge, and this requires: one straight-line
//! stretch; `ld.shared` of one 32-bit element, unguarded, not volatile;
//! one base register (or variable) whose value is a multiple of the
//! vector's size (a known-alignment analysis: shifts, products and sums
//! of the shared variables' addresses and constants); the group's
//! offsets filling one aligned 16 bytes (or 8); nothing between the
//! first and the last load that writes the base, writes shared memory,
//! is a barrier, a fence or control flow, or touches a later load's
//! destination (its write moves up to the first load); destinations
//! distinct.

use crate::dead::Uses;
use sim_isa::{AddrBase, Instruction, MemOp, Op, Operand, RegId, Space};
use sim_module::{Body, StatementKind};

/// One merged group: `leader`, the first load in program order, stands
/// for all `members` (the leader first, in offset order of the words).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Group {
    pub leader: u32,
    /// Every load of the group (the leader included), by word: member
    /// `k` reads the word at the group's base offset plus `4 k`.
    pub members: Vec<u32>,
}

/// Known low zero bits of each register (64 for one never written), as
/// far as shifts, products and sums of constants and shared variables'
/// addresses tell (`var_align`: a variable's).
fn alignment(body: &Body, uses: &Uses, var_align: &dyn Fn(u32) -> u32) -> Vec<u32> {
    let n = body.symbols.len();
    let mut tz = vec![64u32; n];
    let of = |tz: &[u32], o: &Operand| match *o {
        Operand::Reg(r) => tz.get(r.0 as usize).copied().unwrap_or(0),
        Operand::Imm(v) => v.trailing_zeros(),
        Operand::Special(_) => 0,
    };
    // Falls monotonically from 64: at most 65 passes per register chain;
    // a few passes settle what nvcc emits.
    for _ in 0..8 {
        let mut changed = false;
        for (j, s) in body.statements.iter().enumerate() {
            let StatementKind::Instruction(i) = &s.kind else {
                continue;
            };
            let value = match &i.op {
                Op::Alu(a) => match (a.op, a.b) {
                    (sim_isa::AluOp::Mov, _) => Some((a.d, of(&tz, &a.a))),
                    (sim_isa::AluOp::Shl, Some(Operand::Imm(k))) => {
                        Some((a.d, (of(&tz, &a.a) + k as u32).min(64)))
                    }
                    (sim_isa::AluOp::And, Some(b)) => Some((a.d, of(&tz, &a.a).max(of(&tz, &b)))),
                    _ => None,
                },
                Op::Int(x) if !x.sat && !x.ty.is_packed16() => {
                    let (a, b) = (of(&tz, &x.a), x.b.map_or(64, |b| of(&tz, &b)));
                    let c = x.c.map_or(64, |c| of(&tz, &c));
                    match x.op {
                        sim_isa::IntOp::Add | sim_isa::IntOp::Sub => Some((x.d, a.min(b))),
                        sim_isa::IntOp::Mul(sim_isa::MulMode::Lo | sim_isa::MulMode::Wide) => {
                            Some((x.d, (a + b).min(64)))
                        }
                        sim_isa::IntOp::Mad(sim_isa::MulMode::Lo | sim_isa::MulMode::Wide) => {
                            Some((x.d, (a + b).min(64).min(c)))
                        }
                        _ => None,
                    }
                }
                // `mov` of a variable's address (a shared one's offset in
                // its window: `var_align` says 0 for any other space).
                Op::Mem(m) if m.op == MemOp::MovAddr => match m.addr.base {
                    AddrBase::Var(v) => {
                        Some((m.d[0], var_align(v).min(m.addr.offset.trailing_zeros())))
                    }
                    AddrBase::Reg(_) | AddrBase::Abs => None,
                },
                // What they write has no known low zeros.
                // Each other kind named: exhaustive, no wildcard over kinds (tidy).
                Op::Int(_)
                | Op::Mem(_)
                | Op::Video(_)
                | Op::Set(_)
                | Op::Setp(_)
                | Op::Selp(_)
                | Op::Slct(_)
                | Op::Bit(_)
                | Op::Cvt(_)
                | Op::Float(_)
                | Op::Warp(_)
                | Op::Async(_)
                | Op::Mma(_) => None,
            };
            // A guarded write may leave the old value: the lower of both.
            for &r in uses.writes(j) {
                let k = r as usize;
                let v = match value {
                    Some((d, v)) if d.0 == r && i.guard.is_none() => v,
                    Some((d, v)) if d.0 == r => v.min(tz.get(k).copied().unwrap_or(0)),
                    _ => 0,
                };
                if let Some(t) = tz.get_mut(k) {
                    if v < *t {
                        *t = v;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    tz
}

/// A merge candidate: a live, unguarded, non-volatile `ld.shared` of one
/// 32-bit element (`effect`: `db::has_effect(i)`, known beforehand): its
/// base, offset and destination.
fn candidate(i: &Instruction, effect: bool) -> Option<(AddrBase, i64, RegId)> {
    let Op::Mem(m) = &i.op else {
        return None;
    };
    let plain = m.op == MemOp::Ld
        && m.space == Space::Shared
        && m.vec == 1
        && m.ty.bits() == 32
        && i.guard.is_none()
        && !effect;
    plain.then_some((m.addr.base, m.addr.offset, m.d[0]))
}

/// The groups of `body` (`uses`: its registers, [`Uses::new`]; `dead`:
/// statements that issue nothing, left out; `var_align`: known low zero
/// bits of a shared variable's address).
pub(crate) fn shared_groups(
    body: &Body,
    uses: &Uses,
    dead: &[bool],
    var_align: &dyn Fn(u32) -> u32,
) -> Vec<Group> {
    let tz = alignment(body, uses, var_align);
    let stmts = &body.statements;
    let label_at: Vec<bool> = {
        let mut v = vec![false; stmts.len() + 1];
        for l in &body.labels {
            if let Some(x) = v.get_mut(l.target) {
                *x = true;
            }
        }
        v
    };
    // Once a statement (`Uses`): each is tested again by every search that meets it.
    let effect = &uses.effect;
    let mut groups = Vec::new();
    let mut taken = vec![false; stmts.len()];
    for first in 0..stmts.len() {
        let StatementKind::Instruction(i) = &stmts[first].kind else {
            continue;
        };
        if taken[first] || dead.get(first).copied().unwrap_or(false) {
            continue;
        }
        let Some((base, off, _)) = candidate(i, effect[first]) else {
            continue;
        };
        let base_tz = match base {
            AddrBase::Reg(r) => tz.get(r.0 as usize).copied().unwrap_or(0),
            AddrBase::Var(v) => var_align(v),
            AddrBase::Abs => 64,
        };
        for size in [16i64, 8] {
            if base_tz < size.trailing_zeros() || off.rem_euclid(size) != 0 {
                continue;
            }
            let stretch = Stretch {
                body,
                uses,
                dead,
                taken: &taken,
                label_at: &label_at,
            };
            if let Some(members) = stretch.collect(first, base, off, size) {
                for &m in &members {
                    taken[m as usize] = true;
                }
                groups.push(Group {
                    leader: first as u32,
                    members,
                });
                break;
            }
        }
    }
    groups
}

/// What a group's search reads: the body, its registers, the dead and
/// already merged statements and where labels stand.
struct Stretch<'a> {
    body: &'a Body,
    /// Its registers and, per statement, `db::has_effect`.
    uses: &'a Uses,
    dead: &'a [bool],
    taken: &'a [bool],
    label_at: &'a [bool],
}

impl Stretch<'_> {
    /// The loads of the words `off`, `off + 4`, ... (`size` bytes) from
    /// `base` in the stretch from `first` on, if all are there before the
    /// stretch ends or something stops the merge (see the module's list).
    fn collect(&self, first: usize, base: AddrBase, off: i64, size: i64) -> Option<Vec<u32>> {
        let Stretch {
            body,
            uses,
            dead,
            taken,
            label_at,
        } = *self;
        let effect = &uses.effect;
        let words = (size / 4) as usize;
        let mut found: Vec<Option<(usize, RegId)>> = vec![None; words];
        let StatementKind::Instruction(i0) = &body.statements[first].kind else {
            return None;
        };
        found[0] = candidate(i0, effect[first]).map(|(_, _, d)| (first, d));
        for (j, s) in body.statements.iter().enumerate().skip(first + 1) {
            if found.iter().all(Option::is_some) {
                break;
            }
            let StatementKind::Instruction(i) = &s.kind else {
                return None;
            };
            if label_at[j] {
                return None;
            }
            if let Some((b, o, d)) = candidate(i, effect[j]) {
                let k = (o - off) / 4;
                if b == base && (o - off).rem_euclid(4) == 0 && (0..words as i64).contains(&k) {
                    let k = k as usize;
                    if found[k].is_some() || taken[j] || dead.get(j).copied().unwrap_or(false) {
                        return None;
                    }
                    found[k] = Some((j, d));
                    continue;
                }
            }
            let writes_base = matches!(base, AddrBase::Reg(r) if uses.writes(j).contains(&r.0));
            if writes_base || effect[j] {
                return None;
            }
        }
        let members: Vec<(usize, RegId)> = found.into_iter().collect::<Option<_>>()?;
        let mut dests: Vec<RegId> = members.iter().map(|&(_, d)| d).collect();
        dests.sort_by_key(|r| r.0);
        dests.dedup();
        if dests.len() != members.len() || members.iter().any(|&(s, _)| s < first) {
            return None;
        }
        // A member's destination is written at the leader: nothing between
        // may read or write it before the member's own load (nor write the
        // base, checked above).
        for &(at, d) in &members {
            for j in first + 1..at {
                if !matches!(body.statements[j].kind, StatementKind::Instruction(_)) {
                    return None;
                }
                if uses.reads(j).contains(&d.0) || uses.writes(j).contains(&d.0) {
                    return None;
                }
            }
        }
        Some(members.into_iter().map(|(s, _)| s as u32).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::shared_groups;
    use crate::dead::Uses;
    use sim_module::parse_module;

    /// The merged groups of kernel `body` (a shared tile `t` of 4 KiB at
    /// offset 0 with its alignment `align`), each as its members' texts.
    fn groups(body: &str) -> Vec<Vec<String>> {
        let src = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .pred %p<4>; .reg .b32 %r<16>; .reg .f32 %f<16>; .reg .b64 %rd<8>;\n\
             .shared .align 4 .b8 t[4096];\n\
             mov.u32 %r1, %tid.x;\nmov.u32 %r2, t;\nshl.b32 %r3, %r1, 7;\nadd.s32 %r4, %r2, %r3;\n\
             {body}\nret;\n}}\n"
        );
        let module = parse_module(&src, "k.ptx").unwrap();
        let body = module.functions[0].body.as_ref().unwrap();
        let dead = vec![false; body.statements.len()];
        shared_groups(body, &Uses::new(body), &dead, &|_| 64)
            .into_iter()
            .map(|g| {
                g.members
                    .iter()
                    .map(|&s| body.statements[s as usize].text.trim().to_string())
                    .collect()
            })
            .collect()
    }

    /// The SGEMM's pattern: a row of the tile, a word per unrolled step,
    /// from a base ptxas knows is a multiple of 128 (`workloads/sgemm.ptx`).
    #[test]
    fn a_row_read_a_word_a_step_is_one_vector_load() {
        let g = groups(
            "ld.shared.f32 %f1, [%r4];\nfma.rn.f32 %f9, %f1, %f1, %f9;\n\
             ld.shared.f32 %f2, [%r4+4];\nfma.rn.f32 %f10, %f2, %f2, %f10;\n\
             ld.shared.f32 %f3, [%r4+8];\nld.shared.f32 %f4, [%r4+12];\n\
             ld.shared.f32 %f5, [%r4+16];\nld.shared.f32 %f6, [%r4+20];",
        );
        assert_eq!(
            g,
            [
                vec![
                    "ld.shared.f32 %f1, [%r4]",
                    "ld.shared.f32 %f2, [%r4+4]",
                    "ld.shared.f32 %f3, [%r4+8]",
                    "ld.shared.f32 %f4, [%r4+12]"
                ],
                vec!["ld.shared.f32 %f5, [%r4+16]", "ld.shared.f32 %f6, [%r4+20]"],
            ]
        );
    }

    /// What stops a merge: an unknown alignment, a barrier or a store in
    /// between, a member's destination read before its load, a label.
    #[test]
    fn nothing_merges_across_what_ptxas_would_not() {
        // %r5 = %r4 + %tid.x: any word.
        assert!(groups(
            "add.s32 %r5, %r4, %r1;\nld.shared.f32 %f1, [%r5];\nld.shared.f32 %f2, [%r5+4];"
        )
        .is_empty());
        assert!(
            groups("ld.shared.f32 %f1, [%r4];\nbar.sync 0;\nld.shared.f32 %f2, [%r4+4];")
                .is_empty()
        );
        assert!(groups(
            "ld.shared.f32 %f1, [%r4];\nst.shared.f32 [%r4+64], %f1;\nld.shared.f32 %f2, [%r4+4];"
        )
        .is_empty());
        assert!(groups(
            "ld.shared.f32 %f1, [%r4];\nadd.f32 %f3, %f2, %f1;\nld.shared.f32 %f2, [%r4+4];"
        )
        .is_empty());
        assert!(groups("ld.shared.f32 %f1, [%r4];\n$L1:\nld.shared.f32 %f2, [%r4+4];").is_empty());
        // Misaligned start: [%r4+4] and [%r4+8] are not one aligned pair.
        assert!(groups("ld.shared.f32 %f1, [%r4+4];\nld.shared.f32 %f2, [%r4+8];").is_empty());
    }
}
