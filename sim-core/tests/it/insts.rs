//! Instructions built by hand and warps that replay them, for the tests
//! and for `benches/sm.rs` (which includes this file by its path).

use sim_core::{RepeatStream, Sm, WarpLaunch};
use sim_isa::*;

/// Register `n`.
pub fn r(n: u32) -> RegId {
    RegId(n)
}

/// `op`, unguarded.
pub fn inst(op: Op) -> Instruction {
    Instruction { guard: None, op }
}

/// `selp.b32 d, a, b, c` (one SEL on every target).
pub fn selp(d: u32, a: u32, b: u32, c: u32) -> Instruction {
    inst(Op::Selp(Selp {
        ty: Type::B32,
        d: r(d),
        a: Operand::Reg(r(a)),
        b: Operand::Reg(r(b)),
        c: PredSrc::Reg {
            reg: r(c),
            negate: false,
        },
    }))
}

/// `setp.lt.and.u32 p, a, b, c` (one ISETP: the chain runs through the predicates).
pub fn setp(p: u32, a: u32, b: u32, c: Option<u32>) -> Instruction {
    inst(Op::Setp(Setp {
        cmp: CmpOp::Lt,
        bool_op: c.map(|c| {
            (
                BoolOp::And,
                PredSrc::Reg {
                    reg: r(c),
                    negate: false,
                },
            )
        }),
        ftz: false,
        ty: Type::U32,
        p: Some(r(p)),
        q: None,
        a: Operand::Reg(r(a)),
        b: Operand::Reg(r(b)),
    }))
}

/// `v{op}{2,4}` on every lane's halves or bytes, unsigned: `d = op(a, b)`, `c` the
/// accumulator.
pub fn video(op: VideoOp, simd: Simd, sat: bool, d: u32, a: u32, b: u32, c: u32) -> Instruction {
    inst(Op::Video(Video {
        sat,
        ..Video::plain(op, simd, r(d), r(a), r(b), r(c))
    }))
}

/// Adds `warps` warps to `sm`, each replaying `body` `times` times on
/// every lane, and runs it to completion.
pub fn run_repeating(sm: &mut Sm, warps: u32, body: &[u32], times: u64) {
    for w in 0..warps {
        let stream = Box::new(RepeatStream::new(body.to_vec(), times));
        sm.add_warp(WarpLaunch {
            warp_id: w,
            active: u32::MAX,
            stream,
        })
        .unwrap();
    }
    sm.run_to_completion().unwrap();
}
