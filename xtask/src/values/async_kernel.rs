//! The kernel around one async-copy or `mbarrier` statement (see
//! `async_family.rs`): registers from the input slots, the shared variable
//! `sm` from input bytes [`SHARED_AT`].., the statement (and
//! `cp.async.wait_all` after a copy), then the written registers and `sm`'s
//! bytes to the output.

use super::kernel::layout;
use std::fmt::Write as _;

/// Input (and output) bytes of `sm`'s contents, the copy source's, and
/// `sm`'s size.
pub(super) const SHARED_AT: usize = 64;
pub(super) const GLOBAL_AT: usize = 96;
pub(super) const SPAN: usize = 32;

/// Whether `text` is one of this family's (it names the variable `sm`, or
/// is `mbarrier.pending_count`, which names none).
pub(super) fn is_async(text: &str) -> bool {
    text.contains("[sm") || text.starts_with("mbarrier.")
}

/// The kernel for statement `text` (see the module doc).
pub(super) fn kernel(name: &str, text: &str) -> String {
    let (regs, dsts) = layout(text);
    let mut k = format!(
        ".visible .entry {name}(.param .u64 pin, .param .u64 pout) {{\n\
         .shared .align 16 .b8 sm[{SPAN}];\n\
         .reg .b64 %ptr<3>; .reg .b32 %t<40>; .reg .b64 %tq;\n\
         .reg .b32 %r<9>; .reg .b64 %rd<9>; .reg .pred %p<9>;\n\
         ld.param.u64 %ptr1, [pin]; ld.param.u64 %ptr2, [pout];\n"
    );
    for (s, r) in regs.iter().enumerate() {
        let off = 8 * s;
        let _ = match r.width {
            1 => writeln!(
                k,
                "ld.global.u32 %t{s}, [%ptr1+{off}]; setp.ne.u32 {}, %t{s}, 0;",
                r.name
            ),
            64 => writeln!(k, "ld.global.u64 {}, [%ptr1+{off}];", r.name),
            _ => writeln!(k, "ld.global.u32 {}, [%ptr1+{off}];", r.name),
        };
    }
    for w in (0..SPAN).step_by(8) {
        let _ = writeln!(
            k,
            "ld.global.u64 %tq, [%ptr1+{}]; st.shared.u64 [sm+{w}], %tq;",
            SHARED_AT + w
        );
    }
    let _ = writeln!(k, "{}", text.trim());
    if text.starts_with("cp.async.c") {
        k.push_str("cp.async.wait_all;\n");
    }
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
            64 => writeln!(k, "st.global.u64 [%ptr2+{off}], {};", r.name),
            _ => writeln!(k, "st.global.u32 [%ptr2+{off}], {};", r.name),
        };
    }
    for w in (0..SPAN).step_by(8) {
        let _ = writeln!(
            k,
            "ld.shared.u64 %tq, [sm+{w}]; st.global.u64 [%ptr2+{}], %tq;",
            SHARED_AT + w
        );
    }
    k.push_str("ret;\n}\n");
    k
}
