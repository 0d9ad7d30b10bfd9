#!/usr/bin/env python3
"""Derive sim-core/data/forwarding-sm90.tsv: how many clocks ptxas waits between
a fixed-latency machine instruction and a dependent one, per pair of opcodes.

On Volta and later, ptxas schedules fixed-latency pipes by the stall count it
writes into each instruction's control bits (bits 41-44 of the high word; a
variable-latency producer sets a write barrier instead, bits 46-48, and its
consumer waits on it). In a single dependent chain the distance in issue
clocks from a producer to its first consumer, the sum of the stall counts in
between, is therefore the compiler's own figure for the result latency from
that producer to that consumer. This script assembles chains that alternate
two forms A and B (A->B->A->..., five times each, so both directions occur
several times), with ptxas 13.0.88 (the release of the H100 measurements) for
sm_90, decodes the control bits of the machine code, and records the smallest
distance seen most often (and the smallest) for each (producer, consumer)
opcode pair with a fixed-latency producer and a consumer that waits on no
barrier (its issue could be later than the stall counts say). The most common
distance is the figure: a few pairs are closer where ptxas's own reasons are
not visible (an XU consumer 4 clocks after an ALU producer in 14 of 99 cases,
6 in the rest).

Rows (tab-separated): producer, consumer, clocks (most common distance; the
smaller on a tie), least, pairs (how many times the pair was seen).
sim-core's `pipes` tests hold the sm_90 pipe model to it.

Usage: python3 -m tools.lowering.derive_forwarding [-o sim-core/data/forwarding-sm90.tsv]
Installs ptxas/nvdisasm into tools/.cache/sass (git-ignored) on first use, as
derive_sass.py does (PTXAS_90/NVDISASM_90 override).
"""

import argparse
import collections
import itertools
import os
import re
import subprocess
import sys
import tempfile

from tools import sass_listing  # the one listing reader (sim-sass, through xtask)
from tools.lowering import derive_sass  # tool installation is shared, not copied

ROOT = derive_sass.ROOT

# Each form reads {s} and writes {d} (32-bit registers); %k1, %k2 are loaded
# operands, %fd9 a loaded f64. 64-bit forms take {s} as the low half of a pair.
FORMS = {
    "lop3": ["lop3.b32 {d}, {s}, %k1, %k2, 0x96;"],
    "iadd3": ["add.u32 {d}, {s}, %k1;"],
    "shf": ["shf.l.wrap.b32 {d}, {s}, %k1, %k2;"],
    "prmt": ["prmt.b32 {d}, {s}, %k1, 0x5140;"],
    "imnmx": ["min.u32 {d}, {s}, %k1;"],
    "iabs": ["abs.s32 {d}, {s};"],
    "i2i": ["cvt.sat.s8.s32 {d}, {s};"],
    "i2f": ["cvt.rn.f32.s32 {d}, {s};"],
    "isetp": ["setp.lt.u32 %p1, {s}, %k1;", "selp.b32 {d}, {s}, %k2, %p1;"],
    "fsetp": ["setp.lt.f32 %p1, {s}, %k1;", "selp.b32 {d}, {s}, %k2, %p1;"],
    "fset": ["set.lt.f32.f32 {d}, {s}, %k1;"],
    "hset2": ["set.lt.f16x2.f16x2 {d}, {s}, %k1;"],
    "fmnmx": ["min.f32 {d}, {s}, %k1;"],
    "imad": ["mad.lo.u32 {d}, {s}, %k1, %k2;"],
    "imadhi": ["mul.hi.u32 {d}, {s}, %k1;"],
    "imadw": ["mul.wide.u32 %rd3, {s}, %k1;", "mov.b64 {{{d}, %t1}}, %rd3;"],
    "ffma": ["fma.rn.f32 {d}, {s}, %k1, %k2;"],
    "fadd": ["add.rn.f32 {d}, {s}, %k1;"],
    "fmul": ["mul.rn.f32 {d}, {s}, %k1;"],
    "hadd2": ["add.rn.f16x2 {d}, {s}, %k1;"],
    "hfma2": ["fma.rn.f16x2 {d}, {s}, %k1, %k2;"],
    "hsetp2": ["setp.lt.f16x2 %p1|%p2, {s}, %k1;", "selp.b32 {d}, {s}, %k2, %p1;"],
    "popc": ["popc.b32 {d}, {s};"],
    "flo": ["clz.b32 {d}, {s};"],
    "brev": ["brev.b32 {d}, {s};"],
    "f2i": ["cvt.rzi.s32.f32 {d}, {s};"],
    "ex2": ["ex2.approx.ftz.f32 {d}, {s};"],
    "dadd": ["mov.b64 %fd1, {{{s}, %k1}};", "add.rn.f64 %fd2, %fd1, %fd9;", "mov.b64 {{{d}, %t1}}, %fd2;"],
    "dfma": ["mov.b64 %fd1, {{{s}, %k1}};", "fma.rn.f64 %fd2, %fd1, %fd9, %fd9;", "mov.b64 {{{d}, %t1}}, %fd2;"],
    "dsetp": ["mov.b64 %fd1, {{{s}, %k1}};", "setp.lt.f64 %p1, %fd1, %fd9;", "selp.b32 {d}, {s}, %k2, %p1;"],
}
ROUNDS = 5


def module():
    """One sm_90 kernel per ordered pair of forms, alternating them in a dependent chain, so
    that ptxas's stall counts show the wait between each pair of opcodes."""
    out = [".version 8.0", ".target sm_90", ".address_size 64"]
    for a, b in itertools.product(FORMS, FORMS):
        body, n, cur = [], 0, "%r0"
        for _ in range(ROUNDS):
            for f in (a, b):
                n += 1
                body += ["  " + line.format(d=f"%r{n}", s=cur) for line in FORMS[f]]
                cur = f"%r{n}"
        out.append(
            f".visible .entry k_{a}__{b}(.param .u64 p) {{\n"
            " .reg .b32 %r<64>; .reg .b32 %k<4>; .reg .b32 %t<4>; .reg .b64 %rd<4>;"
            " .reg .f64 %fd<10>; .reg .pred %p<4>;\n"
            " ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd2, %rd1;\n"
            " ld.global.u32 %r0, [%rd2]; ld.global.u32 %k1, [%rd2+4];"
            " ld.global.u32 %k2, [%rd2+8]; ld.global.f64 %fd9, [%rd2+24];\n"
            + "\n".join(body)
            + f"\n st.global.u32 [%rd2+16], {cur};\n ret; }}"
        )
    return "\n".join(out) + "\n"


def listing():
    """The `nvdisasm -hex -c` listing of module() assembled by the pinned ptxas 13.0.88."""
    ptxas, nvdisasm = derive_sass.tools("sm_90")
    with tempfile.TemporaryDirectory() as tmp:
        src, cub = os.path.join(tmp, "f.ptx"), os.path.join(tmp, "f.cubin")
        with open(src, "w") as f:
            f.write(module())
        subprocess.run([ptxas, "-arch=sm_90", src, "-o", cub], check=True)
        return subprocess.run([nvdisasm, "-hex", "-c", cub], capture_output=True, text=True, check=True).stdout


def functions(text):
    """[(instruction, stall, write barrier, wait mask)] per function, the instruction a
    sass_listing.Line (read by the Rust reader) with its control fields."""
    for lines in sass_listing.functions(text, "sm_90").values():
        insts = [(t, t.control["stall"], t.control["write_barrier"], t.control["wait_mask"])
                 for t in lines if t.kind == "inst" and t.control is not None]
        # The chains end before the first NOP, BRA or EXIT (the kernel's tail).
        end = next((i for i, x in enumerate(insts) if x[0].startswith(("NOP", "BRA", "EXIT"))), len(insts))
        yield insts[:end]


def dests_sources(inst):
    """(opcode, destinations, sources) of an instruction: SETPs write predicates, f64 and
    .WIDE forms use register pairs, RZ is no register (general registers and P0-P9 only)."""
    op = inst.opcode
    ops = [[r for r in o if re.fullmatch(r"R\d+|P\d", r)] for o in inst.operand_regs] or [[]]
    base = inst.base
    if base.endswith("SETP"):
        d = [o for o in inst.operands[:2] if re.fullmatch(r"P\d", o)]
        s = [r for o in ops[2:] for r in o]
    else:
        d, s = ops[0], [r for o in ops[1:] for r in o]
    pair = lambda r: [r, f"R{int(r[1:]) + 1}"] if r.startswith("R") else [r]  # noqa: E731
    if base.startswith("D"):  # f64: register pairs
        d = [x for r in d for x in pair(r)]
        s = [x for r in s for x in pair(r)]
    elif ".WIDE" in op:
        d = [x for r in d for x in pair(r)]
    return op, d, s


def pairs(text):
    """{(producer, consumer): [clocks]}: for each fixed-latency instruction (no write
    barrier) the clocks ptxas's stall counts put before its first reader that waits on no
    barrier, the forwarding latency the schedule assumes."""
    seen = collections.defaultdict(list)
    for insts in functions(text):
        clock = [0]
        for i in insts:
            clock.append(clock[-1] + max(i[1], 1))
        for i, (t, _, wbar, _) in enumerate(insts):
            op, d, _ = dests_sources(t)
            if op.startswith(("LD", "ULD", "ST", "S2R")) or wbar != 7 or not d:
                continue
            for j in range(i + 1, len(insts)):
                op2, d2, s2 = dests_sources(insts[j][0])
                if set(d) & set(s2):
                    if not op2.startswith("ST") and insts[j][3] == 0:
                        seen[(op, op2)].append(clock[j] - clock[i])
                    break
                if set(d) & set(d2):
                    break
    return seen


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--out", default=os.path.join(ROOT, "sim-core/data/forwarding-sm90.tsv"))
    args = ap.parse_args()
    seen = pairs(listing())
    with open(args.out, "w") as f:
        f.write("# producer\tconsumer\tclocks\tleast\tpairs\n")
        f.write(
            "# Generated by tools/lowering/derive_forwarding.py; do not edit by hand. "
            f"Tools: sm_90 {derive_sass.VERSIONS['sm_90']}. clocks: the smallest issue distance "
            "ptxas leaves most often from a fixed-latency producer to its first dependent "
            "instruction (stall counts of the control bits; the consumer waits on no barrier) in chains "
            "alternating two forms; least: the smallest\n"
        )
        for (p, c), v in sorted(seen.items()):
            common = collections.Counter(v).most_common()
            clocks = min(k for k, n in common if n == common[0][1])
            f.write(f"{p}\t{c}\t{clocks}\t{min(v)}\t{len(v)}\n")
    print(f"{len(seen)} pairs -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
