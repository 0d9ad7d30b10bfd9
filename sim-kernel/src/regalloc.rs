//! Register allocation for execution, as ptxas does it: per-thread liveness
//! over the kernel's control-flow graph and a greedy colouring, so that
//! virtual registers never live at the same time share one slot of a warp's
//! register file, and names that are not registers get none.
//!
//! Per-thread liveness is exact for SIMT here: every register write is
//! masked by the active and guard lanes, so a lane that does not run a path
//! keeps its own lanes of a slot as they were, and each lane sees only the
//! writes of the path it runs (a path of the graph). Where a lane may see
//! another's value or a value it never wrote, the analysis is conservative:
//!
//! - a guarded (`@p`) definition may leave the old value: it reads its
//!   destination as well as writing it;
//! - a register live where the kernel starts (read before any write on some
//!   path, so it reads the zero a warp starts with) and every register of a
//!   warp-wide operation (`shfl` reads other lanes' sources, which may be
//!   lanes that did not run the definition) gets a slot of its own;
//! - an instruction with several destinations, a memory instruction and a
//!   warp operation never write a slot one of their sources occupies;
//! - a kernel with a statement the analysis cannot see through (a direct
//!   `call` left in place, a builtin's, an instruction simcli does not
//!   run) keeps one slot per register; an indirect call left in a
//!   flattened body stops its lanes (`ControlOp::is_indirect_call`) and
//!   reads its address register.
//!
//! Only execution is renamed ([`RegMap::inst`], [`RegMap::guard`]): timing,
//! reordering, dead-code removal and recordings keep the original ids.

use crate::dead;
use sim_isa::{db, Guard, Instruction, RegId};
use sim_module::{Body, Cfg, ControlOp, Node, StatementKind};

/// Most registers a body may use for the analysis (its interference
/// matrix takes `n * n` bits: 8 MiB here); a larger one keeps one slot per
/// register.
const MAX_REGS: usize = 8192;

/// Where each register of a body lives in a warp's register file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RegMap {
    /// Per symbol id: its slot (0 for a name no statement uses).
    slot: Vec<u32>,
    /// Slots in all.
    slots: usize,
}

impl RegMap {
    /// One slot per symbol: register `r` in slot `r`.
    pub fn identity(n: usize) -> RegMap {
        RegMap {
            slot: (0..n as u32).collect(),
            slots: n,
        }
    }

    /// The allocation for `body` (`uses`: its registers,
    /// [`dead::Uses::new`]) with each statement's instruction renamed by it
    /// (`None`: no instruction), or [`RegMap::identity`] where the analysis
    /// cannot see through the body or renaming would not give back every
    /// operand (checked on each instruction, as it is renamed: the
    /// renaming is what executes, so it is made once).
    pub fn new(body: &Body, uses: &dead::Uses) -> (RegMap, Vec<Option<Instruction>>) {
        if let Some(map) = allocate(body, uses) {
            if let Some(renamed) = map.rename_checked(body, uses) {
                return (map, renamed);
            }
        }
        let map = RegMap::identity(body.symbols.len());
        let renamed = map.rename(body);
        (map, renamed)
    }

    /// Each statement's instruction renamed (`None`: no instruction).
    pub fn rename(&self, body: &Body) -> Vec<Option<Instruction>> {
        let inst = |s: &sim_module::Statement| match &s.kind {
            StatementKind::Instruction(i) => Some(self.inst(i)),
            StatementKind::Control(_) | StatementKind::Unimplemented(_) => None,
        };
        body.statements.iter().map(inst).collect()
    }

    /// As [`RegMap::rename`], or `None` where some instruction's renaming
    /// does not rename exactly the registers it uses.
    fn rename_checked(&self, body: &Body, uses: &dead::Uses) -> Option<Vec<Option<Instruction>>> {
        let checked = |(k, s): (usize, &sim_module::Statement)| match &s.kind {
            StatementKind::Instruction(i) => {
                let r = self.inst(i);
                self.renames_exactly(&r, uses, k).then_some(Some(r))
            }
            StatementKind::Control(_) | StatementKind::Unimplemented(_) => Some(None),
        };
        body.statements.iter().enumerate().map(checked).collect()
    }

    /// Slots a warp's register file needs.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The slot of register `r`.
    pub fn reg(&self, r: RegId) -> RegId {
        RegId(self.slot.get(r.0 as usize).copied().unwrap_or(0))
    }

    /// A guard with its register renamed.
    pub fn guard(&self, g: Option<Guard>) -> Option<Guard> {
        g.map(|g| Guard {
            reg: self.reg(g.reg),
            negate: g.negate,
        })
    }

    /// `i` with every register renamed to its slot.
    pub fn inst(&self, i: &Instruction) -> Instruction {
        i.map_regs(|x| self.reg(x))
    }

    /// Whether `renamed`, statement `k` renamed, names the slots of the
    /// registers the statement uses (`uses`), in order: its reads and its
    /// writes. (Renaming changes register ids only, so each operand's
    /// width and direction stay.)
    fn renames_exactly(&self, renamed: &Instruction, uses: &dead::Uses, k: usize) -> bool {
        let got = renamed.reg_uses();
        let slot = |&r: &u32| self.reg(RegId(r));
        got.reads()
            .map(|u| u.reg)
            .eq(uses.reads(k).iter().map(slot))
            && got
                .writes()
                .map(|u| u.reg)
                .eq(uses.writes(k).iter().map(slot))
    }
}

/// One statement's registers (dense ids): its writes are `regs[at..mid]`
/// and its sources `regs[mid..end]` of the body's [`UseList`].
#[derive(Default)]
struct Uses {
    at: u32,
    mid: u32,
    end: u32,
    /// Its writes end what the registers held (an unguarded instruction).
    kills: bool,
    /// Its writes must not land on its sources' slots.
    tied: bool,
}

/// Every statement's registers in one list (two allocations for a body,
/// not two per statement).
#[derive(Default)]
struct UseList {
    regs: Vec<u32>,
    stmts: Vec<Uses>,
}

impl UseList {
    fn writes(&self, u: &Uses) -> &[u32] {
        &self.regs[u.at as usize..u.mid as usize]
    }

    /// What `u` reads: its sources, and its destinations as well where
    /// it may leave their old values (a guarded instruction; a control
    /// statement writes nothing).
    fn reads(&self, u: &Uses) -> &[u32] {
        let from = if u.kills { u.mid } else { u.at };
        &self.regs[from as usize..u.end as usize]
    }
}

/// A bit set over dense register ids.
#[derive(Clone, PartialEq, Eq)]
struct Set(Vec<u64>);

impl Set {
    fn new(n: usize) -> Set {
        Set(vec![0; n.div_ceil(64)])
    }
    fn insert(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }
    fn remove(&mut self, i: u32) {
        self.0[i as usize / 64] &= !(1 << (i % 64));
    }
    fn union(&mut self, o: &Set) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut b = bits;
            std::iter::from_fn(move || {
                (b != 0).then(|| {
                    let t = b.trailing_zeros();
                    b &= b - 1;
                    (w * 64) as u32 + t
                })
            })
        })
    }
}

/// The colouring of `body`'s registers (`regs`: each statement's), or
/// `None` where the analysis cannot see through it.
fn allocate(body: &Body, regs: &dead::Uses) -> Option<RegMap> {
    let stmts = &body.statements;
    if stmts.iter().any(|s| match &s.kind {
        StatementKind::Unimplemented(_) => true,
        StatementKind::Control(c) => {
            matches!(c.op, ControlOp::Call { .. }) && !c.op.is_indirect_call()
        }
        StatementKind::Instruction(_) => false,
    }) {
        return None;
    }
    let nsym = body.symbols.len();
    // Dense ids in order of first appearance: the colouring's order.
    let mut dense = vec![u32::MAX; nsym];
    let mut orig: Vec<u32> = Vec::new();
    let mut id = |r: u32| -> Option<u32> {
        let d = dense.get_mut(r as usize)?;
        if *d == u32::MAX {
            *d = orig.len() as u32;
            orig.push(r);
        }
        Some(*d)
    };
    let mut own: Vec<u32> = Vec::new();
    let mut uses = UseList {
        regs: Vec::with_capacity(stmts.len() * 4),
        stmts: Vec::with_capacity(stmts.len()),
    };
    for (k, s) in stmts.iter().enumerate() {
        let at = uses.regs.len() as u32;
        let mut u = Uses {
            at,
            mid: at,
            ..Uses::default()
        };
        // Writes first: the order of first appearance follows definitions,
        // which colours as a linear scan would. (A control statement
        // writes nothing.)
        for &x in regs.writes(k) {
            uses.regs.push(id(x)?);
        }
        u.mid = uses.regs.len() as u32;
        for &x in regs.reads(k) {
            uses.regs.push(id(x)?);
        }
        match &s.kind {
            StatementKind::Instruction(i) => {
                u.kills = i.guard.is_none();
                u.tied = u.mid - u.at > 1 || db::runs_with_memory(i) || db::is_warp_wide(i);
                if db::is_warp_wide(i) {
                    own.extend_from_slice(&uses.regs[at as usize..]);
                }
            }
            StatementKind::Control(_) => {}
            StatementKind::Unimplemented(_) => return None,
        }
        u.end = uses.regs.len() as u32;
        uses.stmts.push(u);
    }
    let n = orig.len();
    if n > MAX_REGS {
        return None;
    }
    let cfg = Cfg::new(body);
    let (live_in, live_out) = liveness(&cfg, &uses, n);
    // Interference: each write against what is live after it, one way
    // (a word at a time) here, made symmetric below.
    let mut adj = Matrix::new(n);
    for (b, blk) in cfg.blocks.iter().enumerate() {
        let mut live = live_out[b].clone();
        for u in uses.stmts[blk.start..blk.end].iter().rev() {
            for &w in uses.writes(u) {
                for (a, l) in adj.row_mut(w).iter_mut().zip(&live.0) {
                    *a |= l;
                }
                if u.tied {
                    // Its sources and destinations, as `regs[at..end]`
                    // holds them.
                    for &x in &uses.regs[u.at as usize..u.end as usize] {
                        adj.insert(w, x);
                    }
                }
            }
            if u.kills {
                for &w in uses.writes(u) {
                    live.remove(w);
                }
            }
            for &r in uses.reads(u) {
                live.insert(r);
            }
        }
    }
    // Live at the start: read before any write on some path (the zero a
    // warp starts with). Those, and warp operations' registers, alone.
    if let Some(entry) = live_in.first() {
        own.extend(entry.iter());
    }
    for &a in &own {
        for x in 0..n as u32 {
            adj.insert(a, x);
        }
    }
    // Each edge both ways, and none from a register to itself.
    for a in 0..n {
        for w in 0..adj.words {
            let mut bits = adj.row(a as u32)[w];
            while bits != 0 {
                let x = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                adj.insert(x as u32, a as u32);
            }
        }
    }
    for a in 0..n as u32 {
        adj.row_mut(a)[a as usize / 64] &= !(1 << (a % 64));
    }
    let (colour, slots) = colour(&adj, n);
    let mut slot = vec![0u32; nsym];
    for (d, &o) in orig.iter().enumerate() {
        slot[o as usize] = colour[d];
    }
    Some(RegMap {
        slot,
        slots: slots as usize,
    })
}

/// Per block, the registers live on entry and on exit: a backward dataflow
/// over `cfg` to a fixed point.
fn liveness(cfg: &Cfg, uses: &UseList, n: usize) -> (Vec<Set>, Vec<Set>) {
    let nb = cfg.blocks.len();
    // Per block: registers read before written (gen) and written (kill).
    let mut gen = vec![Set::new(n); nb];
    let mut kill = vec![Set::new(n); nb];
    for (b, blk) in cfg.blocks.iter().enumerate() {
        for u in uses.stmts[blk.start..blk.end].iter().rev() {
            if u.kills {
                for &w in uses.writes(u) {
                    kill[b].insert(w);
                    gen[b].remove(w);
                }
            }
            for &r in uses.reads(u) {
                gen[b].insert(r);
            }
        }
    }
    let mut live_in = vec![Set::new(n); nb];
    let mut live_out = vec![Set::new(n); nb];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            let mut out = Set::new(n);
            for s in &cfg.blocks[b].succs {
                if let Node::Block(t) = *s {
                    out.union(&live_in[t]);
                }
            }
            let mut inn = out.clone();
            for (x, k) in inn.0.iter_mut().zip(&kill[b].0) {
                *x &= !k;
            }
            inn.union(&gen[b]);
            if inn != live_in[b] {
                live_in[b] = inn;
                changed = true;
            }
            live_out[b] = out;
        }
    }
    (live_in, live_out)
}

/// The interference graph: a square bit matrix over dense register ids in
/// one allocation (row `a`, the registers `a` may not share a slot with, is
/// `bits[a * words..(a + 1) * words]`), not one set a register.
struct Matrix {
    words: usize,
    bits: Vec<u64>,
}

impl Matrix {
    fn new(n: usize) -> Matrix {
        let words = n.div_ceil(64);
        Matrix {
            words,
            bits: vec![0; n * words],
        }
    }
    fn row(&self, a: u32) -> &[u64] {
        let at = a as usize * self.words;
        &self.bits[at..at + self.words]
    }
    fn row_mut(&mut self, a: u32) -> &mut [u64] {
        let at = a as usize * self.words;
        &mut self.bits[at..at + self.words]
    }
    fn insert(&mut self, a: u32, x: u32) {
        self.row_mut(a)[x as usize / 64] |= 1 << (x % 64);
    }
}

/// Greedy colouring in order of first appearance: each register's slot
/// (the lowest its neighbours do not hold), and the slots used.
fn colour(adj: &Matrix, n: usize) -> (Vec<u32>, u32) {
    let mut colour = vec![u32::MAX; n];
    let mut slots = 0u32;
    // The slots `v`'s neighbours hold, a bit each (at most `n`).
    let mut taken = vec![0u64; n / 64 + 1];
    for v in 0..n {
        // Slots held so far are below `slots`: these words cover them and
        // slot `slots` itself.
        let used = &mut taken[..=slots as usize / 64];
        used.fill(0);
        // Only neighbours before `v` hold a slot yet (the order is 0..n):
        // the words up to `v`'s, that one cut below `v`.
        let below = &adj.row(v as u32)[..=v / 64];
        for (w, &bits) in below.iter().enumerate() {
            let mut b = if w == v / 64 {
                bits & ((1u64 << (v % 64)) - 1)
            } else {
                bits
            };
            while b != 0 {
                let x = w * 64 + b.trailing_zeros() as usize;
                b &= b - 1;
                let c = colour[x];
                if c != u32::MAX {
                    used[c as usize / 64] |= 1 << (c % 64);
                }
            }
        }
        // Slot `slots` is free (no neighbour holds it): the search ends
        // there at the latest.
        let c = used
            .iter()
            .enumerate()
            .find(|(_, &w)| w != u64::MAX)
            .map_or(slots, |(i, &w)| (i * 64) as u32 + w.trailing_ones());
        colour[v] = c;
        slots = slots.max(c + 1);
    }
    (colour, slots)
}

#[cfg(test)]
mod tests {
    use super::RegMap;
    use crate::dead::Uses;
    use sim_module::{parse_module, Body, Module};

    /// The allocation of `b`.
    fn regmap(b: &Body) -> RegMap {
        RegMap::new(b, &Uses::new(b)).0
    }

    fn module(body: &str) -> Module {
        let src = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;\n\
             ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n{body}\nret;\n}}\n"
        );
        parse_module(&src, "k.ptx").unwrap()
    }

    /// The allocation of kernel `body`, and a way to name its registers.
    fn alloc(body: &str) -> (RegMap, impl Fn(&str) -> u32) {
        let m = module(body);
        let b = m.functions[0].body.as_ref().unwrap();
        let map = regmap(b);
        let syms = b.symbols.clone();
        let m2 = map.clone();
        (map, move |name: &str| {
            m2.reg(syms.get(name).unwrap_or_else(|| panic!("{name}"))).0
        })
    }

    #[test]
    fn straight_line_values_share_slots() {
        let (map, s) = alloc(
            "add.u32 %r2, %r1, 1;\nadd.u32 %r3, %r2, 1;\nadd.u32 %r4, %r3, 1;\n\
             add.u32 %r5, %r4, 1;\nst.global.u32 [%rd2], %r5;",
        );
        // %rd1 dies into %rd2; %r1..%r5 form a chain: two slots for all.
        assert_eq!(map.slots(), 2, "{map:?}");
        assert_ne!(s("%rd2"), s("%r1"));
        assert_eq!(s("%r1"), s("%r2"));
        assert_eq!(s("%r2"), s("%r5"));
        // Declared registers no statement uses take nothing.
        assert!(map.slots() < 4 + 16 + 8);
    }

    /// An indirect call left in a flattened body reads its address
    /// register (the error it raises names the value): the register keeps
    /// its slot up to the call, and the body is allocated, not left at one
    /// slot per register as a body with a direct call is.
    #[test]
    fn an_indirect_call_keeps_its_address_live() {
        let (map, s) = alloc(
            "cvt.u64.u32 %rd3, %r1;\nadd.u32 %r2, %r1, 1;\nadd.u32 %r3, %r2, 1;\n\
             st.global.u32 [%rd2], %r3;\nproto: .callprototype _ ();\ncall %rd3, proto;",
        );
        assert!(map.slots() < 4, "{map:?}");
        assert_ne!(s("%rd3"), s("%r2"));
        assert_ne!(s("%rd3"), s("%r3"));
        assert_eq!(s("%r2"), s("%r3"));
    }

    #[test]
    fn a_loop_carried_value_keeps_its_slot_around_the_loop() {
        let (_, s) = alloc(
            "mov.u32 %r2, 0;\nmov.u32 %r3, 0;\nLOOP:\nadd.u32 %r4, %r2, 7;\nadd.u32 %r3, %r3, %r4;\n\
             add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, 16;\n@%p1 bra LOOP;\n\
             st.global.u32 [%rd2], %r3;",
        );
        // The counter and the sum are live through the whole loop, the
        // temporary %r4 while they are, and %rd2 throughout.
        let all = ["%r2", "%r3", "%r4", "%rd2"].map(&s);
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b, "{all:?}");
            }
        }
        assert_ne!(s("%p1"), s("%r2"));
        assert_ne!(s("%p1"), s("%r3"));
    }

    /// A kernel body, the registers that must share a slot, and each
    /// register with those that must not share its slot.
    struct Case {
        what: &'static str,
        body: &'static str,
        same: &'static [(&'static str, &'static str)],
        apart: &'static [(&'static str, &'static [&'static str])],
    }

    const CASES: &[Case] = &[
        Case {
            what: "values read together do not share",
            body: "add.u32 %r2, %r1, 1;\nadd.u32 %r3, %r1, 2;\nadd.u32 %r4, %r2, %r3;\n\
                   st.global.u32 [%rd2], %r4;\nst.global.u32 [%rd2+4], %r1;",
            same: &[],
            apart: &[("%r1", &["%r2", "%r3", "%r4"]), ("%r2", &["%r3"])],
        },
        Case {
            what: "if/else values live on one side each",
            body: "setp.eq.u32 %p1, %r1, 3;\nadd.u32 %r5, %r1, 9;\n@%p1 bra ELSE;\n\
                   add.u32 %r2, %r1, 1;\nmul.lo.u32 %r3, %r2, %r5;\nbra END;\nELSE:\n\
                   add.u32 %r4, %r1, 2;\nmul.lo.u32 %r3, %r4, %r5;\nEND:\nst.global.u32 [%rd2], %r3;",
            // %r2 and %r4 are on different paths: one slot does.
            same: &[("%r2", "%r4")],
            // %r5 is live into both arms, across their temporaries. %r1
            // dies in the first arm and lives through the second: it may
            // share with the first arm's temporary, not the second's.
            apart: &[("%r5", &["%r2", "%r4"]), ("%r1", &["%r5", "%p1"])],
        },
        Case {
            what: "a predicated definition keeps the old value",
            body: "add.u32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r1, 3;\nadd.u32 %r6, %r1, 5;\n\
                   @%p1 mov.u32 %r2, %r6;\nst.global.u32 [%rd2], %r2;",
            same: &[],
            // %r2's first value is live across the guarded write, so the
            // guard, its source and the other values all differ from it.
            apart: &[("%r2", &["%r6", "%p1", "%r1"])],
        },
        Case {
            what: "a value read before any write (a guarded write alone)",
            body: "setp.eq.u32 %p1, %r1, 3;\n@%p1 mov.u32 %r7, 5;\nadd.u32 %r8, %r1, 2;\n\
                   add.u32 %r9, %r8, %r7;\nst.global.u32 [%rd2], %r9;",
            same: &[],
            // A slot of its own, which starts at zero.
            apart: &[("%r7", &["%rd1", "%rd2", "%r1", "%p1", "%r8", "%r9"])],
        },
        Case {
            what: "a value live across a barrier keeps its slot",
            body: "mul.lo.u32 %r2, %r1, 4;\nst.shared.u32 [%r2], %r1;\nbar.sync 0;\n\
                   xor.b32 %r3, %r1, 1;\nmul.lo.u32 %r4, %r3, 4;\nld.shared.u32 %r5, [%r4];\n\
                   st.global.u32 [%rd2], %r5;\nst.global.u32 [%rd2+4], %r2;",
            same: &[],
            apart: &[("%r2", &["%r3", "%r4", "%r5", "%r1", "%rd2"])],
        },
        Case {
            what: "memory and multi-destination writes avoid their sources",
            body: "ld.global.v2.u32 {%r2, %r3}, [%rd2];\nld.global.u32 %r4, [%rd2+8];\n\
                   add.u32 %r5, %r2, %r3;\nadd.u32 %r5, %r5, %r4;\nst.global.u32 [%rd2], %r5;",
            same: &[],
            apart: &[("%r2", &["%r3", "%rd2"]), ("%r4", &["%rd2"])],
        },
        Case {
            what: "warp operations' registers are alone",
            body: "add.u32 %r2, %r1, 1;\nshfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;\n\
                   add.u32 %r4, %r3, 1;\nst.global.u32 [%rd2], %r4;",
            same: &[],
            apart: &[
                ("%r3", &["%r1", "%r2", "%r4", "%rd1", "%rd2"]),
                ("%r2", &["%r1", "%r3", "%r4", "%rd1", "%rd2"]),
            ],
        },
    ];

    #[test]
    fn registers_share_slots_only_where_their_values_never_meet() {
        for c in CASES {
            let (map, s) = alloc(c.body);
            for &(a, b) in c.same {
                assert_eq!(s(a), s(b), "{}: {a} {b} {map:?}", c.what);
            }
            for &(a, others) in c.apart {
                for &b in others {
                    assert_ne!(s(a), s(b), "{}: {a} {b} {map:?}", c.what);
                }
            }
        }
    }

    #[test]
    fn calls_keep_one_slot_per_register() {
        let src = ".version 8.0\n.target sm_90\n.address_size 64\n\
                   .func f()\n{\nret;\n}\n\
                   .visible .entry k()\n{\n.reg .b32 %r<4>;\nmov.u32 %r1, 1;\ncall f;\n\
                   add.u32 %r2, %r1, 1;\nret;\n}\n";
        let m = parse_module(src, "k.ptx").unwrap();
        let b = m.function("k").unwrap().body.as_ref().unwrap();
        assert_eq!(regmap(b), RegMap::identity(b.symbols.len()));
    }

    #[test]
    fn renaming_gives_back_every_operand() {
        let m = module(
            "add.u32 %r2, %r1, 1;\nsetp.lt.u32 %p1|%p2, %r2, 4;\n@%p1 selp.u32 %r3, %r1, %r2, %p2;\n\
             st.global.u32 [%rd2], %r3;",
        );
        let b = m.functions[0].body.as_ref().unwrap();
        let uses = Uses::new(b);
        let (map, renamed) = RegMap::new(b, &uses);
        // (`new` falls back to one slot per register where renaming loses
        // an operand.)
        assert!(map.slots() < b.symbols.len() / 2, "{map:?}");
        let mut unrenamed_refused = 0;
        for (k, st) in b.statements.iter().enumerate() {
            if let sim_module::StatementKind::Instruction(i) = &st.kind {
                assert_eq!(renamed[k], Some(map.inst(i)));
                assert!(map.renames_exactly(&map.inst(i), &uses, k));
                assert_eq!(RegMap::identity(b.symbols.len()).inst(i), *i);
                // The check fails where an operand kept its name but not
                // its slot.
                let mut named = uses.reads(k).iter().chain(uses.writes(k));
                if named.any(|&r| map.reg(sim_isa::RegId(r)).0 != r) {
                    assert!(!map.renames_exactly(i, &uses, k), "{}", st.text);
                    unrenamed_refused += 1;
                }
            } else {
                assert_eq!(renamed[k], None);
            }
        }
        assert!(unrenamed_refused > 2, "{unrenamed_refused}");
        let s = |n: &str| map.reg(b.symbols.get(n).unwrap()).0;
        assert_ne!(s("%p1"), s("%p2"));
    }

    /// An independent check of an allocation, statement by statement: no
    /// write lands on the slot of another value live after it (per-thread
    /// liveness over the statements' own successors, guarded writes killing
    /// nothing), and a value read before any write is alone in its slot.
    fn check(body: &sim_module::Body, map: &RegMap) -> Result<(), String> {
        use sim_module::{ControlOp, StatementKind};
        let stmts = &body.statements;
        let n = stmts.len();
        let nsym = body.symbols.len();
        let mut rw: Vec<(Vec<u32>, Vec<u32>, bool)> = Vec::new();
        let mut succ: Vec<Vec<usize>> = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            match &s.kind {
                StatementKind::Instruction(x) => {
                    let u = x.reg_uses();
                    rw.push((
                        u.reads().map(|r| r.reg.0).collect(),
                        u.writes().map(|r| r.reg.0).collect(),
                        x.guard.is_none(),
                    ));
                    succ.push(vec![i + 1]);
                }
                StatementKind::Control(c) => {
                    rw.push((c.reads().map(|r| r.0).collect(), vec![], true));
                    succ.push(match &c.op {
                        ControlOp::Bra { label, .. } => {
                            let t = body.labels[*label].target;
                            if c.guard.is_some() {
                                vec![t, i + 1]
                            } else {
                                vec![t]
                            }
                        }
                        ControlOp::Ret { .. } | ControlOp::Exit | ControlOp::Trap => vec![],
                        ControlOp::Call { .. } if c.op.is_indirect_call() => vec![i + 1],
                        ControlOp::Call { .. } => return Err("call".into()),
                    });
                }
                StatementKind::Unimplemented(_) => return Err("unimplemented".into()),
            }
        }
        let mut live_in = vec![vec![false; nsym]; n + 1];
        let live_out = |live_in: &Vec<Vec<bool>>, i: usize| {
            let mut o = vec![false; nsym];
            for &t in &succ[i] {
                for (a, b) in o.iter_mut().zip(&live_in[t.min(n)]) {
                    *a |= b;
                }
            }
            o
        };
        let mut changed = true;
        while changed {
            changed = false;
            for i in (0..n).rev() {
                let mut l = live_out(&live_in, i);
                let (r, w, kills) = &rw[i];
                if *kills {
                    for &x in w {
                        l[x as usize] = false;
                    }
                }
                for &x in r.iter().chain(if *kills { &[][..] } else { &w[..] }) {
                    l[x as usize] = true;
                }
                if l != live_in[i] {
                    live_in[i] = l;
                    changed = true;
                }
            }
        }
        let slot = |r: u32| map.reg(sim_isa::RegId(r)).0;
        for i in 0..n {
            let out = live_out(&live_in, i);
            for &w in &rw[i].1 {
                for (x, &l) in out.iter().enumerate() {
                    if l && x as u32 != w && slot(w) == slot(x as u32) {
                        return Err(format!(
                            "`{}` writes {} over {}, live after it (slot {})",
                            stmts[i].text,
                            body.symbols.name(sim_isa::RegId(w)),
                            body.symbols.name(sim_isa::RegId(x as u32)),
                            slot(w)
                        ));
                    }
                }
            }
        }
        let used: Vec<u32> = rw
            .iter()
            .flat_map(|(r, w, _)| r.iter().chain(w))
            .copied()
            .collect();
        for (x, &l) in live_in[0].iter().enumerate() {
            if l {
                for &y in &used {
                    if y != x as u32 && slot(y) == slot(x as u32) {
                        return Err(format!(
                            "{} is read before any write and shares slot {} with {}",
                            body.symbols.name(sim_isa::RegId(x as u32)),
                            slot(y),
                            body.symbols.name(sim_isa::RegId(y))
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Every committed kernel: the allocation passes the independent check,
    /// and the SGEMM's 379 names fit in far fewer slots.
    #[test]
    fn every_committed_kernel_allocates_soundly() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        let mut dirs = vec![
            root.join("workloads"),
            root.join("sim-kernel/tests/data"),
            root.join("sim-module/tests/data"),
        ];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "ptx") {
                    files.push(p);
                }
            }
        }
        files.sort();
        let mut kernels = 0;
        let mut sgemm = None;
        for f in &files {
            let Ok(src) = std::fs::read_to_string(f) else {
                continue;
            };
            let Ok(m) = parse_module(&src, &f.display().to_string()) else {
                continue;
            };
            for func in &m.functions {
                let Some(b) = &func.body else { continue };
                let map = regmap(b);
                if map == RegMap::identity(b.symbols.len()) {
                    continue;
                }
                kernels += 1;
                if let Err(e) = check(b, &map) {
                    panic!("{}: {}: {e}", f.display(), func.name);
                }
                if f.ends_with("workloads/sgemm.ptx") && func.name == "sgemm" {
                    sgemm = Some((b.symbols.len(), map.slots()));
                }
            }
        }
        assert!(kernels > 10, "{kernels} kernels allocated");
        let (names, slots) = sgemm.expect("workloads/sgemm.ptx");
        eprintln!("sgemm: {names} names, {slots} slots");
        assert!(slots * 3 < names, "sgemm: {names} names, {slots} slots");
    }
}
