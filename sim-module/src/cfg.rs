//! Basic blocks of a body, their successors, and immediate post-dominators.
//!
//! Reconvergence follows GPGPU-Sim's stack policy: the lanes of a divergent
//! branch meet again at the immediate post-dominator of the branch's block.
//! A virtual exit node ([`Node::Exit`]) succeeds every `ret`/`exit` and the
//! fall-off end of the body, so every block that can finish has one.

use crate::types::{Body, ControlOp, StatementKind};

/// Index of a basic block in [`Cfg::blocks`].
pub type BlockId = usize;

/// A node of the graph: a block or the virtual exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    /// A basic block.
    Block(BlockId),
    /// The virtual exit after every `ret`, `exit` and the end of the body.
    Exit,
}

/// A maximal straight-line run of statements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// First statement index.
    pub start: usize,
    /// One past the last statement index.
    pub end: usize,
    /// Successors: the branch target first, then the fall-through.
    pub succs: Vec<Node>,
    /// Predecessor blocks, in increasing order.
    pub preds: Vec<BlockId>,
}

/// The control-flow graph of one body.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// Blocks in statement order; block 0 (if any) is the entry.
    pub blocks: Vec<Block>,
    block_of: Vec<BlockId>,
    ipdom: Vec<Option<Node>>,
}

impl Cfg {
    /// Builds the graph of `body` and its post-dominator tree.
    pub fn new(body: &Body) -> Cfg {
        let n = body.statements.len();
        let mut leader = vec![false; n + 1];
        leader[0] = true;
        for l in &body.labels {
            leader[l.target] = true;
        }
        for (i, s) in body.statements.iter().enumerate() {
            if ends_block(&s.kind) {
                leader[i + 1] = true;
            }
        }
        let mut blocks = Vec::new();
        let mut block_of = vec![0; n];
        let mut start = 0;
        for i in 1..=n {
            if leader[i] || i == n {
                block_of[start..i].fill(blocks.len());
                blocks.push(Block {
                    start,
                    end: i,
                    succs: Vec::new(),
                    preds: Vec::new(),
                });
                start = i;
            }
        }
        let node_at = |i: usize| {
            if i >= n {
                Node::Exit
            } else {
                Node::Block(block_of[i])
            }
        };
        for b in 0..blocks.len() {
            let last = &body.statements[blocks[b].end - 1];
            let fall = node_at(blocks[b].end);
            let mut succs = match &last.kind {
                StatementKind::Control(c) => {
                    let to = match &c.op {
                        ControlOp::Bra { label, .. } => node_at(body.labels[*label].target),
                        ControlOp::Ret { .. } | ControlOp::Exit => Node::Exit,
                        // A trap ends the launch, so no lane ever goes on
                        // from it; as falling through it leaves the other
                        // paths their join (nvcc's `switch` with a trapping
                        // default, as in `__pipeline_memcpy_async`, jumps
                        // to the trap's next statement from every case).
                        ControlOp::Trap => fall,
                        ControlOp::Call { .. } => fall,
                    };
                    if c.guard.is_some() {
                        vec![to, fall]
                    } else {
                        vec![to]
                    }
                }
                StatementKind::Instruction(_) | StatementKind::Unimplemented(_) => vec![fall],
            };
            succs.dedup();
            for s in &succs {
                if let Node::Block(t) = *s {
                    blocks[t].preds.push(b);
                }
            }
            blocks[b].succs = succs;
        }
        for b in &mut blocks {
            b.preds.sort_unstable();
            b.preds.dedup();
        }
        let ipdom = post_dominators(&blocks);
        Cfg {
            blocks,
            block_of,
            ipdom,
        }
    }

    /// The block holding statement `stmt`.
    pub fn block_of(&self, stmt: usize) -> BlockId {
        self.block_of[stmt]
    }

    /// The immediate post-dominator of block `b`; `None` if `b` cannot reach the exit
    /// (an endless loop).
    pub fn ipdom(&self, b: BlockId) -> Option<Node> {
        self.ipdom[b]
    }

    /// Where the lanes of a divergent branch at statement `stmt` reconverge: the
    /// first statement of its block's immediate post-dominator, or the number of
    /// statements for the exit. `None` if the block cannot reach the exit.
    pub fn reconvergence(&self, stmt: usize) -> Option<usize> {
        let n = self.block_of.len();
        self.ipdom(self.block_of(stmt)).map(|node| match node {
            Node::Block(b) => self.blocks[b].start,
            Node::Exit => n,
        })
    }
}

/// `bra`, `ret` and `exit` end a block; `call` returns and falls through.
fn ends_block(k: &StatementKind) -> bool {
    match k {
        StatementKind::Control(c) => match c.op {
            ControlOp::Bra { .. } | ControlOp::Ret { .. } | ControlOp::Exit | ControlOp::Trap => {
                true
            }
            ControlOp::Call { .. } => false,
        },
        StatementKind::Instruction(_) | StatementKind::Unimplemented(_) => false,
    }
}

/// Immediate post-dominators by Cooper, Harvey and Kennedy's iteration on the
/// reversed graph, rooted at the exit (index `blocks.len()`). Iterative, so deep
/// graphs cannot exhaust the stack.
fn post_dominators(blocks: &[Block]) -> Vec<Option<Node>> {
    let n = blocks.len();
    let exit = n;
    let idx = |s: &Node| match *s {
        Node::Block(b) => b,
        Node::Exit => exit,
    };
    // Predecessors in the reversed graph are the CFG predecessors; the exit's
    // are the blocks with an exit edge.
    let exit_preds: Vec<usize> = (0..n)
        .filter(|&b| blocks[b].succs.contains(&Node::Exit))
        .collect();
    let rev_children = |v: usize| -> &[usize] {
        if v == exit {
            &exit_preds
        } else {
            &blocks[v].preds
        }
    };
    // Post-order of the reversed graph from the exit.
    const UNSEEN: usize = usize::MAX;
    let mut order = vec![UNSEEN; n + 1];
    let mut post = Vec::with_capacity(n + 1);
    let mut seen = vec![false; n + 1];
    let mut stack = vec![(exit, 0usize)];
    seen[exit] = true;
    while let Some(&mut (v, ref mut k)) = stack.last_mut() {
        let kids = rev_children(v);
        if let Some(&c) = kids.get(*k) {
            *k += 1;
            if !seen[c] {
                seen[c] = true;
                stack.push((c, 0));
            }
        } else {
            order[v] = post.len();
            post.push(v);
            stack.pop();
        }
    }
    let mut idom = vec![UNSEEN; n + 1];
    idom[exit] = exit;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while order[a] < order[b] {
                a = idom[a];
            }
            while order[b] < order[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in post.iter().rev().filter(|&&v| v != exit) {
            let mut new = UNSEEN;
            for s in &blocks[v].succs {
                let s = idx(s);
                if idom[s] == UNSEEN {
                    continue;
                }
                new = if new == UNSEEN {
                    s
                } else {
                    intersect(&idom, s, new)
                };
            }
            if new != UNSEEN && idom[v] != new {
                idom[v] = new;
                changed = true;
            }
        }
    }
    (0..n)
        .map(|b| match idom[b] {
            UNSEEN => None,
            d if d == exit => Some(Node::Exit),
            d => Some(Node::Block(d)),
        })
        .collect()
}
