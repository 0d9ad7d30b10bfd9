//! Issue 28, declarations: every variable's size is checked before anything
//! of its size is allocated, per variable and in total per launch, against
//! the hardware's limits as ptxas 13.0.88 states them on sm_90 (`File uses
//! too much global constant data (0x10001 bytes, 0x10000 max)`, `Entry
//! function 'k' uses too much shared data (0xc001 bytes, 0xc000 max)`), the
//! CUDA C Programming Guide's 512 KiB of local memory per thread, and the
//! simulator's stated 1 GiB for `.global` variables. The error names the
//! variable, its size, the limit and the line.

use sim_kernel::{KernelError, Prepared};
use sim_module::{parse_module, Launch};
use std::path::Path;

/// Prepares kernel `k` of a module with `outer` at module level (from line
/// 4) and `inner` in the kernel, launched as one block of `threads`.
fn prepare(outer: &str, inner: &str, threads: u32) -> Result<(), KernelError> {
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n{outer}\n\
         .visible .entry k()\n{{\n{inner}\nret;\n}}\n"
    );
    let module = parse_module(&src, "k.ptx").unwrap();
    let launch = Launch::parse(
        &format!(
            r#"{{"ptx": "k.ptx", "entry": "k", "grid": [1,1,1], "block": [{threads},1,1],
               "buffers": {{}}, "params": []}}"#
        ),
        Path::new("."),
    )
    .unwrap();
    Prepared::new(&module, &launch, Vec::new()).map(|_| ())
}

/// `refused`'s message, which must start with `want`.
fn refused_as(outer: &str, inner: &str, threads: u32, want: &str) -> String {
    let e = refused(outer, inner, threads);
    assert!(e.starts_with(want), "{e}");
    e
}

fn refused(outer: &str, inner: &str, threads: u32) -> String {
    match prepare(outer, inner, threads) {
        Err(e @ KernelError::Declaration { .. }) => e.to_string(),
        other => panic!(
            "{outer} {inner}: expected a declaration error, got {:?}",
            other.err()
        ),
    }
}

#[test]
fn const_variables_fit_one_bank() {
    assert!(prepare(".const .b8 c[65536] = {1};", "", 32).is_ok());
    let e = refused_as(
        ".const .b8 c[300000000] = {1};",
        "",
        32,
        "k.ptx:4: .const variable c needs 300000000 bytes, more than the limit of 65536",
    );
    assert!(
        e.contains(".const variables need at most 65536 bytes in all"),
        "{e}"
    );
    // In total: the second variable crosses the bank, and is named.
    refused_as(
        ".const .b8 c[40000] = {1};\n.const .b8 d[40000] = {1};",
        "",
        32,
        "k.ptx:5: .const variable d needs 40000 bytes (80000 with the .const variables before it), more than the limit of 65536",
    );
}

#[test]
fn shared_variables_fit_a_block() {
    assert!(prepare("", ".shared .b8 s[49152];", 32).is_ok());
    let e = refused_as(
        "",
        ".shared .b8 s[49153];",
        32,
        "k.ptx:7: .shared variable s needs 49153 bytes, more than the limit of 49152",
    );
    assert!(e.contains("shared memory"), "{e}");
    refused_as(
        ".shared .b8 a[40000];",
        ".shared .b8 b[10000];",
        32,
        "k.ptx:7: .shared variable b needs 10000 bytes (50000 with the .shared variables before it), more than the limit of 49152",
    );
}

#[test]
fn local_variables_fit_a_thread_and_the_resident_threads() {
    assert!(prepare("", ".local .b8 l[524288];", 1).is_ok());
    let e = refused_as(
        "",
        ".local .b8 l[524289];",
        1,
        "k.ptx:7: .local variable l needs 524289 bytes, more than the limit of 524288",
    );
    assert!(e.contains("local memory"), "{e}");
    // 256 MiB in one thread: refused per thread, before any lane holds it.
    let e = refused("", ".local .align 4 .b8 lo[268435456];", 1);
    assert!(e.contains("needs 268435456 bytes"), "{e}");
}

#[test]
fn global_variables_have_a_stated_bound() {
    let e = refused_as(
        ".global .b8 g[4294967296];",
        "",
        32,
        "k.ptx:4: .global variable g needs 4294967296 bytes, more than the limit of 1073741824",
    );
    assert!(e.contains(".global variables need"), "{e}");
    // Three of 512 MiB: the third crosses the total, and is named.
    refused_as(
        ".global .b8 g0[536870912];\n.global .b8 g1[536870912];\n.global .b8 g2[536870912];",
        "",
        32,
        "k.ptx:6: .global variable g2 needs 536870912 bytes (1610612736 with the .global variables before it)",
    );
}
