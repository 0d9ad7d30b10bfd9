//! The instruction variants part 2 compiles: a systematic sweep of every
//! family and modifier, then random valid instructions.

use crate::gen::{self, Gen};
use crate::rng::Rng;

/// Instruction variants covering every family and modifier: a systematic
/// sweep (each video op x width x secondary x types, each vset compare, each
/// set/setp type and compare, each half-precision pair and compare), then
/// random valid instructions up to `n`. About a quarter carry a guard.
pub fn variants(seed: u64, n: usize) -> Vec<Variant> {
    let mut rng = Rng::new(seed ^ 0x5eed);
    let mut gens: Vec<(Gen, &'static str)> = Vec::new();
    let t = gen::VIDEO_TYPES;
    for op in gen::VIDEO_OPS {
        for n in ["2", "4"] {
            for sec in ["", "sat", "add", "satfirst"] {
                for d in t {
                    for a in t {
                        for b in t {
                            gens.push((
                                gen::video_variant(&mut rng, op, n, &[d, a, b], None, sec),
                                "video",
                            ));
                        }
                    }
                }
            }
        }
    }
    for n in ["2", "4"] {
        for cmp in gen::VSET_CMPS {
            for sec in ["", "add"] {
                for a in t {
                    for b in t {
                        gens.push((
                            gen::video_variant(&mut rng, "vset", n, &[a, b], Some(cmp), sec),
                            "vset",
                        ));
                    }
                }
            }
        }
    }
    for s in gen::SCALAR_TYPES {
        for &cmp in gen::cmps_for(s) {
            let d = *rng.pick(&gen::SET_DTYPES);
            gens.push((gen::set_variant(&mut rng, "set", Some(d), s, cmp), "set"));
            gens.push((gen::set_variant(&mut rng, "setp", None, s, cmp), "setp"));
        }
    }
    for (d, s) in gen::half_set_pairs() {
        for &cmp in gen::cmps_for(s) {
            if rng.chance(1, 2) {
                gens.push((
                    gen::set_variant(&mut rng, "set", Some(d), s, cmp),
                    "half-set",
                ));
            }
        }
    }
    while gens.len() < n {
        gens.push(gen::valid(&mut rng));
    }
    // Keep the sweep's spread when asked for fewer: sample evenly.
    let step = (gens.len() as f64 / n.max(1) as f64).max(1.0);
    let mut out = Vec::with_capacity(n);
    let mut x = 0.0;
    while (x as usize) < gens.len() && out.len() < n {
        let (g, fam) = &gens[x as usize];
        let mut text = gen::render(g, false);
        if bf16_imm_c(&text) {
            x += step;
            continue;
        }
        let mut guard = String::new();
        if rng.chance(1, 4) {
            let neg = if rng.chance(1, 2) { "!" } else { "" };
            guard = format!("@{neg}%p{} ", 1 + rng.below(3));
            text = format!("{guard}{text}");
        }
        out.push(Variant {
            text: text.clone(),
            kernel: text.clone(),
            family: fam,
            arch: "sm_90",
        });
        // Erratum 22: sm_1x flushes f32 subnormal inputs of set/setp/slct; sm_90
        // code does that only for `.ftz`, so the `.ftz` form's machine code gives
        // the sm_13 values of the form without it.
        if let Some(ftz) = sm13_twin(g) {
            {
                out.push(Variant {
                    text,
                    kernel: format!("{guard}{ftz}"),
                    family: fam,
                    arch: "sm_13",
                });
            }
        }
        x += step;
    }
    out
}

/// One variant: the vector's text and target, and the text the kernel compiles.
#[derive(Clone, Debug)]
pub struct Variant {
    /// Instruction text of the vectors.
    pub text: String,
    /// Instruction text compiled for sm_90 (differs for the sm_13 twins).
    pub kernel: String,
    /// Family, for statistics.
    pub family: &'static str,
    /// Target of the vectors.
    pub arch: &'static str,
}

/// The `.ftz` spelling of an f32 `set`/`setp`/`slct` without `.ftz` whose
/// result sm_1x defines (integer or f32 destination), if `g` is one.
fn sm13_twin(g: &Gen) -> Option<String> {
    let mut g2 = g.clone();
    match &mut g2 {
        Gen::Set(s)
            if !s.ftz
                && s.types.last().map(String::as_str) == Some("f32")
                && (s.types.len() == 1 || matches!(s.types[0].as_str(), "u32" | "s32" | "f32")) =>
        {
            s.ftz = true
        }
        Gen::Slct(s) if !s.ftz && s.types.get(1).map(String::as_str) == Some("f32") => s.ftz = true,
        Gen::Video(_) | Gen::Set(_) | Gen::Selp(_) | Gen::Slct(_) => return None,
    }
    Some(gen::render(&g2, false))
}

/// ptxas rejects an immediate BoolOp operand on the bf16 forms of `set`
/// (found by part 1); such texts cannot be compiled, so they are not variants.
fn bf16_imm_c(text: &str) -> bool {
    let bool_op = [".and.", ".or.", ".xor."].iter().any(|b| text.contains(b));
    let last = text
        .trim_end_matches(';')
        .rsplit(',')
        .next()
        .unwrap_or("")
        .trim();
    bool_op && text.contains("bf16") && !last.trim_start_matches('!').starts_with('%')
}

/// Every form of the float family on a half type, and `copysign` (the
/// database's enumeration, `sim_isa::db::forms`), with registers of the
/// type's width (`%h`, `%r`, `%rd`); every fourth carries a guard.
pub fn half_variants() -> Vec<Variant> {
    let mut out = Vec::new();
    for f in sim_isa::db::forms() {
        if f.family != sim_isa::db::Family::Float {
            continue;
        }
        let half = [".f16 ", ".f16x2 ", ".bf16 ", ".bf16x2 "]
            .iter()
            .any(|t| f.text.contains(t));
        if !half && !f.text.starts_with("copysign") {
            continue;
        }
        let pool = if f.text.contains("16 ") {
            "%h"
        } else if f.text.contains(".f64 ") {
            "%rd"
        } else {
            "%r"
        };
        let pool = if f.text.contains("16x2 ") { "%r" } else { pool };
        let mut text = f.text.clone();
        for (from, n) in [("%d", 5), ("%a", 1), ("%b", 2), ("%c", 3)] {
            text = text.replace(from, &format!("{pool}{n}"));
        }
        if out.len() % 4 == 3 {
            text = format!("@%p1 {text}");
        }
        out.push(Variant {
            text: text.clone(),
            kernel: text,
            family: "half-arith",
            arch: "sm_90",
        });
    }
    out
}
