#!/usr/bin/env python3
"""ptxas's verdicts on the async copies (`cp.async`, `cp.async.commit_group`,
`cp.async.wait_group`, `cp.async.wait_all`), `mbarrier`, and sm_90's bulk
copies (`cp.async.bulk`, its group statements) and `mbarrier` transaction
count (`expect_tx`, `complete_tx`, `arrive.expect_tx`).

Writes sim-isa/tests/data/async-ptxas.txt and async-sass.txt, read by
sim-isa/tests/it/async_copy.rs:

- `accept TEXT` / `reject TEXT` (a `# ptxas: MESSAGE` comment above each
  rejection): ptxas 13.0.88 -arch=sm_90 on the statement alone, .version 9.0,
  inside a kernel declaring %r<9> .b32, %rd<9> .b64, %p<9> .pred and a
  16-byte aligned `.shared .b8 sm[256]`;
- `gate TARGET VERSION ok|refused TEXT`: the same statement assembled for
  another target or PTX version (ptxas 13.0.88 for sm_75 and later, the
  older PTXAS11 (11.8) below that).
- async-sass.txt: `TEXT<tab>SASS ; SASS ...`, the machine instructions ptxas
  13.0.88 emits for sm_90 for each form (NVDISASM, nvdisasm 13): the kernel's
  listing less a reference kernel's (the same without the statement),
  opcode by opcode, parameter loads left out, operands as listed.

    PTXAS=$CUDA13_ROOT/bin/ptxas PTXAS11=/path/to/ptxas-11.8 python3 -m tools.ptxas_grid.async_grid

PTXAS and PTXAS11 default as verdict.py says.
"""

import os
import subprocess
import sys
import tempfile

from tools import sass_listing  # the one listing reader (sim-sass, through xtask)
from tools.ptxas_grid import verdict
from tools.ptxas_grid.verdict import PTXAS, PTXAS11, ROOT

OUT = os.path.join(ROOT, "sim-isa/tests/data/async-ptxas.txt")


def grid():
    g = []
    for cache in ["ca", "cg", "cs", ""]:
        for size in ["4", "8", "16", "2", "32"]:
            g.append(f"cp.async.{cache}.shared.global [%r1], [%rd1], {size};".replace("..", "."))
    for space in ["shared", "shared::cta", "shared::cluster", "global"]:
        for src in ["global", "shared", ""]:
            g.append(f"cp.async.ca.{space}.{src} [%r1], [%rd1], 16;".replace(". ", " "))
    for l2 in ["L2::64B", "L2::128B", "L2::256B", "L2::32B", "L2::evict_last"]:
        g.append(f"cp.async.ca.shared.global.{l2} [%r1], [%rd1], 16;")
        g.append(f"cp.async.cg.shared::cta.global.{l2} [%r1], [%rd1], 16, %r2;")
    g += [
        "cp.async.ca.shared.global [%r1], [%rd1], 16, %r2;",
        "cp.async.ca.shared.global [%r1], [%rd1], 16, 8;",
        "cp.async.ca.shared.global [%r1], [%rd1], 16, 0;",
        "cp.async.ca.shared.global [%r1], [%rd1], 16, 32;",
        "cp.async.ca.shared.global [%r1], [%rd1], 4, %r2;",
        "cp.async.cg.shared.global [%r1], [%rd1], 16, %rd2;",
        "cp.async.ca.shared.global [%r1], [%rd1], 16, %p1;",
        "cp.async.ca.shared.global [%r1], [%rd1], 16, !%p1;",
        "cp.async.ca.shared.global [%r1], [%rd1], 16, %r2, %p1;",
        "cp.async.ca.shared.global [%r1], [%rd1], %r2;",
        "cp.async.ca.shared.global [%r1], [%rd1];",
        "cp.async.ca.shared.global [%r1], %rd1, 16;",
        "cp.async.ca.shared.global [%rd1], [%rd2], 16;",
        "cp.async.ca.shared.global [sm], [%rd1], 16;",
        "cp.async.ca.shared.global [sm+16], [%rd1+32], 16;",
        "cp.async.ca.shared.global [%r1+4], [%rd1+-4], 4;",
        "cp.async.ca.shared.global [%r1], [%r2], 4;",
        "@%p1 cp.async.ca.shared.global [%r1], [%rd1], 16;",
        "cp.async.ca.shared.global.v4 [%r1], [%rd1], 16;",
        "cp.async.ca.shared.global.b32 [%r1], [%rd1], 4;",
        "cp.async.commit_group;", "cp.async.commit_group 1;", "cp.async.commit_group.b64;",
        "@%p1 cp.async.commit_group;",
        "cp.async.wait_group 0;", "cp.async.wait_group 1;", "cp.async.wait_group 7;",
        "cp.async.wait_group 100;", "cp.async.wait_group -1;", "cp.async.wait_group %r1;",
        "cp.async.wait_group;", "cp.async.wait_group 1, 2;",
        "cp.async.wait_all;", "cp.async.wait_all 0;", "@%p1 cp.async.wait_all;",
        "cp.async.wait;", "cp.async.commit;",
    ]
    g += mbarrier_grid()
    g += bulk_grid()
    return g


def bulk_grid():
    """The Hopper bulk copies (TMA 1D) and the mbarrier transaction count."""
    g2s = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
    s2s = "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
    s2g = "cp.async.bulk.global.shared::cta.bulk_group"
    g = [
        f"{g2s} [%r1], [%rd1], %r2, [%r3];", f"{g2s} [%r1], [%rd1], 256, [%r3];",
        f"{g2s} [%r1], [%rd1], 24, [%r3];", f"{g2s} [%r1], [%rd1], 8, [%r3];",
        f"{g2s} [%r1], [%rd1], %rd2, [%r3];", f"{g2s} [%r1], [%rd1], %r2;",
        f"{g2s} [sm], [%rd1+16], 64, [sm+128];", f"{g2s} [%rd2], [%rd1], %r2, [%rd3];",
        f"{g2s}.L2::cache_hint [%r1], [%rd1], %r2, [%r3], %rd2;",
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3];",
        "cp.async.bulk.shared.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3];",
        "cp.async.bulk.shared::cluster.global [%r1], [%rd1], %r2, [%r3];",
        "cp.async.bulk.shared::cluster.global.mbarrier [%r1], [%rd1], %r2, [%r3];",
        "@%p1 " + f"{g2s} [%r1], [%rd1], %r2, [%r3];",
        f"{s2s} [%r1], [%r2], %r3, [%r4];", f"{s2s} [%r1], [%r2], 32, [%r4];",
        f"{s2g} [%rd1], [%r1], %r2;", f"{s2g} [%rd1], [%r1], 64;", f"{s2g} [%rd1], [%r1], 20;",
        f"{s2g} [%rd1+32], [sm+16], 16;", f"{s2g}.L2::cache_hint [%rd1], [%r1], %r2, %rd2;",
        f"{s2g} [%rd1], [%r1], %r2, [%r3];",
        "cp.async.bulk.global.shared::cta [%rd1], [%r1], %r2;",
        "cp.async.bulk.global.shared.bulk_group [%rd1], [%r1], %r2;",
        "cp.async.bulk.prefetch.L2.global [%rd1], %r2;",
        "cp.async.bulk.commit_group;", "cp.async.bulk.commit_group 1;", "@%p1 cp.async.bulk.commit_group;",
        "cp.async.bulk.wait_group 0;", "cp.async.bulk.wait_group 3;", "cp.async.bulk.wait_group.read 0;",
        "cp.async.bulk.wait_group.read 2;", "cp.async.bulk.wait_group %r1;", "cp.async.bulk.wait_group;",
        "cp.async.bulk.wait_group.write 0;", "cp.async.bulk.wait_all;",
    ]
    for op in ["expect_tx", "complete_tx"]:
        g += [
            f"mbarrier.{op}.relaxed.cta.shared::cta.b64 [%r1], %r2;",
            f"mbarrier.{op}.relaxed.cluster.shared::cluster.b64 [%r1], %r2;",
            f"mbarrier.{op}.relaxed.cta.shared.b64 [%r1], 64;",
            f"mbarrier.{op}.relaxed.cta.b64 [%rd1], %r2;",
            f"mbarrier.{op}.shared::cta.b64 [%r1], %r2;",
            f"mbarrier.{op}.b64 [%rd1], %r2;",
            f"mbarrier.{op}.release.cta.shared::cta.b64 [%r1], %r2;",
            f"mbarrier.{op}.relaxed.cta.shared::cta.b64 [%r1], %rd2;",
            f"mbarrier.{op}.relaxed.cta.shared::cta.b64 [%r1];",
            f"mbarrier.{op}.relaxed.cta.shared::cta.b32 [%r1], %r2;",
            f"mbarrier.{op}.relaxed.cta.global.b64 [%rd1], %r2;",
        ]
    g += [
        "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd2, [%r1], %r2;",
        "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%r1], %r2;",
        "mbarrier.arrive.expect_tx.release.cta.shared::cluster.b64 %rd2, [%r1], %r2;",
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 1024;",
        "mbarrier.arrive.expect_tx.b64 %rd2, [%rd1], %r2;",
        "mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 %rd2, [%r1], %r2;",
        "mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1];",
        "mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1], %r2, %r3;",
        "mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1], %rd3;",
        "mbarrier.arrive.noComplete.expect_tx.shared::cta.b64 %rd2, [%r1], %r2;",
        "mbarrier.arrive_drop.expect_tx.shared::cta.b64 %rd2, [%r1], %r2;",
        "mbarrier.arrive_drop.expect_tx.release.cluster.shared::cluster.b64 _, [%r1], %r2;",
        "mbarrier.arrive.shared::cluster.b64 _, [%r1];",
        "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r1], %r2;",
        "mbarrier.try_wait.parity.shared::cluster.b64 %p1, [%r1], %r2;",
        "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p1, [%r1], %r2;",
    ]
    return g


def mbarrier_grid():
    g = []
    for sp in [".shared", ".shared::cta", "", ".shared::cluster", ".global"]:
        a = "[%rd1]" if sp in ("", ".global") else "[%r1]"
        g += [
            f"mbarrier.init{sp}.b64 {a}, %r2;",
            f"mbarrier.arrive{sp}.b64 %rd2, {a};",
            f"mbarrier.arrive_drop{sp}.b64 %rd2, {a}, 2;",
            f"mbarrier.test_wait{sp}.b64 %p1, {a}, %rd2;",
            f"mbarrier.try_wait.parity{sp}.b64 %p1, {a}, %r2;",
            f"mbarrier.inval{sp}.b64 {a};",
            f"cp.async.mbarrier.arrive{sp}.b64 {a};",
        ]
    g += [
        "mbarrier.init.shared.b64 [%r1], 4;", "mbarrier.init.shared.b64 [sm], 32;",
        "mbarrier.init.shared.b64 [%r1], %rd2;", "mbarrier.init.shared.b64 [%r1];",
        "mbarrier.init.shared.b32 [%r1], %r2;", "mbarrier.init.shared.b64 %r1, %r2;",
        "mbarrier.arrive.shared.b64 %rd2, [%r1], 2;", "mbarrier.arrive.shared.b64 %rd2, [%r1], %r2;",
        "mbarrier.arrive.shared.b64 _, [%r1];", "mbarrier.arrive.shared.b64 %r3, [%r1];",
        "mbarrier.arrive.shared.b64 %rd2, [%r1], %rd3;", "mbarrier.arrive.shared.b64 [%r1];",
        "mbarrier.arrive.noComplete.shared.b64 %rd2, [%r1], %r2;",
        "mbarrier.arrive.noComplete.shared.b64 %rd2, [%r1];",
        "mbarrier.arrive.release.cta.shared::cta.b64 %rd2, [%r1], %r2;",
        "mbarrier.arrive.release.cta.shared.b64 %rd2, [%r1];",
        "mbarrier.arrive.relaxed.cta.shared::cta.b64 %rd2, [%r1];",
        "mbarrier.arrive.release.cluster.shared::cta.b64 %rd2, [%r1];",
        "mbarrier.arrive.release.shared::cta.b64 %rd2, [%r1];",
        "mbarrier.arrive.cta.shared::cta.b64 %rd2, [%r1];",
        "mbarrier.arrive.acquire.cta.shared::cta.b64 %rd2, [%r1];",
        "mbarrier.arrive_drop.shared.b64 %rd2, [%r1];", "mbarrier.arrive_drop.shared.b64 _, [%r1], %r2;",
        "mbarrier.arrive_drop.noComplete.shared.b64 %rd2, [%r1], 1;",
        "mbarrier.arrive_drop.release.cta.shared::cta.b64 %rd2, [%r1];",
        "mbarrier.arrive.expect_tx.shared.b64 %rd2, [%r1], 16;",
        "mbarrier.test_wait.shared.b64 %p1, [%r1], %rd2;", "mbarrier.test_wait.shared.b64 %p1, [%r1], %r2;",
        "mbarrier.test_wait.parity.shared.b64 %p1, [%r1], %r2;",
        "mbarrier.test_wait.parity.shared.b64 %p1, [%r1], 1;",
        "mbarrier.test_wait.parity.shared.b64 %p1, [%r1], %rd2;",
        "mbarrier.test_wait.shared.b64 %r3, [%r1], %rd2;",
        "mbarrier.test_wait.acquire.cta.shared::cta.b64 %p1, [%r1], %rd2;",
        "mbarrier.test_wait.parity.relaxed.cta.shared::cta.b64 %p1, [%r1], %r2;",
        "mbarrier.try_wait.shared.b64 %p1, [%r1], %rd2;",
        "mbarrier.try_wait.shared.b64 %p1, [%r1], %rd2, %r3;",
        "mbarrier.try_wait.shared.b64 %p1, [%r1], %rd2, 1000;",
        "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2;",
        "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0, %r3;",
        "mbarrier.try_wait.acquire.cta.shared::cta.b64 %p1, [%r1], %rd2;",
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p1, [%r1], %r2;",
        "mbarrier.try_wait.shared.b64 %p1, [%r1];",
        "mbarrier.pending_count.b64 %r2, %rd2;", "mbarrier.pending_count.b64 %rd3, %rd2;",
        "mbarrier.pending_count.b64 %r2, %r3;", "mbarrier.pending_count.shared.b64 %r2, %rd2;",
        "mbarrier.pending_count.b64 %r2, [%r1];",
        "mbarrier.inval.shared.b64 [%r1], %r2;",
        "cp.async.mbarrier.arrive.noinc.shared.b64 [%r1];",
        "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r1];",
        "cp.async.mbarrier.arrive.shared.b64 [%r1], 1;",
        "cp.async.mbarrier.arrive.shared.b32 [%r1];",
        "@%p1 mbarrier.arrive.shared.b64 %rd2, [%r1];",
        "mbarrier.wait.shared.b64 %p1, [%r1], %rd2;",
    ]
    return g


# (target, version, statement): the gates, each near its edge.
GATES = [(t, v, s) for s in ["cp.async.ca.shared.global [%r1], [%rd1], 16;", "cp.async.commit_group;",
                             "cp.async.wait_group 1;", "cp.async.wait_all;",
                             "cp.async.cg.shared::cta.global [%r1], [%rd1], 16, %r2;"]
         for t, v in [("sm_80", "7.0"), ("sm_75", "9.0"), ("sm_70", "7.0"), ("sm_86", "7.1")]] + \
    [(t, v, s) for s in ["cp.async.ca.shared.global.L2::128B [%r1], [%rd1], 16;",
                         "cp.async.cg.shared.global.L2::256B [%r1], [%rd1], 16, %r2;"]
     for t, v in [("sm_80", "7.3"), ("sm_80", "7.4")]] + \
    [(t, v, s) for s in ["cp.async.ca.shared.global [%r1], [%rd1], 16, %p1;"]
     for t, v in [("sm_80", "7.4"), ("sm_80", "7.5")]] + \
    [(t, v, s) for s in ["mbarrier.init.shared.b64 [%r1], %r2;", "mbarrier.arrive.shared.b64 %rd2, [%r1];",
                         "mbarrier.test_wait.shared.b64 %p1, [%r1], %rd2;", "mbarrier.inval.shared.b64 [%r1];",
                         "mbarrier.pending_count.b64 %r2, %rd2;", "cp.async.mbarrier.arrive.shared.b64 [%r1];",
                         "mbarrier.arrive.noComplete.shared.b64 %rd2, [%r1], %r2;",
                         "mbarrier.arrive_drop.shared.b64 %rd2, [%r1];",
                         "mbarrier.test_wait.parity.shared.b64 %p1, [%r1], %r2;",
                         "mbarrier.try_wait.shared.b64 %p1, [%r1], %rd2;",
                         "mbarrier.arrive.shared.b64 %rd2, [%r1], %r2;",
                         "mbarrier.arrive.shared::cta.b64 %rd2, [%r1];",
                         "mbarrier.arrive.release.cta.shared::cta.b64 %rd2, [%r1];",
                         "mbarrier.arrive.shared.b64 _, [%r1];",
                         "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r1];"]
     for t, v in [("sm_80", "7.0"), ("sm_75", "9.0"), ("sm_80", "7.1"), ("sm_80", "7.8"), ("sm_90", "7.8"),
                  ("sm_80", "7.7"), ("sm_90", "8.0"), ("sm_80", "8.0")]] + \
    [(t, v, s) for s in ["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3];",
                         "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r1], [%r2], %r3, [%r4];",
                         "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], %r2;",
                         "cp.async.bulk.commit_group;", "cp.async.bulk.wait_group 0;",
                         "cp.async.bulk.wait_group.read 0;",
                         "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], %r2;",
                         "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], %r2;",
                         "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd2, [%r1], %r2;",
                         "mbarrier.arrive.expect_tx.shared.b64 %rd2, [%r1], 16;",
                         "mbarrier.arrive.shared::cluster.b64 _, [%r1];"]
     for t, v in [("sm_90", "7.8"), ("sm_90", "8.0"), ("sm_89", "8.0"), ("sm_80", "9.0")]]


NVDISASM = os.environ.get("NVDISASM", os.path.join(ROOT, "tools/.cache/py/nvidia/cu13/bin/nvdisasm"))
SASS_OUT = os.path.join(ROOT, "sim-isa/tests/data/async-sass.txt")
SASS_FORMS = [
    f"cp.async.{c}.shared.global{l2} [%r1], [%rd1], {n}{extra};"
    for c, sizes in [("ca", [4, 8, 16]), ("cg", [16])] for n in sizes
    for l2, extra in [("", ""), (".L2::128B", ""), ("", ", %r2"), ("", ", 2"), ("", f", {n}"), ("", ", %p1")]
] + ["cp.async.commit_group;", "cp.async.wait_group 0;", "cp.async.wait_group 3;", "cp.async.wait_all;"] + [
    "mbarrier.init.shared.b64 [%r1], %r2;", "mbarrier.init.b64 [%rd1], %r2;",
    "mbarrier.arrive.shared.b64 %rd2, [%r1];\nst.global.u64 [%rd1+72], %rd2;",
    "mbarrier.arrive.shared.b64 %rd2, [%r1], %r2;\nst.global.u64 [%rd1+72], %rd2;",
    "mbarrier.arrive.release.cta.shared::cta.b64 %rd2, [%r1];\nst.global.u64 [%rd1+72], %rd2;",
    "mbarrier.arrive.b64 %rd2, [%rd1];\nst.global.u64 [%rd1+72], %rd2;",
    "mbarrier.arrive_drop.shared.b64 %rd2, [%r1];\nst.global.u64 [%rd1+72], %rd2;",
    "mbarrier.test_wait.shared.b64 %p2, [%r1], %rd1;\nselp.u32 %r3, 1, 0, %p2;\nst.global.u32 [%rd1+72], %r3;",
    "mbarrier.test_wait.parity.shared.b64 %p2, [%r1], %r2;\nselp.u32 %r3, 1, 0, %p2;\nst.global.u32 [%rd1+72], %r3;",
    "mbarrier.try_wait.shared.b64 %p2, [%r1], %rd1;\nselp.u32 %r3, 1, 0, %p2;\nst.global.u32 [%rd1+72], %r3;",
    "mbarrier.try_wait.parity.shared.b64 %p2, [%r1], %r2;\nselp.u32 %r3, 1, 0, %p2;\nst.global.u32 [%rd1+72], %r3;",
    "mbarrier.pending_count.b64 %r3, %rd1;\nst.global.u32 [%rd1+72], %r3;",
    "mbarrier.inval.shared.b64 [%r1];",
    "cp.async.mbarrier.arrive.shared.b64 [%r1];",
    "cp.async.mbarrier.arrive.noinc.shared.b64 [%r1];",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r1];",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r1];",
    "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r1], [%r2], 64, [%r1];",
    "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], %r2;",
    "cp.async.bulk.commit_group;", "cp.async.bulk.wait_group 0;", "cp.async.bulk.wait_group.read 0;",
    "cp.async.bulk.wait_group.read 2;",
    "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], %r2;",
    "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], %r2;",
    "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd2, [%r1], %r2;\nst.global.u64 [%rd1+72], %rd2;",
]


def sass_body(stmt, tmp):
    """The listing of a kernel whose inputs come from parameters, as (opcode, text)."""
    path = os.path.join(tmp, "l.ptx")
    with open(path, "w") as f:
        f.write(""".version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pp, .param .u32 pq, .param .u32 pr)
{
.reg .b32 %r<9>; .reg .b64 %rd<9>; .reg .pred %p<9>;
ld.param.u64 %rd1, [pp];
ld.param.u32 %r1, [pq];
ld.param.u32 %r2, [pr];
setp.eq.u32 %p1, %r2, 0;
""" + stmt + """
@%p1 st.global.u32 [%rd1+64], %r1;
st.global.u32 [%rd1+68], %r2;
ret;
}
""")
    cubin = os.path.join(tmp, "l.cubin")
    subprocess.run([PTXAS, "-arch=sm_90", path, "-o", cubin], check=True)
    out = subprocess.run([NVDISASM, "-c", cubin], capture_output=True, text=True, check=True).stdout
    return [(t.opcode, " ".join(t.split())) for t in sass_listing.instructions(out, "sm_90")]


def sass_rows(tmp):
    base = [op for op, _ in sass_body("", tmp)]
    rows = []
    for s in SASS_FORMS:
        left = list(base)
        mine = []
        for op, text in sass_body(s, tmp):
            # Parameter loads (`LDC`, `ULDC`) are the kernel's setup, which
            # ptxas schedules differently with and without the statement.
            if op in left:
                left.remove(op)
            elif not op.startswith(("LDC", "ULDC")):
                mine.append(text)
        rows.append(f"{s.split(chr(10))[0]}\t{' ; '.join(mine)}")
    return rows


def run(ptxas, version, target, stmt, tmp):
    """(accepted, messages) of ptxas on stmt at version for target."""
    src = verdict.param_kernel(version, target, stmt, ".shared .align 16 .b8 sm[256];\n")
    rc, msg = verdict.messages(ptxas, target, src, tmp)
    return rc == 0, msg


# The grid file's comment head.
HEAD = verdict.gated_head([
    "# ptxas 13.0.88 (-arch=sm_90, .version 9.0, .address_size 64) on each async copy",
    "# statement alone, in a kernel declaring %r<9> .b32, %rd<9> .b64, %p<9> .pred, .shared sm[256]:",
], "async_grid", "async_copy")


def main():
    lines = list(HEAD)
    with tempfile.TemporaryDirectory() as tmp:
        lines += verdict.verdict_lines(verdict.message_judge(run, PTXAS, PTXAS11, tmp), grid(), GATES)
        sass = sass_rows(tmp)
    verdict.write_lines(OUT, lines)
    with open(SASS_OUT, "w") as f:
        f.write("# ptxas 13.0.88 -arch=sm_90 and nvdisasm 13: each form's machine instructions (the\n"
                "# kernel's listing less the same kernel's without it). Made by\n"
                "# tools/ptxas_grid/async_grid.py; tests/it/async_copy.rs reads it.\n")
        f.write("\n".join(sass) + "\n")
    print(f"{verdict.tally(lines)} -> {OUT}")


if __name__ == "__main__":
    sys.exit(main())
