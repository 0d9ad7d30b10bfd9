//! Records the git commit the binary is built from as `SIMCLI_COMMIT`
//! (`--version` and reports carry it): `SIMCLI_COMMIT` from the environment
//! when set (packagers), else `git rev-parse`, else "unknown" (a tarball).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-env-changed=SIMCLI_COMMIT");
    let commit = std::env::var("SIMCLI_COMMIT")
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| {
            // Rebuild when HEAD moves: HEAD itself and the branch it names.
            // (A path that does not exist would rerun this on every build.)
            let watch = |p: Option<String>| {
                if let Some(p) = p.filter(|p| std::path::Path::new(p).exists()) {
                    println!("cargo:rerun-if-changed={p}");
                }
            };
            watch(git(&["rev-parse", "--git-path", "HEAD"]));
            if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
                watch(git(&["rev-parse", "--git-path", &r]));
            }
            watch(git(&["rev-parse", "--git-path", "packed-refs"]));
            git(&["rev-parse", "--short=12", "HEAD"])
        })
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=SIMCLI_COMMIT={commit}");
}
