//! Rendering the model as PTX text, with `%`-prefixed or plain register names.

use super::model::{Gen, PredV, Selp, Set, Slct, Src, Video};
use super::{reg_name, width_of};

fn render_src(s: &Src, w: u32, plain: bool) -> String {
    match s {
        Src::Reg(i) => reg_name(w, *i, plain),
        Src::Imm(t) => t.clone(),
    }
}

fn render_pred(p: &PredV, plain: bool) -> String {
    match p {
        PredV::Reg(neg, i) => format!("{}{}", if *neg { "!" } else { "" }, reg_name(1, *i, plain)),
        PredV::Imm(t) => t.clone(),
    }
}

/// `.a.b.c` for modifiers `[a, b, c]`.
fn dot(v: &[String]) -> String {
    v.iter().map(|m| format!(".{m}")).collect()
}

/// Width of the register a type names, 32 where the type is missing.
fn width_at(types: &[String], k: usize) -> u32 {
    types.get(k).map(|t| width_of(t)).unwrap_or(32)
}

/// Renders `g` as one PTX line (no guard).
pub fn render(g: &Gen, plain: bool) -> String {
    match g {
        Gen::Video(v) => render_video(v, plain),
        Gen::Set(v) => render_set(v, plain),
        Gen::Selp(v) => render_selp(v, plain),
        Gen::Slct(v) => render_slct(v, plain),
    }
}

fn render_video(v: &Video, plain: bool) -> String {
    let mut s = format!("{}{}", v.op, v.n);
    if v.sat_first {
        s.push_str(".sat");
    }
    s += &dot(&v.types);
    if let Some(c) = &v.cmp {
        s += &format!(".{c}");
    }
    s += &dot(&v.sec);
    let suf = |o: &Option<String>| o.as_ref().map(|m| format!(".{m}")).unwrap_or_default();
    let sufs = [suf(&v.mask), suf(&v.asel), suf(&v.bsel), suf(&v.csel)];
    let ops: Vec<String> = (0..4)
        .map(|i| {
            if v.imm == Some(i) {
                "7".to_string()
            } else {
                format!("{}{}", reg_name(32, v.regs[i], plain), sufs[i])
            }
        })
        .collect();
    format!("{s} {};", ops.join(", "))
}

fn render_set(v: &Set, plain: bool) -> String {
    let mut s = v.mnem.to_string();
    if v.ftz && v.ftz_first {
        s.push_str(".ftz");
    }
    if !v.cmp.is_empty() {
        s += &format!(".{}", v.cmp);
    }
    if let Some(bo) = &v.bool_op {
        s += &format!(".{bo}");
    }
    if v.ftz && !v.ftz_first {
        s.push_str(".ftz");
    }
    s += &dot(&v.types);
    let sw = v.types.last().map(|t| width_of(t)).unwrap_or(32);
    let dw = if v.mnem == "set" {
        width_at(&v.types, 0)
    } else {
        1
    };
    let d = v
        .dsts
        .iter()
        .map(|x| {
            x.map(|i| reg_name(dw, i, plain))
                .unwrap_or_else(|| "_".into())
        })
        .collect::<Vec<_>>()
        .join("|");
    let mut ops = vec![d, render_src(&v.a, sw, plain), render_src(&v.b, sw, plain)];
    if let Some(c) = &v.c {
        ops.push(render_pred(c, plain));
    }
    format!("{s} {};", ops.join(", "))
}

fn render_selp(v: &Selp, plain: bool) -> String {
    let w = width_at(&v.types, 0);
    format!(
        "selp{}{} {}, {}, {}, {};",
        dot(&v.mods),
        dot(&v.types),
        reg_name(w, v.d, plain),
        render_src(&v.a, w, plain),
        render_src(&v.b, w, plain),
        render_pred(&v.c, plain)
    )
}

fn render_slct(v: &Slct, plain: bool) -> String {
    let (w, cw) = (width_at(&v.types, 0), width_at(&v.types, 1));
    format!(
        "slct{}{} {}, {}, {}, {};",
        if v.ftz { ".ftz" } else { "" },
        dot(&v.types),
        reg_name(w, v.d, plain),
        render_src(&v.a, w, plain),
        render_src(&v.b, w, plain),
        render_src(&v.c, cw, plain)
    )
}
