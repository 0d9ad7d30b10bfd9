//! Malformed traces: each refused with the file and the line.

use sim_accelsim::{parse_kernel, parse_kernelslist, AccelError};

const HEAD: &str = "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n\
-shmem = 0\n-nregs = 8\n-binary version = 61\n-accelsim tracer version = 4\n-enable lineinfo = 0\n\n";

fn kernel(body: &str) -> String {
    format!("{HEAD}#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n{body}#END_TB\n")
}

/// The error's line, or panics.
fn line_of(text: &str) -> (usize, String) {
    match parse_kernel("k.traceg", text) {
        Err(AccelError::Syntax {
            line,
            message,
            file,
        }) => {
            assert_eq!(file, "k.traceg");
            (line, message)
        }
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn a_well_formed_kernel_reads() {
    let k = parse_kernel(
        "k.traceg",
        &kernel("insts = 2\n0008 ffffffff 1 R1 MOV 0 0\n0010 0000000f 0 STG.E 2 R2 R1 4 0 0x10 0x20 0x30 0x40\n"),
    )
    .expect("reads");
    assert_eq!(k.warp_instructions(), 2);
    assert_eq!(k.thread_instructions(), 36);
    let i = &k.blocks[0].warps[0].insts[1];
    let (_, start) = i.mem.expect("mem");
    assert_eq!(k.lane_addrs(start, i.mask), &[0x10, 0x20, 0x30, 0x40]);
}

#[test]
fn base_delta_addresses_add_up_per_active_lane() {
    // Lanes 0, 2, 3 active: base, +8, then -4.
    let k = parse_kernel(
        "k.traceg",
        &kernel("insts = 1\n0010 0000000d 1 R4 LDG.E 1 R2 4 2 0x1000 8 -4\n"),
    )
    .expect("reads");
    let i = &k.blocks[0].warps[0].insts[0];
    let (_, start) = i.mem.expect("mem");
    assert_eq!(k.lane_addrs(start, i.mask), &[0x1000, 0x1008, 0x1004]);
}

#[test]
fn lineinfo_lines_carry_a_source_line_first() {
    let text = kernel("insts = 1\n12 0008 ffffffff 1 R1 MOV 0 0\n")
        .replace("-enable lineinfo = 0", "-enable lineinfo = 1");
    let k = parse_kernel("k.traceg", &text).expect("reads");
    assert_eq!(k.blocks[0].warps[0].insts[0].pc, 8);
}

#[test]
fn malformed_instruction_lines_name_their_line() {
    // Line 15 is the first instruction line (10 header lines, then
    // `#BEGIN_TB`, `thread block`, `warp` and `insts`).
    let cases = [
        ("insts = 1\n0008 ffffffff 1 R1\n", 15, "opcode"),
        ("insts = 1\n0008 fffffffff 1 R1 MOV 0 0\n", 15, "mask"),
        ("insts = 1\n0008 ffffffff 1 X1 MOV 0 0\n", 15, "register"),
        (
            "insts = 1\n0008 ffffffff 1 R1 MOV 0 0 junk\n",
            15,
            "unexpected",
        ),
        (
            "insts = 1\n0010 0000000f 0 STG.E 1 R2 4 7 0x10\n",
            15,
            "address mode",
        ),
        (
            "insts = 1\n0010 0000000f 0 STG.E 1 R2 4 0 0x10 0x20\n",
            15,
            "addresses",
        ),
        (
            "insts = 1\n0010 0000000f 0 STG.E 1 R2 4 2 0x10 4\n",
            15,
            "deltas",
        ),
        (
            "insts = 1\n0010 0000000f 0 STG.E 1 R2 999 0 0x10\n",
            15,
            "memory width",
        ),
        (
            "insts = 1\n0010 0000000f 99 R1 MOV 0 0\n",
            15,
            "destination count",
        ),
        (
            "insts = 1\n0010 00000001 0 STG.E 1 R2 4 0 0xfffffffffffffffe\n",
            15,
            "passes 2^64",
        ),
        (
            "insts = 1\n0010 00000003 0 STG.E 1 R2 4 1 0xfffffffffffffff0 32\n",
            15,
            "passes 0 or 2^64",
        ),
        (
            "insts = 1\n0010 00000003 0 STG.E 1 R2 4 2 0x10 -32\n",
            15,
            "passes 0 or 2^64",
        ),
        ("insts = 999999999999\n", 14, "instructions in a warp"),
        ("warp = 5\n", 14, "warp 5"),
        ("bogus line\n", 14, "expected"),
    ];
    for (body, want, words) in cases {
        let (line, message) = line_of(&kernel(body));
        assert_eq!(line, want, "{body:?}: {message}");
        assert!(message.contains(words), "{body:?}: {message}");
    }
}

#[test]
fn structure_errors_are_refused() {
    let (line, m) = line_of(&format!("{HEAD}#BEGIN_TB\n#BEGIN_TB\n"));
    assert_eq!((line, m.contains("inside a block")), (12, true), "{m}");
    let (line, m) = line_of(&format!("{HEAD}warp = 0\n"));
    assert_eq!((line, m.contains("outside a block")), (11, true), "{m}");
    let (line, m) = line_of(&HEAD.replace("(64,1,1)", "(64,1)"));
    assert_eq!((line, m.contains("dimension")), (4, true), "{m}");
    let (line, m) = line_of(&HEAD.replace("version = 4", "version = 2"));
    assert_eq!((line, m.contains("versions 3 and 4")), (8, true), "{m}");
    // A warp cut short at the end of the file.
    let short = format!(
        "{HEAD}#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n0008 ffffffff 0 NOP 0 0\n"
    );
    match parse_kernel("k.traceg", &short) {
        Err(AccelError::File { message, .. }) => {
            assert!(message.contains("2 instruction lines short"))
        }
        other => panic!("{other:?}"),
    }
    // Too many threads in a block.
    match parse_kernel("k.traceg", &HEAD.replace("(64,1,1)", "(2048,1,1)")) {
        Err(AccelError::File { message, .. }) => assert!(message.contains("2048 threads")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn kernelslist_errors_name_their_line() {
    let ok = parse_kernelslist("l", "MemcpyHtoD,0x10,400\n\nkernel-1.traceg\n").expect("reads");
    assert_eq!(ok.len(), 2);
    for (text, want) in [
        ("MemcpyHtoD,0xZZ,4\n", 1),
        ("kernel-1.traceg\nMemcpyHtoD,0x10\n", 2),
        ("MemcpyDtoH,0x10,4\n", 1),
        ("../etc/passwd\n", 1),
    ] {
        match parse_kernelslist("l", text) {
            Err(AccelError::Syntax { line, .. }) => assert_eq!(line, want, "{text:?}"),
            other => panic!("{text:?}: {other:?}"),
        }
    }
}
