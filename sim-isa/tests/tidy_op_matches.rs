//! Every instruction fact has one home, the database (`sim-isa/src/db/`):
//! outside it, no `match` over `Op` or `OpKind` has a `_ =>` arm, which
//! would give a new family whatever the fallback says instead of failing
//! to compile until the family has said what it does. A textual scan of
//! every `.rs` file of the workspace (comments and literals blanked).
//!
//! `TIDY_ROOT` scans another checkout instead (to see the check fail on
//! code from before the rule).

use std::path::{Path, PathBuf};

#[test]
fn no_wildcard_arm_over_op_outside_the_database() {
    let root = std::env::var_os("TIDY_ROOT").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        PathBuf::from,
    );
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(files.len() > 50, "too few files under {}", root.display());
    let db = Path::new("sim-isa").join("src").join("db");
    let mut bad = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap_or(f);
        if rel.starts_with(&db) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for line in wildcard_op_matches(&text) {
            bad.push(format!("{}:{line}", rel.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "`_ =>` in a match over Op/OpKind outside sim-isa/src/db (ask the database, \
         or name every variant):\n{}",
        bad.join("\n")
    );
}

/// The scanner itself: it finds a wildcard arm at a match's top level
/// beside `Op::` patterns, and nothing else.
#[test]
fn the_scan_finds_what_it_should() {
    let bad = "fn f(i: &I) -> bool {\n    match &i.op {\n        Op::Mem(m) => m.x(),\n        \
               Op::Warp(w) if w.y() => true,\n        _ => false,\n    }\n}\n";
    assert_eq!(wildcard_op_matches(bad), [2]);
    let qualified = "let k = match op { sim_isa::Op::Mem(_) => { 1 } _ => 2 };";
    assert_eq!(wildcard_op_matches(qualified), [1]);
    let kinds = "match k {\n OpKind::Set => a,\n\n _ => b }";
    assert_eq!(wildcard_op_matches(kinds), [1]);
    for good in [
        // Every variant named.
        "match op { Op::Mem(_) => 1, Op::Warp(_) => 2 }",
        // Another enum's `Op`-suffixed variants.
        "match m.op { MemOp::Ld => 1, WarpOp::Fence => 2, _ => 3 }",
        // The wildcard is an inner match's, over something else.
        "match op { Op::Mem(m) => match m.k { 1 => 2, _ => 3 }, Op::Warp(_) => 4 }",
        // In a comment or a string.
        "match op { Op::Mem(_) => 1, // _ => 2\n Op::Warp(_) => \"_ => 3\".len() }",
        "let n = matches!(op, Op::Mem(_)); match x { 1 => 2, _ => 3 }",
    ] {
        assert!(wildcard_op_matches(good).is_empty(), "{good}");
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if p.is_dir() {
            rust_files(&p, out);
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

/// Lines (1-based) of every `match` whose top-level arms name `Op::` or
/// `OpKind::` and include a `_ =>` arm.
fn wildcard_op_matches(src: &str) -> Vec<usize> {
    let code = blank(src);
    let b = code.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(k) = code[at..].find("match") {
        let start = at + k;
        at = start + 5;
        let word = |i: usize| {
            b.get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        };
        if (start > 0 && word(start - 1)) || word(start + 5) {
            continue;
        }
        let Some(open) = body_start(b, start + 5) else {
            continue;
        };
        let Some(close) = closing(b, open) else {
            continue;
        };
        let (mut op, mut wild) = (false, false);
        for pat in patterns(&code[open + 1..close]) {
            let pat = pat.trim();
            wild |= pat == "_";
            op |= names_op(pat);
        }
        if op && wild {
            found.push(code[..start].matches('\n').count() + 1);
        }
    }
    found
}

/// The `{` opening a match's arms: the first at bracket depth 0 after the
/// scrutinee starts.
fn body_start(b: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate().skip(from) {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'{' if depth == 0 => return Some(i),
            b';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The bracket closing the one at `open`.
fn closing(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Each top-level arm's pattern (guard included): the text before each
/// `=>` at depth 0, back to the previous `,` or closing `}` at depth 0.
fn patterns(body: &str) -> Vec<&str> {
    let b = body.as_bytes();
    let (mut depth, mut from, mut out) = (0i32, 0usize, Vec::new());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 && b[i] == b'}' {
                    from = i + 1;
                }
            }
            b',' if depth == 0 => from = i + 1,
            b'=' if depth == 0 && b.get(i + 1) == Some(&b'>') => {
                out.push(&body[from..i]);
                from = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether a pattern names a variant of `Op` or `OpKind` (`Op::Mem(m)`,
/// `sim_isa::Op::Warp(w) if ..`), not of `MemOp`, `WarpOp`, ...
fn names_op(pat: &str) -> bool {
    ["Op::", "OpKind::"].iter().any(|needle| {
        pat.match_indices(needle).any(|(i, _)| {
            i == 0
                || !pat.as_bytes()[i - 1].is_ascii_alphanumeric() && pat.as_bytes()[i - 1] != b'_'
        })
    })
}

/// `src` with comments, string and char literals blanked to spaces
/// (newlines kept, so lines still count).
fn blank(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let wipe = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        let end = if rest.starts_with(b"//") {
            rest.iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |n| i + n)
        } else if rest.starts_with(b"/*") {
            find(b, i + 2, b"*/").map_or(b.len(), |n| n + 2)
        } else if rest.starts_with(b"r#\"") || rest.starts_with(b"r\"") {
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            find(b, i + 2 + hashes, &close).map_or(b.len(), |n| n + close.len())
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            j + 1
        } else if rest[0] == b'\'' && char_literal(rest) > 0 {
            i + char_literal(rest)
        } else {
            i += 1;
            continue;
        };
        wipe(&mut out, i, end);
        i = end.max(i + 1);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Length of the char literal at the start of `s` (0: a lifetime or none).
fn char_literal(s: &[u8]) -> usize {
    if s.get(1) == Some(&b'\\') {
        return s
            .iter()
            .skip(2)
            .position(|&c| c == b'\'')
            .map_or(0, |n| n + 3);
    }
    // One character, possibly several bytes.
    let len = match s.get(1) {
        Some(&c) if c < 0x80 => 1,
        Some(&c) if c >= 0xF0 => 4,
        Some(&c) if c >= 0xE0 => 3,
        Some(_) => 2,
        None => return 0,
    };
    if s.get(1 + len) == Some(&b'\'') {
        len + 2
    } else {
        0
    }
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|n| from + n)
}
