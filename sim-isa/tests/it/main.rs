//! sim-isa integration tests: one binary, one submodule per area.

/// The family instruction (`Op::$family`'s payload) of statement `text`,
/// for the tests that call a family's lane function directly; panics
/// naming the text when it does not parse or is of another family.
macro_rules! family {
    ($text:expr, $family:ident) => {{
        let text: &str = $text;
        match sim_isa::parse::parse_instruction(text, &mut sim_isa::Symbols::new()) {
            Ok(sim_isa::Instruction {
                op: sim_isa::Op::$family(x),
                ..
            }) => x,
            other => panic!("{text}: {other:?}"),
        }
    }};
}

/// One lane case: a statement, its sources `a`, `b`, `c` and the result.
type LaneCase<'a> = (&'a str, u64, u64, u64, u64);

/// The lane cases of a table under `tests/data/` (`lanes-*.txt`): one a
/// line, `TEXT A B C RESULT`, the statement to its `;` and four numbers
/// (hex `0x..` or decimal, `_` allowed between digits); `#` starts a
/// comment.
fn lane_table(table: &str) -> Vec<LaneCase<'_>> {
    let number = |line: &str, w: &str| {
        let w = w.replace('_', "");
        match w.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => w.parse(),
        }
        .unwrap_or_else(|e| panic!("{line}: {w}: {e}"))
    };
    let mut cases = Vec::new();
    for line in table.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let end = line.find(';').unwrap_or_else(|| panic!("{line}: no `;`")) + 1;
        let n: Vec<u64> = line[end..]
            .split_whitespace()
            .map(|w| number(line, w))
            .collect();
        let [a, b, c, want] = n[..] else {
            panic!("{line}: four numbers, not {}", n.len())
        };
        cases.push((&line[..end], a, b, c, want));
    }
    cases
}

/// Asserts `lane(text, a, b, c) == want` for each case of a table,
/// naming the case that fails.
fn assert_lanes(lane: fn(&str, u64, u64, u64) -> u64, cases: &[LaneCase]) {
    for &(text, a, b, c, want) in cases {
        assert_eq!(
            lane(text, a, b, c),
            want,
            "{text} on {a:#x}, {b:#x}, {c:#x}"
        );
    }
}

mod approx_f64;
mod async_copy;
mod async_sass;
mod bit;
mod bulk_copy;
mod bytes;
mod carry;
mod conform;
mod cvt;
mod cvt_fp8;
mod enumerate;
mod enumerate_set;
mod envreg;
mod ex2_half;
mod examples;
mod exec;
mod families;
mod fastpath;
mod float_arith;
mod float_fast;
mod fuzz;
mod grid;
mod half_arith;
mod int_arith;
mod int_more;
mod int_simd;
mod lane_model;
mod mem;
mod mem_lanes;
mod mma;
mod mma_sass;
mod model;
mod mufu;
mod packed_half;
mod parse;
mod parse_errors;
mod parse_video;
mod prefetch;
mod prepared;
mod props;
mod ptxas_grid;
mod public_sample;
mod strategies;
mod tanh;
mod target;
mod vectors;
mod warp;
mod wmma;
mod wmma_sass;
