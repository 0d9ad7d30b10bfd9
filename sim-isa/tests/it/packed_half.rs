//! One check for the packed half forms (`.f16x2 .bf16x2`) of the
//! one-source float instructions (`ex2.approx`, `tanh.approx`): each half
//! of the packed result is the scalar form on that half of the source.

use sim_isa::exec::float_lane;

/// `float_lane` of the one-source statement `text` on `a`.
pub fn lane(text: &str, a: u64) -> u64 {
    float_lane(&family!(text, Float), a, 0, 0)
}

/// `lane(text, source) == result` for each `(text, source, result)`.
pub fn assert_unary_lanes(cases: &[(&str, u64, u64)]) {
    for &(text, a, want) in cases {
        assert_eq!(lane(text, a), want, "{text} on {a:#x}");
    }
}

/// For each scalar statement (`.f16`/`.bf16` on `%h1, %h2`) and each
/// packed source: its packed form (`x2` on `%r1, %r2`) is the scalar form
/// on the source's low half and on its high half, in the same halves.
pub fn two_scalar_lanes(scalars: &[&str], sources: &[u64]) {
    for scalar in scalars {
        let packed = scalar.replace("16 %h1, %h2;", "16x2 %r1, %r2;");
        assert_ne!(&packed, scalar, "{scalar} is not a scalar half form");
        for &a in sources {
            let want = lane(scalar, a & 0xffff) | lane(scalar, a >> 16) << 16;
            assert_eq!(lane(&packed, a), want, "{packed} {a:#x}");
        }
    }
}
