//! Control-flow graphs and reconvergence points, on hand-written bodies and
//! the public kernels.

use crate::{kernel, public_ptx};
use sim_module::cfg::Block;
use sim_module::*;

fn cfg_of(body_text: &str) -> Cfg {
    let m = kernel(body_text).unwrap();
    Cfg::new(m.functions[0].body.as_ref().unwrap())
}

fn b(i: usize) -> Node {
    Node::Block(i)
}

/// (start, end, successors) of every block.
fn shape(c: &Cfg) -> Vec<(usize, usize, Vec<Node>)> {
    c.blocks
        .iter()
        .map(
            |Block {
                 start, end, succs, ..
             }| (*start, *end, succs.clone()),
        )
        .collect()
}

fn ipdoms(c: &Cfg) -> Vec<Option<Node>> {
    (0..c.blocks.len()).map(|i| c.ipdom(i)).collect()
}

#[test]
fn if_else() {
    let c = cfg_of(
        "setp.lt.u32 %p1, %r1, 4;\n@%p1 bra ELSE;\nadd.u32 %r2, %r2, 1;\nbra.uni END;\n\
         ELSE: sub.u32 %r2, %r2, 1;\nEND: ret;",
    );
    assert_eq!(
        shape(&c),
        [
            (0, 2, vec![b(2), b(1)]),
            (2, 4, vec![b(3)]),
            (4, 5, vec![b(3)]),
            (5, 6, vec![Node::Exit])
        ]
    );
    assert_eq!(
        ipdoms(&c),
        [Some(b(3)), Some(b(3)), Some(b(3)), Some(Node::Exit)]
    );
    assert_eq!(c.reconvergence(1), Some(5));
    assert_eq!(c.blocks[3].preds, [1, 2]);
}

#[test]
fn if_without_else_and_early_exit() {
    let c = cfg_of(
        "@%p1 exit;\n@%p2 bra SKIP;\nadd.u32 %r2, %r2, 1;\nSKIP: @%p3 ret;\nadd.u32 %r2, %r2, 2;",
    );
    assert_eq!(
        shape(&c),
        [
            (0, 1, vec![Node::Exit, b(1)]),
            (1, 2, vec![b(3), b(2)]),
            (2, 3, vec![b(3)]),
            (3, 4, vec![Node::Exit, b(4)]),
            (4, 5, vec![Node::Exit]),
        ]
    );
    // Lanes leaving early meet the others only at the exit.
    assert_eq!(
        ipdoms(&c),
        [
            Some(Node::Exit),
            Some(b(3)),
            Some(b(3)),
            Some(Node::Exit),
            Some(Node::Exit)
        ]
    );
    assert_eq!(c.reconvergence(0), Some(5));
    assert_eq!(c.reconvergence(1), Some(3));
}

#[test]
fn loops_nested_and_divergent_exit() {
    let c = cfg_of(
        "OUTER: mov.u32 %r1, 0;\n\
         INNER: add.u32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, %r3;\n@%p1 bra INNER;\n\
         add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p2, %r2, 8;\n@%p2 bra OUTER;\n\
         ret;",
    );
    assert_eq!(
        shape(&c),
        [
            (0, 1, vec![b(1)]),
            (1, 4, vec![b(1), b(2)]),
            (4, 7, vec![b(0), b(3)]),
            (7, 8, vec![Node::Exit])
        ]
    );
    // The inner back edge reconverges after the inner loop, the outer after the outer.
    assert_eq!(c.reconvergence(3), Some(4));
    assert_eq!(c.reconvergence(6), Some(7));
    assert_eq!(c.blocks[1].preds, [0, 1]);
    assert_eq!(c.blocks[0].preds, [2]);
}

#[test]
fn loop_with_break_reconverges_after_loop() {
    let c = cfg_of(
        "TOP: setp.eq.u32 %p1, %r1, 0;\n@%p1 bra DONE;\nadd.u32 %r1, %r1, 1;\n\
         setp.lt.u32 %p2, %r1, 9;\n@%p2 bra TOP;\nDONE: ret;",
    );
    assert_eq!(shape(&c)[1].2, vec![b(0), b(2)]);
    assert_eq!(c.reconvergence(1), Some(5));
    assert_eq!(c.reconvergence(4), Some(5));
}

/// A switch whose default traps (nvcc's `__pipeline_memcpy_async`): the
/// trap falls through, so the cases still join at the statement after it,
/// not at the exit. And a modifier with `::` is one word of the opcode.
#[test]
fn a_trap_leaves_the_join_to_the_other_paths() {
    let c = cfg_of(
        "setp.eq.u32 %p1, %r1, 0;
@%p1 bra A;
setp.eq.u32 %p2, %r1, 1;
@%p2 bra B;
         bra.uni T;
A: add.u32 %r2, %r2, 1;
bra.uni J;
B: add.u32 %r2, %r2, 2;
bra.uni J;
         T: trap;
J: ld.shared::cta.u32 %r3, [%r2];
ret;",
    );
    // Statement 10 (`J`) is where both branches' lanes meet again.
    assert_eq!(c.reconvergence(1), Some(10));
    assert_eq!(c.reconvergence(3), Some(10));
}

#[test]
fn endless_loop_unreachable_code_and_label_at_end() {
    let c = cfg_of(
        "SPIN: add.u32 %r1, %r1, 1;\nbra.uni SPIN;\nadd.u32 %r1, %r1, 2;\n@%p1 bra END;\nEND:",
    );
    assert_eq!(shape(&c), [(0, 2, vec![b(0)]), (2, 4, vec![Node::Exit])]);
    assert_eq!(ipdoms(&c), [None, Some(Node::Exit)]);
    assert_eq!(c.reconvergence(1), None);
    assert!(c.blocks[1].preds.is_empty());
    // A call returns: it does not end its block.
    let c = cfg_of("add.u32 %r1, %r1, 1;\nret;");
    assert_eq!(shape(&c), [(0, 2, vec![Node::Exit])]);
    assert!(cfg_of("").blocks.is_empty());
}

/// Each guarded branch's reconvergence point, written as the label that
/// names that statement (or `+1` for the statement after the branch).
fn branch_reconvergence(f: &Function) -> Vec<(String, String)> {
    let body = f.body.as_ref().unwrap();
    let c = Cfg::new(body);
    let mut out = Vec::new();
    for (i, s) in body.statements.iter().enumerate() {
        let StatementKind::Control(Control {
            guard: Some(_),
            op: ControlOp::Bra { target, .. },
        }) = &s.kind
        else {
            continue;
        };
        let r = c.reconvergence(i).unwrap();
        let name = body
            .labels
            .iter()
            .find(|l| l.target == r)
            .map(|l| l.name.clone())
            .unwrap_or_else(|| {
                if r == i + 1 {
                    "+1".into()
                } else {
                    format!("#{r}")
                }
            });
        out.push((target.clone(), name));
    }
    out
}

#[test]
fn public_kernels_reconverge_where_the_source_joins() {
    let m = parse_module(&public_ptx(), "public.ptx").unwrap();
    let expect: &[(&str, &[(&str, &str)])] = &[
        ("sad16", &[("$L__BB0_1", "+1"), ("$L__BB0_4", "$L__BB0_4")]),
        (
            "threshold_clamp",
            &[
                ("$L__BB1_3", "$L__BB1_3"),
                ("$L__BB1_2", "$L__BB1_3"),
                ("$L__BB1_5", "$L__BB1_5"),
            ],
        ),
        (
            "audio_mix",
            &[("$L__BB2_2", "$L__BB2_2"), ("$L__BB2_4", "$L__BB2_4")],
        ),
        (
            "divergent_select",
            &[
                ("$L__BB3_9", "$L__BB3_9"),
                ("$L__BB3_5", "$L__BB3_8"),
                ("$L__BB3_4", "$L__BB3_8"),
                ("$L__BB3_8", "$L__BB3_8"),
                ("$L__BB3_7", "+1"),
                ("$L__BB3_11", "$L__BB3_11"),
            ],
        ),
        (
            "block_sad_reduce",
            &[
                ("$L__BB4_4", "$L__BB4_4"),
                ("$L__BB4_3", "$L__BB4_3"),
                ("$L__BB4_1", "$L__BB4_4"),
                ("$L__BB4_6", "$L__BB4_6"),
                ("$L__BB4_8", "$L__BB4_8"),
            ],
        ),
    ];
    for (name, want) in expect {
        let got = branch_reconvergence(m.function(name).unwrap());
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn deep_graphs_do_not_exhaust_the_stack() {
    // 20,000 blocks in a chain of conditional branches, each skipping one block.
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&format!("@%p1 bra L{i};\nadd.u32 %r1, %r1, 1;\nL{i}:\n"));
    }
    text.push_str("ret;");
    let c = cfg_of(&text);
    assert_eq!(c.blocks.len(), 20_001);
    assert_eq!(c.reconvergence(0), Some(2));
    assert_eq!(c.reconvergence(2 * 9_999), Some(20_000));
}
