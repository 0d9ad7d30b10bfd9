//! The PTX kernel around one instruction: every register it names is loaded
//! from the input buffer and every one it writes is stored to the output
//! buffer, in 8-byte slots; plus the ptxas errata workarounds the kernel needs.

use std::fmt::Write as _;

/// A register the instruction names: name and width (1 = predicate).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reg {
    /// `%r1`, `%h2`, `%rd3`, `%p1`.
    pub name: String,
    /// 1, 16, 32 or 64.
    pub width: u32,
}

/// Registers of `text` in order of appearance, and which ones it writes.
pub fn layout(text: &str) -> (Vec<Reg>, Vec<String>) {
    let mut regs: Vec<Reg> = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_alphanumeric() {
                j += 1;
            }
            let name = &text[i..j];
            let pool = name[1..].trim_end_matches(|c: char| c.is_ascii_digit());
            let width = match pool {
                "r" => 32,
                "h" => 16,
                "rd" => 64,
                "p" => 1,
                _ => 0,
            };
            if width > 0 && !regs.iter().any(|r| r.name == name) {
                regs.push(Reg {
                    name: name.to_string(),
                    width,
                });
            }
            i = j;
        } else {
            i += 1;
        }
    }
    let body = strip_guard(text).1;
    let ops = body
        .split_once(char::is_whitespace)
        .map(|x| x.1)
        .unwrap_or("");
    let first = ops.split(',').next().unwrap_or("");
    let dsts = first
        .split('|')
        .map(|d| d.trim().split('.').next().unwrap_or("").to_string())
        .filter(|d| d.starts_with('%'))
        .collect();
    (regs, dsts)
}

pub(super) fn strip_guard(text: &str) -> (Option<&str>, &str) {
    let t = text.trim();
    match t.strip_prefix('@') {
        Some(rest) => {
            let (g, body) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            (Some(g), body.trim())
        }
        None => (None, t),
    }
}

fn bits_name(w: u32) -> &'static str {
    match w {
        16 => "b16",
        64 => "b64",
        _ => "b32",
    }
}

/// The PTX kernel `name` for `text`, loading from param 0, storing to param 1
/// (8-byte slots in [`layout`] order).
pub fn kernel(name: &str, text: &str) -> String {
    kernel_with(name, text, false)
}

/// [`kernel`], optionally with one vector per thread: thread `i` of `n` (param
/// 2) uses the slots at `i * 8 * slots` in both buffers (the GPU harness).
pub fn kernel_with(name: &str, text: &str, per_thread: bool) -> String {
    let (regs, dsts) = layout(text);
    let mut k = if per_thread {
        format!(
            ".visible .entry {name}(.param .u64 pin, .param .u64 pout, .param .u32 n) {{\n\
             .reg .b64 %ptr<3>; .reg .b32 %t<40>; .reg .b16 %th<2>; .reg .b32 %tr<2>; .reg .pred %psink;\n\
             .reg .b32 %r<9>; .reg .b16 %h<9>; .reg .b64 %rd<9>; .reg .pred %p<9>;\n\
             .reg .b32 %tid<5>; .reg .b64 %off; .reg .pred %pout;\n\
             ld.param.u64 %ptr1, [pin]; ld.param.u64 %ptr2, [pout]; ld.param.u32 %tid4, [n];\n\
             mov.u32 %tid1, %ctaid.x; mov.u32 %tid2, %ntid.x; mov.u32 %tid3, %tid.x;\n\
             mad.lo.u32 %tid1, %tid1, %tid2, %tid3; setp.ge.u32 %pout, %tid1, %tid4; @%pout ret;\n\
             cvta.to.global.u64 %ptr1, %ptr1; cvta.to.global.u64 %ptr2, %ptr2;\n\
             mul.wide.u32 %off, %tid1, {}; add.u64 %ptr1, %ptr1, %off; add.u64 %ptr2, %ptr2, %off;\n",
            8 * regs.len().max(1)
        )
    } else {
        format!(
            ".visible .entry {name}(.param .u64 pin, .param .u64 pout) {{\n\
             .reg .b64 %ptr<3>; .reg .b32 %t<40>; .reg .b16 %th<2>; .reg .b32 %tr<2>; .reg .pred %psink;\n\
             .reg .b32 %r<9>; .reg .b16 %h<9>; .reg .b64 %rd<9>; .reg .pred %p<9>;\n\
             ld.param.u64 %ptr1, [pin]; ld.param.u64 %ptr2, [pout];\n"
        )
    };
    load_regs(&mut k, &regs);
    let fixed;
    let text = if text.contains(".bf16.f32") {
        fixed = hex_f32_literals(text);
        fixed.as_str()
    } else {
        text
    };
    let (guard, body) = strip_guard(text);
    let is_set = body.starts_with("set.");
    match guard {
        // Erratum 21: ptxas 11.8 miscompiles some guarded `set`s; compute
        // unguarded into a temporary and move it under the guard instead.
        Some(g) if is_set && dsts.len() == 1 => {
            let w = regs
                .iter()
                .find(|r| r.name == dsts[0])
                .map(|r| r.width)
                .unwrap_or(32);
            let tmp = if w == 16 { "%th1" } else { "%tr1" };
            let (op, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
            let rest = rest.trim_start();
            let after = rest.split_once(',').map(|x| x.1).unwrap_or("");
            let _ = writeln!(k, "{op} {tmp},{after}");
            let _ = writeln!(k, "@{g} mov.{} {}, {tmp};", bits_name(w), dsts[0]);
        }
        // Erratum 20: ptxas crashes on a guarded setp with a `_` sink; a dead
        // predicate register means the same.
        Some(_) if body.starts_with("setp.") => {
            let _ = writeln!(k, "{}", text.trim().replace('_', "%psink"));
        }
        _ => {
            let _ = writeln!(k, "{}", text.trim());
        }
    }
    store_regs(&mut k, &regs, &dsts);
    k.push_str("ret;\n}\n");
    k
}

/// Loads each of `regs` from its 8-byte input slot (`%ptr1`), a predicate
/// through `%t<slot>` (the kernels of this module and `async_kernel.rs`).
pub(super) fn load_regs(k: &mut String, regs: &[Reg]) {
    for (s, r) in regs.iter().enumerate() {
        let off = 8 * s;
        let _ = match r.width {
            1 => writeln!(
                k,
                "ld.global.u32 %t{s}, [%ptr1+{off}]; setp.ne.u32 {}, %t{s}, 0;",
                r.name
            ),
            16 => writeln!(k, "ld.global.u16 {}, [%ptr1+{off}];", r.name),
            64 => writeln!(k, "ld.global.u64 {}, [%ptr1+{off}];", r.name),
            _ => writeln!(k, "ld.global.u32 {}, [%ptr1+{off}];", r.name),
        };
    }
}

/// Stores each of `regs` that the statement writes (`dsts`) to its 8-byte
/// output slot (`%ptr2`), a predicate as 0 or 1 through `%t<20 + slot>`.
pub(super) fn store_regs(k: &mut String, regs: &[Reg], dsts: &[String]) {
    for (s, r) in regs.iter().enumerate() {
        if !dsts.contains(&r.name) {
            continue;
        }
        let off = 8 * s;
        let _ = match r.width {
            1 => writeln!(
                k,
                "selp.u32 %t{}, 1, 0, {}; st.global.u32 [%ptr2+{off}], %t{};",
                20 + s,
                r.name,
                20 + s
            ),
            16 => writeln!(k, "st.global.u16 [%ptr2+{off}], {};", r.name),
            64 => writeln!(k, "st.global.u64 [%ptr2+{off}], {};", r.name),
            _ => writeln!(k, "st.global.u32 [%ptr2+{off}], {};", r.name),
        };
    }
}

/// ptxas 11.8 compiles a decimal floating-point literal in `set.CmpOp.bf16.f32`
/// as 0.0 (`set.ltu.bf16.f32 %h, -2.25, %r` becomes `FSETP.GTU ... R, 0`; the
/// `0fC0100000` spelling and every other destination type are compiled right).
/// The kernel spells such literals in hex, which means the same PTX.
pub(super) fn hex_f32_literals(text: &str) -> String {
    let (head, ops) = match text.find(".f32 ") {
        Some(i) => text.split_at(i + 5),
        None => return text.to_string(),
    };
    let ops: Vec<String> = ops
        .split(',')
        .map(|o| {
            let t = o.trim().trim_end_matches(';');
            let lit =
                !t.starts_with('%') && !t.starts_with("0f") && (t.contains('.') || t.contains('e'));
            match t.parse::<f64>() {
                Ok(f) if lit => o.replace(t, &format!("0f{:08X}", (f as f32).to_bits())),
                _ => o.to_string(),
            }
        })
        .collect();
    format!("{head}{}", ops.join(","))
}
