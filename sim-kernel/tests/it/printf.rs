//! Device `printf` (`vprintf`, `sim_kernel::printf`): `tests/data/printf`
//! is CUDA C++ (`printf.cu`) compiled by nvcc 13.0.88 to `printf.ptx`; its
//! expected output `printf.expected.txt` is what the host C library
//! (glibc, with which CUDA formats device output) prints for the same
//! formats and values (`reference.c`, compiled with gcc). The formatter is
//! also held to glibc's `snprintf` over `printf-table.tsv` (3,000 cases
//! written by `table.c`).

use crate::opts;
use sim_kernel::printf::{format, Args};
use sim_kernel::*;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    crate::in_crate("tests/data/printf", name)
}

/// Every conversion, divergence (only the odd lanes below 8 print), two
/// warps, an inlined and a called device function printing, `%s` of a
/// device buffer and of constant strings: glibc's text, each warp's lines
/// in program order and lane order (the warps interleave as the engine
/// runs them), the same bytes on any number of SMs and host threads.
#[test]
fn printf_prints_what_the_host_c_library_prints() {
    let want = std::fs::read_to_string(data("printf.expected.txt")).unwrap();
    let want: Vec<&str> = want.lines().collect();
    // The reference prints warp 1's six lines last.
    let (w0, w1) = want.split_at(want.len() - 6);
    assert!(w1[0].starts_with("odd 33") && w1[5].starts_with("helper 32"));
    let first = run_launch(&data("printf.json"), &opts(1, 1)).unwrap();
    let got = String::from_utf8(first.printf.clone()).unwrap();
    let got: Vec<&str> = got.lines().collect();
    assert_eq!(got.len(), want.len(), "{got:#?}");
    let of_w1: Vec<&str> = got.iter().copied().filter(|l| w1.contains(l)).collect();
    let of_w0: Vec<&str> = got.iter().copied().filter(|l| !w1.contains(l)).collect();
    assert_eq!(of_w0, w0);
    assert_eq!(of_w1, w1);
    for sms in [1, 132] {
        for threads in [1, 3] {
            let r = run_launch(&data("printf.json"), &opts(sms, threads)).unwrap();
            assert_eq!(r.printf, first.printf, "{sms} SMs, {threads} threads");
            assert_eq!(r.printf_dropped, 0);
        }
    }
}

/// A format string at an address no allocation holds is the fault a load
/// of it would be, naming the call's line and the thread.
#[test]
fn a_bad_format_address_faults() {
    let Err(e) = run_launch(&data("badfmt.json"), &opts(1, 1)) else {
        panic!("the bad format ran");
    };
    let text = e.to_string();
    assert!(
        text.contains("out-of-bounds 1-byte generic access at 0x10 by lane 0"),
        "{text}"
    );
    assert!(text.contains("block [0, 0, 0] warp 0 (thread 0)"), "{text}");
    assert!(text.contains("printf.ptx:"), "{text}");
}

/// One argument from the table: its bytes at offset 0, a string at 0x100.
struct One {
    word: u64,
    string: Vec<u8>,
}

impl Args for One {
    type Error = String;
    fn word(&mut self, offset: u64, n: u32) -> Result<u64, String> {
        match (offset, n) {
            (0, 8) => Ok(self.word),
            (0, 4) => Ok(self.word & 0xffff_ffff),
            _ => Err(format!("{n} bytes at {offset}")),
        }
    }
    fn string(&mut self, addr: u64, max: usize, out: &mut Vec<u8>) -> Result<(), String> {
        if addr != 0x100 {
            return Err(format!("string at {addr:#x}"));
        }
        out.extend(self.string.iter().take(max));
        Ok(())
    }
}

#[test]
fn the_formatter_matches_glibc_over_the_table() {
    let table = std::fs::read_to_string(data("printf-table.tsv")).unwrap();
    let mut n = 0;
    let mut bad = Vec::new();
    for line in table.lines() {
        let f: Vec<&str> = line.splitn(4, '\t').collect();
        let [fmt, kind, arg, want] = f[..] else {
            panic!("bad table line {line:?}");
        };
        let mut one = match kind {
            "str" => One {
                word: 0x100,
                string: arg.as_bytes().to_vec(),
            },
            _ => One {
                word: u64::from_str_radix(arg, 16).unwrap(),
                string: Vec::new(),
            },
        };
        let mut out = Vec::new();
        let count = format(fmt.as_bytes(), &mut one, &mut out).unwrap();
        assert_eq!(count, 1, "{fmt}");
        if out != want.as_bytes() {
            bad.push(format!(
                "{fmt} {kind} {arg}: got {:?}, glibc {want:?}",
                String::from_utf8_lossy(&out)
            ));
        }
        n += 1;
    }
    assert_eq!(n, 3000);
    assert!(
        bad.is_empty(),
        "{} of {n} differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
