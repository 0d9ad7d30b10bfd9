//! Tidy: rules of the whole repository that no compiler checks, each
//! printing the file and line of every violation (as rust-analyzer's tidy
//! does). See ARCHITECTURE.md ("Invariants").

mod lex;
mod modules;
mod sizes;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Fails with every violation, one per line.
fn report(what: &str, violations: &[String]) {
    assert!(violations.is_empty(), "{what}:\n{}", violations.join("\n"));
}

/// Every file and folder of the repository (folders end in `/`), from its root.
fn repo_paths(root: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if [".git", "target", "node_modules", "__pycache__"].contains(&name.as_str()) {
                continue;
            }
            let rel = p
                .strip_prefix(root)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            if p.is_dir() {
                out.insert(format!("{rel}/"));
                stack.push(p);
            } else {
                out.insert(rel);
            }
        }
    }
    out
}

/// Backticked words with a `/` that are not paths.
const NOT_PATHS: &[&str] = &["I/N", "add/sub/mul/mad", ".v2/.v4"];

/// Whether a backticked word names a path: no space, and a `/` or a
/// file extension of ours.
fn looks_like_path(w: &str) -> bool {
    let ext = [".rs", ".md", ".toml", ".py", ".json"]
        .iter()
        .any(|e| w.ends_with(e));
    !w.contains(char::is_whitespace)
        && w.len() > 1
        && (ext || w.contains('/'))
        && !NOT_PATHS.contains(&w)
}

/// The backticked spans of a Markdown text outside code fences, with the
/// line each starts on.
fn backticked(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let kept: Vec<&str> = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
                return "";
            }
            if fenced {
                ""
            } else {
                l
            }
        })
        .collect();
    let joined = kept.join("\n");
    let mut out = Vec::new();
    let parts = joined.split('`');
    let mut line = 1;
    let mut outside = true;
    for part in parts {
        if !outside {
            out.push((line, part.to_string()));
        }
        line += part.matches('\n').count();
        outside = !outside;
    }
    out
}

/// Whether `p`, named under the heading of `krate` (a root folder, if the
/// heading names one), exists: from the root, from the crate or its src/,
/// or as the end of a path inside the crate (a file named under its folder).
fn named_path_exists(paths: &BTreeSet<String>, krate: Option<&str>, p: &str) -> bool {
    let p = p.trim_start_matches("./");
    let forms = [p.to_string(), format!("{}/", p.trim_end_matches('/'))];
    let prefix = krate.map(|k| format!("{k}/")).unwrap_or_default();
    forms.iter().any(|f| {
        paths.contains(f)
            || paths.contains(&format!("{prefix}{f}"))
            || paths.contains(&format!("{prefix}src/{f}"))
            || paths
                .iter()
                .any(|x| x.starts_with(&prefix) && x.ends_with(&format!("/{f}")))
    })
}

#[test]
fn named_paths_exist() {
    let root = root();
    let paths = repo_paths(&root);
    let mut bad = Vec::new();
    for doc in ["ARCHITECTURE.md", "docs/codemap.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap_or_default();
        assert!(!text.is_empty(), "{doc} is missing or empty");
        // Each heading that names a crate (its folder) scopes the paths under it.
        let headings: Vec<(usize, Option<String>)> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.starts_with('#'))
            .map(|(n, l)| {
                let krate = l
                    .trim_start_matches('#')
                    .split_whitespace()
                    .find(|w| paths.contains(&format!("{w}/")));
                (n + 1, krate.map(str::to_string))
            })
            .collect();
        for (line, word) in backticked(&text) {
            if !looks_like_path(&word) {
                continue;
            }
            let krate = headings
                .iter()
                .rev()
                .find(|(h, _)| *h <= line)
                .and_then(|(_, k)| k.as_deref());
            if !named_path_exists(&paths, krate, &word) {
                bad.push(format!("{doc}:{line}: `{word}` names no file or folder"));
            }
        }
    }
    report(
        "paths named in the architecture docs that do not exist",
        &bad,
    );
}

/// ARCHITECTURE.md stays a map (issue 27: "at most about 300 lines"); the
/// timing model's account and the history belong in docs/.
const MAX_MAP_LINES: usize = 300;

#[test]
fn the_map_is_short() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap_or_default();
    let lines = text.lines().count();
    assert!(
        lines <= MAX_MAP_LINES,
        "ARCHITECTURE.md has {lines} lines (at most {MAX_MAP_LINES}): move detail to docs/"
    );
}

/// The libraries: no `unwrap`/`expect` outside tests (ARCHITECTURE.md, "Invariants").
const LIBRARIES: &[&str] = &[
    "sim-isa",
    "sim-core",
    "sim-kernel",
    "sim-module",
    "sim-trace",
    "sim-capi",
    "sim-fatbin",
    "sim-cudart",
    "sim-accelsim",
    "sim-cli",
    "python",
];
const DENY: &str = "#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]";

#[test]
fn libraries_deny_unwrap_and_expect() {
    let root = root();
    let bad: Vec<String> = LIBRARIES
        .iter()
        .map(|l| format!("{l}/src/lib.rs"))
        .filter(|f| {
            !std::fs::read_to_string(root.join(f))
                .unwrap_or_default()
                .lines()
                .any(|l| l.trim() == DENY)
        })
        .map(|f| format!("{f}:1: lacks `{DENY}`"))
        .collect();
    report("libraries that allow unwrap or expect", &bad);
}

/// Circles in code another branch is reworking, each allowed as its files:
/// a circle passes when all its files are in one entry.
const CIRCLES_ALLOWED: &[&[&str]] = &[];

#[test]
fn no_file_import_circles() {
    let mut bad = Vec::new();
    for tree in modules::trees(&root()) {
        let edges = tree.edges();
        for circle in modules::circles(tree.files.len(), &edges) {
            let names: BTreeSet<&str> =
                circle.iter().map(|&f| tree.files[f].rel.as_str()).collect();
            let allowed = CIRCLES_ALLOWED
                .iter()
                .any(|group| names.iter().all(|n| group.contains(n)));
            if allowed {
                continue;
            }
            bad.push(format!("circle of {} files:", circle.len()));
            for (&(a, b), line) in edges
                .iter()
                .filter(|((a, b), _)| circle.contains(a) && circle.contains(b))
            {
                bad.push(format!(
                    "  {}:{line}: imports {}",
                    tree.files[a].rel, tree.files[b].rel
                ));
            }
        }
    }
    report(
        "files that import each other in a circle (move the shared part into a lower file)",
        &bad,
    );
}

/// Most lines of logic in one function, and in one file.
const MAX_FUNCTION: usize = 150;
const MAX_FILE: usize = 800;

/// Functions over the limit in code another branch is changing: (file,
/// function), to split.
const LONG_FUNCTIONS_ALLOWED: &[(&str, &str)] = &[];
/// Files over the limit in code another branch is changing, to split.
const LONG_FILES_ALLOWED: &[&str] = &[];

#[test]
fn functions_and_files_are_short() {
    let mut bad = Vec::new();
    let mut seen = BTreeSet::new();
    for tree in modules::trees(&root()) {
        for f in tree.files.iter().filter(|f| seen.insert(f.rel.clone())) {
            let logic = sizes::logic_lines(&f.text);
            if logic > MAX_FILE && !LONG_FILES_ALLOWED.contains(&f.rel.as_str()) {
                bad.push(format!(
                    "{}:1: {logic} lines of logic (at most {MAX_FILE})",
                    f.rel
                ));
            }
            for func in sizes::functions(&f.text) {
                let allowed =
                    LONG_FUNCTIONS_ALLOWED.contains(&(f.rel.as_str(), func.name.as_str()));
                if func.logic > MAX_FUNCTION && !allowed {
                    bad.push(format!(
                        "{}:{}: fn {} has {} lines of logic (at most {MAX_FUNCTION})",
                        f.rel, func.line, func.name, func.logic
                    ));
                }
            }
        }
    }
    report("functions or files too long (split them)", &bad);
}
