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
    execute, ErrorKind, ExecCtx, Instruction, IsaError, Op, Simd, Symbols, Target, Video, VideoOp,
    WarpRegs, WARP_SIZE,
};

// The set/setp/selp/slct half lives in `enumerate_set.rs`.
pub use super::enumerate_set::{cmps_for, set_ftz_ok, set_pairs, CORE_TYPES};

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
pub(super) fn roundtrip(
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
    execute(&inst, &ExecCtx::new(Target::SM_90, 0), &mut regs, u32::MAX);
    Some((inst, syms, before, regs))
}

pub(super) fn expect_invalid(text: &str, fails: &mut Failures) {
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

pub(super) fn sel_text(simd: Simd, sel: &[u8; 4]) -> String {
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
                super::strategies::vset_cmps()
                    .into_iter()
                    .map(|c| (format!("vset{n}"), VideoOp::Set(c))),
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
