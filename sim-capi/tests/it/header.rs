//! `include/ptx_sm_sim.h` is up to date with the sources.

use std::path::Path;

#[test]
fn header_is_up_to_date() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).unwrap();
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .unwrap()
        .write(&mut out);
    let path = dir.join("include/ptx_sm_sim.h");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, &out).unwrap();
    }
    let have = std::fs::read(&path).unwrap_or_default();
    assert!(
        have == out,
        "{} is stale: regenerate with UPDATE_EXPECT=1 cargo test -p sim-capi --test it header",
        path.display()
    );
}
