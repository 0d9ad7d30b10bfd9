//! Exports every function NVIDIA's libcudart.so.13 exports
//! (`data/libcudart13.symbols`), and every one libcudart.so.12 does
//! (`data/libcudart12.symbols`), under its version tag: the ones
//! `src/` implements (found by their `extern "C" fn NAME(` lines) as they
//! are, every other one as a stub that names itself on standard error and
//! returns `cudaErrorNotSupported` (`src/abi.rs`, `stubs!`). A program then
//! loads whatever it calls, and an entry point we lack is an error code,
//! never a missing symbol.
//!
//! The version tag: nvcc's programs ask for each symbol at version
//! `libcudart.so.13` (`objdump -T app`). rustc hands the linker its own
//! anonymous version script for every cdylib (the exported symbols, the
//! rest local), and a second script naming a version cannot be combined
//! with it (lld keeps the anonymous one: the symbols came out unversioned). So the
//! library is linked by GNU ld with `--default-symver`, which gives every
//! exported symbol the soname, `libcudart.so.13`, as its version.
//!
//! The package `sim-cudart12` builds this same source with this same
//! script: there the soname is `libcudart.so.12` and `--cfg cuda12` makes
//! the entry points whose ABI differs answer as CUDA 12's (`src/cuda12.rs`).
//! (A second crate depending on this one cannot rename the library: cargo
//! hands a cdylib its dependencies' cdylib link arguments too, and the
//! last `-soname` wins.)

use std::collections::BTreeSet;
use std::path::Path;

fn sources(dir: &Path, out: &mut String) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
        }
    }
}

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let cuda12 = std::env::var("CARGO_PKG_NAME").as_deref() == Ok("sim-cudart12");
    // sim-cudart12's manifest sits beside this package's folder.
    let dir = if cuda12 {
        Path::new(&manifest).join("../sim-cudart")
    } else {
        Path::new(&manifest).to_path_buf()
    };
    let dir = dir.as_path();
    println!("cargo::rustc-check-cfg=cfg(cuda12)");
    if cuda12 {
        println!("cargo:rustc-cfg=cuda12");
    }
    let out = std::env::var("OUT_DIR").unwrap_or_default();
    let out = Path::new(&out);
    // Absolute: sim-cudart12 has no data/ or src/ of its own.
    for watched in [
        "data/libcudart13.symbols",
        "data/libcudart12.symbols",
        "src",
    ] {
        println!("cargo:rerun-if-changed={}", dir.join(watched).display());
    }
    let mut list = String::new();
    for f in ["data/libcudart13.symbols", "data/libcudart12.symbols"] {
        list.push_str(&std::fs::read_to_string(dir.join(f)).unwrap_or_default());
        list.push('\n');
    }
    let all: BTreeSet<&str> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut src = String::new();
    sources(&dir.join("src"), &mut src);
    let missing: Vec<&str> = all
        .iter()
        .copied()
        .filter(|name| !src.contains(&format!("extern \"C\" fn {name}(")))
        .collect();
    let stubs = format!("stubs!({});\n", missing.join(", "));
    std::fs::write(out.join("stubs.rs"), stubs).unwrap_or_default();
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        let soname = if cuda12 {
            "libcudart.so.12"
        } else {
            "libcudart.so.13"
        };
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
        println!("cargo:rustc-cdylib-link-arg=-fuse-ld=bfd");
        println!("cargo:rustc-cdylib-link-arg=-Wl,--default-symver");
    }
}
