//! Kernel-text errors name file, line and column.

use sim_trace::kernel::parse_kernel;

fn err(text: &str) -> String {
    parse_kernel("k.ptx", text).unwrap_err().to_string()
}

#[test]
fn positions_and_messages() {
    let hdr = ".target sm_53\n.reg .b32 %r<4>;\n";
    // Each body after the header, and the error it gets.
    for (body, want) in [
        (
            "  add.u32 %r1, %x, 1;\n",
            "k.ptx:3:16: undeclared register '%x' (declare it with .reg)",
        ),
        (".frob 3\n", "k.ptx:3:1: unknown directive '.frob'"),
        ("/* never\nclosed\n", "k.ptx:3:1: unterminated /* comment"),
        (
            ".repeat 2 {\n add.u32 %r1, %r1, 1;\n",
            "k.ptx:3:1: .repeat block is never closed (missing '}')",
        ),
        (".repeat 2 { }\n", "k.ptx:3:1: empty .repeat body"),
        (
            ".repeat 0 { add.u32 %r1, %r1, 1; }\n",
            "k.ptx:3:9: '.repeat' needs a count of at least 1, got '0'",
        ),
        ("}\n", "k.ptx:3:1: '}' without an open .repeat"),
    ] {
        assert_eq!(err(&format!("{hdr}{body}")), want, "{body:?}");
    }
    assert!(err(".reg .b32 %r<2>;\nadd.u32 %r1, %r1, 1;\n").contains("missing .target"));
    assert!(err(".target sm_53\n.warps 0\n").starts_with("k.ptx:2:8: '.warps' needs a count"));
    assert!(err(".target sm_53\n.mask 0\n").starts_with("k.ptx:2:7: '.mask' needs a non-zero"));
    assert!(err(".target sm_53\n.reg .b32 %r;\n.reg .b32 %r;\n").contains("declared twice"));
}

/// Instruction errors from sim-isa are moved to file coordinates.
#[test]
fn instruction_error_columns_are_file_columns() {
    let e = parse_kernel(
        "k.ptx",
        ".target sm_53\n.reg .b32 %r<5>;\n    vadd4.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;\n",
    )
    .unwrap_err();
    assert_eq!((e.line, e.col), (3, 26), "{e}");
    assert_eq!(e.kind, Some(sim_isa::ErrorKind::Invalid));
    assert!(e.msg.contains(".sat") && e.msg.contains(".add"), "{e}");
}

/// Absurd counts are refused with an error, not an allocation or an endless run.
#[test]
fn absurd_counts_are_bounded() {
    let e = err(".target sm_53\n.reg .b32 %r<2>;\n.repeat 1000000000 {\n.repeat 1000000000 {\nadd.u32 %r1, %r1, 1;\n}\n}\n");
    assert!(e.contains("dynamic instructions"), "{e}");
    let e = err(".target sm_53\n.warps 65536\n.reg .b32 %r<2>;\n.repeat 100000000 { add.u32 %r1, %r1, 1; }\n");
    assert!(e.contains("exceeds"), "{e}");
    let e = err(".target sm_53\n.reg .b32 %r<99999999>;\n");
    assert!(e.contains("register count must be"), "{e}");
    let e = err(".target sm_53\n.repeat 99999999999999999999999 { }\n");
    assert!(e.contains("needs a count"), "{e}");
}

#[test]
fn directives_and_values() {
    let b2 = format!(
        "{{{}}}",
        (0..32)
            .map(|l| if l < 16 { "7" } else { "0" })
            .collect::<Vec<_>>()
            .join(", ")
    );
    let t = parse_kernel(
        "k.ptx",
        &"// header\n.version 7.8\n.target sm_90a\n.address_size 64\n.warps 3\n.mask 0x0000ffff\n\
         .reg .pred %p<2>;\n.reg .b16 %h;\n.reg .b32 a, b;\n\
         mov.u32 a, %warpid; /* inline */ setp.eq.u32 %p1, a, 2;\n\
         @%p1 add.u32 b, a, 5;\n\
         .expect w2 b = B2;\n.expect %h = 0;\n.expect w0 %p1 = false;\n"
            .replace("B2", &b2),
    )
    .unwrap();
    assert_eq!(t.target.to_string(), "sm_90a");
    assert_eq!(t.version.unwrap().to_string(), "7.8");
    assert_eq!(t.warps.len(), 3);
    assert_eq!(t.warps[1].mask, 0xffff);
    assert_eq!(t.insts.len(), 3);
    assert_eq!(t.lines, vec![10, 10, 11]);
    assert_eq!(t.expects.len(), 3);
    let finals = t.functional_run(t.target);
    assert!(t.check(&|w| finals.get(w as usize).cloned()).is_empty());
    // Inactive lanes stay zero: lane 16 of b in warp 2.
    assert_eq!(finals[2].lane(sim_isa::RegId(4), 16), 0);
    assert_eq!(finals[2].lane(sim_isa::RegId(4), 15), 7);
    assert!(
        err(".target sm_53\n.reg .b16 %h;\nmov.u16 %h, 1;\n.expect %h = 0x10000;\n")
            .contains("does not fit")
    );
    assert!(
        err(".target sm_53\n.reg .b32 %r;\nmov.u32 %r, 1;\n.expect w5 %r = 1;\n")
            .contains("names warp 5")
    );
}

#[test]
fn columns_count_characters_not_bytes() {
    // Multi-byte characters before an error, in a comment and in a token:
    // the column counts characters, as an editor shows them.
    let hdr = ".target sm_53\n.reg .b32 %r<4>;\n";
    assert_eq!(
        err(&format!("{hdr}/* é—ü */ add.u32 %r1, %x, 1;\n")),
        "k.ptx:3:24: undeclared register '%x' (declare it with .reg)"
    );
    assert_eq!(
        err(&format!("{hdr}.warps ééé\n")),
        "k.ptx:3:8: '.warps' needs a count from 1 to 65536, got 'ééé'"
    );
    // Unicode whitespace separates tokens as ASCII spaces do.
    assert!(parse_kernel(
        "k.ptx",
        &format!("{hdr}\u{a0}add.u32\u{2003}%r1, %r1, 1;\n")
    )
    .is_ok());
}

#[test]
fn instruction_errors_carry_their_typed_reason() {
    use sim_trace::program::ProgramError;
    let e = parse_kernel(
        "k.ptx",
        ".target sm_53\n.reg .b16 %h;\n.reg .b32 %a;\nadd.u32 %a, %h, %a;\n",
    )
    .unwrap_err();
    assert_eq!(
        e.program.map(|p| *p),
        Some(ProgramError::Width {
            name: "%h".into(),
            declared: sim_isa::Type::B16,
            bits: 32
        })
    );
    assert_eq!((e.line, e.col), (4, 13));
}

/// Memory instructions and barriers need a launch (memory, thread blocks):
/// kernel text refuses them as unsupported, naming the way in; warp
/// shuffles run (a brace operand, `mov.b64 %rd, {%r1, %r2}`, is not kernel
/// text: `{` opens a block there).
#[test]
fn memory_and_barriers_need_a_launch() {
    let head = ".target sm_90\n.warps 1\n.reg .b32 %r1, %r2;\n.reg .b64 %rd1;\n";
    let e = err(&format!("{head}ld.global.u32 %r1, [%rd1];\n"));
    assert!(
        e.contains(":5:1: unsupported by simcli: ld in kernel text"),
        "{e}"
    );
    assert!(e.contains("launch file"), "{e}");
    let e = err(&format!("{head}bar.sync 0;\n"));
    assert!(
        e.contains("unsupported by simcli: bar.sync in kernel text"),
        "{e}"
    );
    let ok = format!("{head}shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;\n");
    if let Err(e) = parse_kernel("k.ptx", &ok) {
        panic!("{e}");
    }
}

/// The instruction cache's view of kernel text: equal instructions are one
/// program instruction, but each copy has its own place in the code, and a
/// `.repeat` body is laid out once however often it runs.
#[test]
fn layout_places_every_copy_once() {
    use sim_core::WarpStream;
    let text = ".target sm_90\n.warps 2\n.reg .b32 %r<4>;\nmov.u32 %r1, 1;\n\
                .repeat 3 {\n add.u32 %r1, %r1, 1;\n add.u32 %r1, %r1, 1;\n xor.b32 %r2, %r1, %r1;\n}\n";
    let t = parse_kernel("k.ptx", text).unwrap();
    assert_eq!(t.insts.len(), 3, "equal instructions interned");
    let layout = t.layout();
    assert_eq!(layout, vec![0, 1, 1, 2]);
    let places = t.placed_streams();
    let mut placed = sim_trace::stream::PlacedCursor::new(places[0].clone(), layout.into());
    let mut plain = t.cursor(0);
    let (mut idx, mut at) = ([0u32; 16], [0u32; 16]);
    let n = placed.next_batch_at(&mut idx, &mut at);
    let mut expect = [0u32; 16];
    let m = plain.next_batch(&mut expect);
    assert_eq!(&idx[..n], &expect[..m], "the same instructions");
    assert_eq!(&at[..n], &[0, 1, 2, 3, 1, 2, 3, 1, 2, 3]);
}

/// The async group statements and `mbarrier.pending_count` are lane-local
/// and run in kernel text; their register of the parser's own (the async
/// token) is no declaration of the text's, and a binary trace of them
/// dumps to text that assembles to the same bytes.
#[test]
fn async_group_statements_run_and_round_trip() {
    let text = ".target sm_90\n.warps 1\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n\
                cp.async.commit_group;\ncp.async.wait_group 1;\ncp.async.wait_all;\n\
                mbarrier.pending_count.b64 %r2, %rd1;\n";
    let t = parse_kernel("k.ptx", text).unwrap_or_else(|e| panic!("{e}"));
    let bytes = sim_trace::binfmt::to_bytes(&t).unwrap();
    let back = sim_trace::binfmt::from_bytes(&bytes).unwrap();
    let dumped = sim_trace::dump::dump(&back).unwrap();
    assert!(!dumped.contains("token"), "{dumped}");
    let again = parse_kernel("d.ptx", &dumped).unwrap_or_else(|e| panic!("{e}\n{dumped}"));
    assert_eq!(sim_trace::binfmt::to_bytes(&again).unwrap(), bytes);
    let e = err(".target sm_90\n.warps 1\n.reg .b32 %r1;\n.reg .b64 %rd1;\n\
                 cp.async.ca.shared.global [%r1], [%rd1], 4;\n");
    assert!(
        e.contains("unsupported by simcli: cp.async.ca in kernel text"),
        "{e}"
    );
}
