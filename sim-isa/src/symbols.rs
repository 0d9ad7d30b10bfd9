//! Register names <-> [`RegId`]s.

use crate::inst::{RegId, Type};
// FxHash, not the standard SipHash: every register operand of every parsed
// statement and every declared register is looked up here, and a launch's
// set-up parses the whole module (SipHash cost about a third of a lookup).
// Nothing iterates the map, so its order never shows.
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

/// Interns register names. Standalone instruction text (conformance vectors,
/// `simcli eval`) interns on first use; kernel text declares registers first.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    /// Each name once, shared by `names` and `index` (one allocation per
    /// register, not two: a module declares hundreds).
    names: Vec<Arc<str>>,
    types: Vec<Option<Type>>,
    index: HashMap<Arc<str>, RegId>,
    /// Variable and parameter names used as addresses, in first-use order.
    vars: Vec<String>,
}

impl Symbols {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `name`, creating it (undeclared) if new.
    pub fn intern(&mut self, name: &str) -> RegId {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        self.push(name)
    }

    /// Adds `name`, not in the table yet, undeclared.
    fn push(&mut self, name: &str) -> RegId {
        let id = RegId(self.names.len() as u32);
        let name: Arc<str> = Arc::from(name);
        self.names.push(Arc::clone(&name));
        self.types.push(None);
        self.index.insert(name, id);
        id
    }

    /// Declares `name` with a type (kernel text `.reg`). Returns `None` if it was
    /// already declared.
    pub fn declare(&mut self, name: &str, ty: Type) -> Option<RegId> {
        if let Some(&id) = self.index.get(name) {
            if self.types[id.0 as usize].is_some() {
                return None;
            }
            self.types[id.0 as usize] = Some(ty);
            return Some(id);
        }
        // Not in the table (asked above): added without a second lookup.
        let id = self.push(name);
        self.types[id.0 as usize] = Some(ty);
        Some(id)
    }

    /// Room for `n` more names: a declaration of `n` registers
    /// (`.reg .f32 %f<321>`) grows the table once, not name by name.
    pub fn reserve(&mut self, n: usize) {
        self.names.reserve(n);
        self.types.reserve(n);
        self.index.reserve(n);
    }

    /// Looks a name up without creating it.
    pub fn get(&self, name: &str) -> Option<RegId> {
        self.index.get(name).copied()
    }

    /// The name of `id`.
    pub fn name(&self, id: RegId) -> &str {
        &self.names[id.0 as usize]
    }

    /// The declared type of `id`, if it was declared.
    pub fn declared_type(&self, id: RegId) -> Option<Type> {
        self.types[id.0 as usize]
    }

    /// Number of registers.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// No registers.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The id of variable (or parameter) `name`, used as an address, adding
    /// it if new. Variables are a table of their own, apart from registers.
    pub fn intern_var(&mut self, name: &str) -> u32 {
        if let Some(i) = self.vars.iter().position(|v| v == name) {
            return i as u32;
        }
        self.vars.push(name.to_string());
        (self.vars.len() - 1) as u32
    }

    /// The name of variable `id` (see [`Symbols::intern_var`]).
    pub fn var_name(&self, id: u32) -> Option<&str> {
        self.vars.get(id as usize).map(String::as_str)
    }

    /// Variables named so far.
    pub fn vars(&self) -> &[String] {
        &self.vars
    }

    /// All ids in creation order.
    pub fn ids(&self) -> impl Iterator<Item = RegId> {
        (0..self.names.len() as u32).map(RegId)
    }

    /// The table as it stands, to return to with [`Symbols::rollback`].
    pub fn mark(&self) -> SymbolsMark {
        SymbolsMark {
            names: self.names.len(),
            vars: self.vars.len(),
        }
    }

    /// Forgets every register and variable interned since `m` was taken.
    /// Exact when only [`Symbols::intern`] and [`Symbols::intern_var`] ran
    /// since (they only add), as while an instruction is parsed: the table
    /// is then as it was at `m`, without the copy a clone would make of
    /// every name (a module parser that tries a statement and takes it back
    /// would otherwise copy the whole table once per statement).
    pub fn rollback(&mut self, m: SymbolsMark) {
        if m.names < self.names.len() {
            for name in self.names.drain(m.names..) {
                self.index.remove(&*name);
            }
            self.types.truncate(m.names);
        }
        self.vars.truncate(m.vars);
    }
}

/// Where a [`Symbols`] table stood ([`Symbols::mark`]).
#[derive(Clone, Copy, Debug)]
pub struct SymbolsMark {
    names: usize,
    vars: usize,
}

/// Whether `name` is a PTX identifier: a letter followed by letters, digits,
/// `_` or `$`, or one of `_ $ %` followed by at least one of those (PTX ISA
/// 4.4, "Identifiers").
pub fn is_ptx_identifier(name: &str) -> bool {
    let mut c = name.chars();
    let rest_ok = |r: std::str::Chars| {
        r.clone()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    };
    match c.next() {
        Some(f) if f.is_ascii_alphabetic() => rest_ok(c),
        Some('_' | '$' | '%') => c.clone().next().is_some() && rest_ok(c),
        _ => false,
    }
}

/// PTX special registers without a numeric suffix (PTX ISA "Special
/// Registers"); `%pm0`..`%pm7` (and `_64`) and `%envreg0`..`%envreg31` are
/// numbered.
const SPECIALS: [&str; 37] = [
    "%laneid",
    "%warpid",
    "%tid",
    "%ntid",
    "%nwarpid",
    "%ctaid",
    "%nctaid",
    "%smid",
    "%nsmid",
    "%gridid",
    "%lanemask_eq",
    "%lanemask_le",
    "%lanemask_lt",
    "%lanemask_ge",
    "%lanemask_gt",
    "%clock",
    "%clock_hi",
    "%clock64",
    "%globaltimer",
    "%globaltimer_lo",
    "%globaltimer_hi",
    "%total_smem_size",
    "%aggr_smem_size",
    "%dynamic_smem_size",
    "%is_explicit_cluster",
    "%clusterid",
    "%nclusterid",
    "%cluster_ctaid",
    "%cluster_nctaid",
    "%cluster_ctarank",
    "%cluster_nctarank",
    "%current_graph_exec",
    "%reserved_smem_offset_begin",
    "%reserved_smem_offset_end",
    "%reserved_smem_offset_cap",
    "%reserved_smem_offset_0",
    "%reserved_smem_offset_1",
];

/// Whether `name` is a PTX special register (`%tid`, `%clock64`, `%pm3_64`,
/// `%envreg7`, ...). The one list: the instruction parser and sim-module's
/// declarations both read it.
pub fn is_special_register(name: &str) -> bool {
    // Most names asked about are registers (`%r1`, `%rd3`, `%f7`): two
    // bytes after the `%` that start no special register's name decide
    // them with one table read instead of the search below.
    if !may_name_special(name) {
        return false;
    }
    // An array, not a string split on every call: the parser asks for
    // every operand.
    if SPECIALS.contains(&name) {
        return true;
    }
    // ptxas 13.0.88 knows `%pm1_64` but not `%envreg1_64`, and neither
    // `%pm01` nor `%envreg01` (tests/data/envreg-ptxas.txt's head).
    let numbered = |prefix: &str, max: u32, wide: bool| {
        name.strip_prefix(prefix)
            .map(|n| match wide {
                true => n.strip_suffix("_64").unwrap_or(n),
                false => n,
            })
            .filter(|n| !n.starts_with('+') && (n.len() == 1 || !n.starts_with('0')))
            .and_then(|n| n.parse::<u32>().ok())
            .is_some_and(|n| n <= max)
    };
    numbered(NUMBERED[0], 31, false) || numbered(NUMBERED[1], 7, true)
}

/// The numbered special registers' prefixes (`%envreg7`, `%pm3_64`).
const NUMBERED: [&str; 2] = ["%envreg", "%pm"];

/// Per byte after the `%`: the bytes that follow it in some special
/// register's name (bit `c` of `SPECIAL_START[b]`), built from the lists
/// themselves, so a name added to them is never filtered out. Every
/// special register's name is `%` and at least two more ASCII bytes.
const SPECIAL_START: [u128; 128] = {
    let mut t = [0u128; 128];
    let mut i = 0;
    while i < SPECIALS.len() + NUMBERED.len() {
        let n = if i < SPECIALS.len() {
            SPECIALS[i].as_bytes()
        } else {
            NUMBERED[i - SPECIALS.len()].as_bytes()
        };
        assert!(n.len() >= 3 && n[0] == b'%' && n[1] < 128 && n[2] < 128);
        t[n[1] as usize] |= 1 << n[2];
        i += 1;
    }
    t
};

/// Whether `name` starts as some special register's name does (`%`
/// and the same two bytes): false for most registers (`%r1`, `%rd3`,
/// `%f7`), which one table read then tells apart from `%tid.x` without a
/// search through the names.
pub(crate) fn may_name_special(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() >= 3 && b[0] == b'%' && special_start(b[1], b[2])
}

/// Whether some special register's name starts with `%`, `b1`, `b2`.
fn special_start(b1: u8, b2: u8) -> bool {
    b1 < 128 && b2 < 128 && SPECIAL_START[b1 as usize] >> b2 & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table read that turns most names away keeps every special
    /// register: each listed name, and the numbered ones at both ends.
    #[test]
    fn the_prefix_filter_keeps_every_special_register() {
        for n in SPECIALS
            .iter()
            .chain(&["%envreg0", "%envreg31", "%pm0", "%pm7_64"])
        {
            assert!(is_special_register(n), "{n}");
        }
        for n in [
            "%r1", "%rd3", "%f7", "%fd2", "%p1", "%rs4", "%t", "%", "", "r1", "%pm",
        ] {
            assert!(!is_special_register(n), "{n}");
        }
    }

    /// The parser's prefix filter (`parse/cx.rs`) keeps every special
    /// register that has a value here, components included (`%tid.x`).
    #[test]
    fn the_prefix_filter_keeps_every_simulated_special_register() {
        use crate::inst::SpecialReg;
        for n in SpecialReg::NAMED
            .iter()
            .map(|n| n.0)
            .chain(SpecialReg::ENVREG)
        {
            assert!(may_name_special(n), "{n}");
            assert_eq!(
                SpecialReg::from_name(n).map(SpecialReg::name),
                Some(n),
                "{n}"
            );
        }
        for n in ["%r1", "%rd3", "%f7", "%fd2", "%p1", "%rs4", "%t", "", "r1"] {
            assert!(!may_name_special(n), "{n}");
        }
    }

    /// A rollback leaves the table as a clone taken at the mark would be:
    /// the same names, ids, types and variables, and new names get the
    /// ids they would have got then.
    #[test]
    fn rollback_restores_the_table_at_the_mark() {
        let mut s = Symbols::new();
        let a = s.declare("%a", Type::U32).unwrap();
        s.intern("%b");
        s.intern_var("param_0");
        let before = s.clone();
        let m = s.mark();
        s.intern("%c");
        s.intern("%b");
        s.intern_var("tab");
        s.intern_var("param_0");
        s.rollback(m);
        assert_eq!(s.len(), before.len());
        assert_eq!(s.get("%c"), None);
        assert_eq!(s.get("%a"), Some(a));
        assert_eq!(s.declared_type(a), Some(Type::U32));
        assert_eq!(s.vars(), before.vars());
        assert_eq!(s.intern("%d"), RegId(2));
        // Nothing added since the mark: nothing to undo.
        let m = s.mark();
        s.rollback(m);
        assert_eq!(s.len(), 3);
    }
}
