#!/usr/bin/env python3
"""ptxas's verdicts on the extended-precision integer family (issue 23).

Writes sim-isa/tests/data/carry-ptxas.txt, read by sim-isa/tests/it/carry.rs:
one line per statement,

    V35 V70 V75 V90 PTX TEXT

where each V is ptxas's verdict on that target at `.version 7.8` (sm_35 and
sm_70, judged by ptxas 11.8: ptxas 13 assembles nothing below sm_75) or
`.version 9.0` (sm_75, sm_90: ptxas 13.0.88): `accept`; `arch` when every
message is about the target; `reject` otherwise. PTX is the lowest
`.version` the lowest accepting target takes it at (sm_35 by ptxas 11.8:
3.1 up; sm_70: 6.0; sm_75: 6.3 up; sm_90: 7.8 up); `-` when no target
accepts it. Each `# ptxas:` line above a statement is a message it gave.
The statements: `add.cc`, `addc`, `addc.cc`, `sub.cc`, `subc`, `subc.cc`
over the integer types, `mad.lo.cc`/`mad.hi.cc`, `madc.lo`/`madc.hi` with
and without `.cc`, and their illegal neighbours (`.sat`, `.wide`, `mul.cc`,
16-bit and bit types, a mode missing).

Each statement is assembled alone inside a kernel declaring every register
class (`tools/ptxas_grid/verdict.py`).

    PTXAS13=... PTXAS11=... python3 -m tools.ptxas_grid.carry_grid
"""

import sys

from tools.ptxas_grid import verdict

OUT = verdict.grid_path("carry")

TARGETS = [("sm_35", verdict.PTXAS11, "7.8"), ("sm_70", verdict.PTXAS11, "7.8"),
           ("sm_75", verdict.PTXAS13, "9.0"), ("sm_90", verdict.PTXAS13, "9.0")]
# Around the manual's PTX 1.2 (32-bit), 3.0 (`mad.cc`) and 4.3 (64-bit).
VERSIONS = {"sm_35": ["3.1", "3.2", "4.0", "4.1", "4.2", "4.3", "5.0"], "sm_70": ["6.0"],
            "sm_75": ["6.3"], "sm_90": ["7.8"]}
REG = {"u32": "%r", "s32": "%r", "b32": "%r", "u64": "%rd", "s64": "%rd", "b64": "%rd",
       "u16": "%h", "s16": "%h"}
TYPES = ["u32", "s32", "u64", "s64", "b32", "u16"]


def statements():
    """Every carry form over the types, then the illegal neighbours."""
    out = []
    for ty in TYPES:
        r = REG[ty]
        for op in ["add.cc", "addc", "addc.cc", "sub.cc", "subc", "subc.cc"]:
            out.append(f"{op}.{ty} {r}5, {r}1, {r}2;")
        for op in ["mad.lo.cc", "mad.hi.cc", "madc.lo", "madc.hi", "madc.lo.cc", "madc.hi.cc"]:
            out.append(f"{op}.{ty} {r}5, {r}1, {r}2, {r}3;")
    out += ["add.cc.u32 %r5, %r1, 7;", "addc.u32 %r5, 0, 0;", "subc.cc.s32 %r5, -1, %r2;",
            "madc.hi.u32 %r5, %r1, %r2, 0;", "add.cc.sat.s32 %r5, %r1, %r2;",
            "add.sat.cc.s32 %r5, %r1, %r2;", "addc.sat.s32 %r5, %r1, %r2;",
            "sub.cc.sat.s32 %r5, %r1, %r2;", "mad.wide.cc.u32 %rd5, %r1, %r2, %rd3;",
            "madc.wide.u32 %rd5, %r1, %r2, %rd3;", "madc.u32 %r5, %r1, %r2, %r3;",
            "mad.cc.lo.u32 %r5, %r1, %r2, %r3;", "mul.lo.cc.u32 %r5, %r1, %r2;",
            "add.cc.cc.u32 %r5, %r1, %r2;", "addc.cc.cc.u32 %r5, %r1, %r2;",
            "add.cc.f32 %f5, %f1, %f2;", "add.cc.u16x2 %r5, %r1, %r2;",
            "mad.hi.sat.cc.s32 %r5, %r1, %r2, %r3;", "madc.hi.sat.s32 %r5, %r1, %r2, %r3;",
            "addc.cc.u32 %r5, %r1;", "neg.cc.s32 %r5, %r1;"]
    return out


def main():
    def lowest(text, target, ptxas):
        return verdict.first_accepted(
            VERSIONS[target], lambda v: verdict.assemble(ptxas, target, v, text))
    head = verdict.doc_head(__doc__, 25)
    verdict.write_target_grid(
        OUT, head, statements(),
        [lambda text, p=p, t=t, v=v: verdict.assemble(p, t, v, text) for t, p, v in TARGETS],
        [lambda text, t=t, p=p: lowest(text, t, p) for t, p, _ in TARGETS])


if __name__ == "__main__":
    sys.exit(main())
