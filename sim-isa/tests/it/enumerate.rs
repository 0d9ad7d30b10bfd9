//! Acceptance 4: every legal variant parses to the fields its text names,
//! prints back to text that re-parses to an equal instruction, passes
//! `check_target` on sm_90 and executes (and agrees with the model); the
//! illegal neighbours are rejected as `ErrorKind::Invalid`.
//!
//! The legal sets are this file's own lists, written from the spec syntax
//! blocks plus ERRATA 6, 9-13, 16a, 18 and checked against ptxas 11.8
//! (`set`: 72 destination/source pairs; compares per source class; `.ftz`
//! only where the compared values are f32/f16/f16x2 and the destination is
//! not bf16). Nothing here reads sim-isa's own tables.

use super::model::{self, MASKS2, MASKS4};
use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::{
    execute, BoolOp, CmpOp, ErrorKind, ExecCtx, Instruction, IsaError, Op, Operand, PredSrc,
    PtxVersion, Requirement, Simd, Symbols, Target, Type, Video, VideoOp, WarpRegs, WARP_SIZE,
};

// ------------------------------------------------------------ shared helpers

/// splitmix64: deterministic inputs without a dependency.
pub struct Rng(pub u64);
impl Rng {
    /// Next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Collects failures so one bug does not hide the rest; panics at the end
/// with a count and the first few.
#[derive(Default)]
pub struct Failures(Vec<String>);
impl Failures {
    /// Records one failure.
    pub fn push(&mut self, s: String) {
        self.0.push(s);
    }
    /// Panics if anything failed.
    pub fn finish(self, what: &str, total: usize) {
        if !self.0.is_empty() {
            let shown: Vec<_> = self.0.iter().take(12).cloned().collect();
            panic!(
                "{what}: {} of {total} failed, first ones:\n  {}",
                self.0.len(),
                shown.join("\n  ")
            );
        }
    }
}

/// Parses, checks the fields with `check`, prints, re-parses, compares,
/// checks sm_90 and runs it on a warp of pseudo-random registers. Returns the
/// instruction, its symbols and registers after running (for model checks).
fn roundtrip(
    text: &str,
    fails: &mut Failures,
    rng: &mut Rng,
) -> Option<(Instruction, Symbols, WarpRegs, WarpRegs)> {
    let mut syms = Symbols::new();
    let inst = match parse_instruction(text, &mut syms) {
        Ok(i) => i,
        Err(e) => {
            fails.push(format!("`{text}`: rejected: {e}"));
            return None;
        }
    };
    let printed = inst.display(&syms).to_string();
    let mut again = syms.clone();
    match parse_instruction(&printed, &mut again) {
        Ok(i2) if i2 == inst && again.len() == syms.len() => {}
        Ok(i2) => fails.push(format!(
            "`{text}` printed as `{printed}` re-parses differently: {inst:?} vs {i2:?}"
        )),
        Err(e) => fails.push(format!(
            "`{text}` printed as `{printed}` does not re-parse: {e}"
        )),
    }
    if let Err(e) = check_target(&inst, Target::SM_90, None) {
        fails.push(format!("`{text}`: rejected on sm_90: {e}"));
    }
    let mut regs = WarpRegs::new(syms.len());
    for id in syms.ids() {
        for lane in 0..WARP_SIZE {
            regs.set_lane(id, lane, rng.next());
        }
    }
    // Width the instruction gives each register: keep inputs in range.
    for u in inst.reg_uses().iter() {
        let m = if u.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << u.bits) - 1
        };
        for lane in 0..WARP_SIZE {
            let v = regs.lane(u.reg, lane) & m;
            regs.set_lane(u.reg, lane, v);
        }
    }
    let before = regs.clone();
    execute(
        &inst,
        &ExecCtx {
            target: Target::SM_90,
            warp_id: 0,
        },
        &mut regs,
        u32::MAX,
    );
    Some((inst, syms, before, regs))
}

fn expect_invalid(text: &str, fails: &mut Failures) {
    let mut syms = Symbols::new();
    match parse_instruction(text, &mut syms) {
        Err(e) if e.kind() == ErrorKind::Invalid => {
            if let IsaError::Invalid { col, token, reason } = &e {
                if *col == 0
                    || reason.to_string().is_empty()
                    || !text
                        .get(col - 1..)
                        .is_some_and(|t| t.starts_with(token.as_str()))
                {
                    fails.push(format!(
                        "`{text}`: error does not point at its token: {e:?}"
                    ));
                }
            }
        }
        Err(e) => fails.push(format!("`{text}`: wrong kind {:?}: {e}", e.kind())),
        Ok(i) => fails.push(format!("`{text}`: accepted as {i:?}")),
    }
}

fn sel_text(simd: Simd, sel: &[u8; 4]) -> String {
    // `.hxy`: x feeds lane 1, y lane 0; `.bxyzw`: x lane 3 ... w lane 0 (ERRATA 11).
    let n = simd.lanes();
    let p = if simd == Simd::X2 { 'h' } else { 'b' };
    let digits: String = (0..n).rev().map(|i| char::from(b'0' + sel[i])).collect();
    format!(".{p}{digits}")
}

// ------------------------------------------------------------ video

const ARITH: [(&str, VideoOp); 6] = [
    ("vadd", VideoOp::Add),
    ("vsub", VideoOp::Sub),
    ("vavrg", VideoOp::Avrg),
    ("vabsdiff", VideoOp::Absdiff),
    ("vmin", VideoOp::Min),
    ("vmax", VideoOp::Max),
];
const VSET_CMPS: [CmpOp; 6] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
];
const SIGN: [(bool, &str); 2] = [(false, "u32"), (true, "s32")];

/// One legal video variant and its text.
pub struct VideoCase {
    /// The text.
    pub text: String,
    /// The fields it must decode to (registers are d=%d, a=%a, b=%b, c=%c).
    pub want: Video,
}

/// Every legal video variant: family x dtype x atype x btype x {none, sat,
/// sat-first, add} x {default, each listed mask} x {default selectors,
/// explicit defaults, a non-default pair}.
pub fn video_cases() -> Vec<VideoCase> {
    let mut out = Vec::new();
    let mut rng = Rng(7);
    for simd in [Simd::X2, Simd::X4] {
        let n = simd.lanes();
        let masks: Vec<(Option<&str>, u8)> =
            std::iter::once((None, if n == 2 { 0b11 } else { 0b1111 }))
                .chain(
                    if n == 2 {
                        MASKS2.to_vec()
                    } else {
                        MASKS4.to_vec()
                    }
                    .into_iter()
                    .map(|(t, m)| (Some(t), m)),
                )
                .collect();
        let (adef, bdef): ([u8; 4], [u8; 4]) = if n == 2 {
            ([0, 1, 0, 0], [2, 3, 0, 0])
        } else {
            ([0, 1, 2, 3], [4, 5, 6, 7])
        };
        let ops: Vec<(String, VideoOp)> = ARITH
            .iter()
            .map(|(s, o)| (format!("{s}{n}"), *o))
            .chain(
                VSET_CMPS
                    .iter()
                    .map(|c| (format!("vset{n}"), VideoOp::Set(*c))),
            )
            .collect();
        for (name, op) in &ops {
            let is_set = matches!(op, VideoOp::Set(_));
            let dtypes: &[(bool, &str)] = if is_set { &[(false, "")] } else { &SIGN };
            // (sat, add, sat_first)
            let secondaries: &[(bool, bool, bool)] = if is_set {
                &[(false, false, false), (false, true, false)]
            } else {
                &[
                    (false, false, false),
                    (true, false, false),
                    (true, false, true),
                    (false, true, false),
                ]
            };
            for &(ds, dname) in dtypes {
                for &(asg, an) in &SIGN {
                    for &(bsg, bn) in &SIGN {
                        for &(sat, add, sat_first) in secondaries {
                            for &(mtext, mbits) in &masks {
                                for selmode in 0..3 {
                                    let (asel, bsel, explicit) = match selmode {
                                        0 => (adef, bdef, false),
                                        1 => (adef, bdef, true),
                                        _ => {
                                            let mut a = [0u8; 4];
                                            let mut b = [0u8; 4];
                                            for i in 0..n {
                                                a[i] = (rng.next() % (2 * n as u64)) as u8;
                                                b[i] = (rng.next() % (2 * n as u64)) as u8;
                                            }
                                            (a, b, true)
                                        }
                                    };
                                    let types = if is_set {
                                        format!("{an}.{bn}")
                                    } else {
                                        format!("{dname}.{an}.{bn}")
                                    };
                                    let cmp = match op {
                                        VideoOp::Set(c) => format!(".{}", c.name()),
                                        _ => String::new(),
                                    };
                                    let sec = if add {
                                        ".add"
                                    } else if sat && !sat_first {
                                        ".sat"
                                    } else {
                                        ""
                                    };
                                    let pre = if sat_first { ".sat" } else { "" };
                                    let m = mtext.map(|t| format!(".{t}")).unwrap_or_default();
                                    let (sa, sb) = if explicit {
                                        (sel_text(simd, &asel), sel_text(simd, &bsel))
                                    } else {
                                        (String::new(), String::new())
                                    };
                                    let text = format!(
                                        "{name}{pre}.{types}{cmp}{sec} %d{m}, %a{sa}, %b{sb}, %c;"
                                    );
                                    let want = Video {
                                        op: *op,
                                        simd,
                                        dsigned: ds,
                                        asigned: asg,
                                        bsigned: bsg,
                                        sat,
                                        add,
                                        mask: mbits,
                                        mask_explicit: mtext.is_some(),
                                        asel,
                                        bsel,
                                        asel_explicit: explicit,
                                        bsel_explicit: explicit,
                                        sat_first,
                                        d: sim_isa::RegId(0),
                                        a: sim_isa::RegId(1),
                                        b: sim_isa::RegId(2),
                                        c: sim_isa::RegId(3),
                                    };
                                    out.push(VideoCase { text, want });
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// Field-by-field comparison, ignoring selector slots beyond the lane count.
fn video_fields_match(got: &Video, want: &Video) -> bool {
    let n = want.simd.lanes();
    got.op == want.op
        && got.simd == want.simd
        && got.dsigned == want.dsigned
        && got.asigned == want.asigned
        && got.bsigned == want.bsigned
        && got.sat == want.sat
        && got.add == want.add
        && got.mask == want.mask
        && got.mask_explicit == want.mask_explicit
        && got.asel[..n] == want.asel[..n]
        && got.bsel[..n] == want.bsel[..n]
        && got.asel_explicit == want.asel_explicit
        && got.bsel_explicit == want.bsel_explicit
        && got.sat_first == want.sat_first
}

#[test]
fn every_legal_video_variant() {
    let cases = video_cases();
    // 2 widths: arith 6 ops x 8 types x 4 secondaries, vset 6 cmps x 4 types x 2; masks 4 / 16; 3 selector modes.
    assert_eq!(
        cases.len(),
        (6 * 8 * 4 + 6 * 4 * 2) * 4 * 3 + (6 * 8 * 4 + 6 * 4 * 2) * 16 * 3
    );
    let mut fails = Failures::default();
    let mut rng = Rng(1);
    let mut model_fails = Failures::default();
    for case in &cases {
        let Some((inst, syms, before, after)) = roundtrip(&case.text, &mut fails, &mut rng) else {
            continue;
        };
        let Op::Video(got) = inst.op else {
            fails.push(format!("`{}`: decoded as {:?}", case.text, inst.op));
            continue;
        };
        if !video_fields_match(&got, &case.want) {
            fails.push(format!("`{}`: decoded {got:?}", case.text));
            continue;
        }
        let id = |n: &str| syms.get(n).unwrap();
        for lane in 0..WARP_SIZE {
            let (a, b, c) = (
                before.lane(id("%a"), lane),
                before.lane(id("%b"), lane),
                before.lane(id("%c"), lane),
            );
            let want = model::video(&got, a as u32, b as u32, c as u32) as u64;
            let d = after.lane(id("%d"), lane);
            if d != want {
                model_fails.push(format!(
                    "`{}` a={a:#x} b={b:#x} c={c:#x}: got {d:#x}, model {want:#x}",
                    case.text
                ));
                break;
            }
        }
    }
    fails.finish("video variants (parse/print/check/execute)", cases.len());
    model_fails.finish("video variants vs model", cases.len());
}

#[test]
fn every_video_selector() {
    let mut fails = Failures::default();
    let mut rng = Rng(2);
    let mut total = 0;
    for (simd, name, span) in [(Simd::X2, "vadd2", 4u32), (Simd::X4, "vadd4", 8)] {
        let n = simd.lanes() as u32;
        for code in 0..span.pow(n) {
            let mut sel = [0u8; 4];
            for (i, s) in sel.iter_mut().enumerate().take(n as usize) {
                *s = ((code / span.pow(i as u32)) % span) as u8;
            }
            let st = sel_text(simd, &sel);
            for (text, on_a) in [
                (format!("{name}.u32.u32.u32 %d, %a{st}, %b, %c;"), true),
                (format!("{name}.u32.u32.u32 %d, %a, %b{st}, %c;"), false),
            ] {
                total += 1;
                let Some((inst, ..)) = roundtrip(&text, &mut fails, &mut rng) else {
                    continue;
                };
                if let Op::Video(v) = inst.op {
                    let got = if on_a { v.asel } else { v.bsel };
                    if got[..n as usize] != sel[..n as usize] {
                        fails.push(format!(
                            "`{text}`: selector decoded as {got:?}, want {sel:?}"
                        ));
                    }
                }
            }
        }
    }
    fails.finish("video selectors", total);
}

#[test]
fn ptxas_accepted_video_modifier_orders() {
    // ptxas 11.8 accepts the modifiers of a video instruction in any order
    // (checked one by one). Re-printing may normalise the order, but the
    // text must parse and round-trip.
    let mut fails = Failures::default();
    let mut rng = Rng(3);
    let texts = [
        "vadd4.sat.s32.s32.s32 %d, %a, %b, %c;",
        "vadd2.sat.u32.s32.u32 %d.h1, %a, %b, %c;",
        "vadd4.s32.sat.s32.s32 %d, %a, %b, %c;",
        "vadd4.add.s32.s32.s32 %d, %a, %b, %c;",
        "vset4.eq.s32.s32 %d, %a, %b, %c;",
        "vset4.s32.s32.add.eq %d, %a, %b, %c;",
    ];
    for t in texts {
        roundtrip(t, &mut fails, &mut rng);
    }
    fails.finish("ptxas-accepted modifier orders", texts.len());
}

#[test]
fn illegal_video_neighbours() {
    let mut fails = Failures::default();
    let mut texts: Vec<String> = Vec::new();
    for n in [2, 4] {
        let ops: Vec<String> = ARITH.iter().map(|(s, _)| format!("{s}{n}")).collect();
        for op in &ops {
            // ERRATA 6
            texts.push(format!("{op}.s32.s32.s32.sat.add %d, %a, %b, %c;"));
            texts.push(format!("{op}.s32.s32.s32.add.sat %d, %a, %b, %c;"));
            texts.push(format!("{op}.sat.s32.s32.s32.add %d, %a, %b, %c;"));
            // Types: exactly three of u32/s32.
            texts.push(format!("{op}.s32.s32 %d, %a, %b, %c;"));
            texts.push(format!("{op}.s32.s32.s32.s32 %d, %a, %b, %c;"));
            for bad in ["u16", "s16", "b32", "f32", "u64", "s64"] {
                texts.push(format!("{op}.{bad}.s32.s32 %d, %a, %b, %c;"));
                texts.push(format!("{op}.s32.{bad}.s32 %d, %a, %b, %c;"));
                texts.push(format!("{op}.s32.s32.{bad} %d, %a, %b, %c;"));
            }
            // ERRATA 16a: registers only.
            texts.push(format!("{op}.s32.s32.s32 %d, 1, %b, %c;"));
            texts.push(format!("{op}.s32.s32.s32 %d, %a, 0x10, %c;"));
            texts.push(format!("{op}.s32.s32.s32 %d, %a, %b, 0;"));
            // No selector on c.
            let csel = if n == 2 { ".h10" } else { ".b3210" };
            texts.push(format!("{op}.s32.s32.s32 %d, %a, %b, %c{csel};"));
            texts.push(format!("{op}.s32.s32.s32.ftz %d, %a, %b, %c;"));
        }
        let vset = format!("vset{n}");
        // ERRATA 8: no .sat and no destination type on vset.
        texts.push(format!("{vset}.u32.u32.eq.sat %d, %a, %b, %c;"));
        texts.push(format!("{vset}.u32.u32.u32.eq %d, %a, %b, %c;"));
        texts.push(format!("{vset}.u32.u32 %d, %a, %b, %c;"));
        // ERRATA 9: secondary operations other than .add.
        for sec in ["max", "min", "sub"] {
            texts.push(format!("{vset}.u32.u32.ne.{sec} %d, %a, %b, %c;"));
        }
        // ERRATA 13 / spec: vset compares are eq ne lt le gt ge only.
        for c in [
            "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
        ] {
            texts.push(format!("{vset}.u32.u32.{c} %d, %a, %b, %c;"));
        }
    }
    // ERRATA 9-11: masks are exactly the listed ones, digits descending.
    for m in [
        "h01", "h00", "h11", "h2", "h3", "h32", "h210", "b0", "b10", "h", "h100",
    ] {
        texts.push(format!("vadd2.u32.u32.u32 %d.{m}, %a, %b, %c;"));
        texts.push(format!("vset2.u32.u32.eq %d.{m}, %a, %b, %c;"));
    }
    for m in [
        "b00", "b01", "b02", "b12", "b3201", "b0123", "b4", "b43", "b33", "b32100", "h10", "h0",
        "b", "b7",
    ] {
        texts.push(format!("vadd4.u32.u32.u32 %d.{m}, %a, %b, %c;"));
        texts.push(format!("vset4.u32.u32.eq %d.{m}, %a, %b, %c;"));
    }
    // ERRATA 11: selector width and digit range.
    for s in ["h40", "h04", "h1", "h100", "b3210", "b10", "h"] {
        texts.push(format!("vadd2.u32.u32.u32 %d, %a.{s}, %b, %c;"));
        texts.push(format!("vadd2.u32.u32.u32 %d, %a, %b.{s}, %c;"));
    }
    for s in ["b8000", "b0009", "b321", "b32100", "h10", "h32", "b"] {
        texts.push(format!("vadd4.u32.u32.u32 %d, %a.{s}, %b, %c;"));
        texts.push(format!("vadd4.u32.u32.u32 %d, %a, %b.{s}, %c;"));
    }
    for t in &texts {
        expect_invalid(t, &mut fails);
    }
    fails.finish("illegal video neighbours", texts.len());
}

// ------------------------------------------------------------ set / setp / selp / slct

/// The eleven types of the 9.7.6 syntax blocks.
pub const CORE_TYPES: [Type; 11] = [
    Type::B16,
    Type::B32,
    Type::B64,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::F32,
    Type::F64,
];

/// Every (dtype, stype) pair `set` accepts: 9.7.6.1 (u32/s32/f32 from the
/// eleven core types), 9.7.7.1 (f16 from core + f16; bf16 from core + f16
/// and, ERRATA 18, bf16; u16/s16/u32/s32 from f16 and bf16; u32/s32 and
/// the matching x2 type from f16x2 / bf16x2). 72 pairs, as ptxas 11.8 says.
pub fn set_pairs() -> Vec<(Type, Type)> {
    let mut v = Vec::new();
    for d in [Type::U32, Type::S32, Type::F32] {
        for s in CORE_TYPES {
            v.push((d, s));
        }
    }
    for s in CORE_TYPES.into_iter().chain([Type::F16]) {
        v.push((Type::F16, s));
    }
    for s in CORE_TYPES.into_iter().chain([Type::F16, Type::Bf16]) {
        v.push((Type::Bf16, s));
    }
    for d in [Type::U16, Type::S16, Type::U32, Type::S32] {
        v.push((d, Type::F16));
        v.push((d, Type::Bf16));
    }
    for d in [Type::U32, Type::S32, Type::F16x2] {
        v.push((d, Type::F16x2));
    }
    for d in [Type::U32, Type::S32, Type::Bf16x2] {
        v.push((d, Type::Bf16x2));
    }
    v
}

fn is_float(t: Type) -> bool {
    matches!(
        t,
        Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2 | Type::F32 | Type::F64
    )
}

/// Compares legal on a source type (ERRATA 13).
pub fn cmps_for(stype: Type) -> Vec<CmpOp> {
    use CmpOp::*;
    let name = stype.name();
    if is_float(stype) {
        vec![
            Eq, Ne, Lt, Le, Gt, Ge, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan,
        ]
    } else if name.starts_with('b') {
        vec![Eq, Ne]
    } else if name.starts_with('u') {
        vec![Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs]
    } else {
        vec![Eq, Ne, Lt, Le, Gt, Ge]
    }
}

/// `.ftz` is legal when the compared values are f32/f16/f16x2 and the
/// destination is not bf16 (ERRATA 18; ptxas rejects `set.lt.ftz.bf16.f32`).
pub fn set_ftz_ok(dtype: Type, stype: Type) -> bool {
    matches!(stype, Type::F32 | Type::F16 | Type::F16x2) && dtype != Type::Bf16
}

/// Any bf16 operand: ptxas 11.8 then refuses an immediate BoolOp `c`
/// ("Arguments mismatch for instruction 'set'").
fn is_bf16_form(d: Type, s: Type) -> bool {
    [d, s]
        .iter()
        .any(|t| matches!(t, Type::Bf16 | Type::Bf16x2))
}

/// Lowest target for a `set` pair (ERRATA 19; f64 from 9.7.6.1).
fn set_min_sm(d: Type, s: Type) -> u32 {
    let any = |f: &dyn Fn(Type) -> bool| f(d) || f(s);
    if any(&|t| matches!(t, Type::Bf16 | Type::Bf16x2)) {
        90
    } else if any(&|t| matches!(t, Type::F16 | Type::F16x2)) {
        53
    } else if s == Type::F64 {
        13
    } else {
        10
    }
}

/// Lowest PTX ISA version for a `set` pair (9.7.7.1 PTX ISA Notes, ERRATA 19).
fn set_min_ptx(d: Type, s: Type) -> PtxVersion {
    let any = |f: &dyn Fn(Type) -> bool| f(d) || f(s);
    if any(&|t| matches!(t, Type::Bf16 | Type::Bf16x2)) {
        PtxVersion::new(7, 8)
    } else if matches!(s, Type::F16 | Type::F16x2)
        && matches!(d, Type::U16 | Type::S16 | Type::U32 | Type::S32)
    {
        PtxVersion::new(6, 5)
    } else if any(&|t| matches!(t, Type::F16 | Type::F16x2)) {
        PtxVersion::new(4, 2)
    } else {
        PtxVersion::new(1, 0)
    }
}

/// The BoolOp tails exercised: none, and each op with `%c`, `!%c`, `1`, `!0`.
const BOOL_TAILS: [(Option<BoolOp>, &str); 13] = [
    (None, ""),
    (Some(BoolOp::And), ", %c"),
    (Some(BoolOp::Or), ", %c"),
    (Some(BoolOp::Xor), ", %c"),
    (Some(BoolOp::And), ", !%c"),
    (Some(BoolOp::Or), ", !%c"),
    (Some(BoolOp::Xor), ", !%c"),
    (Some(BoolOp::And), ", 1"),
    (Some(BoolOp::Or), ", 0"),
    (Some(BoolOp::Xor), ", 1"),
    (Some(BoolOp::And), ", !0"),
    (Some(BoolOp::Or), ", !1"),
    (Some(BoolOp::Xor), ", !0"),
];

fn pred_tail(tail: &str, syms: &Symbols) -> Option<PredSrc> {
    let t = tail.trim_start_matches(", ");
    match t {
        "" => None,
        "1" => Some(PredSrc::Imm(true)),
        "0" => Some(PredSrc::Imm(false)),
        "!1" => Some(PredSrc::Imm(false)),
        "!0" => Some(PredSrc::Imm(true)),
        "%c" => Some(PredSrc::Reg {
            reg: syms.get("%c")?,
            negate: false,
        }),
        "!%c" => Some(PredSrc::Reg {
            reg: syms.get("%c")?,
            negate: true,
        }),
        _ => None,
    }
}

/// Whether `set`'s decoded predicate source is right for the text. `!1`
/// may be stored as `Imm(false)` or kept negated in a register-free form;
/// only the truth value of an immediate is compared.
fn pred_matches(
    got: Option<(BoolOp, PredSrc)>,
    op: Option<BoolOp>,
    tail: &str,
    syms: &Symbols,
) -> bool {
    match (got, op, pred_tail(tail, syms)) {
        (None, None, None) => true,
        (Some((g, gs)), Some(o), Some(ws)) => g == o && gs == ws,
        _ => false,
    }
}

#[test]
fn set_pair_count_matches_ptxas() {
    let pairs = set_pairs();
    assert_eq!(pairs.len(), 72);
    let mut dedup = pairs.clone();
    dedup.sort_by_key(|(d, s)| (d.name(), s.name()));
    dedup.dedup();
    assert_eq!(dedup.len(), 72);
}

#[test]
fn every_legal_set_variant() {
    let mut fails = Failures::default();
    let mut model_fails = Failures::default();
    let mut rng = Rng(4);
    let mut total = 0;
    for (d, s) in set_pairs() {
        for cmp in cmps_for(s) {
            for ftz in [false, true] {
                if ftz && !set_ftz_ok(d, s) {
                    continue;
                }
                for (bop, tail) in BOOL_TAILS {
                    if is_bf16_form(d, s) && !tail.contains('%') {
                        continue;
                    }
                    let f = if ftz { ".ftz" } else { "" };
                    let b = bop.map(|b| format!(".{}", b.name())).unwrap_or_default();
                    let text = format!(
                        "set.{}{b}{f}.{}.{} %d, %a, %b{tail};",
                        cmp.name(),
                        d.name(),
                        s.name()
                    );
                    total += 1;
                    let Some((inst, syms, before, after)) = roundtrip(&text, &mut fails, &mut rng)
                    else {
                        continue;
                    };
                    let Op::Set(got) = inst.op else {
                        fails.push(format!("`{text}`: decoded as {:?}", inst.op));
                        continue;
                    };
                    if got.cmp != cmp
                        || got.ftz != ftz
                        || got.dtype != d
                        || got.stype != s
                        || !pred_matches(got.bool_op, bop, tail, &syms)
                    {
                        fails.push(format!("`{text}`: decoded {got:?}"));
                        continue;
                    }
                    let id = |n: &str| syms.get(n).unwrap();
                    for lane in 0..WARP_SIZE {
                        let (a, bv) = (before.lane(id("%a"), lane), before.lane(id("%b"), lane));
                        let c = match got.bool_op {
                            Some((_, PredSrc::Reg { reg, negate })) => {
                                (before.lane(reg, lane) & 1 == 1) ^ negate
                            }
                            Some((_, PredSrc::Imm(v))) => v,
                            None => false,
                        };
                        let want = model::set(&got, a, bv, c, Target::SM_90);
                        let dv = after.lane(id("%d"), lane);
                        if dv != want {
                            model_fails.push(format!(
                                "`{text}` a={a:#x} b={bv:#x} c={c}: got {dv:#x}, model {want:#x}"
                            ));
                            break;
                        }
                    }
                }
            }
        }
    }
    fails.finish("set variants (parse/print/check/execute)", total);
    model_fails.finish("set variants vs model", total);
}

#[test]
fn set_target_and_version_gates() {
    let mut fails = Failures::default();
    let pairs = set_pairs();
    for &(d, s) in &pairs {
        let text = format!("set.eq.{}.{} %d, %a, %b;", d.name(), s.name());
        let mut syms = Symbols::new();
        let Ok(inst) = parse_instruction(&text, &mut syms) else {
            fails.push(format!("`{text}` rejected"));
            continue;
        };
        let sm = set_min_sm(d, s);
        if let Err(e) = check_target(&inst, Target { sm, suffix: None }, None) {
            fails.push(format!("`{text}` on sm_{sm}: {e}"));
        }
        if sm > 10 {
            let below = Target {
                sm: sm - 1,
                suffix: None,
            };
            match check_target(&inst, below, None) {
                Err(IsaError::Unsupported {
                    need: Requirement::Sm(n),
                    ..
                }) if n == sm => {}
                other => fails.push(format!(
                    "`{text}` on {below}: want Unsupported(sm_{sm}), got {other:?}"
                )),
            }
        }
        let v = set_min_ptx(d, s);
        if let Err(e) = check_target(&inst, Target::SM_90, Some(v)) {
            fails.push(format!("`{text}` with PTX {v}: {e}"));
        }
        if v > PtxVersion::new(1, 0) {
            let old = PtxVersion::new(v.major, v.minor - 1);
            match check_target(&inst, Target::SM_90, Some(old)) {
                Err(IsaError::Unsupported {
                    need: Requirement::Ptx(n),
                    ..
                }) if n == v => {}
                other => fails.push(format!(
                    "`{text}` with PTX {old}: want Unsupported(PTX {v}), got {other:?}"
                )),
            }
        }
    }
    // Video: sm_30 and PTX 3.0.
    for text in [
        "vadd2.u32.u32.u32 %d, %a, %b, %c;",
        "vset4.s32.u32.lt %d, %a, %b, %c;",
    ] {
        let mut syms = Symbols::new();
        let inst = parse_instruction(text, &mut syms).expect(text);
        match check_target(
            &inst,
            Target {
                sm: 21,
                suffix: None,
            },
            None,
        ) {
            Err(IsaError::Unsupported {
                need: Requirement::Sm(30),
                ..
            }) => {}
            other => fails.push(format!("`{text}` on sm_21: {other:?}")),
        }
        match check_target(&inst, Target::SM_30, Some(PtxVersion::new(2, 3))) {
            Err(IsaError::Unsupported {
                need: Requirement::Ptx(v),
                ..
            }) if v == PtxVersion::new(3, 0) => {}
            other => fails.push(format!("`{text}` with PTX 2.3: {other:?}")),
        }
    }
    // f64 compares/selects: sm_13.
    for text in [
        "setp.lt.f64 %p, %a, %b;",
        "selp.f64 %d, %a, %b, %p;",
        "slct.f64.s32 %d, %a, %b, %c;",
    ] {
        let mut syms = Symbols::new();
        let inst = parse_instruction(text, &mut syms).expect(text);
        if let Err(e) = check_target(&inst, Target::SM_13, None) {
            fails.push(format!("`{text}` on sm_13: {e}"));
        }
        match check_target(
            &inst,
            Target {
                sm: 12,
                suffix: None,
            },
            None,
        ) {
            Err(IsaError::Unsupported {
                need: Requirement::Sm(13),
                ..
            }) => {}
            other => fails.push(format!("`{text}` on sm_12: {other:?}")),
        }
    }
    // Suffixed targets have their base's capabilities.
    let mut syms = Symbols::new();
    let inst = parse_instruction("set.eq.u32.bf16x2 %d, %a, %b;", &mut syms).unwrap();
    if let Err(e) = check_target(&inst, Target::parse("sm_90a").unwrap(), None) {
        fails.push(format!("bf16 on sm_90a: {e}"));
    }
    fails.finish("target/version gates", pairs.len() + 6);
}

#[test]
fn illegal_set_neighbours() {
    let mut fails = Failures::default();
    let pairs = set_pairs();
    let all: Vec<Type> = Type::ALL.into_iter().collect();
    let mut texts = Vec::new();
    // Every other dtype/stype pair (e.g. `set.lt.f16.bf16`, `set.lt.s16.u16`, ERRATA 18).
    for &d in &all {
        for &s in &all {
            if !pairs.contains(&(d, s)) {
                texts.push(format!("set.eq.{}.{} %d, %a, %b;", d.name(), s.name()));
            }
        }
    }
    for &(d, s) in &pairs {
        let ok = cmps_for(s);
        // ERRATA 13: compares outside the source class.
        for c in CmpOp::ALL {
            if !ok.contains(&c) {
                texts.push(format!(
                    "set.{}.{}.{} %d, %a, %b;",
                    c.name(),
                    d.name(),
                    s.name()
                ));
            }
        }
        // ERRATA 18: .ftz elsewhere (integer, bit, f64, bf16 sources, bf16 destination).
        if !set_ftz_ok(d, s) {
            texts.push(format!("set.eq.ftz.{}.{} %d, %a, %b;", d.name(), s.name()));
            texts.push(format!(
                "set.eq.and.ftz.{}.{} %d, %a, %b, %c;",
                d.name(),
                s.name()
            ));
        }
        // bf16 forms take only a predicate register as c (ptxas 11.8).
        if is_bf16_form(d, s) {
            for c in ["1", "0", "!1", "!0"] {
                texts.push(format!(
                    "set.eq.and.{}.{} %d, %a, %b, {c};",
                    d.name(),
                    s.name()
                ));
            }
        }
        // BoolOp needs c, and c needs a BoolOp.
        texts.push(format!("set.eq.and.{}.{} %d, %a, %b;", d.name(), s.name()));
        texts.push(format!("set.eq.{}.{} %d, %a, %b, %c;", d.name(), s.name()));
    }
    // Half-precision values take no immediates (ptxas: "Arguments mismatch").
    texts.push("set.lt.f16.f16 %d, %a, 0x3C00;".into());
    texts.push("set.lt.f16x2.f16x2 %d, %a, 0x3C003C00;".into());
    texts.push("set.lt.u32 %d, %a, %b;".into());
    texts.push("set.lt.u32.u32.u32 %d, %a, %b;".into());
    texts.push("set.foo.u32.u32 %d, %a, %b;".into());
    texts.push("set.lt.nand.u32.u32 %d, %a, %b, %c;".into());
    for t in &texts {
        expect_invalid(t, &mut fails);
    }
    fails.finish("illegal set neighbours", texts.len());
}

/// setp destinations: `p`, `p|q`, `_|q`, `p|_`, `_` (all accepted by ptxas).
const SETP_DESTS: [&str; 5] = ["%p", "%p|%q", "_|%q", "%p|_", "_"];

#[test]
fn every_legal_setp_variant() {
    let mut fails = Failures::default();
    let mut model_fails = Failures::default();
    let mut rng = Rng(5);
    let mut total = 0;
    for ty in CORE_TYPES {
        for cmp in cmps_for(ty) {
            for ftz in [false, true] {
                if ftz && ty != Type::F32 {
                    continue;
                }
                for (bop, tail) in BOOL_TAILS {
                    for dest in SETP_DESTS {
                        let f = if ftz { ".ftz" } else { "" };
                        let b = bop.map(|b| format!(".{}", b.name())).unwrap_or_default();
                        let text = format!(
                            "setp.{}{b}{f}.{} {dest}, %a, %b{tail};",
                            cmp.name(),
                            ty.name()
                        );
                        total += 1;
                        let Some((inst, syms, before, after)) =
                            roundtrip(&text, &mut fails, &mut rng)
                        else {
                            continue;
                        };
                        let Op::Setp(got) = inst.op else {
                            fails.push(format!("`{text}`: decoded as {:?}", inst.op));
                            continue;
                        };
                        let p = syms.get("%p");
                        let q = syms.get("%q");
                        let (wp, wq) = match dest {
                            "%p" => (p, None),
                            "%p|%q" => (p, Some(q)),
                            "_|%q" => (None, Some(q)),
                            "%p|_" => (p, Some(None)),
                            _ => (None, None),
                        };
                        if got.cmp != cmp
                            || got.ftz != ftz
                            || got.ty != ty
                            || got.p != wp
                            || got.q != wq
                            || !pred_matches(got.bool_op, bop, tail, &syms)
                        {
                            fails.push(format!("`{text}`: decoded {got:?}"));
                            continue;
                        }
                        let id = |n: &str| syms.get(n).unwrap();
                        for lane in 0..WARP_SIZE {
                            let (a, bv) =
                                (before.lane(id("%a"), lane), before.lane(id("%b"), lane));
                            let c = match got.bool_op {
                                Some((_, PredSrc::Reg { reg, negate })) => {
                                    (before.lane(reg, lane) & 1 == 1) ^ negate
                                }
                                Some((_, PredSrc::Imm(v))) => v,
                                None => false,
                            };
                            let (mp, mq) = model::setp(&got, a, bv, c, Target::SM_90);
                            let gp = got.p.map(|r| after.lane(r, lane));
                            let gq = got.q.flatten().map(|r| after.lane(r, lane));
                            if gp.is_some_and(|v| v != mp as u64)
                                || gq.is_some_and(|v| v != mq as u64)
                            {
                                model_fails.push(format!("`{text}` a={a:#x} b={bv:#x} c={c}: got {gp:?}|{gq:?}, model {mp}|{mq}"));
                                break;
                            }
                        }
                    }
                }
            }
        }
    }
    fails.finish("setp variants", total);
    model_fails.finish("setp variants vs model", total);
}

#[test]
fn every_legal_selp_and_slct_variant() {
    let mut fails = Failures::default();
    let mut model_fails = Failures::default();
    let mut rng = Rng(6);
    let mut total = 0;
    for ty in CORE_TYPES {
        for c in ["%p", "!%p", "1", "0"] {
            let text = format!("selp.{} %d, %a, %b, {c};", ty.name());
            total += 1;
            let Some((inst, syms, before, after)) = roundtrip(&text, &mut fails, &mut rng) else {
                continue;
            };
            let Op::Selp(got) = inst.op else {
                fails.push(format!("`{text}`: decoded as {:?}", inst.op));
                continue;
            };
            if got.ty != ty {
                fails.push(format!("`{text}`: decoded {got:?}"));
                continue;
            }
            let id = |n: &str| syms.get(n).unwrap();
            for lane in 0..WARP_SIZE {
                let cv = match got.c {
                    PredSrc::Reg { reg, negate } => (before.lane(reg, lane) & 1 == 1) ^ negate,
                    PredSrc::Imm(v) => v,
                };
                let want = model::selp(
                    &got,
                    before.lane(id("%a"), lane),
                    before.lane(id("%b"), lane),
                    cv,
                );
                if after.lane(id("%d"), lane) != want {
                    model_fails.push(format!(
                        "`{text}` lane {lane}: got {:#x}, model {want:#x}",
                        after.lane(id("%d"), lane)
                    ));
                    break;
                }
            }
        }
        for (ctype, ftz) in [(Type::S32, false), (Type::F32, false), (Type::F32, true)] {
            let f = if ftz { ".ftz" } else { "" };
            let text = format!("slct{f}.{}.{} %d, %a, %b, %c;", ty.name(), ctype.name());
            total += 1;
            let Some((inst, syms, before, after)) = roundtrip(&text, &mut fails, &mut rng) else {
                continue;
            };
            let Op::Slct(got) = inst.op else {
                fails.push(format!("`{text}`: decoded as {:?}", inst.op));
                continue;
            };
            if got.dtype != ty || got.ctype != ctype || got.ftz != ftz {
                fails.push(format!("`{text}`: decoded {got:?}"));
                continue;
            }
            let id = |n: &str| syms.get(n).unwrap();
            for lane in 0..WARP_SIZE {
                let want = model::slct(
                    &got,
                    before.lane(id("%a"), lane),
                    before.lane(id("%b"), lane),
                    before.lane(id("%c"), lane) as u32,
                    Target::SM_90,
                );
                if after.lane(id("%d"), lane) != want {
                    model_fails.push(format!(
                        "`{text}` lane {lane}: got {:#x}, model {want:#x}",
                        after.lane(id("%d"), lane)
                    ));
                    break;
                }
            }
        }
    }
    fails.finish("selp/slct variants", total);
    model_fails.finish("selp/slct variants vs model", total);
}

#[test]
fn immediates_and_guards_roundtrip() {
    // ERRATA 16a immediates (decimal, hex, negative, 0f/0d bit patterns) and guards.
    let mut fails = Failures::default();
    let mut rng = Rng(8);
    let texts = [
        "set.lt.u32.u32 %d, 5, %a;",
        "set.lt.u32.u32 %d, %a, 0x10;",
        "setp.lt.f32 %p, %a, 0f3F800000;",
        "setp.lt.f64 %p, %a, 0d3FF0000000000000;",
        "setp.eq.b32 %p, %a, 0x7fffffff;",
        "selp.u32 %d, 1, 0, %p;",
        "selp.s16 %d, -1, 2, %p;",
        "slct.u32.s32 %d, 1, 2, -1;",
        "slct.u32.f32 %d, 1, 2, 0fBF800000;",
        "set.lt.and.u32.u32 %d, %a, %b, 1;",
        "@%g vadd4.u32.u32.u32 %d, %a, %b, %c;",
        "@!%g vset2.u32.s32.ge.add %d.h1, %a.h03, %b.h21, %c;",
        "@%g set.lt.f16.f32 %d, %a, %b;",
        "@!%g setp.ne.s32 %p|%q, %a, %b;",
        "@%g setp.ne.s32 _|%q, %a, %b;",
        "@%g selp.f64 %d, %a, %b, %p;",
        "@!%g slct.ftz.f32.f32 %d, %a, %b, %c;",
        "@%g set.geu.s32.bf16x2 %d, %a, %b;",
    ];
    for t in texts {
        if let Some((inst, syms, ..)) = roundtrip(t, &mut fails, &mut rng) {
            if t.starts_with('@') {
                let want_neg = t.starts_with("@!");
                match inst.guard {
                    Some(g) if g.reg == syms.get("%g").unwrap() && g.negate == want_neg => {}
                    other => fails.push(format!("`{t}`: guard decoded as {other:?}")),
                }
            }
            let imm = |o: Operand| {
                if let Operand::Imm(v) = o {
                    Some(v)
                } else {
                    None
                }
            };
            let want: Option<(Option<u64>, Option<u64>)> = match t {
                "set.lt.u32.u32 %d, 5, %a;" => Some((Some(5), None)),
                "set.lt.u32.u32 %d, %a, 0x10;" => Some((None, Some(0x10))),
                "setp.lt.f32 %p, %a, 0f3F800000;" => Some((None, Some(0x3F80_0000))),
                "setp.lt.f64 %p, %a, 0d3FF0000000000000;" => {
                    Some((None, Some(0x3FF0_0000_0000_0000)))
                }
                "selp.s16 %d, -1, 2, %p;" => Some((Some(0xFFFF), Some(2))),
                _ => None,
            };
            if let Some(w) = want {
                let got = match inst.op {
                    Op::Set(s) => (imm(s.a), imm(s.b)),
                    Op::Setp(s) => (imm(s.a), imm(s.b)),
                    Op::Selp(s) => (imm(s.a), imm(s.b)),
                    _ => (None, None),
                };
                if got != w {
                    fails.push(format!("`{t}`: immediates decoded as {got:?}, want {w:?}"));
                }
            }
            if t == "slct.u32.s32 %d, 1, 2, -1;" {
                if let Op::Slct(s) = inst.op {
                    if s.c != Operand::Imm(0xFFFF_FFFF) {
                        fails.push(format!("`{t}`: c decoded as {:?}", s.c));
                    }
                }
            }
        }
    }
    fails.finish("immediates and guards", texts.len());
}

#[test]
fn illegal_setp_selp_slct_neighbours() {
    let mut fails = Failures::default();
    let mut texts = Vec::new();
    for ty in CORE_TYPES {
        let n = ty.name();
        for c in CmpOp::ALL {
            if !cmps_for(ty).contains(&c) {
                texts.push(format!("setp.{}.{n} %p, %a, %b;", c.name()));
            }
        }
        if ty != Type::F32 {
            texts.push(
                format!("setp.lt.ftz.{n} %p, %a, %b;")
                    .replace(".lt.", if n.starts_with('b') { ".eq." } else { ".lt." }),
            );
        }
        texts.push(format!("slct.ftz.{n}.s32 %d, %a, %b, %c;"));
        for bad_c in ["u32", "b32", "s16", "s64", "f64", "f16"] {
            texts.push(format!("slct.{n}.{bad_c} %d, %a, %b, %c;"));
        }
        texts.push(format!("selp.{n} %d, %a, %b;"));
        texts.push(format!("setp.eq.and.{n} %p, %a, %b;"));
    }
    texts.push("setp.lt.s32 _|_, %a, %b;".into());
    texts.push("setp.lt.s32 %p|%q|%r, %a, %b;".into());
    for t in ["f16", "f16x2", "bf16", "bf16x2", "pred"] {
        texts.push(format!("selp.{t} %d, %a, %b, %p;"));
        texts.push(format!("slct.{t}.s32 %d, %a, %b, %c;"));
    }
    texts.push("selp.ftz.f32 %d, %a, %b, %p;".into());
    texts.push("slct.u32 %d, %a, %b, %c;".into());
    for t in &texts {
        expect_invalid(t, &mut fails);
    }
    fails.finish("illegal setp/selp/slct neighbours", texts.len());
}
