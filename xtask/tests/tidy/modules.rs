//! The crates' module trees, read from `mod` declarations from each crate
//! root, and the file-to-file imports: every `crate::`, `super::`, `self::`
//! or child-module path, in `use` items and in code, resolved to the file
//! that defines its item (re-exports followed to where the item lives).
//! A module's imports of its own descendants are not edges: it holds them.

use crate::lex::{is_ident, mask, strip_test_modules};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// One source file of a module tree, reduced (see `lex`).
pub struct File {
    /// Path from the repository root, with `/`.
    pub rel: String,
    /// Module path from the crate root (`[]` for lib.rs or main.rs).
    pub module: Vec<String>,
    pub text: String,
    toks: Vec<Tok>,
}

/// One crate root (lib.rs, main.rs or a src/bin file) and its files.
pub struct Tree {
    pub files: Vec<File>,
    by_module: HashMap<Vec<String>, usize>,
}

/// `from -> to` with the line of `from` that imports (the first one).
pub type Edges = BTreeMap<(usize, usize), usize>;

/// Every crate of the repository: a directory at the root with a Cargo.toml
/// and a src/; each crate root of it as one tree.
pub fn trees(root: &Path) -> Vec<Tree> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    dirs.sort();
    let mut out = Vec::new();
    for dir in dirs
        .iter()
        .filter(|d| d.join("Cargo.toml").is_file() && d.join("src").is_dir())
    {
        let src = dir.join("src");
        let mut roots = vec![src.join("lib.rs"), src.join("main.rs")];
        if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
            roots.extend(bins.filter_map(|e| e.ok().map(|e| e.path())));
        }
        for r in roots
            .into_iter()
            .filter(|r| r.extension().is_some_and(|e| e == "rs") && r.is_file())
        {
            out.push(tree(root, &r));
        }
    }
    out
}

fn tree(root: &Path, crate_root: &Path) -> Tree {
    let mut t = Tree {
        files: Vec::new(),
        by_module: HashMap::new(),
    };
    let mut queue = vec![(crate_root.to_path_buf(), Vec::new(), true)];
    while let Some((path, module, is_root)) = queue.pop() {
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        let (text, _tests) = strip_test_modules(&mask(&src));
        let toks = tokens(&text);
        // A crate root's and a mod.rs's children sit beside them; foo.rs's in foo/.
        let dir = match path.file_name().and_then(|n| n.to_str()) {
            Some("mod.rs") => path.parent().map(Path::to_path_buf),
            _ if is_root => path.parent().map(Path::to_path_buf),
            _ => path.with_extension("").into(),
        }
        .unwrap_or_default();
        for child in mod_declarations(&toks) {
            let file = [
                dir.join(format!("{child}.rs")),
                dir.join(&child).join("mod.rs"),
            ]
            .into_iter()
            .find(|p| p.is_file());
            if let Some(file) = file {
                let mut m = module.clone();
                m.push(child);
                queue.push((file, m, false));
            }
        }
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        t.by_module.insert(module.clone(), t.files.len());
        t.files.push(File {
            rel,
            module,
            text,
            toks,
        });
    }
    t
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String, usize),
    Colons(usize),
    Punct(char, usize),
}

impl Tok {
    fn ident(&self) -> Option<&str> {
        match self {
            Tok::Ident(s, _) => Some(s),
            _ => None,
        }
    }
    fn is(&self, c: char) -> bool {
        matches!(self, Tok::Punct(p, _) if *p == c)
    }
    fn line(&self) -> usize {
        match self {
            Tok::Ident(_, l) | Tok::Colons(l) | Tok::Punct(_, l) => *l,
        }
    }
}

fn tokens(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        if c[i] == '\n' {
            line += 1;
            i += 1;
        } else if c[i].is_whitespace() {
            i += 1;
        } else if is_ident(c[i]) {
            let s = i;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            out.push(Tok::Ident(c[s..i].iter().collect(), line));
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push(Tok::Colons(line));
            i += 2;
        } else {
            out.push(Tok::Punct(c[i], line));
            i += 1;
        }
    }
    out
}

/// `mod name;` (a file), not `mod name { .. }`.
fn mod_declarations(toks: &[Tok]) -> Vec<String> {
    toks.windows(3)
        .filter(|w| w[0].ident() == Some("mod") && w[2].is(';'))
        .filter_map(|w| w[1].ident().map(str::to_string))
        .collect()
}

/// A path as written: its segments (a trailing `self` dropped), the name it
/// binds in a `use` (its alias or last segment), whether it ends in `*`.
struct Written {
    segs: Vec<String>,
    name: Option<String>,
    glob: bool,
    in_use: bool,
    line: usize,
}

/// Every path of a file that starts with an identifier followed by `::`,
/// and every path of a `use` item (groups expanded).
fn written_paths(toks: &[Tok]) -> Vec<Written> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let after_colons = i > 0 && matches!(toks[i - 1], Tok::Colons(_));
        if toks[i].ident() == Some("use") && !after_colons {
            i = use_tree(toks, i + 1, Vec::new(), true, &mut out);
        } else if toks[i].ident().is_some()
            && !after_colons
            && matches!(toks.get(i + 1), Some(Tok::Colons(_)))
        {
            i = use_tree(toks, i, Vec::new(), false, &mut out);
        } else {
            i += 1;
        }
    }
    out
}

fn use_tree(
    toks: &[Tok],
    mut i: usize,
    mut segs: Vec<String>,
    in_use: bool,
    out: &mut Vec<Written>,
) -> usize {
    let line = toks.get(i).map_or(0, Tok::line);
    loop {
        match toks.get(i) {
            Some(Tok::Ident(s, _)) => {
                segs.push(s.clone());
                i += 1;
            }
            Some(t) if t.is('{') && in_use => {
                i += 1;
                while i < toks.len() && !toks[i].is('}') {
                    let before = i;
                    i = use_tree(toks, i, segs.clone(), in_use, out);
                    if toks.get(i).is_some_and(|t| t.is(',')) || i == before {
                        i += 1;
                    }
                }
                return i + 1;
            }
            Some(t) if t.is('*') => {
                out.push(Written {
                    segs,
                    name: None,
                    glob: true,
                    in_use,
                    line,
                });
                return i + 1;
            }
            _ => break,
        }
        match toks.get(i) {
            Some(Tok::Colons(_)) => i += 1,
            _ => break,
        }
    }
    if segs.last().is_some_and(|s| s == "self") {
        segs.pop();
    }
    let mut name = segs.last().cloned();
    if toks.get(i).and_then(Tok::ident) == Some("as") {
        name = toks.get(i + 1).and_then(Tok::ident).map(str::to_string);
        i += 2;
    }
    if !segs.is_empty() {
        out.push(Written {
            segs,
            name,
            glob: false,
            in_use,
            line,
        });
    }
    i
}

/// A file's `use` bindings (each name to its absolute paths) and its glob
/// imports.
type Bindings = (HashMap<String, Vec<String>>, Vec<Vec<String>>);

impl Tree {
    /// The absolute module path a written path names, if it is in this crate.
    fn absolute(&self, from: &[String], segs: &[String]) -> Option<Vec<String>> {
        let first = segs.first()?.as_str();
        let mut base: Vec<String> = from.to_vec();
        let rest = match first {
            "crate" => {
                base.clear();
                &segs[1..]
            }
            "self" => &segs[1..],
            "super" => {
                let n = segs.iter().take_while(|s| *s == "super").count();
                for _ in 0..n {
                    base.pop()?;
                }
                &segs[n..]
            }
            _ => {
                let mut child = from.to_vec();
                child.push(first.to_string());
                if !self.by_module.contains_key(&child) {
                    return None;
                }
                segs
            }
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The names each file binds with `use` (to their absolute paths) and
    /// its glob imports.
    fn bindings(&self) -> Vec<Bindings> {
        self.files
            .iter()
            .map(|f| {
                let mut names = HashMap::new();
                let mut globs = Vec::new();
                for w in written_paths(&f.toks).into_iter().filter(|w| w.in_use) {
                    let Some(abs) = self.absolute(&f.module, &w.segs) else {
                        continue;
                    };
                    match (w.glob, w.name) {
                        (true, _) => globs.push(abs),
                        (false, Some(n)) => {
                            names.insert(n, abs);
                        }
                        (false, None) => {}
                    }
                }
                (names, globs)
            })
            .collect()
    }

    /// The file whose item `abs` names: the deepest module on the path,
    /// then through that module's own imports of the next name.
    fn resolve(&self, abs: &[String], binds: &[Bindings], depth: u32) -> Option<usize> {
        let k = (0..=abs.len())
            .rev()
            .find(|k| self.by_module.contains_key(&abs[..*k]))?;
        let file = self.by_module[&abs[..k]];
        let rest = &abs[k..];
        let Some(name) = rest.first().filter(|_| depth < 8) else {
            return Some(file);
        };
        let (names, globs) = &binds[file];
        if let Some(target) = names.get(name) {
            let mut next = target.clone();
            next.extend(rest[1..].iter().cloned());
            return self.resolve(&next, binds, depth + 1);
        }
        for g in globs {
            if let Some(&gf) = self.by_module.get(g) {
                if defines(&self.files[gf].toks, name) {
                    let mut next = g.clone();
                    next.extend(rest.iter().cloned());
                    return self.resolve(&next, binds, depth + 1);
                }
            }
        }
        Some(file)
    }

    /// Every file-to-file import of this tree.
    pub fn edges(&self) -> Edges {
        let binds = self.bindings();
        let mut edges = Edges::new();
        for (from, f) in self.files.iter().enumerate() {
            for w in written_paths(&f.toks) {
                let Some(abs) = self.absolute(&f.module, &w.segs) else {
                    continue;
                };
                // A module holds its children: its uses of them (re-exports,
                // dispatch) are its inside, not an import. Their uses of it are.
                let inside = |to: usize| self.files[to].module.starts_with(&f.module);
                if let Some(to) = self.resolve(&abs, &binds, 0).filter(|&to| !inside(to)) {
                    edges.entry((from, to)).or_insert(w.line);
                }
            }
        }
        edges
    }
}

/// Whether a file defines `name` at any level.
fn defines(toks: &[Tok], name: &str) -> bool {
    const KINDS: [&str; 9] = [
        "fn", "struct", "enum", "const", "static", "type", "trait", "union", "mod",
    ];
    toks.windows(2)
        .any(|w| w[1].ident() == Some(name) && w[0].ident().is_some_and(|k| KINDS.contains(&k)))
        || toks.windows(3).any(|w| {
            w[0].ident() == Some("macro_rules") && w[1].is('!') && w[2].ident() == Some(name)
        })
}

/// The strongly connected components of more than one file (Tarjan).
pub fn circles(n: usize, edges: &Edges) -> Vec<BTreeSet<usize>> {
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in edges.keys() {
        adj[a].push(b);
    }
    let mut st = Tarjan {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if st.index[v].is_none() {
            st.visit(v);
        }
    }
    st.out
}

struct Tarjan {
    adj: Vec<Vec<usize>>,
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    out: Vec<BTreeSet<usize>>,
}

impl Tarjan {
    fn visit(&mut self, v: usize) {
        self.index[v] = Some(self.next);
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on[v] = true;
        for w in self.adj[v].clone() {
            match self.index[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(iw) if self.on[w] => self.low[v] = self.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut comp = BTreeSet::new();
            while let Some(w) = self.stack.pop() {
                self.on[w] = false;
                comp.insert(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                self.out.push(comp);
            }
        }
    }
}
