//! Warp-instructions per second for each family, executed over 32 lanes
//! (`cargo bench -p sim-isa --bench lanes`; criterion reports elements/s,
//! one element = one warp-instruction).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use sim_isa::*;

fn r(i: u32) -> RegId {
    RegId(i)
}

fn video(op: VideoOp, simd: Simd, sat: bool, add: bool) -> Op {
    let (mask, asel, bsel) = match simd {
        Simd::X2 => (0b11, [0, 1, 0, 0], [2, 3, 0, 0]),
        Simd::X4 => (0b1111, [0, 1, 2, 3], [4, 5, 6, 7]),
    };
    Op::Video(Video {
        op,
        simd,
        dsigned: true,
        asigned: true,
        bsigned: false,
        sat,
        add,
        mask,
        mask_explicit: false,
        asel,
        bsel,
        asel_explicit: false,
        bsel_explicit: false,
        sat_first: false,
        d: r(0),
        a: r(1),
        b: r(2),
        c: r(3),
    })
}

fn families() -> Vec<(&'static str, Op)> {
    let (a, b) = (Operand::Reg(r(1)), Operand::Reg(r(2)));
    let p = PredSrc::Reg {
        reg: r(4),
        negate: false,
    };
    vec![
        ("vadd4.sat", video(VideoOp::Add, Simd::X4, true, false)),
        (
            "vabsdiff4.add",
            video(VideoOp::Absdiff, Simd::X4, false, true),
        ),
        ("vavrg2", video(VideoOp::Avrg, Simd::X2, false, false)),
        (
            "vset2.lt",
            video(VideoOp::Set(CmpOp::Lt), Simd::X2, false, false),
        ),
        (
            "set.ltu.and.f32.f32",
            Op::Set(Set {
                cmp: CmpOp::Ltu,
                bool_op: Some((BoolOp::And, p)),
                ftz: false,
                dtype: Type::F32,
                stype: Type::F32,
                d: r(0),
                a,
                b,
            }),
        ),
        (
            "set.lt.u32.bf16x2",
            Op::Set(Set {
                cmp: CmpOp::Lt,
                bool_op: None,
                ftz: false,
                dtype: Type::U32,
                stype: Type::Bf16x2,
                d: r(0),
                a,
                b,
            }),
        ),
        (
            "setp.lt.s32 p|q",
            Op::Setp(Setp {
                cmp: CmpOp::Lt,
                bool_op: None,
                ftz: false,
                ty: Type::S32,
                p: Some(r(5)),
                q: Some(Some(r(6))),
                a,
                b,
            }),
        ),
        (
            "selp.b64",
            Op::Selp(Selp {
                ty: Type::B64,
                d: r(0),
                a,
                b,
                c: p,
            }),
        ),
        (
            "slct.ftz.u32.f32",
            Op::Slct(Slct {
                ftz: true,
                dtype: Type::U32,
                ctype: Type::F32,
                d: r(0),
                a,
                b,
                c: Operand::Reg(r(3)),
            }),
        ),
        (
            "add.u32",
            Op::Alu(Alu {
                op: AluOp::Add,
                ty: Type::U32,
                d: r(0),
                a,
                b: Some(b),
            }),
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let ctx = ExecCtx {
        target: Target::SM_90,
        warp_id: 0,
    };
    let mut regs = WarpRegs::new(7);
    let mut x = 0x9E37_79B9u32;
    for reg in 0..4 {
        for l in 0..WARP_SIZE {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            regs.set_lane(r(reg), l, u64::from(x));
        }
    }
    for l in 0..WARP_SIZE {
        regs.set_lane(r(4), l, (l % 3 == 0) as u64);
    }
    let mut g = c.benchmark_group("warp_instructions");
    g.throughput(Throughput::Elements(1));
    for (name, op) in families() {
        let inst = Instruction { guard: None, op };
        g.bench_function(name, |bch| {
            bch.iter(|| {
                execute(
                    black_box(&inst),
                    &ctx,
                    black_box(&mut regs),
                    black_box(u32::MAX),
                )
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
