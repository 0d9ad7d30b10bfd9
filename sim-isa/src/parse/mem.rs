//! The memory and warp families' statements (`ld`, `st`, `atom`, `cvta`,
//! `mov` of an address, `bar`, `shfl.sync`, ...), read from text with their
//! own small scanner: their operands (`[%rd1+8]`, `{%r1, %r2}`, `%r1|%p1`)
//! are outside the shared lexer's grammar. The words come from the tables
//! in [`crate::mem_inst`].
//!
//! Names: an operand starting with `%`, or already in the symbol table, is
//! a register; any other identifier inside `[ ]` (or as `mov`/`cvta`'s
//! source) is a variable or parameter, interned with
//! [`Symbols::intern_var`] for the caller to resolve.

use super::async_copy::async_copy;
use super::cx::{operands, split_head, Cx, Piece, Stmt};
use super::lex::invalid;
use super::warp::warp;
use crate::error::{InvalidReason as R, IsaError};
use crate::inst::{Guard, Instruction, Op, Operand};
use crate::mem_inst::*;
use crate::symbols::{is_ptx_identifier, Symbols};

/// Opcode words this module reads.
pub(crate) const WORDS: [&str; 26] = [
    "ld",
    "ldu",
    "st",
    "atom",
    "red",
    "cvta",
    "bar",
    "barrier",
    "membar",
    "fence",
    "shfl",
    "vote",
    "activemask",
    "redux",
    "match",
    "nanosleep",
    "elect",
    "cp",
    "mbarrier",
    "movmatrix",
    "ldmatrix",
    "stmatrix",
    "mma",
    "prefetch",
    "prefetchu",
    "wmma",
];

/// Whether `text` is a statement of the memory or warp family.
pub(crate) fn is_family(text: &str, syms: &Symbols) -> bool {
    let Some((op, _)) = split_head(text) else {
        return false;
    };
    let word = op.1.split('.').next().unwrap_or("");
    WORDS.contains(&word) || (word == "mov" && (is_mov_addr(text, syms) || text.contains('{')))
}

/// Whether `mov`'s source operand `src` names a variable (so the statement
/// is a [`MemOp::MovAddr`]): an identifier without `%` that is no register.
pub(crate) fn is_mov_addr(text: &str, syms: &Symbols) -> bool {
    let Some((head, rest)) = split_head(text) else {
        return false;
    };
    if !head.1.starts_with("mov.") {
        return false;
    }
    let ops = operands(rest.1);
    ops.len() == 2 && {
        let s = base_name(ops[1].1.trim());
        is_var_name(s, syms)
    }
}

fn is_var_name(s: &str, syms: &Symbols) -> bool {
    !s.starts_with('%') && is_ptx_identifier(s) && syms.get(s).is_none()
}

/// `name` of `name+4` / `name`.
fn base_name(s: &str) -> &str {
    s.split(['+', '-']).next().unwrap_or(s).trim()
}

/// Parses a statement of the memory or warp family.
pub(crate) fn parse(text: &str, syms: &mut Symbols) -> Result<Instruction, IsaError> {
    let end = text.trim_end().trim_end_matches(';').len();
    let Some((op, rest)) = split_head(text) else {
        return Err(invalid(
            1,
            text,
            R::UnexpectedEnd {
                expected: "an instruction",
            },
        ));
    };
    let guard = guard(text, op.0, syms)?;
    let words: Vec<&str> = op.1.split('.').collect();
    let mut cx = Cx {
        text,
        syms,
        inst: "",
    };
    // Offsets in the statement, shifted where they lie (no second vector).
    let mut ops: Vec<Piece<'_>> = operands(rest.1);
    for p in &mut ops {
        p.0 += rest.0;
    }
    if let Some(&(o, "")) = ops.iter().find(|p| p.1.is_empty()) {
        return Err(cx.syntax(o, ","));
    }
    let st = Stmt {
        op,
        words: &words,
        ops: &ops,
        end,
        col: cx.col(op.0),
    };
    let op_body = match words[0] {
        "bar" | "barrier" | "membar" | "fence" | "shfl" | "vote" | "activemask" | "redux"
        | "match" | "nanosleep" | "elect" | "movmatrix" => Op::Warp(warp(&mut cx, st)?),
        "cp" | "mbarrier" => Op::Async(async_copy(&mut cx, st)?),
        "mma" => Op::Mma(super::matrix::mma(&mut cx, st)?),
        "ldmatrix" | "stmatrix" => Op::Mem(super::matrix::ldst(&mut cx, st)?),
        "prefetch" | "prefetchu" => Op::Mem(super::prefetch::prefetch(&mut cx, st)?),
        "wmma" => super::wmma::wmma(&mut cx, st)?,
        _ => Op::Mem(mem(&mut cx, st)?),
    };
    Ok(Instruction { guard, op: op_body })
}

fn guard(text: &str, op_off: usize, syms: &mut Symbols) -> Result<Option<Guard>, IsaError> {
    let head = text[..op_off].trim();
    let Some(g) = head.strip_prefix('@') else {
        return Ok(None);
    };
    let (negate, name) = match g.trim().strip_prefix('!') {
        Some(n) => (true, n.trim()),
        None => (false, g.trim()),
    };
    if !is_ptx_identifier(name) {
        return Err(invalid(1, head, R::Syntax { near: head.into() }));
    }
    Ok(Some(Guard {
        reg: syms.intern(name),
        negate,
    }))
}

fn mem(cx: &mut Cx<'_, '_>, st: Stmt<'_>) -> Result<Mem, IsaError> {
    let Stmt {
        op,
        words,
        ops,
        col,
        ..
    } = st;
    let mut m = Mem::new(MemOp::Ld, Space::Generic, MemType::B(32), 1);
    let (mut ty, mut to, mut nq) = (None, false, 0);
    let (mut space, mut atom, mut vec) = (None, None, None);
    // Valid words this simulator does not model: `.b128`, `.shared::cluster`,
    // the L2 eviction priorities (ptxas 13.0 takes them only on 256-bit
    // accesses, which are sm_100's).
    let (mut b128, mut cluster, mut l2_evict) = (false, false, false);
    for (k, &w) in words[1..].iter().enumerate() {
        if let Some(s) = Space::WORDS
            .iter()
            .find(|s| s.1 == w || (w == "shared::cta" && s.1 == "shared"))
        {
            // One state space (ptxas: "Unexpected number of state spaces").
            if space.replace(s.0).is_some() {
                return Err(st.unknown(w));
            }
        } else if w == "shared::cluster" {
            if space.replace(Space::Shared).is_some() {
                return Err(st.unknown(w));
            }
            cluster = true;
        } else if let Some(t) = MemType::WORDS.iter().find(|t| t.0 == w) {
            if ty.replace(t.1).is_some() {
                return Err(st.unknown(w));
            }
        } else if w == "b128" {
            if ty.replace(MemType::B(64)).is_some() {
                return Err(st.unknown(w));
            }
            b128 = true;
        } else if let Some(a) = AtomOp::WORDS.iter().find(|a| a.0 == w) {
            // One operation ("Multiple instruction post-operation flags").
            if atom.replace(a.1).is_some() {
                return Err(st.unknown(w));
            }
        } else if w == "v2" || w == "v4" || w == "v8" {
            if vec.replace(w[1..].parse::<u8>().unwrap_or(1)).is_some() {
                return Err(st.unknown(w));
            }
        } else if w == "to" && k == 0 {
            // `cvta.to.space` only: ptxas does not know `cvta.global.to`.
            to = true;
        } else if w.starts_with("L2::evict_") {
            l2_evict = true;
        } else if let Some(q) = QUAL_WORDS.iter().position(|q| *q == w && !q.is_empty()) {
            if nq == 4 {
                return Err(st.unknown(w));
            }
            m.quals[nq] = q as u8;
            nq += 1;
        } else {
            return Err(st.unknown(w));
        }
    }
    m.space = space.unwrap_or(Space::Generic);
    m.vec = vec.unwrap_or(1);
    m.ty = ty.ok_or_else(|| st.types("ld"))?;
    m.op = match (words[0], atom) {
        ("ld", None) => MemOp::Ld,
        ("ldu", None) => MemOp::Ldu,
        ("st", None) => MemOp::St,
        ("atom", Some(a)) => MemOp::Atom(a),
        ("red", Some(a)) => MemOp::Red(a),
        ("cvta", None) if m.space != Space::Generic => MemOp::Cvta { to },
        // A brace list on either side: register packing.
        ("mov", None) if ops.first().is_some_and(|p| p.1.starts_with('{')) => MemOp::Unpack,
        ("mov", None) if ops.get(1).is_some_and(|p| p.1.starts_with('{')) => MemOp::Pack,
        ("mov", None) => MemOp::MovAddr,
        _ => {
            return Err(invalid(
                cx.col(op.0),
                op.1,
                R::UnknownInstruction(op.1.into()),
            ))
        }
    };
    if let MemOp::Pack | MemOp::Unpack = m.op {
        let list = ops[usize::from(m.op == MemOp::Pack)].1;
        let inner = list.trim_start_matches('{').trim_end_matches('}');
        m.vec = u8::try_from(operands(inner).len()).unwrap_or(0);
    }
    cx.inst = m.op.word();
    if to && !matches!(m.op, MemOp::Cvta { .. }) {
        return Err(st.unknown("to"));
    }
    let quals: Vec<&str> = m.quals[..nq]
        .iter()
        .map(|&q| QUAL_WORDS[usize::from(q)])
        .collect();
    let types = || invalid(col, op.1, R::UnexpectedTypes { inst: cx.inst });
    match check(&m, &quals, b128, l2_evict) {
        Check::Ok if cluster => return Err(st.unimplemented()),
        Check::Ok => {}
        Check::Unimplemented => return Err(st.unimplemented()),
        Check::Types => return Err(types()),
        Check::Modifier(w) => {
            return Err(invalid(
                col,
                op.1,
                R::IllegalModifier {
                    modifier: format!(".{w}"),
                    inst: cx.inst,
                },
            ))
        }
    }
    let want = operand_count(&m);
    st.count(cx, want)?;
    operands_into(cx, &mut m, ops)?;
    // ptxas 13.0: "Immediate addresses allowed only for .local state space".
    if m.accesses_memory() && m.addr.base == AddrBase::Abs && m.space != Space::Local {
        let p = if m.op == MemOp::St {
            ops[0]
        } else {
            ops[ops.len() - 1 - m.sources()]
        };
        return Err(cx.args(p.0, p.1));
    }
    Ok(m)
}

/// How many operands `m` is written with.
fn operand_count(m: &Mem) -> usize {
    match m.op {
        MemOp::Ld
        | MemOp::Ldu
        | MemOp::St
        | MemOp::Ldmatrix { .. }
        | MemOp::Stmatrix { .. }
        | MemOp::Wmma(_)
        | MemOp::Cvta { .. }
        | MemOp::MovAddr
        | MemOp::Pack
        | MemOp::Unpack => 2,
        MemOp::Prefetch(_) => 1,
        MemOp::Atom(_) | MemOp::Red(_) => m.dests() + 1 + m.sources(),
    }
}

/// What [`check`] found.
enum Check {
    /// A form the simulator runs.
    Ok,
    /// Valid PTX it does not run.
    Unimplemented,
    /// A type the instruction does not take.
    Types,
    /// A modifier the instruction does not take (or not in this company).
    Modifier(&'static str),
}

/// The types, vector widths, spaces and qualifier words `m` may carry: the
/// PTX ISA's `ld`/`st`/`ldu`/`atom`/`red`/`cvta`/`mov` sections as ptxas 13.0
/// applies them (`tests/data/mem-ptxas.txt` holds its verdicts; where it is
/// stricter than the manual's syntax tables, as for `atom.add.b32` or
/// `ld.relaxed` without a scope, ptxas decides).
/// The words no memory instruction takes twice, or two of a kind of.
const CACHE: [&str; 7] = ["ca", "cg", "cs", "lu", "cv", "wb", "wt"];
const SEMS: [&str; 5] = ["weak", "relaxed", "acquire", "release", "acq_rel"];
const SCOPES: [&str; 4] = ["cta", "gpu", "sys", "cluster"];
const L1: [&str; 4] = [
    "L1::evict_normal",
    "L1::evict_last",
    "L1::evict_first",
    "L1::no_allocate",
];
const L2: [&str; 3] = ["L2::64B", "L2::128B", "L2::256B"];

/// The first of `quals` in `set`, or "".
fn first_of(quals: &[&'static str], set: &[&str]) -> &'static str {
    quals
        .iter()
        .copied()
        .find(|q| set.contains(q))
        .unwrap_or("")
}

fn check(m: &Mem, quals: &[&'static str], b128: bool, l2_evict: bool) -> Check {
    let count = |set: &[&str]| quals.iter().filter(|q| set.contains(q)).count();
    // Words no instruction of the family takes twice, nor two of a kind.
    for set in [&CACHE[..], &SEMS[..], &SCOPES[..], &L1[..], &L2[..]] {
        if count(set) > 1 {
            return Check::Modifier(first_of(quals, set));
        }
    }
    for q in quals {
        if quals.iter().filter(|p| *p == q).count() > 1 {
            return Check::Modifier(q);
        }
    }
    match m.op {
        // Read by `matrix.rs`, `prefetch.rs` and `wmma.rs`, never here.
        MemOp::Ldmatrix { .. } | MemOp::Stmatrix { .. } | MemOp::Prefetch(_) | MemOp::Wmma(_) => {
            Check::Types
        }
        MemOp::Ld | MemOp::Ldu | MemOp::St => check_ld_st(m, quals, b128, l2_evict),
        MemOp::Atom(op) | MemOp::Red(op) => check_atom(m, op, quals, b128, l2_evict),
        // `mov.b64 %rd, {%r1, %r2}`: two or four elements of at least 8
        // bits filling a 16- to 64-bit register (PTX ISA 9.7.9.x, `mov`).
        MemOp::Pack | MemOp::Unpack => check_pack(m, quals),
        MemOp::Cvta { .. } | MemOp::MovAddr => check_addr(m, quals, b128, l2_evict),
    }
}

/// `ld`, `ldu`, `st`: cache, order, scope and eviction words, and widths.
fn check_ld_st(m: &Mem, quals: &[&'static str], b128: bool, l2_evict: bool) -> Check {
    use MemType::{F16x2, B, F16};
    let has = |w: &str| quals.contains(&w);
    let first_of = |set: &[&str]| first_of(quals, set);
    let sem = first_of(&SEMS);
    let scope = !first_of(&SCOPES).is_empty();
    let bits = m.ty.bits();
    if matches!(m.ty, F16 | F16x2 | B(1)) {
        return Check::Types;
    }
    let allowed: &[&str] = match m.op {
        MemOp::Ld => &[
            "ca", "cg", "cs", "lu", "cv", "nc", "volatile", "weak", "relaxed", "acquire", "mmio",
        ],
        MemOp::St => &[
            "wb", "cg", "cs", "wt", "volatile", "weak", "relaxed", "release", "mmio",
        ],
        _ => &[],
    };
    let is_l1 = |q: &&str| L1.contains(q);
    let is_l2 = |q: &&str| L2.contains(q);
    if let Some(q) = quals.iter().find(|q| {
        !(allowed.contains(q)
            || SCOPES.contains(q)
            || (m.op != MemOp::Ldu && is_l1(q))
            || (m.op == MemOp::Ld && is_l2(q)))
    }) {
        return Check::Modifier(q);
    }
    if m.op == MemOp::Ldu && !matches!(m.space, Space::Global | Space::Generic) {
        return Check::Modifier(m.space.name());
    }
    if m.op == MemOp::St && m.space == Space::Const {
        return Check::Modifier("const");
    }
    let cache = !first_of(&CACHE).is_empty();
    // Memory order and scope go together (".relaxed requires scope",
    // ".sys requires memory order"); `.weak` takes none.
    if (!sem.is_empty() && sem != "weak") != scope {
        return Check::Modifier(if scope { first_of(&SCOPES) } else { sem });
    }
    let ordered = !sem.is_empty() && sem != "weak";
    let volatile = has("volatile");
    if volatile && (ordered || cache || has("nc")) {
        return Check::Modifier("volatile");
    }
    if ordered && (cache || has("nc")) {
        return Check::Modifier(sem);
    }
    if (volatile || ordered) && matches!(m.space, Space::Local | Space::Const | Space::Param) {
        // ptxas takes `.relaxed` on `.param`? Not measured: only
        // `.local`/`.const` are, and `.volatile` on `.param`.
        if volatile || m.space != Space::Param {
            return Check::Modifier(if volatile { "volatile" } else { sem });
        }
    }
    if has("mmio")
        && !(sem == "relaxed" && has("sys") && matches!(m.space, Space::Global | Space::Generic))
    {
        return Check::Modifier("mmio");
    }
    if has("nc") && m.space != Space::Global {
        return Check::Modifier("nc");
    }
    if cache && quals.iter().any(is_l1) {
        return Check::Modifier(first_of(&L1));
    }
    let total = bits * u32::from(m.vec) * if b128 { 2 } else { 1 };
    if b128 && m.vec > 1 || total > 256 {
        return Check::Types;
    }
    if total == 256 {
        // sm_100's 256-bit loads and stores (`.v8.b32`, `.v4.b64`).
        return Check::Unimplemented;
    }
    if l2_evict {
        return Check::Types;
    }
    if b128 {
        return Check::Unimplemented;
    }
    Check::Ok
}

/// `atom`, `red`: order and scope words, spaces, and each operation's types.
fn check_atom(m: &Mem, op: AtomOp, quals: &[&'static str], b128: bool, l2_evict: bool) -> Check {
    use MemType::{F16x2, B, F16, F32, F64, S, U};
    let has = |w: &str| quals.contains(&w);
    let red = matches!(m.op, MemOp::Red(_));
    let sems: &[&str] = if red {
        &["relaxed", "release"]
    } else {
        &["relaxed", "acquire", "release", "acq_rel"]
    };
    let noftz = has("noftz");
    if let Some(q) = quals
        .iter()
        .find(|q| !(sems.contains(q) || SCOPES.contains(q) || **q == "noftz"))
    {
        return Check::Modifier(q);
    }
    if l2_evict {
        return Check::Modifier("L2::evict_last");
    }
    if !matches!(m.space, Space::Global | Space::Shared | Space::Generic) {
        return Check::Modifier(m.space.name());
    }
    // Half-precision adds (`.noftz` required) and sm_90's vector
    // `atom.global.v2/v4.f32.add` are valid PTX not modelled here.
    if matches!(m.ty, F16 | F16x2) {
        return if noftz && op == AtomOp::Add {
            Check::Unimplemented
        } else {
            Check::Types
        };
    }
    if noftz {
        return Check::Modifier("noftz");
    }
    if m.vec > 1 {
        let ok = m.vec <= 4 && m.ty == F32 && op == AtomOp::Add && m.space == Space::Global;
        return if ok {
            Check::Unimplemented
        } else {
            Check::Types
        };
    }
    if b128 {
        return if matches!(op, AtomOp::Exch | AtomOp::Cas) && !red {
            Check::Unimplemented
        } else {
            Check::Types
        };
    }
    let ok = match op {
        AtomOp::Add => matches!(m.ty, U(32) | S(32) | U(64) | F32 | F64),
        AtomOp::Min | AtomOp::Max => matches!(m.ty, U(32) | S(32) | U(64) | S(64)),
        AtomOp::Exch => !red && matches!(m.ty, B(32) | B(64)),
        AtomOp::Cas => !red && matches!(m.ty, B(16) | B(32) | B(64)),
        AtomOp::And | AtomOp::Or | AtomOp::Xor => matches!(m.ty, B(32) | B(64)),
        AtomOp::Inc | AtomOp::Dec => m.ty == U(32),
    };
    if !ok {
        return Check::Types;
    }
    Check::Ok
}

fn check_pack(m: &Mem, quals: &[&'static str]) -> Check {
    use MemType::B;
    if let Some(q) = quals.first() {
        return Check::Modifier(q);
    }
    let ok = m.space == Space::Generic
        && matches!(m.ty, B(16) | B(32) | B(64))
        && matches!(m.vec, 2 | 4)
        && m.element_bits() >= 8;
    if ok {
        Check::Ok
    } else {
        Check::Types
    }
}

/// `cvta` and `mov` of a variable's address.
fn check_addr(m: &Mem, quals: &[&'static str], b128: bool, l2_evict: bool) -> Check {
    use MemType::{B, S, U};
    if let Some(q) = quals.first() {
        return Check::Modifier(q);
    }
    if l2_evict || b128 || m.vec > 1 {
        return Check::Types;
    }
    let ok = match m.op {
        MemOp::Cvta { .. } => matches!(m.ty, U(32) | U(64)),
        // ptxas 13.0 takes the 16-bit forms too (`mov.u16 %h1, gvar`).
        _ => m.space == Space::Generic && matches!(m.ty, B(16..=64) | U(16..=64) | S(16..=64)),
    };
    if !ok {
        return Check::Types;
    }
    Check::Ok
}

/// The `n` pieces of vector operand `p` (`{%r1, %r2}`), or `p` itself where
/// `n` is 1, with their offsets in the statement. Pieces of the statement's
/// text, not copies of them: no string made per operand.
fn list<'t>(cx: &Cx<'_, '_>, p: Piece<'t>, n: u8) -> Result<Vec<Piece<'t>>, IsaError> {
    if n == 1 {
        return Ok(vec![p]);
    }
    let inner =
        p.1.strip_prefix('{')
            .and_then(|s| s.strip_suffix('}'))
            .ok_or_else(|| cx.args(p.0, p.1))?;
    let mut items = operands(inner);
    for it in &mut items {
        it.0 += p.0 + 1;
    }
    if items.len() != usize::from(n) {
        return Err(cx.args(p.0, p.1));
    }
    Ok(items)
}

/// Fills `m`'s registers, values and address from its operands.
fn operands_into(cx: &mut Cx<'_, '_>, m: &mut Mem, ops: &[Piece<'_>]) -> Result<(), IsaError> {
    match m.op {
        MemOp::Ld | MemOp::Ldu => {
            for (k, q) in list(cx, ops[0], m.vec)?.into_iter().enumerate() {
                m.d[k] = cx.reg(q)?;
            }
            m.addr = cx.address(ops[1], false)?;
        }
        MemOp::St => {
            m.addr = cx.address(ops[0], false)?;
            for (k, q) in list(cx, ops[1], m.vec)?.into_iter().enumerate() {
                m.vals[k] = cx.value(q)?;
            }
        }
        MemOp::Atom(_) | MemOp::Red(_) => {
            let mut k = 0;
            if m.dests() == 1 {
                m.d[0] = cx.reg(ops[0])?;
                k = 1;
            }
            m.addr = cx.address(ops[k], false)?;
            for (j, p) in ops[k + 1..].iter().enumerate() {
                m.vals[j] = cx.value(*p)?;
            }
        }
        MemOp::Cvta { .. } | MemOp::MovAddr => {
            m.d[0] = cx.reg(ops[0])?;
            let src = ops[1];
            if is_var_name(base_name(src.1), cx.syms) {
                // `cvta.to` converts a generic address in a register; ptxas:
                // "Argument 1 of instruction 'cvta.to': must be register".
                if m.op == (MemOp::Cvta { to: true }) {
                    return Err(cx.args(src.0, src.1));
                }
                m.addr = cx.address(src, true)?;
            } else if m.op == MemOp::MovAddr {
                return Err(cx.args(src.0, src.1));
            } else {
                m.vals[0] = cx.value(src)?;
            }
        }
        MemOp::Pack => {
            m.d[0] = cx.reg(ops[0])?;
            for (k, q) in list(cx, ops[1], m.vec)?.into_iter().enumerate() {
                m.vals[k] = Operand::Reg(cx.reg(q)?);
            }
        }
        MemOp::Unpack => {
            for (k, q) in list(cx, ops[0], m.vec)?.into_iter().enumerate() {
                m.d[k] = cx.reg(q)?;
            }
            m.vals[0] = Operand::Reg(cx.reg(ops[1])?);
        }
        MemOp::Ldmatrix { .. } | MemOp::Stmatrix { .. } | MemOp::Prefetch(_) | MemOp::Wmma(_) => {}
    }
    Ok(())
}
