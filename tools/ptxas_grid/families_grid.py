#!/usr/bin/env python3
"""ptxas's verdicts on `testp`, `fns`, `cvt.pack` and `bmsk`, per target.

Writes sim-isa/tests/data/{testp,fns,cvt-pack,bmsk}-ptxas.txt, read by
sim-isa/tests/it/families.rs: one line per statement,

    V50 V70 V72 V75 V80 V90 PTX TEXT

where each V is the verdict on that target (`accept`; `arch` when every
message is about the target: "requires .target sm_XX or higher"; `reject`
otherwise): sm_50, sm_70 and sm_72 from ptxas 11.8 at `.version 7.8`, the
others from ptxas 13.0.88 at `.version 9.0` (13.0.88 assembles nothing
below sm_75). PTX is the lowest `.version` the assembler of the lowest
accepting target takes the statement at, over the versions that target
allows (sm_50: 4.0 up; sm_70: 6.0 up; sm_72: 6.1 up; sm_75: 6.3 up), so a
statement read at the target's first version may be older still; `-` when
no target accepts it. Each `# ptxas:` line above a statement is a message.

Each statement is assembled alone inside a kernel declaring %r<9> .b32,
%rd<9> .b64, %f<9> .f32, %fd<9> .f64 and %p<9> .pred.

    PTXAS13=... PTXAS11=... tools/ptxas_grid/families_grid.py
"""

import os
import sys

from tools.ptxas_grid import verdict

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
PTXAS13 = os.environ.get("PTXAS13", "ptxas")
PTXAS11 = os.environ.get("PTXAS11", "ptxas")

TARGETS = [("sm_50", PTXAS11, "7.8"), ("sm_70", PTXAS11, "7.8"), ("sm_72", PTXAS11, "7.8"),
           ("sm_75", PTXAS13, "9.0"), ("sm_80", PTXAS13, "9.0"), ("sm_90", PTXAS13, "9.0")]
ALL_VERSIONS = ["1.0", "1.1", "1.2", "1.3", "1.4", "2.0", "2.1", "2.2", "2.3", "3.0", "3.1",
                "3.2", "4.0", "4.1", "4.2", "4.3", "5.0", "6.0", "6.1", "6.2", "6.3", "6.4",
                "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6", "7.7", "7.8", "8.0", "8.1",
                "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0"]
FIRST = {"sm_50": "4.0", "sm_70": "6.0", "sm_72": "6.1", "sm_75": "6.3", "sm_80": "7.0",
         "sm_90": "7.8"}
TESTP_OPS = ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]


def testp():
    """testp over its operations and types, with misspelt and mistyped neighbours."""
    return verdict.each(TESTP_OPS, "testp.{}.f32 %p1, %f1;", "testp.{}.f64 %p1, %fd1;") + [
        "testp.finite.f16 %p1, %r1;",
        "testp.normal.b32 %p1, %r1;",
        "testp.normal.ftz.f32 %p1, %f1;",
        "testp.f32 %p1, %f1;",
        "testp.finite.infinite.f32 %p1, %f1;",
        "testp.nan.f32 %p1, %f1;",
        "testp.normal.f32 %r1, %f1;",
    ]


def fns():
    """fns with register and immediate operands, and wrong types."""
    return [
        "fns.b32 %r1, %r2, %r3, %r4;",
        "fns.b32 %r1, %r2, 3, -1;",
        "fns.b32 %r1, 0xaaaaaaaa, %r3, 1;",
        "fns.u32 %r1, %r2, %r3, %r4;",
        "fns.s32 %r1, %r2, %r3, %r4;",
        "fns.b64 %rd1, %rd2, %r3, %r4;",
        "fns.b32 %r1, %r2, %r3;",
    ]


def cvt_pack():
    """cvt.pack over its destination types, with and without .sat and the third source."""
    sat, sat3, plain = ("cvt.pack.sat.{}.s32 %r1, %r2, %r3;", "cvt.pack.sat.{}.s32.b32 %r1, %r2, %r3, %r4;",
                        "cvt.pack.{}.s32 %r1, %r2, %r3;")
    narrow = ["u8", "s8", "u4", "s4", "u2", "s2"]
    return verdict.each(["u16", "s16"], sat, sat3, plain) + verdict.each(narrow, sat3, sat) + [
        "cvt.pack.u8.s32.b32 %r1, %r2, %r3, %r4;",
        "cvt.pack.sat.u8.u32.b32 %r1, %r2, %r3, %r4;",
        "cvt.pack.sat.u16.u32 %r1, %r2, %r3;",
        "cvt.pack.sat.u32.s32 %r1, %r2, %r3;",
        "cvt.pack.sat.u8.s32.u32 %r1, %r2, %r3, %r4;",
        "cvt.pack.sat.rn.u8.s32.b32 %r1, %r2, %r3, %r4;",
    ]


def bmsk():
    """bmsk's modes and operand kinds, and malformed neighbours."""
    return verdict.each(["clamp", "wrap"], "bmsk.{}.b32 %r1, %r2, %r3;", "bmsk.{}.b32 %r1, 1, 2;",
                        "bmsk.{}.b32 %r1, %r2, 40;") + [
        "bmsk.b32 %r1, %r2, %r3;",
        "bmsk.clamp.u32 %r1, %r2, %r3;",
        "bmsk.wrap.s32 %r1, %r2, %r3;",
        "bmsk.clamp.b64 %rd1, %rd2, %rd3;",
        "bmsk.clamp.wrap.b32 %r1, %r2, %r3;",
        "bmsk.clamp.b32 %r1, %r2;",
        "bmsk.clamp.b32 %r1, %r2, %r3, %r4;",
        "bmsk.clamp.b32 %rd1, %r2, %r3;",
        "bmsk.wrap.b32 %r1, %rd2, %r3;",
    ]


FAMILIES = {"testp": testp, "fns": fns, "cvt-pack": cvt_pack, "bmsk": bmsk}


def assemble(target, ptxas, version, text):
    """ptxas's verdict on text for target at version."""
    return verdict.assemble(ptxas, target, version, text)


def lowest_version(text, target, ptxas, top):
    """The lowest PTX version (from the target's first) at which target accepts text, '?' if
    none up to top does."""
    vs = ALL_VERSIONS[ALL_VERSIONS.index(FIRST[target]):ALL_VERSIONS.index(top) + 1]
    return verdict.first_accepted(vs, lambda v: assemble(target, ptxas, v, text))


def main():
    head = verdict.doc_head(__doc__, 25)
    judges = [lambda text, t=t, p=p, v=v: assemble(t, p, v, text) for t, p, v in TARGETS]
    lowests = [lambda text, t=t, p=p, top=top: lowest_version(text, t, p, top) for t, p, top in TARGETS]
    which = sys.argv[1:] or list(FAMILIES)
    for fam in which:
        path = os.path.join(ROOT, f"sim-isa/tests/data/{fam}-ptxas.txt")
        verdict.write_target_grid(path, head, FAMILIES[fam](), judges, lowests)


if __name__ == "__main__":
    sys.exit(main())
