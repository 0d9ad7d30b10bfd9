#!/usr/bin/env python3
"""ptxas's verdicts on a grid of memory- and warp-family statements.

Writes sim-isa/tests/data/mem-ptxas.txt: one `accept TEXT` or `reject TEXT`
line per statement (a `# ptxas: MESSAGE` comment above each rejection), read
by sim-isa/tests/it/mem.rs, which checks the instruction parser agrees.

Each statement is assembled alone (`ptxas -arch=sm_90`) inside a kernel that
declares every register and variable the grid names, so a verdict is about
the statement's own syntax: registers are declared at the width the form
gives them (%r b32, %rd b64, %h b16, %f f32, %fd f64, %q b128, %p pred) and
each variable lies in the space the statement names.

    PTXAS=/path/to/ptxas python3 -m tools.ptxas_grid.mem_grid

PTXAS defaults to the git-ignored tools/.cache/sass/nvcc13/nvidia/cu13/bin/ptxas
(installed by tools/lowering/derive_sass.py). The recorded file was made
with ptxas 13.0.88.
"""

import os
import tempfile

from tools.ptxas_grid.verdict import PTXAS, ROOT, each, messages, tally, verdict_lines, write_lines

OUT = os.path.join(ROOT, "sim-isa/tests/data/mem-ptxas.txt")

HEAD = """.version 9.0
.target sm_90
.address_size 64
.global .align 16 .b8 gvar[256];
.const .align 16 .b8 cvar[256];
.visible .entry k(.param .u64 pp)
{
.reg .b32 %r<9>; .reg .b64 %rd<9>; .reg .b16 %h<9>; .reg .pred %p<9>;
.reg .f32 %f<9>; .reg .f64 %fd<9>; .reg .b128 %q<9>;
.shared .align 16 .b8 svar[256];
.local .align 16 .b8 lvar[256];
"""

# A register of each memory type's width.
REG = {
    "b8": "%r", "u8": "%r", "s8": "%r",
    "b16": "%h", "u16": "%h", "s16": "%h", "f16": "%h",
    "b32": "%r", "u32": "%r", "s32": "%r", "f16x2": "%r",
    "b64": "%rd", "u64": "%rd", "s64": "%rd",
    "f32": "%f", "f64": "%fd", "b128": "%q", "pred": "%p",
}
TYPES = list(REG)
VAR = {"global": "gvar", "shared": "svar", "shared::cta": "svar", "shared::cluster": "svar", "local": "lvar",
       "const": "cvar", "param": "pp", "": "gvar"}


def sp(space):
    """A state space as an instruction word (`.global`), or nothing for generic addressing."""
    return f".{space}" if space else ""


def regs(ty, n, first=1):
    """n registers of type ty from `first`: one name, or a vector brace list."""
    r = REG[ty]
    names = [f"{r}{first + k}" for k in range(n)]
    return names[0] if n == 1 else "{" + ", ".join(names) + "}"


def read_modify_write(name, types):
    """`NAME.global.OP.TYPE` for every operation and type, global address %rd1, source
    REG2 (and REG3 for cas); atom writes REG1, red has no destination."""
    out = []
    for op in ["add", "min", "max", "exch", "cas", "and", "or", "xor", "inc", "dec"]:
        for ty in types:
            r = REG[ty]
            dst = f"{r}1, " if name == "atom" else ""
            extra = f", {r}3" if op == "cas" else ""
            out.append(f"{name}.global.{op}.{ty} {dst}[%rd1], {r}2{extra};")
    return out


def grid():
    """Every statement of the memory and warp-family grid: ld/ldu/st over types, state
    spaces, address forms and vectors, atom and red, fences and membar, barriers, shfl,
    vote and activemask, cvta, and their malformed neighbours."""
    g = []
    # ld/st: every type, global.
    for ty in TYPES:
        g.append(f"ld.global.{ty} {regs(ty, 1)}, [%rd1];")
        g.append(f"st.global.{ty} [%rd1], {regs(ty, 1)};")
    # Every space, register and variable addresses.
    for space in ["", "global", "shared", "shared::cta", "shared::cluster", "local", "const", "param", "tex"]:
        g.append(f"ld{sp(space)}.u32 %r1, [%rd1];")
        g.append(f"ld{sp(space)}.u32 %r1, [{VAR.get(space, 'gvar')}+4];")
        g.append(f"st{sp(space)}.u32 [%rd1+8], %r1;")
    g += [
        "ld.shared.u32 %r1, [%r2];",
        "ld.shared.u32 %r1, [%r2+-4];",
        "ld.global.u32 %r1, [%rd1-8];",
        "ld.global.u32 %r1, [%rd1+0x10];",
        "ld.global.u32 %r1, [128];",
        "ld.global.u32 %r1, [gvar];",
        "ld.global.u32 %r1, [%rd1+%rd2];",
        "ld.global.u32 %r1, [%rd1+gvar];",
        "ld.global.u32 %r1, %rd1;",
        "ld.global.u32 %r1, [];",
        "ld.global.u32 %r1, [%rd1];",
        "ld.global.u32 [%rd1], %r1;",
        "ld.global.u32 %r1;",
        "ld.global.u32 %r1, [%rd1], %r2;",
        "ld.global.u32 5, [%rd1];",
        "ld.global %r1, [%rd1];",
        "ld.global.u32.u32 %r1, [%rd1];",
        "ld.global.global.u32 %r1, [%rd1];",
        "ld.global.shared.u32 %r1, [%rd1];",
        "st.global.u32 %r1, [%rd1];",
        "st.global.u32 [%rd1];",
        "st.global.u32 [%rd1], 5;",
        "st.global.u32 [%rd1], -1;",
        "st.global.f32 [%rd1], 0f3F800000;",
        "st.global.u32 [%rd1], %r1, %r2;",
        "st.const.u32 [cvar], %r1;",
        "st.param.u64 [pp], %rd1;",
        "ld.param.u64 %rd1, [pp];",
        "ld.param.u64 %rd1, [pp+8];",
    ]
    # Vectors.
    for ty in ["u8", "s16", "u32", "f32", "u64", "f64", "b128"]:
        for v in [2, 4]:
            g.append(f"ld.global.v{v}.{ty} {regs(ty, v)}, [%rd1];")
            g.append(f"st.global.v{v}.{ty} [%rd1], {regs(ty, v)};")
    g += [
        "ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [svar];",
        "ld.global.v8.u32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];",
        "ld.global.v3.u32 {%r1, %r2, %r3}, [%rd1];",
        "ld.global.v2.u32 {%r1}, [%rd1];",
        "ld.global.v2.u32 {%r1, %r2, %r3}, [%rd1];",
        "ld.global.v2.u32 %r1, [%rd1];",
        "ld.global.v2.v4.u32 {%r1, %r2}, [%rd1];",
        "ld.global.u32 {%r1, %r2}, [%rd1];",
        "st.global.v2.u32 [%rd1], {%r1, 7};",
        "st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};",
        "st.global.v2.u32 [%rd1], {%r1, %r2, %r3};",
        "ld.global.v2.pred {%p1, %p2}, [%rd1];",
    ]
    # Cache operators, .volatile, memory order and scope.
    for q in ["ca", "cg", "cs", "lu", "cv", "nc", "wb", "wt", "volatile", "weak", "relaxed.gpu",
              "relaxed.cta", "relaxed.sys", "relaxed.cluster", "acquire.gpu", "release.gpu",
              "acq_rel.gpu", "relaxed", "acquire", "mmio.relaxed.sys", "L1::evict_last",
              "L1::evict_first", "L1::evict_normal", "L1::no_allocate", "L2::evict_last",
              "L2::64B", "ca.cg", "volatile.relaxed.gpu", "nc.ca", "sys"]:
        g.append(f"ld.global.{q}.u32 %r1, [%rd1];")
        g.append(f"st.global.{q}.u32 [%rd1], %r1;")
    g += [
        "ld.volatile.global.u32 %r1, [%rd1];",
        "ld.relaxed.gpu.global.u32 %r1, [%rd1];",
        "ld.acquire.sys.u32 %r1, [%rd1];",
        "st.release.cta.shared.u32 [%r1], %r2;",
        "ld.volatile.shared.u32 %r1, [svar];",
        "ld.volatile.local.u32 %r1, [lvar];",
        "ld.volatile.const.u32 %r1, [cvar];",
        "ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];",
        "ld.shared.ca.u32 %r1, [svar];",
        "ld.global.ca.L1::evict_last.u32 %r1, [%rd1];",
        "ld.volatile.global.v2.u32 {%r1, %r2}, [%rd1];",
    ]
    # ldu.
    g += [
        "ldu.global.u32 %r1, [%rd1];",
        "ldu.u32 %r1, [%rd1];",
        "ldu.global.v2.f32 {%f1, %f2}, [%rd1];",
        "ldu.global.v4.u32 {%r1, %r2, %r3, %r4}, [gvar];",
        "ldu.global.s8 %r1, [%rd1];",
        "ldu.shared.u32 %r1, [svar];",
        "ldu.local.u32 %r1, [lvar];",
        "ldu.global.ca.u32 %r1, [%rd1];",
        "ldu.global.f64 %fd1, [%rd1];",
    ]
    # atom: every operation x type, global.
    g += read_modify_write("atom", ["b32", "u32", "s32", "b64", "u64", "s64", "f32", "f64", "f16", "u16"])
    g += [
        "atom.shared.cas.b64 %rd1, [%r1], %rd2, %rd3;",
        "atom.shared.add.u32 %r1, [svar+4], 1;",
        "atom.add.u32 %r1, [%rd1], %r2;",
        "atom.local.add.u32 %r1, [lvar], %r2;",
        "atom.const.add.u32 %r1, [cvar], %r2;",
        "atom.param.add.u32 %r1, [pp], %r2;",
        "atom.shared::cta.add.u32 %r1, [svar], %r2;",
        "atom.relaxed.gpu.global.add.u32 %r1, [%rd1], %r2;",
        "atom.acq_rel.sys.global.exch.b32 %r1, [%rd1], %r2;",
        "atom.acquire.gpu.cas.b32 %r1, [%rd1], %r2, %r3;",
        "atom.global.gpu.add.u32 %r1, [%rd1], %r2;",
        "atom.volatile.global.add.u32 %r1, [%rd1], %r2;",
        "atom.global.ca.add.u32 %r1, [%rd1], %r2;",
        "atom.global.add.u32 %r1, [%rd1];",
        "atom.global.add.u32 %r1, [%rd1], %r2, %r3;",
        "atom.global.cas.b32 %r1, [%rd1], %r2;",
        "atom.global.add.u32 [%rd1], %r2;",
        "atom.global.add.u32 %r1, [%rd1], 5;",
        "atom.global.cas.b32 %r1, [%rd1], 0, 1;",
        "atom.global.u32 %r1, [%rd1], %r2;",
        "atom.global.add.min.u32 %r1, [%rd1], %r2;",
        "atom.global.add.noftz.f16 %h1, [%rd1], %h2;",
        "atom.global.v2.f32.add {%f1, %f2}, [%rd1], {%f3, %f4};",
        "atom.global.add.f32 %f1, [gvar+8], %f2;",
        "atom.global.add.u32.u32 %r1, [%rd1], %r2;",
    ]
    # red.
    g += read_modify_write("red", ["u32", "s32", "u64", "f32", "b32"])
    g += [
        "red.shared.min.u64 [%r1], %rd2;",
        "red.add.u32 [%rd1], %r2;",
        "red.global.add.u32 %r1, [%rd1], %r2;",
        "red.global.add.u32 [%rd1];",
        "red.relaxed.gpu.global.add.u32 [%rd1], %r2;",
        "red.release.sys.global.or.b32 [%rd1], %r2;",
        "red.local.add.u32 [lvar], %r2;",
        "red.global.add.u32 [%rd1], 1;",
    ]
    # cvta.
    for space in ["global", "shared", "local", "const", "param", "shared::cta"]:
        g += each(["", ".to"], f"cvta{{}}.{space}.u64 %rd1, %rd2;", f"cvta{{}}.{space}.u32 %r1, %r2;")
        g.append(f"cvta.{space}.u64 %rd1, {VAR.get(space, 'gvar')};")
    g += [
        "cvta.u64 %rd1, %rd2;",
        "cvta.to.u64 %rd1, %rd2;",
        "cvta.global.b64 %rd1, %rd2;",
        "cvta.global.s64 %rd1, %rd2;",
        "cvta.global.u64 %rd1, gvar+8;",
        "cvta.to.global.u64 %rd1, gvar;",
        "cvta.global.u64 %rd1;",
        "cvta.global.u64 %rd1, %rd2, %rd3;",
        "cvta.global.u64 %rd1, 4096;",
        "cvta.global.u64 %rd1, [%rd2];",
        "cvta.global.to.u64 %rd1, %rd2;",
    ]
    # mov of a variable's address.
    g += [
        "mov.u64 %rd1, gvar;",
        "mov.b64 %rd1, gvar;",
        "mov.s64 %rd1, gvar;",
        "mov.u32 %r1, gvar;",
        "mov.u32 %r1, svar;",
        "mov.u64 %rd1, svar;",
        "mov.u64 %rd1, lvar;",
        "mov.u64 %rd1, cvar;",
        "mov.u64 %rd1, pp;",
        "mov.u64 %rd1, gvar+8;",
        "mov.f32 %f1, gvar;",
        "mov.f64 %fd1, gvar;",
        "mov.u16 %h1, gvar;",
        "mov.u64 %rd1, [gvar];",
        "mov.u64 gvar, %rd1;",
    ]
    # Barriers.
    g += [
        "bar.sync 0;",
        "bar.sync 1, 64;",
        "bar.sync %r1;",
        "bar.sync %r1, %r2;",
        "bar.sync 15;",
        "bar.sync 16;",
        "bar.sync 0, 65;",
        "bar.sync 0, 0;",
        "bar.sync;",
        "bar.sync 0, 64, 1;",
        "bar.sync %p1;",
        "bar.cta.sync 0;",
        "bar.cta.sync 0, 32;",
        "bar.sync.aligned 0;",
        "bar.cta.sync.aligned 0;",
        "bar.arrive 0, 64;",
        "bar.arrive 0;",
        "bar.arrive %r1, %r2;",
        "bar.cta.arrive 1, 32;",
        "bar.arrive.aligned 0, 64;",
        "bar 0;",
        "bar.cta 0;",
        "bar.gl.sync 0;",
        "barrier.sync 0;",
        "barrier.sync 0, 32;",
        "barrier.sync.aligned 0;",
        "barrier.sync.aligned 0, 64;",
        "barrier.sync.aligned;",
        "barrier.cta.sync 0;",
        "barrier.cta.sync.aligned 0;",
        "barrier.arrive 0, 64;",
        "barrier.arrive.aligned 0, 64;",
        "barrier.arrive 0;",
        "barrier.cta.arrive.aligned 0, 64;",
        "barrier 0;",
        "bar.warp.sync -1;",
        "@%p1 bar.sync 0;",
    ]
    # membar and fence.
    for s in ["cta", "gl", "sys", "gpu", "cluster"]:
        g.append(f"membar.{s};")
    g += ["membar;", "membar.gl 0;", "membar.proxy.alias;"]
    for sem in ["", "sc.", "acq_rel.", "acquire.", "release.", "relaxed."]:
        for s in ["cta", "gpu", "sys", "cluster"]:
            g.append(f"fence.{sem}{s};")
    g += ["fence;", "fence.sc;", "fence.acq_rel;", "fence.proxy.async;", "fence.proxy.alias;",
          "fence.acq_rel.gpu 0;", "fence.gpu.acq_rel;"]
    # shfl.sync.
    for mode in ["up", "down", "bfly", "idx"]:
        g.append(f"shfl.sync.{mode}.b32 %r1, %r2, 1, 31, -1;")
        g.append(f"shfl.sync.{mode}.b32 %r1|%p1, %r2, %r3, %r4, %r5;")
        g.append(f"shfl.sync.{mode}.b32 %r1|%p1, %r2, 1, 0x1f, 0xffffffff;")
    g += [
        "shfl.sync.bfly.b32 %r1, %r2, 1, 31;",
        "shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1, 0;",
        "shfl.sync.bfly.b32 %r1, 7, 1, 31, -1;",
        "shfl.sync.bfly.b32 %r1, %r2, 1, 31, %r5;",
        "shfl.sync.bfly.b32 %r1 | %p1, %r2, 1, 31, -1;",
        "shfl.sync.bfly.b32 %p1|%r1, %r2, 1, 31, -1;",
        "shfl.sync.bfly.b32 %r1|%p1|%p2, %r2, 1, 31, -1;",
        "shfl.sync.bfly.b32 %r1|, %r2, 1, 31, -1;",
        "shfl.sync.bfly.u32 %r1, %r2, 1, 31, -1;",
        "shfl.sync.bfly.f32 %f1, %f2, 1, 31, -1;",
        "shfl.sync.bfly.b64 %rd1, %rd2, 1, 31, -1;",
        "shfl.sync.b32 %r1, %r2, 1, 31, -1;",
        "shfl.sync.xor.b32 %r1, %r2, 1, 31, -1;",
        "shfl.bfly.b32 %r1, %r2, 1, 31;",
        "shfl.sync.bfly %r1, %r2, 1, 31, -1;",
        "@%p2 shfl.sync.idx.b32 %r1, %r2, 0, 31, -1;",
    ]
    # vote.sync.
    for mode in ["all", "any", "uni"]:
        g.append(f"vote.sync.{mode}.pred %p1, %p2, -1;")
        g.append(f"vote.sync.{mode}.pred %p1, !%p2, %r1;")
        g.append(f"vote.sync.{mode}.b32 %r1, %p2, -1;")
    g += [
        "vote.sync.ballot.b32 %r1, %p1, -1;",
        "vote.sync.ballot.b32 %r1, !%p1, 0xffffffff;",
        "vote.sync.ballot.b32 %r1, %p1, %r2;",
        "vote.sync.ballot.pred %p1, %p2, -1;",
        "vote.sync.ballot.u32 %r1, %p1, -1;",
        "vote.sync.ballot.b32 %r1, %p1;",
        "vote.sync.any.pred %p1, %p2;",
        "vote.sync.any.pred %p1, %p2, -1, 0;",
        "vote.sync.any.pred %p1, 1, -1;",
        "vote.sync.any.pred %p1, %r2, -1;",
        "vote.sync.pred %p1, %p2, -1;",
        "vote.all.pred %p1, %p2;",
        "vote.ballot.b32 %r1, %p1;",
        "vote.sync.any.pred %r1, %p2, -1;",
    ]
    # activemask.
    g += [
        "activemask.b32 %r1;",
        "activemask.u32 %r1;",
        "activemask.b64 %rd1;",
        "activemask.b32;",
        "activemask.b32 %r1, %r2;",
        "activemask %r1;",
        "activemask.b32 5;",
        "@%p1 activemask.b32 %r1;",
    ]
    # Edges the first pass raised: immediate addresses per space, offset
    # signs, cache-operator and eviction combinations, L2 prefetch sizes,
    # order words on atom/red, barrier operand ranges, 16-bit cas.
    g += [
        "ld.local.u32 %r1, [16];",
        "st.local.u32 [16], %r1;",
        "ld.u32 %r1, [16];",
        "ld.shared.u32 %r1, [16];",
        "ld.const.u32 %r1, [16];",
        "atom.shared.add.u32 %r1, [16], %r2;",
        "ld.global.u32 %r1, [gvar-4];",
        "ld.global.u32 %r1, [gvar+-4];",
        "ld.global.u32 %r1, [%rd1+-8];",
        "ld.global.u32 %r1, [%rd1 + 8];",
        "ld.global.cg.L1::evict_last.u32 %r1, [%rd1];",
        "ld.global.cs.L1::no_allocate.u32 %r1, [%rd1];",
        "st.global.wb.L1::evict_first.u32 [%rd1], %r1;",
        "ld.global.nc.L1::evict_last.u32 %r1, [%rd1];",
        "ld.global.L1::evict_last.L1::evict_first.u32 %r1, [%rd1];",
        "ld.global.L2::128B.u32 %r1, [%rd1];",
        "ld.global.L2::256B.u32 %r1, [%rd1];",
        "ld.global.L2::32B.u32 %r1, [%rd1];",
        "ldu.global.L2::64B.u32 %r1, [%rd1];",
        "ld.global.L2::evict_normal.u32 %r1, [%rd1];",
        "ld.global.L2::evict_first.u32 %r1, [%rd1];",
        "ld.global.weak.gpu.u32 %r1, [%rd1];",
        "ld.global.relaxed.gpu.relaxed.sys.u32 %r1, [%rd1];",
        "ld.global.relaxed.gpu.acquire.gpu.u32 %r1, [%rd1];",
        "ld.global.relaxed.gpu.cta.u32 %r1, [%rd1];",
        "ld.relaxed.gpu.local.u32 %r1, [lvar];",
        "ld.relaxed.gpu.shared.u32 %r1, [svar];",
        "ld.relaxed.gpu.const.u32 %r1, [cvar];",
        "ld.volatile.param.u32 %r1, [pp];",
        "ld.volatile.u32 %r1, [%rd1];",
        "ld.mmio.relaxed.gpu.global.u32 %r1, [%rd1];",
        "ld.mmio.global.u32 %r1, [%rd1];",
        "ld.mmio.relaxed.sys.shared.u32 %r1, [%rd1];",
        "ld.global.nc.relaxed.gpu.u32 %r1, [%rd1];",
        "ld.global.nc.volatile.u32 %r1, [%rd1];",
        "ld.nc.u32 %r1, [%rd1];",
        "ld.shared.nc.u32 %r1, [%rd1];",
        "ld.global.ca.volatile.u32 %r1, [%rd1];",
        "ld.global.cg.relaxed.gpu.u32 %r1, [%rd1];",
        "atom.relaxed.global.add.u32 %r1, [%rd1], %r2;",
        "atom.weak.global.add.u32 %r1, [%rd1], %r2;",
        "atom.global.cta.add.u32 %r1, [%rd1], %r2;",
        "atom.global.cluster.add.u32 %r1, [%rd1], %r2;",
        "atom.global.relaxed.gpu.relaxed.sys.add.u32 %r1, [%rd1], %r2;",
        "atom.shared::cluster.add.u32 %r1, [%rd1], %r2;",
        "atom.global.L1::evict_last.add.u32 %r1, [%rd1], %r2;",
        "atom.global.cas.b16 %h1, [%rd1], %h2, %h3;",
        "atom.global.exch.b128 %q1, [%rd1], %q2;",
        "atom.global.cas.b128 %q1, [%rd1], %q2, %q3;",
        "atom.global.add.noftz.f32 %f1, [%rd1], %f2;",
        "atom.global.add.noftz.f16x2 %r1, [%rd1], %r2;",
        "atom.global.v4.f32.add {%f1, %f2, %f3, %f4}, [%rd1], {%f5, %f6, %f7, %f8};",
        "atom.global.v2.u32.add {%r1, %r2}, [%rd1], {%r3, %r4};",
        "atom.shared.v2.f32.add {%f1, %f2}, [%rd1], {%f3, %f4};",
        "red.acquire.gpu.global.add.u32 [%rd1], %r2;",
        "red.acq_rel.gpu.global.add.u32 [%rd1], %r2;",
        "red.global.gpu.add.u32 [%rd1], %r2;",
        "red.relaxed.global.add.u32 [%rd1], %r2;",
        "red.global.add.f64 [%rd1], %fd2;",
        "red.global.add.s64 [%rd1], %rd2;",
        "red.global.and.b64 [%rd1], %rd2;",
        "red.global.min.s64 [%rd1], %rd2;",
        "red.const.add.u32 [cvar], %r2;",
        "red.volatile.global.add.u32 [%rd1], %r2;",
        "cvta.volatile.global.u64 %rd1, %rd2;",
        "cvta.global.v2.u64 %rd1, %rd2;",
        "cvta.shared::cluster.u64 %rd1, %rd2;",
        "cvta.to.global.u64 %rd1, 4096;",
        "mov.b32 %r1, svar;",
        "mov.s16 %h1, svar;",
        "mov.u8 %r1, svar;",
        "mov.pred %p1, gvar;",
        "mov.global.u64 %rd1, gvar;",
        "mov.v2.u64 %rd1, gvar;",
        "mov.u64 %rd1, gvar-8;",
        "barrier.sync 16;",
        "barrier.sync 0, 33;",
        "bar.sync -1;",
        "bar.sync 0, -32;",
        "bar.arrive 0, 0;",
        "bar.arrive 16, 32;",
        "bar.sync 0x0f, 0x40;",
        "bar.sync 0, 1024;",
        "bar.sync 0, 2048;",
        "barrier.cta.arrive 0, 64;",
        "bar.cta.arrive.aligned 0, 64;",
        "barrier.arrive.aligned.cta 0, 64;",
        "barrier.aligned.sync 0;",
        "bar.sync.cta 0;",
        "membar.gl.cta;",
        "membar.cta.cta;",
        "fence.sc.acq_rel.gpu;",
        "fence.gpu.gpu;",
        "fence.cta.sc;",
        "fence.proxy.async.global;",
        "fence.proxy.async.shared::cta;",
        "vote.sync.any.pred %p1, %p2, 0;",
        "vote.sync.ballot.b32 %r1, 0, -1;",
        "shfl.sync.idx.b32 %r1, %r2, 32, 31, -1;",
        "shfl.sync.idx.b32 %r1, %r2, 1, 0xffff, -1;",
        "shfl.sync.idx.b32 %r1, %r2, %r3, 0x1f1f, 0;",
        "shfl.sync.idx.b32 %r1, %rd2, 1, 31, -1;",
    ]
    # Variables where a register belongs (found by the module fuzz target:
    # `bar.sync %rd3, tab` interned the variable `tab` as a register).
    g += [
        "bar.sync %r1, gvar;",
        "bar.sync gvar;",
        "st.global.u64 [%rd1], gvar;",
        "st.global.v2.u32 [%rd1], {%r1, svar};",
        "shfl.sync.bfly.b32 %r1, gvar, 1, 31, -1;",
        "vote.sync.any.pred %p1, %p2, gvar;",
        "vote.sync.any.pred %p1, gvar, -1;",
        "atom.global.add.u64 %rd1, [%rd2], gvar;",
        "ld.global.u32 gvar, [%rd1];",
        "activemask.b32 gvar;",
        "cvta.to.global.u64 gvar, %rd1;",
    ]
    # Guards on the memory family.
    g += [
        "@%p1 ld.global.u32 %r1, [%rd1];",
        "@!%p1 st.global.u32 [%rd1], %r1;",
        "@%p1 atom.global.add.u32 %r1, [%rd1], 1;",
        "@!%p1 cvta.to.global.u64 %rd1, %rd2;",
        "@%p1 mov.u64 %rd1, gvar;",
    ]
    seen = set()
    out = []
    for s in g:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def verdict(stmt, tmp):
    """(accepted, messages) of ptxas 13.0.88 on stmt in the grid's kernel; None for accepted
    when ptxas crashed on it."""
    rc, msg = messages(PTXAS, "sm_90", HEAD + stmt + "\nret;\n}\n", tmp)
    if rc < 0:
        return None, f"ptxas crashed (signal {-rc})"
    return rc == 0, msg


def target_only(msg):
    """Whether every message is about the target, not the text: sm_90 has no
    32-bit addressing, and sm_100 features."""
    parts = [m for m in msg.split("; ") if m]
    return bool(parts) and all("requires .target sm_" in m or "32-Bit ABI" in m for m in parts)


def main():
    lines = [
        "# ptxas 13.0.88 (-arch=sm_90, .version 9.0, .address_size 64) on each memory- and",
        "# warp-family statement alone, inside a kernel declaring %r<9> .b32, %rd<9> .b64,",
        "# %h<9> .b16, %p<9> .pred, %f<9> .f32, %fd<9> .f64, %q<9> .b128, the variables",
        "# gvar (.global), cvar (.const), svar (.shared), lvar (.local) and the parameter pp:",
        "# `accept TEXT`, `reject TEXT`, or `arch TEXT` where every message is about the target",
        "# (sm_100 features; sm_90 has no 32-bit addressing, so `cvta.global.u32` is refused",
        "# whatever the .address_size): valid PTX for some target. Rejections carry ptxas's",
        "# message above them. Made by",
        "# tools/ptxas_grid/mem_grid.py; tests/it/mem.rs checks the parser agrees.",
    ]
    with tempfile.TemporaryDirectory() as tmp:

        def judge(_target, _version, s):
            # The target and version are HEAD's (sm_90, 9.0).
            ok, msg = verdict(s, tmp)
            return (None if ok is None else "accept" if ok else "arch" if target_only(msg) else "reject"), msg

        lines += verdict_lines(judge, grid(), [])
    write_lines(OUT, lines)
    print(f"{tally(lines)} -> {OUT}")


if __name__ == "__main__":
    main()
