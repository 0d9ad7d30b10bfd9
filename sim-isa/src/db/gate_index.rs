//! The gates by the instruction variant they are about: `check_target` runs
//! for every statement of a module, and asking each of the 85 gates (each
//! a call) cost more than parsing some statements; asking only the gates of
//! the statement's own [`Op`] variant gives the same answers, in the same
//! order, from a handful of calls.

use super::{gates, Gate};
use crate::inst::Op;
use std::sync::OnceLock;

/// An [`Op`] variant, named without its payload: what a [`Gate`] declares
/// it is about (`Gate::on`).
/// Each numbered: its slot in the index (`gates_for`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpTag {
    Video = 0,
    Set = 1,
    Setp = 2,
    Selp = 3,
    Slct = 4,
    Alu = 5,
    Int = 6,
    Bit = 7,
    Cvt = 8,
    Float = 9,
    Mem = 10,
    Warp = 11,
    Async = 12,
    Mma = 13,
}

/// How many [`OpTag`]s there are (the index's length).
const TAGS: usize = OpTag::Mma as usize + 1;

impl OpTag {
    /// The variant of `op`.
    pub(crate) const fn of(op: &Op) -> OpTag {
        match op {
            Op::Video(_) => OpTag::Video,
            Op::Set(_) => OpTag::Set,
            Op::Setp(_) => OpTag::Setp,
            Op::Selp(_) => OpTag::Selp,
            Op::Slct(_) => OpTag::Slct,
            Op::Alu(_) => OpTag::Alu,
            Op::Int(_) => OpTag::Int,
            Op::Bit(_) => OpTag::Bit,
            Op::Cvt(_) => OpTag::Cvt,
            Op::Float(_) => OpTag::Float,
            Op::Mem(_) => OpTag::Mem,
            Op::Warp(_) => OpTag::Warp,
            Op::Async(_) => OpTag::Async,
            Op::Mma(_) => OpTag::Mma,
        }
    }
}

/// The gates whose `on` names `tag`, in [`gates`]' order (which decides
/// which failure is reported first). Built once, on first use.
pub(crate) fn gates_for(tag: OpTag) -> &'static [&'static Gate] {
    static BY_TAG: OnceLock<[Vec<&'static Gate>; TAGS]> = OnceLock::new();
    let by_tag = BY_TAG.get_or_init(|| {
        let mut by_tag: [Vec<&'static Gate>; TAGS] = Default::default();
        for g in gates() {
            for &t in g.on {
                by_tag[t as usize].push(g);
            }
        }
        by_tag
    });
    &by_tag[tag as usize]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_instruction;
    use crate::Symbols;

    /// ptxas's verdict files: each line some verdict words, targets or
    /// versions, then a statement (tests/data/README.md).
    const VERDICTS: &[&str] = &[
        include_str!("../../tests/data/approx-f64-ptxas.txt"),
        include_str!("../../tests/data/async-ptxas.txt"),
        include_str!("../../tests/data/bit-ptxas.txt"),
        include_str!("../../tests/data/bmsk-ptxas.txt"),
        include_str!("../../tests/data/carry-ptxas.txt"),
        include_str!("../../tests/data/cvt-bf16-gates.txt"),
        include_str!("../../tests/data/cvt-fp8-ptxas.txt"),
        include_str!("../../tests/data/cvt-pack-ptxas.txt"),
        include_str!("../../tests/data/cvt-ptxas.txt"),
        include_str!("../../tests/data/ex2-half-ptxas.txt"),
        include_str!("../../tests/data/float-arith-ptxas.txt"),
        include_str!("../../tests/data/fns-ptxas.txt"),
        include_str!("../../tests/data/half-arith-ptxas.txt"),
        include_str!("../../tests/data/int-arith-ptxas.txt"),
        include_str!("../../tests/data/int-more-ptxas.txt"),
        include_str!("../../tests/data/int-simd-ptxas.txt"),
        include_str!("../../tests/data/mem-ptxas.txt"),
        include_str!("../../tests/data/mma-ptxas.txt"),
        include_str!("../../tests/data/prefetch-ptxas.txt"),
        include_str!("../../tests/data/tanh-ptxas.txt"),
        include_str!("../../tests/data/testp-ptxas.txt"),
        include_str!("../../tests/data/warp-ptxas.txt"),
        include_str!("../../tests/data/wmma-ptxas.txt"),
        // The families without a verdict file of their own.
        "vadd2.u32.u32.u32 %r1, %r2, %r3, %r4;\n\
         set.eq.u32.f64 %r1, %fd1, %fd2;\n\
         setp.eq.f64 %p1, %fd1, %fd2;\n\
         selp.f64 %fd1, %fd2, %fd3, %p1;\n\
         slct.f64.s32 %fd1, %fd2, %fd3, %r1;\n\
         set.eq.u32.f16 %r1, %h1, %h2;\n\
         set.eq.f16.f32 %h1, %f1, %f2;\n\
         set.eq.u16.f16 %rs1, %h1, %h2;\n\
         setp.eq.f16 %p1, %h1, %h2;\n\
         setp.eq.bf16 %p1, %h1, %h2;\n\
         set.eq.u32.bf16 %r1, %h1, %h2;\n\
         set.eq.bf16.f32 %h1, %f1, %f2;",
    ];

    /// The statement of a verdict line: what follows its leading verdicts,
    /// targets and versions.
    fn statement(line: &str) -> &str {
        let mut rest = line.trim();
        while let Some((w, r)) = rest.split_once(' ') {
            let word = matches!(w, "accept" | "reject" | "arch" | "gate" | "-")
                || w.starts_with("sm_")
                || w.chars().all(|c| c.is_ascii_digit() || c == '.');
            if !word {
                break;
            }
            rest = r.trim_start();
        }
        rest
    }

    /// A gate's `on` must name every variant it applies to, or
    /// `check_target` would skip it there: over every statement ptxas
    /// judged that parses, and a few more, no gate applies outside its
    /// `on`, and every gate applies somewhere (so none goes unchecked).
    #[test]
    fn every_gate_applies_only_on_its_variants() {
        let all: Vec<&Gate> = gates().collect();
        let mut applied = vec![false; all.len()];
        let mut parsed = 0;
        for line in VERDICTS.iter().flat_map(|f| f.lines()) {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let Ok(i) = parse_instruction(statement(line), &mut Symbols::new()) else {
                continue;
            };
            parsed += 1;
            let tag = OpTag::of(&i.op);
            for (k, g) in all.iter().enumerate().filter(|(_, g)| (g.applies)(&i)) {
                assert!(g.on.contains(&tag), "{}: {line} is {tag:?}", g.what);
                assert!(gates_for(tag).iter().any(|x| std::ptr::eq(*x, *g)));
                applied[k] = true;
            }
        }
        let missed: Vec<&str> = (0..all.len())
            .filter(|&k| !applied[k])
            .map(|k| all[k].what)
            .collect();
        assert!(parsed > 3000, "{parsed} statements parsed");
        assert!(missed.is_empty(), "never applied: {missed:?}");
    }
}
