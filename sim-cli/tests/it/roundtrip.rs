//! asm -> dump -> asm gives the identical binary.

use crate::{parts, s, samples, scratch, simcli};

fn asm_dump_asm(src: &std::path::Path, dir: &std::path::Path, stem: &str) {
    let b1 = dir.join(format!("{stem}.1.bin"));
    let t2 = dir.join(format!("{stem}.2.ptx"));
    let b2 = dir.join(format!("{stem}.2.bin"));
    let (c, _, e) = parts(&simcli(&["asm", s(src), "-o", s(&b1)]));
    assert_eq!(c, 0, "{e}");
    let (c, _, e) = parts(&simcli(&["dump", s(&b1), "-o", s(&t2)]));
    assert_eq!(c, 0, "{e}");
    let (c, _, e) = parts(&simcli(&["asm", s(&t2), "-o", s(&b2)]));
    assert_eq!(c, 0, "{e}");
    let (x, y) = (std::fs::read(&b1).unwrap(), std::fs::read(&b2).unwrap());
    assert!(
        x == y,
        "{stem}: re-assembled dump differs from the original binary"
    );
    // dump to stdout equals dump -o.
    let (c, out, _) = parts(&simcli(&["dump", s(&b1)]));
    assert_eq!(c, 0);
    assert_eq!(out, std::fs::read_to_string(&t2).unwrap());
}

#[test]
fn every_sample_round_trips() {
    let dir = scratch("roundtrip");
    for p in samples() {
        asm_dump_asm(&p, &dir, p.file_stem().unwrap().to_str().unwrap());
    }
}

#[test]
fn gen_trace_round_trips_and_is_deterministic() {
    let dir = scratch("gen_rt");
    let a = dir.join("a.bin");
    let b = dir.join("b.bin");
    for out in [&a, &b] {
        let (c, _, e) = parts(&simcli(&[
            "gen",
            "--warps",
            "4",
            "--instructions",
            "3000",
            "--mix",
            "mixed",
            "--dep-distance",
            "3",
            "--seed",
            "7",
            "-o",
            s(out),
        ]));
        assert_eq!(c, 0, "{e}");
    }
    assert_eq!(
        std::fs::read(&a).unwrap(),
        std::fs::read(&b).unwrap(),
        "same seed, same trace"
    );
    // The gen trace's kernel text re-assembles to the same binary.
    let t = dir.join("gen.ptx");
    assert_eq!(parts(&simcli(&["dump", s(&a), "-o", s(&t)])).0, 0);
    let a2 = dir.join("a2.bin");
    assert_eq!(parts(&simcli(&["asm", s(&t), "-o", s(&a2)])).0, 0);
    assert!(
        std::fs::read(&a).unwrap() == std::fs::read(&a2).unwrap(),
        "gen trace round trip"
    );
    // Straight-line streams cost a few bytes per dynamic instruction.
    let len = std::fs::metadata(&a).unwrap().len();
    assert!(len < 3 * 3000 + 4096, "gen trace is {len} bytes");
    let c = dir.join("c.bin");
    let (code, _, _) = parts(&simcli(&[
        "gen",
        "--instructions",
        "3000",
        "--seed",
        "8",
        "-o",
        s(&c),
    ]));
    assert_eq!(code, 0);
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&c).unwrap());
}

/// A `.repeat 1000000` loop of 4 instructions over 64 warps stays tiny on disk,
/// and the loop structure replays the right count lazily.
#[test]
fn repeat_stays_compressed() {
    let text = ".target sm_30\n.warps 64\n.reg .b32 %r<4>;\n.repeat 1000000 {\n set.lt.u32.u32 %r0, %r1, %r2;\n \
                add.u32 %r1, %r1, 1;\n xor.b32 %r2, %r2, %r1;\n selp.b32 %r3, %r1, %r2, 1;\n}\n";
    let t = sim_trace::kernel::parse_kernel("big.ptx", text).unwrap();
    assert_eq!(t.dynamic_total(), 64 * 4_000_000);
    let bytes = sim_trace::binfmt::to_bytes(&t).unwrap();
    assert!(bytes.len() < 1024, "{} bytes", bytes.len());
    let back = sim_trace::binfmt::from_bytes(&bytes).unwrap();
    let mut c = back.cursor(63);
    let mut n = 0u64;
    let mut last = 0;
    while let Some(i) = c.next_index() {
        n += 1;
        last = i;
    }
    assert_eq!((n, last), (4_000_000, 3));
}

/// `.value` and `.expect` records of every shape survive asm -> dump -> asm.
#[test]
fn value_records_round_trip() {
    let lanes = format!(
        "{{{}}}",
        (0..32)
            .map(|l| format!("0x{:x}", l * 3))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let text = format!(
        ".version 7.8\n.target sm_53\n.warps 2\n.mask 0x0000ffff\n.reg .b32 %r<2>;\n.reg .pred %p;\n.reg .b16 %h;\n\
         mov.u32 %r0, %laneid;\n.repeat 3 {{ add.u32 %r1, %r1, %r0; .repeat 2 {{ setp.lt.u32 %p, %r1, 40; }} }}\n\
         .value w1 4 %r1 = {lanes};\n.value w0 0 %r0 = 0x5;\n.expect w1 %p = true;\n.expect %h = 0xffff;\n.expect %r0 = {lanes};\n"
    );
    let t = sim_trace::kernel::parse_kernel("v.ptx", &text).unwrap();
    assert_eq!(t.values.len(), 2);
    assert_eq!(t.values[0].lanes.get(31), 93);
    let b1 = sim_trace::binfmt::to_bytes(&t).unwrap();
    let d = sim_trace::dump::dump(&sim_trace::binfmt::from_bytes(&b1).unwrap()).unwrap();
    let t2 = sim_trace::kernel::parse_kernel("v2.ptx", &d).unwrap();
    assert_eq!(sim_trace::binfmt::to_bytes(&t2).unwrap(), b1, "{d}");
    assert!(
        d.contains(".value w1 4 %r1 = {0x00000000, 0x00000003,"),
        "{d}"
    );
    assert!(d.contains(".expect w1 %p = true;"), "{d}");
    // A .value past the stream's end is refused.
    let bad = text.replace(".value w1 4", ".value w1 99");
    let e = sim_trace::kernel::parse_kernel("v.ptx", &bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("past the stream's end"), "{e}");
}

/// `next_batch` must yield exactly the `next_index` sequence (runs, single
/// instructions, nested repeats) whatever the batch size.
#[test]
fn cursor_batches_match_single_steps() {
    use sim_core::WarpStream;
    use sim_trace::stream::{Cursor, Stream, StreamBuilder};
    let mut b = StreamBuilder::new();
    for i in [5, 6, 7, 2, 9] {
        b.push(i);
    }
    b.open_repeat(3);
    b.push(1);
    b.open_repeat(2);
    for i in [3, 4, 5, 0] {
        b.push(i);
    }
    assert!(b.close_repeat());
    b.push(8);
    assert!(b.close_repeat());
    b.push(2);
    let stream = std::sync::Arc::new(Stream::new(b.finish(), 10).unwrap());
    let mut one = Cursor::new(stream.clone());
    let want: Vec<u32> = std::iter::from_fn(|| one.next_index()).collect();
    assert_eq!(want.len(), 5 + 3 * (1 + 2 * 4 + 1) + 1);
    for size in [1, 2, 3, 7, 16, 64] {
        let mut c = Cursor::new(stream.clone());
        let mut got = Vec::new();
        let mut buf = vec![0u32; size];
        loop {
            let n = c.next_batch(&mut buf);
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, want, "batch size {size}");
    }
}
