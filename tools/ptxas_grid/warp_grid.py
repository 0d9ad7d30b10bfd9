#!/usr/bin/env python3
"""ptxas's verdicts on the warp collectives and block reductions.

Writes sim-isa/tests/data/warp-ptxas.txt, read by sim-isa/tests/it/warp.rs:

- `accept TEXT` / `reject TEXT` (a `# ptxas: MESSAGE` comment above each
  rejection): ptxas 13.0.88 -arch=sm_90 on the statement alone, .version 9.0,
  inside a kernel declaring %r<9> .b32, %rd<9> .b64, %p<9> .pred;
- `gate TARGET VERSION ok|refused TEXT`: the same statement assembled for
  another target or PTX version (ptxas 13.0.88 for sm_75 and later, the
  older PTXAS11 (11.8) below that, which still takes sm_35..sm_70).

    PTXAS=/path/to/ptxas PTXAS11=/path/to/ptxas-11.8 python3 -m tools.ptxas_grid.warp_grid

PTXAS and PTXAS11 default as verdict.py says.
"""

import sys

from tools.ptxas_grid import verdict

OUT = verdict.grid_path("warp")


def grid():
    """Every statement of the warp-collective grid: bar.warp.sync, redux.sync, match,
    elect, nanosleep and the block barriers and reductions, valid and malformed."""
    g = [
        "bar.warp.sync -1;", "bar.warp.sync %r1;", "bar.warp.sync 0xff;", "bar.warp.sync;",
        "bar.warp.sync -1, 0;", "bar.warp.sync.aligned -1;", "@%p1 bar.warp.sync -1;",
    ]
    for op, tys in [("add", ["u32", "s32"]), ("min", ["u32", "s32"]), ("max", ["u32", "s32"]),
                    ("and", ["b32"]), ("or", ["b32"]), ("xor", ["b32"])]:
        for ty in ["u32", "s32", "b32", "u64", "f32"]:
            g.append(f"redux.sync.{op}.{ty} %r1, %r2, -1;")
        g.append(f"redux.sync.{op}.{tys[0]} %r1, %r2, %r3;")
    g += [
        "redux.sync.add.u32 %r1, 5, -1;", "redux.sync.add.u32 %r1, %r2;",
        "redux.sync.add.u32 %r1|%p1, %r2, -1;", "redux.sync.mul.u32 %r1, %r2, -1;",
        "redux.add.u32 %r1, %r2, -1;", "redux.sync.add.u32 %r1, %r2, 0xffff;",
    ]
    for mode in ["any", "all"]:
        for ty, src in [("b32", "%r2"), ("b64", "%rd2"), ("u32", "%r2"), ("b16", "%r2")]:
            g.append(f"match.{mode}.sync.{ty} %r1, {src}, -1;")
            g.append(f"match.{mode}.sync.{ty} %r1|%p1, {src}, %r3;")
        g.append(f"match.{mode}.sync.b32 %r1, 7, -1;")
        g.append(f"match.{mode}.sync.b32 %r1, %r2;")
        g.append(f"match.{mode}.b32 %r1, %r2, -1;")
    for h in ["bar", "bar.cta", "barrier", "barrier.cta"]:
        for op, ty, d in [("popc", "u32", "%r1"), ("and", "pred", "%p2"), ("or", "pred", "%p2")]:
            g.append(f"{h}.red.{op}.{ty} {d}, 0, %p1;")
            g.append(f"{h}.red.{op}.{ty} {d}, 1, 64, !%p1;")
            g.append(f"{h}.red.{op}.aligned.{ty} {d}, 0, %p1;")
            g.append(f"{h}.red.aligned.{op}.{ty} {d}, %r2, %r3, %p1;")
    g += [
        "bar.red.popc.u32 %r1, 0, 1;", "bar.red.and.pred %p2, 0, 0;", "bar.red.popc.u32 %r1, 16, %p1;",
        "bar.red.popc.u32 %r1, 0, 33, %p1;", "bar.red.popc.u32 %r1, 0, 0, %p1;", "bar.red.xor.pred %p2, 0, %p1;",
        "bar.red.popc.u32 %r1, 0;", "bar.red.popc.u32 %r1, 0, 32, 64, %p1;", "bar.red.popc.pred %p2, 0, %p1;",
        "bar.red.and.u32 %r1, 0, %p1;", "bar.red.popc.u32 %r1, 15, %p1;", "bar.red.or.pred %p2, 0, 1024, %p1;",
        "barrier.aligned.red.popc.u32 %r1, 0, %p1;",
        "nanosleep.u32 %r1;", "nanosleep.u32 100;", "nanosleep.u32 -1;", "nanosleep.u32 0x7fffffff;",
        "nanosleep %r1;", "nanosleep.b32 %r1;", "nanosleep.u64 %rd1;", "nanosleep.u32 %r1, %r2;", "nanosleep.u32;",
        "elect.sync %r1|%p1, -1;", "elect.sync _|%p1, -1;", "elect.sync %r1|%p1, %r2;", "elect.sync %r1, -1;",
        "elect.sync %r1|%p1;", "elect.sync.b32 %r1|%p1, -1;", "elect %r1|%p1, -1;",
    ]
    return g


# (target, version, statement): the gates, each near its edge.
GATES = [(t, v, s) for s in ["bar.warp.sync -1;"] for t, v in [("sm_35", "6.0"), ("sm_35", "5.0"), ("sm_90", "7.8")]] + \
    [(t, v, s) for s in ["redux.sync.add.u32 %r1, %r2, -1;", "redux.sync.min.s32 %r1, %r2, -1;"]
     for t, v in [("sm_75", "9.0"), ("sm_80", "7.0"), ("sm_80", "6.5"), ("sm_70", "7.0")]] + \
    [(t, v, s) for s in ["match.any.sync.b32 %r1, %r2, -1;", "match.all.sync.b64 %r1|%p1, %rd2, -1;"]
     for t, v in [("sm_60", "7.8"), ("sm_70", "6.0"), ("sm_35", "5.0"), ("sm_75", "9.0")]] + \
    [(t, v, "nanosleep.u32 %r1;") for t, v in [("sm_60", "7.8"), ("sm_70", "6.2"), ("sm_70", "6.1"), ("sm_75", "9.0")]] + \
    [(t, v, "elect.sync %r1|%p1, -1;") for t, v in [("sm_89", "9.0"), ("sm_90", "8.0"), ("sm_90", "7.8")]] + \
    [(t, v, s) for s in ["bar.red.popc.u32 %r1, 0, %p1;", "bar.red.or.pred %p2, 0, %p1;"]
     for t, v in [("sm_35", "3.1"), ("sm_35", "7.8")]] + \
    [(t, v, "barrier.red.popc.u32 %r1, 0, %p1;") for t, v in [("sm_35", "5.0"), ("sm_35", "6.0")]] + \
    [(t, v, "bar.cta.red.and.pred %p2, 0, %p1;") for t, v in [("sm_35", "7.7"), ("sm_35", "7.8")]]


def run(ptxas, version, target, stmt, tmp):
    """(accepted, messages) of ptxas on stmt at version for target."""
    rc, msg = verdict.messages(ptxas, target, verdict.param_kernel(version, target, stmt), tmp)
    return rc == 0, msg


# The grid file's comment head.
HEAD = verdict.gated_head([
    "# ptxas 13.0.88 (-arch=sm_90, .version 9.0, .address_size 64) on each warp collective",
    "# and block reduction alone, in a kernel declaring %r<9> .b32, %rd<9> .b64, %p<9> .pred:",
], "warp_grid", "warp")


def main():
    verdict.write_message_grid(OUT, HEAD, run, grid(), GATES)


if __name__ == "__main__":
    sys.exit(main())
