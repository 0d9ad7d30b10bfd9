//! The kernel around one async-copy or `mbarrier` statement (see
//! `async_family.rs`): registers from the input slots, the shared variable
//! `sm` from input bytes [`SHARED_AT`].., the statement (and
//! `cp.async.wait_all` after a copy), then the written registers and `sm`'s
//! bytes to the output.

use super::kernel::{layout, load_regs, store_regs};
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
    load_regs(&mut k, &regs);
    for w in (0..SPAN).step_by(8) {
        let at = SHARED_AT + w;
        let _ = writeln!(
            k,
            "ld.global.u64 %tq, [%ptr1+{at}]; st.shared.u64 [sm+{w}], %tq;"
        );
    }
    let _ = writeln!(k, "{}", text.trim());
    if text.starts_with("cp.async.c") {
        k.push_str("cp.async.wait_all;\n");
    }
    store_regs(&mut k, &regs, &dsts);
    for w in (0..SPAN).step_by(8) {
        let at = SHARED_AT + w;
        let _ = writeln!(
            k,
            "ld.shared.u64 %tq, [sm+{w}]; st.global.u64 [%ptr2+{at}], %tq;"
        );
    }
    k.push_str("ret;\n}\n");
    k
}
