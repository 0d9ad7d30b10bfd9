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

/// A structure passed by value that is no whole number of 8-byte words
/// (12 bytes) is refused, naming the argument's declaration.
#[test]
fn a_structure_argument_is_refused_with_its_line() {
    let src = format!(
        "{HEAD}.func f(.param .align 4 .b8 a[12])\n{{\nret;\n}}\n\
         .visible .entry k()\n{{\n{{ .param .align 4 .b8 p0[12];\ncall.uni f, (p0);\n}}\nret;\n}}\n"
    );
    let e = inlined(&src).unwrap_err();
    assert_eq!(e.pos.line, 10, "{e}");
    let text = e.to_string();
    assert!(text.starts_with("k.ptx:10:"), "{text}");
    assert!(text.contains("call parameter 'p0' of 12 bytes"), "{text}");
}

/// A 16-byte structure passed and returned by value (as nvcc's double
/// `sin` receives `{double, int}` from libdevice's slow path) is held in
/// two 8-byte parts: whole words move, a 4-byte field at offset 12 is
/// shifted out on a load and inserted with `bfi` on a store; an access
/// across the two words is refused.
#[test]
fn a_16_byte_structure_is_two_words() {
    let func = ".func (.param .align 8 .b8 r[16]) f(.param .align 8 .b8 a[16])\n{\n\
                .reg .b32 %r<3>;\n.reg .b64 %rd<3>;\nld.param.b64 %rd1, [a+0];\n\
                ld.param.b32 %r1, [a+12];\nst.param.b64 [r+0], %rd1;\nst.param.b32 [r+12], %r1;\nret;\n}\n";
    let kernel = |access: &str| {
        format!(
            "{HEAD}{func}.visible .entry k()\n{{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n\
             {{ .param .align 8 .b8 p0[16];\nst.param.b64 [p0+0], %rd1;\nst.param.b32 [p0+12], %r1;\n\
             .param .align 8 .b8 q0[16];\ncall.uni (q0), f, (p0);\n{access}\n}}\nret;\n}}\n"
        )
    };
    let m = inlined(&kernel("ld.param.b32 %r2, [q0+12];"))
        .unwrap()
        .unwrap();
    let b = m.function("k").unwrap().body.as_ref().unwrap();
    let texts: Vec<&str> = b.statements.iter().map(|s| s.text.trim()).collect();
    assert!(!b
        .statements
        .iter()
        .any(|s| matches!(s.kind, StatementKind::Unimplemented(_))));
    assert!(
        texts.contains(&"mov.b64 __inl0_a0__p0, p0__p0"),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"bfi.b64 p0__p1, __pt, p0__p1, 32, 32"),
        "{texts:?}"
    );
    assert!(texts.contains(&"shr.b64 __pt, q0__p1, 32"), "{texts:?}");
    let e = inlined(&kernel("ld.param.b64 %rd2, [q0+4];")).unwrap_err();
    assert!(e.to_string().contains("at offset 4"), "{e}");
}

/// A kernel without calls is left as parsed.
#[test]
fn no_call_no_rewrite() {
    let src = format!("{HEAD}.visible .entry k()\n{{\nret;\n}}\n");
    assert!(inlined(&src).unwrap().is_none());
}

/// Four `.func`s of one signature or another, in declaration order `f`
/// (its address moved into a register), `g` (named by a `.global`'s
/// initialiser), `h` (address never taken), `w` (taken, but it takes a
/// `.b64`), and a kernel's guarded indirect call with a `.b32` argument
/// and result.
fn indirect_module() -> String {
    let func = |name: &str, ty: &str| {
        format!(
            ".func (.param .b32 r) {name}(.param .{ty} a)\n{{\n.reg .b32 %r<3>;\n\
             ld.param.u32 %r1, [a];\nadd.s32 %r2, %r1, 1;\nst.param.b32 [r+0], %r2;\nret;\n}}\n"
        )
    };
    format!(
        "{HEAD}{}{}{}{}.global .align 8 .u64 tab[2] = {{g, w}};\n\
         .visible .entry k()\n{{\n.reg .pred %p<2>; .reg .b32 %r<3>; .reg .b64 %rd<2>;\n\
         mov.u64 %rd1, f;\nsetp.ne.u32 %p1, %r1, 0;\n\
         {{ .param .b32 p0; st.param.b32 [p0+0], %r1;\n.param .b32 q0;\n\
         proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n\
         @%p1 call (q0), %rd1, (p0), proto;\nld.param.b32 %r2, [q0+0];\n}}\nret;\n}}\n",
        func("f", "b32"),
        func("g", "b32"),
        func("h", "b32"),
        func("w", "b64"),
    )
}

/// A function's address is `8 * (k + 1)` for the module's `k`-th `.func`
/// (docs/ptx-modules.md); no function has 0 or an address between two.
#[test]
fn functions_have_their_documented_addresses() {
    let src = indirect_module();
    let m = parse_module(&src, "k.ptx").unwrap();
    let addr: Vec<Option<u64>> = ["f", "g", "h", "w", "k", "tab"]
        .iter()
        .map(|n| m.function_address(n))
        .collect();
    assert_eq!(addr, [Some(8), Some(16), Some(24), Some(32), None, None]);
    assert_eq!(m.function_at(16).map(|f| f.name.as_str()), Some("g"));
    assert!(m.function_at(0).is_none());
    assert!(m.function_at(12).is_none());
    assert!(m.function_at(40).is_none());
}

/// An indirect call becomes a compare and a branch for each function whose
/// address the module takes and whose signature is the call's (`f` and
/// `g`, not `h` or `w`), each an inlined body, and the call itself for the
/// lanes left; a guarded call is skipped as a whole. What the rewrite
/// writes takes the call's line.
#[test]
fn an_indirect_call_dispatches_over_the_functions_it_may_reach() {
    let src = indirect_module();
    let line = 1 + src[..src.find("@%p1 call").unwrap()].matches('\n').count() as u32;
    let m = inlined(&src).unwrap().unwrap();
    let b = m.function("k").unwrap().body.as_ref().unwrap();
    let texts: Vec<&str> = b.statements.iter().map(|s| s.text.trim()).collect();
    let compares: Vec<&str> = texts
        .iter()
        .copied()
        .filter(|t| t.starts_with("setp.eq.u64"))
        .collect();
    assert_eq!(
        compares,
        [
            "setp.eq.u64 __inl0_p, %rd1, 8",
            "setp.eq.u64 __inl0_p, %rd1, 16"
        ]
    );
    assert_eq!(texts.iter().filter(|t| t.starts_with("add.s32")).count(), 2);
    assert!(texts.contains(&"@!%p1 bra __inl0_skip"), "{texts:?}");
    let calls: Vec<&Statement> = b
        .statements
        .iter()
        .filter(|s| matches!(&s.kind, StatementKind::Control(c) if c.op.is_indirect_call()))
        .collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].pos.line, line);
    // (The callee's own statements keep their lines in the callee.)
    let written = [
        "setp.eq",
        "@__inl0_p",
        "@!%p1",
        "mov.b32 __inl0_a0",
        "mov.b32 q0",
    ];
    let mut n = 0;
    for s in &b.statements {
        if written.iter().any(|w| s.text.trim().starts_with(w)) {
            assert_eq!(s.pos.line, line, "{}", s.text);
            n += 1;
        }
    }
    assert_eq!(n, 7);
}
