//! Calls inlined into the launched kernel (`sim_module::inline_calls`).

use sim_module::*;

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

fn inlined(src: &str) -> Result<Option<Module>, ModuleError> {
    let m = parse_module(src, "k.ptx").unwrap();
    inline_calls(src, &m, "k")
}

/// A call's `.param` traffic becomes moves between registers and the callee
/// runs in place; the kernel then has no call left, and each statement keeps
/// its source line (the callee's `add` its line 8).
#[test]
fn a_call_becomes_moves_and_the_callee_body() {
    let src = format!(
        "{HEAD}.func (.param .b32 r) f(.param .b32 a)\n{{\n.reg .b32 %r<3>;\n\
         ld.param.u32 %r1, [a];\nadd.s32 %r2, %r1, 1;\nst.param.b32 [r+0], %r2;\nret;\n}}\n\
         .visible .entry k()\n{{\n.reg .b32 %r<3>;\n{{ .param .b32 p0; st.param.b32 [p0+0], %r1;\n\
         .param .b32 q0;\ncall.uni (q0), f, (p0);\nld.param.b32 %r2, [q0+0];\n}}\nret;\n}}\n"
    );
    let m = inlined(&src).unwrap().unwrap();
    let b = m.function("k").unwrap().body.as_ref().unwrap();
    let calls = b
        .statements
        .iter()
        .filter(|s| matches!(&s.kind, StatementKind::Control(c) if matches!(c.op, ControlOp::Call { .. })))
        .count();
    assert_eq!(calls, 0);
    let add = b
        .statements
        .iter()
        .find(|s| s.text.starts_with("add.s32"))
        .unwrap();
    assert_eq!(add.pos.line, 8);
    let unimplemented: Vec<&str> = b
        .statements
        .iter()
        .filter(|s| matches!(s.kind, StatementKind::Unimplemented(_)))
        .map(|s| s.text.as_str())
        .collect();
    assert!(unimplemented.is_empty(), "{unimplemented:?}");
    let texts: Vec<&str> = b.statements.iter().map(|s| s.text.trim()).collect();
    assert!(texts.contains(&"mov.b32 p0, %r1"), "{texts:?}");
    assert!(texts.contains(&"bra __inl0_ret"), "{texts:?}");
}

/// A structure passed by value is refused, naming the argument's declaration.
#[test]
fn a_structure_argument_is_refused_with_its_line() {
    let src = format!(
        "{HEAD}.func f(.param .align 4 .b8 a[8])\n{{\nret;\n}}\n\
         .visible .entry k()\n{{\n{{ .param .align 4 .b8 p0[8];\ncall.uni f, (p0);\n}}\nret;\n}}\n"
    );
    let e = inlined(&src).unwrap_err();
    assert_eq!(e.pos.line, 10, "{e}");
    let text = e.to_string();
    assert!(text.starts_with("k.ptx:10:"), "{text}");
    assert!(text.contains("call parameter 'p0' of 8 bytes"), "{text}");
}

/// A kernel without calls is left as parsed.
#[test]
fn no_call_no_rewrite() {
    let src = format!("{HEAD}.visible .entry k()\n{{\nret;\n}}\n");
    assert!(inlined(&src).unwrap().is_none());
}
