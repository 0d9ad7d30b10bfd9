#!/usr/bin/env python3
"""Derive sim-core's machine-code expansion table (sim-core/data/lowering.tsv).

For every variant key (sim_isa::db::lowering_key; sim-core's database test
checks that every form a table architecture can run has a row) this script writes a tiny
kernel that loads the inputs from global memory with their own width, runs the
PTX instruction, and stores the result, then assembles it with ptxas for sm_35,
sm_53 and sm_90:

* uops (machine instructions of the operation) = machine instructions of the
  kernel - those of a reference kernel that loads one b32 and stores it
  - (extra loads of this kernel) - helper instructions (the ISETP that makes a
  BoolOp/selp predicate, the SEL that turns a setp result into a storable value).
  Counts come from nvdisasm on sm_90 and from the .text section size on sm_35
  (64-byte bundles: 1 control word + 7 instructions) and sm_53 (32-byte bundles:
  1 control word + 3 instructions), which nvdisasm 13 no longer decodes.
* steps (dependent chain) on sm_90 = depth of the stored register in the
  register/predicate dataflow graph of the SASS, counting from the loads.
  Kepler/Maxwell listings cannot be decoded here, so their steps are estimated:
  sm_35 min(uops, 2) (selector PRMTs in parallel, then the native op); sm_53
  round(steps_90 * uops / uops_90), clamped to 1..uops (uops <= 2: steps = uops).

`mov` rows are fixed at 1/1 (see main). Re-running reproduces the committed
rows exactly (checked when the integer family's rows were added).

Usage: python3 -m tools.lowering.derive [-o sim-core/data/lowering.tsv] [-j 2]
Needs PTXAS and NVDISASM (env vars or the default paths below).
"""

import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from tools import sass_listing  # the one listing reader (sim-sass, through xtask)

PTXAS = os.environ.get("PTXAS", "/work/tools-cache/py/nvidia/cuda_nvcc/bin/ptxas")
NVDISASM = os.environ.get("NVDISASM", "/work/tools-cache/py/nvidia/cu13/bin/nvdisasm")
# PTX 8.0 forms (the packed `.u16x2`/`.s16x2` integers, `min/max.relu`) need
# a ptxas that reads `.version 8.0` (12.0 or later; the rows were derived
# with ptxas 13.0.88): $PTXAS80. Without it those variants are left out.
PTXAS80 = os.environ.get("PTXAS80")


def needs_ptx80(body):
    # The integer forms only: `.f16x2`/`.bf16x2` (PTX 4.2/7.0, sm_53/sm_80)
    # and the float `.relu` (PTX 7.0) assemble at 7.8, and sm_53 runs f16x2.
    """Whether a variant's body needs PTX 8.0 (the packed 16-bit integer forms and integer
    .relu), so it is assembled apart, by $PTXAS80, for sm_90 only."""
    return re.search(r"\.[us]16x2\b|\.relu\.[us]", body) is not None or needs_ptx81(body)


def needs_ptx81(body):
    """`.satfinite` to f16/bf16 needs PTX 8.1 (and fp8 on sm_89 does)."""
    return ".satfinite" in body or "m3x2" in body or "m2x2" in body


ARCHS = ["sm_35", "sm_53", "sm_90"]

# ---------------------------------------------------------------- variants
# A variant: key, inputs [(reg, ld type)], body, (out reg, st type), helper uops.
REG_OF = {"b16": "%h", "b32": "%r", "b64": "%rd", "f32": "%f", "f64": "%fd"}


def video_variants():
    """The video instructions (vadd2/4 ... vset2/4) over signedness, modes and operand
    shapes, as (key, inputs, body, output, helper instructions) variants."""
    out = []
    for op in ["add", "sub", "avrg", "absdiff", "min", "max", "set"]:
        for x in (2, 4):
            for a in "us":
                for b in "us":
                    if op == "set":
                        modes = [("plain", ""), ("add", "")]
                    else:
                        modes = [(m, d) for m in ("plain", "add", "sat") for d in "us"]
                    cmps = ["eq", "ord"] if op == "set" else [None]
                    for mode, dsign in modes:
                        for cmp in cmps:
                            for shape in ("def", "mask", "sel"):
                                out.append(video_variant(op, x, a, b, mode, dsign, cmp, shape))
    return out


def t(s):
    """The PTX type suffix for signedness letter s."""
    return ".s32" if s == "s" else ".u32"


def video_variant(op, x, a, b, mode, dsign, cmp, shape):
    """One video-instruction variant (key, inputs, body, output, no helpers): the
    instruction of op, width x and signedness with mode (plain, .add, .sat) and operand
    shape (plain, a destination mask or a source selector), named by its key."""
    m = "" if shape != "mask" else (".h0" if x == 2 else ".b10")
    asel = "" if shape != "sel" else (".h01" if x == 2 else ".b0123")
    if op == "set":
        c = "ne" if cmp == "eq" else "lt"
        key = f"vset{x}.{cmp}.{a}{b}.{mode}.{shape}"
        ins = f"vset{x}{t(a)}{t(b)}.{c}{'.add' if mode == 'add' else ''}"
    else:
        key = f"v{op}{x}.{dsign}{a}{b}.{mode}.{shape}"
        dt = t(dsign)
        suffix = {"plain": "", "add": ".add", "sat": ".sat"}[mode]
        ins = f"v{op}{x}{dt}{t(a)}{t(b)}{suffix}"
    body = f"{ins} %r4{m}, %r1{asel}, %r2, %r3;"
    return key, [("%r1", "b32"), ("%r2", "b32"), ("%r3", "b32")], body, ("%r4", "b32"), 0


# class -> (PTX type used, storage type)
CLASSES = {
    "i16": ("u16", "b16"),
    "i32": ("u32", "b32"),
    "i64": ("u64", "b64"),
    "f16": ("f16", "b16"),
    "bf16": ("bf16", "b16"),
    "f16x2": ("f16x2", "b32"),
    "bf16x2": ("bf16x2", "b32"),
    "f32": ("f32", "f32"),
    "f64": ("f64", "f64"),
}


def reg(storage, i):
    """Register i of a storage type's class (%h, %r, %rd, %f, %fd)."""
    return f"{REG_OF[storage]}{i}"


def set_variants():
    """set and setp over destination and source classes, with and without a boolean
    combination (its setp, and setp's storing selp, counted as helpers), then selp and
    slct, one comparison (lt) each."""
    out = []
    for dcls in ["i16", "i32", "f16", "bf16", "f16x2", "bf16x2", "f32"]:
        for scls in CLASSES:
            for boolop in (False, True):
                dty, dst = CLASSES[dcls]
                sty, sst = CLASSES[scls]
                a, b, d = reg(sst, 1), reg(sst, 2), reg(dst, 5)
                pre, c, helper = "", "", 0
                if boolop:
                    pre = "setp.ne.u32 %p1, %r3, 0; "
                    c, helper = ", %p1", 1
                cmp = "lt"
                bo = ".and" if boolop else ""
                body = f"{pre}set.{cmp}{bo}.{dty}.{sty} {d}, {a}, {b}{c};"
                ins = [(a, sst), (b, sst)] + ([("%r3", "b32")] if boolop else [])
                out.append((f"set.{dcls}.{scls}.{'bool' if boolop else 'nobool'}", ins, body, (d, dst), helper))
    for scls in CLASSES:
        for boolop in (False, True):
            sty, sst = CLASSES[scls]
            a, b = reg(sst, 1), reg(sst, 2)
            pre, c, helper = "", "", 1  # the SEL that stores the predicate
            if boolop:
                pre = "setp.ne.u32 %p1, %r3, 0; "
                c, helper = ", %p1", 2
            bo = ".and" if boolop else ""
            body = f"{pre}setp.lt{bo}.{sty} %p2, {a}, {b}{c}; selp.u32 %r5, 1, 0, %p2;"
            ins = [(a, sst), (b, sst)] + ([("%r3", "b32")] if boolop else [])
            out.append((f"setp.{scls}.{'bool' if boolop else 'nobool'}", ins, body, ("%r5", "b32"), helper))
    for bits, st in ((16, "b16"), (32, "b32"), (64, "b64")):
        a, b, d = reg(st, 1), reg(st, 2), reg(st, 5)
        body = f"setp.ne.u32 %p1, %r3, 0; selp.b{bits} {d}, {a}, {b}, %p1;"
        out.append((f"selp.b{bits}", [(a, st), (b, st), ("%r3", "b32")], body, (d, st), 1))
    for cty in ("s32", "f32"):
        for ftz in (False, True):
            if ftz and cty == "s32":
                continue
            c = "%f3" if cty == "f32" else "%r3"
            body = f"slct{'.ftz' if ftz else ''}.b32.{cty} %r5, %r1, %r2, {c};"
            ins = [("%r1", "b32"), ("%r2", "b32"), (c, "f32" if cty == "f32" else "b32")]
            out.append((f"slct.{cty}.{'ftz' if ftz else 'noftz'}", ins, body, ("%r5", "b32"), 0))
    for op in ["add", "sub", "mul.lo", "and", "or", "xor", "shl", "shr"]:
        for bits, st in ((16, "b16"), (32, "b32"), (64, "b64")):
            a, b, d = reg(st, 1), reg(st, 2), reg(st, 5)
            ty = f"u{bits}" if op in ("add", "sub", "mul.lo", "shr") else f"b{bits}"
            if op in ("shl", "shr"):
                body = f"{op}.{ty} {d}, {a}, %r2;"
                ins = [(a, st), ("%r2", "b32")]
            else:
                body = f"{op}.{ty} {d}, {a}, {b};"
                ins = [(a, st), (b, st)]
            out.append((f"alu.{op}.b{bits}", ins, body, (d, st), 0))
    # mov: ptxas usually forwards the value (0 instructions; counted as 1).
    for bits, st in ((16, "b16"), (32, "b32"), (64, "b64")):
        a, d = reg(st, 1), reg(st, 5)
        out.append((f"alu.mov.b{bits}", [(a, st)], f"mov.b{bits} {d}, {a};", (d, st), 0))
    return out


def int_variants():
    """The integer family's forms whose key is not `alu.{add|sub|mul.lo}.bN`:
    mul.hi/.wide, mad.lo/.hi/.wide over the types (`.wide` on 16/32 bits),
    and the `.sat` forms (`.s32` only)."""
    out = []
    st_of = {16: "b16", 32: "b32", 64: "b64"}
    for op, modes in (("mul", ["hi", "wide"]), ("mad", ["lo", "hi", "wide"])):
        for mode in modes:
            for ty in ["u16", "u32", "u64", "s16", "s32", "s64"]:
                bits = int(ty[1:])
                if mode == "wide" and bits == 64:
                    continue
                st, dst = st_of[bits], st_of[2 * bits if mode == "wide" else bits]
                a, b, d = reg(st, 1), reg(st, 2), reg(dst, 5)
                ins, srcs = [(a, st), (b, st)], f"{a}, {b}"
                if op == "mad":
                    c = reg(dst, 3)
                    ins.append((c, dst))
                    srcs += f", {c}"
                body = f"{op}.{mode}.{ty} {d}, {srcs};"
                out.append((f"alu.{op}.{mode}.{ty}", ins, body, (d, dst), 0))
    r2 = [("%r1", "b32"), ("%r2", "b32")]
    for op in ("add", "sub"):
        out.append((f"alu.{op}.sat.s32", r2, f"{op}.sat.s32 %r5, %r1, %r2;", ("%r5", "b32"), 0))
    out.append(("alu.mad.hi.sat.s32", r2 + [("%r3", "b32")],
                "mad.hi.sat.s32 %r5, %r1, %r2, %r3;", ("%r5", "b32"), 0))
    return out + int_more_variants() + int_new_variants() + float_variants()


def float_variants():
    """The float family's forms: `fp.` and the form's modifiers
    (`fp.add.rz.ftz.sat.f32`); ptxas drops the ones it rejects. `.f64` takes
    every rounding on add/sub, round to nearest on the others, and no `.ftz`
    (the other forms are not simulated)."""
    out = []
    for op in ("add", "sub", "mul", "fma", "min", "max", "abs", "neg", "div", "rcp", "sqrt"):
        n = {"fma": 3, "abs": 1, "neg": 1, "rcp": 1, "sqrt": 1}.get(op, 2)
        rnds = ["rn", "rz", "rm", "rp"] if op in ("fma", "div", "rcp", "sqrt") else ["", "rn", "rz", "rm", "rp"]
        if op in ("min", "max", "abs", "neg"):
            rnds = [""]
        for ty, st in (("f32", "b32"), ("f64", "b64")):
            for rnd in rnds:
                if ty == "f64" and rnd not in ("", "rn") and op not in ("add", "sub"):
                    continue
                for ftz in ("", "ftz") if ty == "f32" else ("",):
                    for sat in ("", "sat"):
                        for nan in ("", "NaN"):
                            mods = "".join(f".{m}" for m in (rnd, ftz, sat, nan) if m)
                            ins = [(reg(st, i + 1), st) for i in range(n)]
                            srcs = ", ".join(r for r, _ in ins)
                            d = reg(st, 5)
                            out.append((f"fp.{op}{mods}.{ty}", ins,
                                        f"{op}{mods}.{ty} {d}, {srcs};", (d, st), 0))
    # The .approx forms (and div.full) on .f32, which simcli runs (sim-isa
    # float/mufu.rs): the multi-function unit's operations.
    for op in ("div", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos"):
        n = 2 if op == "div" else 1
        for word in ("approx", "full") if op == "div" else ("approx",):
            for ftz in ("", ".ftz"):
                mods = f".{word}{ftz}"
                ins = [(reg("b32", i + 1), "b32") for i in range(n)]
                srcs = ", ".join(r for r, _ in ins)
                d = reg("b32", 5)
                out.append((f"fp.{op}{mods}.f32", ins, f"{op}{mods}.f32 {d}, {srcs};", (d, "b32"), 0))
    # rcp.approx.ftz.f64: MUFU.RCP64H of the source's high word (sim-isa's
    # exec/float.rs, `rcp64h`).
    a, d = reg("b64", 1), reg("b64", 5)
    out.append(("fp.rcp.approx.ftz.f64", [(a, "b64")], f"rcp.approx.ftz.f64 {d}, {a};", (d, "b64"), 0))
    # rsqrt.approx{.ftz}.f64: MUFU.RSQ64H alone with .ftz; without, a third-order
    # correction and a call of the slow path for sources that are not
    # positive normals (sim-isa's exec/float/approx64.rs).
    for ftz in ["", ".ftz"]:
        out.append((f"fp.rsqrt.approx{ftz}.f64", [(a, "b64")], f"rsqrt.approx{ftz}.f64 {d}, {a};",
                    (d, "b64"), 0))
    return out + half_variants()


def half_variants():
    """The float family's half forms (`fp.fma.rn.ftz.sat.f16x2`: add sub
    mul fma min max abs neg over f16 f16x2 bf16 bf16x2, round to nearest,
    `.ftz` and `.sat` on the f16 types, `.relu` on fma, `.NaN` on min/max; ptxas drops what
    an architecture lacks), `copysign.f32/.f64` (`fp.copysign.f32`),
    `ex2.approx` on the half types (`fp.ex2.approx.ftz.bf16x2`) and
    `tanh.approx` on `.f32` and the half types (`fp.tanh.approx.bf16x2`)."""
    out = []
    for ty, st in (("f16", "b16"), ("f16x2", "b32"), ("bf16", "b16"), ("bf16x2", "b32")):
        f16 = ty.startswith("f16")
        for op in ("add", "sub", "mul", "fma", "min", "max", "abs", "neg"):
            n = {"fma": 3, "abs": 1, "neg": 1}.get(op, 2)
            rnds = {"fma": ["rn"], "add": ["", "rn"], "sub": ["", "rn"], "mul": ["", "rn"]}.get(op, [""])
            sats = ["", "sat"] if f16 and op in ("add", "sub", "mul", "fma") else [""]
            nans = ["", "NaN"] if op in ("min", "max") else [""]
            for rnd in rnds:
                for ftz in ("", "ftz") if f16 else ("",):
                    for sat in sats:
                        relus = ["", "relu"] if op == "fma" and not sat else [""]
                        for relu, nan in ((r, n) for r in relus for n in nans):
                            mods = "".join(f".{m}" for m in (rnd, ftz, sat, relu, nan) if m)
                            ins = [(reg(st, i + 1), st) for i in range(n)]
                            srcs = ", ".join(r for r, _ in ins)
                            d = reg(st, 5)
                            out.append((f"fp.{op}{mods}.{ty}", ins,
                                        f"{op}{mods}.{ty} {d}, {srcs};", (d, st), 0))
    for ty, st in (("f32", "b32"), ("f64", "b64")):
        ins = [(reg(st, 1), st), (reg(st, 2), st)]
        d = reg(st, 5)
        out.append((f"fp.copysign.{ty}", ins, f"copysign.{ty} {d}, {ins[0][0]}, {ins[1][0]};", (d, st), 0))
    # `ex2.approx` on the half types (MUFU.EX2.F16/.BF16; `.ftz` required on
    # bf16, illegal on f16: sim-isa/tests/data/ex2-half-ptxas.txt).
    for ty, st in (("f16", "b16"), ("f16x2", "b32"), ("bf16", "b16"), ("bf16x2", "b32")):
        mods = ".approx.ftz" if ty.startswith("bf16") else ".approx"
        a, d = reg(st, 1), reg(st, 5)
        out.append((f"fp.ex2{mods}.{ty}", [(a, st)], f"ex2{mods}.{ty} {d}, {a};", (d, st), 0))
    # `tanh.approx` on `.f32` and the half types (MUFU.TANH; no `.ftz` on any:
    # sim-isa/tests/data/tanh-ptxas.txt). sm_75 and later only, so of the
    # table's targets sm_90 alone has rows.
    for ty, st in (("f32", "b32"), ("f16", "b16"), ("f16x2", "b32"), ("bf16", "b16"), ("bf16x2", "b32")):
        a, d = reg(st, 1), reg(st, 5)
        out.append((f"fp.tanh.approx.{ty}", [(a, st)], f"tanh.approx.{ty} {d}, {a};", (d, st), 0))
    return out


def int_more_variants():
    """min/max/div/rem over the six integer types and abs/neg over the
    signed ones: `alu.{op}.{type}` (div/rem of 16 and 64 bits call a
    subroutine whose instructions the kernel's text includes)."""
    out = []
    st_of = {16: "b16", 32: "b32", 64: "b64"}
    types = ["u16", "u32", "u64", "s16", "s32", "s64"]
    for op in ("min", "max", "div", "rem", "abs", "neg"):
        for ty in types if op not in ("abs", "neg") else [t for t in types if t[0] == "s"]:
            st = st_of[int(ty[1:])]
            a, b, d = reg(st, 1), reg(st, 2), reg(st, 5)
            ins = [(a, st)] if op in ("abs", "neg") else [(a, st), (b, st)]
            srcs = ", ".join(r for r, _ in ins)
            out.append((f"alu.{op}.{ty}", ins, f"{op}.{ty} {d}, {srcs};", (d, st), 0))
    return out


def int_new_variants():
    """The integer forms added for issue 23: the packed `add min max .u16x2
    .s16x2` and `min/max.relu` (PTX 8.0, sm_90), `dp4a.atype.btype`,
    `dp2a.mode.atype.btype` (sm_61) and `sad` over the six types, keyed as
    sim-isa's `int_key` (`alu.add.u16x2`, `alu.min.relu.s32`,
    `alu.dp4a.s32.u32`, `alu.dp2a.lo.u32.s32`, `alu.sad.u64`)."""
    out = []
    r2 = [("%r1", "b32"), ("%r2", "b32")]
    r3 = r2 + [("%r3", "b32")]
    for op in ("add", "min", "max"):
        for ty in ("u16x2", "s16x2"):
            out.append((f"alu.{op}.{ty}", r2, f"{op}.{ty} %r5, %r1, %r2;", ("%r5", "b32"), 0))
    for op in ("min", "max"):
        for ty in ("s32", "s16x2"):
            out.append((f"alu.{op}.relu.{ty}", r2, f"{op}.relu.{ty} %r5, %r1, %r2;",
                        ("%r5", "b32"), 0))
    for a in ("u32", "s32"):
        for b in ("u32", "s32"):
            out.append((f"alu.dp4a.{a}.{b}", r3, f"dp4a.{a}.{b} %r5, %r1, %r2, %r3;",
                        ("%r5", "b32"), 0))
            for mode in ("lo", "hi"):
                out.append((f"alu.dp2a.{mode}.{a}.{b}", r3,
                            f"dp2a.{mode}.{a}.{b} %r5, %r1, %r2, %r3;", ("%r5", "b32"), 0))
    st_of = {16: "b16", 32: "b32", 64: "b64"}
    for ty in ("u16", "u32", "u64", "s16", "s32", "s64"):
        st = st_of[int(ty[1:])]
        a, b, c, d = reg(st, 1), reg(st, 2), reg(st, 3), reg(st, 5)
        out.append((f"alu.sad.{ty}", [(a, st), (b, st), (c, st)],
                    f"sad.{ty} {d}, {a}, {b}, {c};", (d, st), 0))
    return out


def bit_variants():
    """The bit-manipulation family: popc clz brev not cnot bfe bfi prmt (each
    mode) lop3 shf (each direction and mode), keyed `bit.{word}{.words}.{type}`."""
    out = []
    st_of = {16: "b16", 32: "b32", 64: "b64"}
    one = [("popc", ["b32", "b64"]), ("clz", ["b32", "b64"]), ("brev", ["b32", "b64"]),
           ("not", ["b16", "b32", "b64"]), ("cnot", ["b16", "b32", "b64"])]
    for op, tys in one:
        for ty in tys:
            st = st_of[int(ty[1:])]
            dst = "b32" if op in ("popc", "clz") else st
            a, d = reg(st, 1), reg(dst, 5)
            out.append((f"bit.{op}.{ty}", [(a, st)], f"{op}.{ty} {d}, {a};", (d, dst), 0))
    for ty in ["u32", "u64", "s32", "s64"]:
        st = st_of[int(ty[1:])]
        a, d = reg(st, 1), reg(st, 5)
        ins = [(a, st), ("%r2", "b32"), ("%r3", "b32")]
        out.append((f"bit.bfe.{ty}", ins, f"bfe.{ty} {d}, {a}, %r2, %r3;", (d, st), 0))
    for ty in ["b32", "b64"]:
        st = st_of[int(ty[1:])]
        a, b, d = reg(st, 1), reg(st, 2), reg(st, 5)
        ins = [(a, st), (b, st), ("%r3", "b32"), ("%r4", "b32")]
        out.append((f"bit.bfi.{ty}", ins, f"bfi.{ty} {d}, {a}, {b}, %r3, %r4;", (d, st), 0))
    r3 = [("%r1", "b32"), ("%r2", "b32"), ("%r3", "b32")]
    for mode in ["", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]:
        m = f".{mode}" if mode else ""
        out.append((f"bit.prmt{m}.b32", r3, f"prmt.b32{m} %r5, %r1, %r2, %r3;", ("%r5", "b32"), 0))
    out.append(("bit.lop3.b32", r3, "lop3.b32 %r5, %r1, %r2, %r3, 0x96;", ("%r5", "b32"), 0))
    for ty in ["u32", "u64", "s32", "s64"]:
        st = st_of[int(ty[1:])]
        a = reg(st, 1)
        for m in ["", ".shiftamt"]:
            out.append((f"bit.bfind{m}.{ty}", [(a, st)], f"bfind{m}.{ty} %r5, {a};", ("%r5", "b32"), 0))
    # Predicate logic: the inputs become predicates (one ISETP each) and the
    # result a storable value (one SEL): helpers, not the operation.
    p2 = [("%r1", "b32"), ("%r2", "b32")]
    pre = "setp.ne.u32 %p1, %r1, 0; setp.ne.u32 %p2, %r2, 0; "
    for op in ["and", "or", "xor"]:
        out.append((f"alu.{op}.b1", p2, pre + f"{op}.pred %p3, %p1, %p2; selp.u32 %r5, 1, 0, %p3;",
                    ("%r5", "b32"), 3))
    out.append(("alu.mov.b1", p2, pre + "mov.pred %p3, %p1; selp.u32 %r5, 1, 0, %p3;", ("%r5", "b32"), 2))
    out.append(("bit.not.pred", p2, pre + "not.pred %p3, %p1; selp.u32 %r5, 1, 0, %p3;", ("%r5", "b32"), 2))
    for d in ["l", "r"]:
        for mode in ["wrap", "clamp"]:
            out.append((f"bit.shf.{d}.{mode}.b32", r3, f"shf.{d}.{mode}.b32 %r5, %r1, %r2, %r3;",
                        ("%r5", "b32"), 0))
    out.append(("bit.fns.b32", r3, "fns.b32 %r5, %r1, %r2, %r3;", ("%r5", "b32"), 0))
    # bmsk (PTX 7.6, sm_70: only sm_90 of the table's targets runs it).
    for mode in ["clamp", "wrap"]:
        out.append((f"bit.bmsk.{mode}.b32", r3[:2], f"bmsk.{mode}.b32 %r5, %r1, %r2;", ("%r5", "b32"), 0))
    # testp (a predicate result: the SEL that stores it is a helper).
    for op in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]:
        for ty, st in (("f32", "f32"), ("f64", "f64")):
            a = reg(st, 1)
            out.append((f"bit.testp.{op}.{ty}", [(a, st)],
                        f"testp.{op}.{ty} %p3, {a}; selp.u32 %r5, 1, 0, %p3;", ("%r5", "b32"), 1))
    return out


CVT_REG = {"u8": "b16", "s8": "b16", "u16": "b16", "s16": "b16", "f16": "b16", "bf16": "b16",
           "u32": "b32", "s32": "b32", "f16x2": "b32", "bf16x2": "b32", "u64": "b64", "s64": "b64",
           "f32": "f32", "f64": "f64", "e4m3x2": "b16", "e5m2x2": "b16"}


def cvt_variants():
    """Every cvt form sim-isa declares (its ptxas 11.8 verdicts, whose accepted
    lines sim-isa/tests/data/cvt-ptxas.txt lists), keyed by the form's head
    `cvt{.rnd}{.ftz}{.sat}.dtype.atype`."""
    path = os.path.join(os.path.dirname(__file__), "../../sim-isa/tests/data/cvt-ptxas.txt")
    out = []
    with open(path) as f:
        for line in f:
            if not line.startswith("accept "):
                continue
            head = line.split()[1]
            d, a = head.split(".")[-2:]
            ds, as_ = CVT_REG[d], CVT_REG[a]
            dst = reg(ds, 5)
            ins = [(reg(as_, 1), as_)]
            srcs = reg(as_, 1)
            if d.endswith("x2"):
                ins.append((reg(as_, 2), as_))
                srcs += ", " + reg(as_, 2)
            out.append((head, ins, f"{head} {dst}, {srcs};", (dst, ds), 0))
    return out


def cvt_pack_variants():
    """`cvt.pack.sat` (sm_72, PTX 6.5; sim-isa/tests/data/cvt-pack-ptxas.txt),
    keyed by the head as sim-isa prints it (`cvt.pack.sat.u8.s32.b32`)."""
    out = []
    r3 = [("%r1", "b32"), ("%r2", "b32"), ("%r3", "b32")]
    for d in ["u16", "s16"]:
        head = f"cvt.pack.sat.{d}.s32"
        out.append((head, r3[:2], f"{head} %r5, %r1, %r2;", ("%r5", "b32"), 0))
    for d in ["u8", "s8"]:
        head = f"cvt.pack.sat.{d}.s32.b32"
        out.append((head, r3, f"{head} %r5, %r1, %r2, %r3;", ("%r5", "b32"), 0))
    return out


def cvt_fp8_variants():
    """The fp8 and .relu/.satfinite cvt forms (ptxas 13.0.88's sm_90 PTX 8.1
    verdicts, sim-isa/tests/data/cvt-fp8-ptxas.txt), keyed by the head as
    sim-isa prints it (`.satfinite` before `.relu`)."""
    path = os.path.join(os.path.dirname(__file__), "../../sim-isa/tests/data/cvt-fp8-ptxas.txt")
    out, seen = [], set()
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[:3] != ["accept", "sm_90", "8.1"]:
                continue
            words = w[3].split(".")[1:]
            mods = [m for m in words[:-2] if m not in ("satfinite", "relu")]
            mods += [m for m in ("satfinite", "relu") if m in words[:-2]]
            d, a = words[-2:]
            head = ".".join(["cvt"] + mods + [d, a])
            if head in seen or not (set(words) & {"satfinite", "relu", "e4m3x2", "e5m2x2"}):
                continue
            seen.add(head)
            ds, as_ = CVT_REG[d], CVT_REG[a]
            dst = reg(ds, 5)
            ins = [(reg(as_, 1), as_)]
            srcs = reg(as_, 1)
            if d.endswith("x2") and a == "f32":
                ins.append((reg(as_, 2), as_))
                srcs += ", " + reg(as_, 2)
            out.append((head, ins, f"{head} {dst}, {srcs};", (dst, ds), 0))
    return out


# ---------------------------------------------------------------- kernels
def kernel(arch, ins, body, out):
    """The measuring kernel of a variant: load its inputs from global memory 8 bytes apart,
    run the body, store the result; ptxas then keeps exactly the form's machine
    instructions between the loads and the store."""
    lines = [
        ".version 8.1" if needs_ptx81(body) else ".version 8.0" if needs_ptx80(body) else ".version 7.8",
        f".target {arch}",
        ".address_size 64",
        ".visible .entry k(.param .u64 p) {",
        " .reg .b16 %h<8>; .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<8>; .reg .f64 %fd<8>; .reg .pred %p<4>;",
        " ld.param.u64 %rd6, [p];",
        " cvta.to.global.u64 %rd7, %rd6;",
    ]
    for i, (r, st) in enumerate(ins):
        lines.append(f" ld.global.{st} {r}, [%rd7+{8 * i}];")
    lines.append(" " + body)
    lines.append(f" st.global.{out[1]} [%rd7+64], {out[0]};")
    lines.append(" ret; }")
    return "\n".join(lines) + "\n"


def assemble(arch, ptx, tmp):
    """The cubin ptxas makes of a kernel, or None when ptxas refuses the form on this
    target."""
    src = os.path.join(tmp, "k.ptx")
    cub = os.path.join(tmp, "k.cubin")
    with open(src, "w") as f:
        f.write(ptx)
    ptxas = PTXAS
    if ".version 8.0" in ptx or ".version 8.1" in ptx:
        # Only sm_90 of the table's targets runs the PTX 8.0 forms.
        if PTXAS80 is None or arch != "sm_90":
            return None
        ptxas = PTXAS80
    r = subprocess.run([ptxas, f"-arch={arch}", src, "-o", cub], capture_output=True)
    if r.returncode != 0:
        return None
    with open(cub, "rb") as f:
        return f.read()


def text_section(elf):
    """Bytes of the first .text.* section of a 64-bit ELF."""
    shoff = struct.unpack_from("<Q", elf, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    def sh(i):
        """Section header i: (name, type, flags, addr, offset, size, link, info, align,
        entsize)."""
        return struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)
    stroff = sh(shstrndx)[4]
    for i in range(shnum):
        name, _, _, _, off, size, *_ = sh(i)
        end = elf.index(b"\0", stroff + name)
        if elf[stroff + name:end].startswith(b".text."):
            return elf[off:off + size]
    raise ValueError("no .text section")


def words(arch, text):
    """Instruction words (control words removed) of a Kepler/Maxwell .text."""
    group = 8 if arch == "sm_35" else 4
    ws = [text[i:i + 8] for i in range(0, len(text), 8)]
    return [w for i, w in enumerate(ws) if i % group != 0]


def sass(cubin, tmp):
    """parse_sass of a cubin's nvdisasm listing."""
    path = os.path.join(tmp, "k90.cubin")
    with open(path, "wb") as f:
        f.write(cubin)
    r = subprocess.run([NVDISASM, "-c", path], capture_output=True, text=True, check=True)
    return parse_sass(r.stdout)


def parse_sass(listing):
    """(instructions without NOP/BRA, the same with calls inlined) of an
    `nvdisasm -c` listing of one kernel (read by tools/sass_listing.py, all
    functions in order): the first counts the kernel's machine instructions,
    the second gives the dataflow depth through subroutines."""
    insts, labels = [], {}
    for lines in sass_listing.functions(listing, "sm_90").values():
        for t in lines:
            if t.kind == "label":
                labels[t.name] = len(insts)
            else:
                insts.append(t)
    kept = [i for i in insts if not (i.guard is None and i.base in ("NOP", "BRA"))]
    return kept, inline_calls(kept, labels, insts)


def inline_calls(kept, labels, insts):
    """`kept` (for the dataflow depth only: the instruction count keeps the
    listing as it is) with each `CALL` of a subroutine in the listing (ptxas calls
    `__cuda_sm20_div_s64` and the like for 16- and 64-bit div/rem) replaced
    by the subroutine's instructions up to its RET, so that the dataflow
    depth follows the value through it. Listings without calls are
    returned as they are."""
    out = []
    for i in kept:
        if i.guard is not None or not i.base.startswith("CALL") or i.target not in labels:
            out.append(i)
            continue
        for j in insts[labels[i.target]:]:
            if j.guard is None and j.base == "RET":
                break
            if not (j.guard is None and j.base in ("NOP", "BRA")):
                out.append(j)
    return out


# Keys whose dataflow depth is the path ordinary operands run, without the
# subroutine: `rsqrt.approx.f64` calls its slow path only for sources that are not
# positive normals, and that path's last writes are constants (an infinity, a
# NaN, zero), which would make the depth 1.
FAST_PATH_DEPTH = {"fp.rsqrt.approx.f64"}

PRED_DEST = ("ISETP", "FSETP", "DSETP", "HSETP2", "PSETP", "PLOP3")


def depth_of_store(insts):
    """Longest chain (in machine instructions) from a load to the stored value
    (sass_listing lines: an operand's registers as the reader names them)."""
    depth = {}
    for inst in insts:
        guard = inst.guard if re.fullmatch(r"P\d+", inst.guard or "") else None
        opcode, ops = inst.opcode, inst.operand_regs
        base = inst.base
        if base in ("LDG", "LD", "LDC") and ops:
            r = ops[0]
            if base == "LDG" and r:
                n = int(r[0][1:])
                width = 2 if ".64" in opcode else 1
                for k in range(width):
                    depth[f"R{n + k}"] = 0
            continue
        if base in ("STG", "ST"):
            data = ops[-1] if ops else []
            return depth.get(data[0], 0) if data else 0
        if base in ("EXIT", "RET", "BRA"):
            continue
        ndest = 2 if base in PRED_DEST else 1
        dests = [x for o in ops[:ndest] for x in o]
        srcs = [x for o in ops[ndest:] for x in o]
        if guard:
            srcs += [guard] + dests
        known = [depth[s] for s in srcs if s in depth]
        for d in dests:
            if known:
                depth[d] = 1 + max(known)
            else:
                depth.pop(d, None)
    return 0


# ---------------------------------------------------------------- main
_REF = {}
_REF_SASS = {}


def reference(arch, ptx80=False):
    """The kernel that loads one b32 and stores it (cached per arch), and for
    the PTX 8.0 forms the same kernel at `.version 8.0` (assembled, as they
    are, by $PTXAS80)."""
    key = (arch, ptx80)
    if key not in _REF:
        body = "// .relu" if ptx80 else ""
        with tempfile.TemporaryDirectory() as tmp:
            _REF[key] = assemble(arch, kernel(arch, [("%r1", "b32")], body, ("%r1", "b32")), tmp)
    return _REF[key]


def is_load(arch, w):
    """Whether a Kepler/Maxwell instruction word is a global load (opcode bits)."""
    top, nxt = w[7], w[6]
    if arch == "sm_53":
        return top == 0xEE and (nxt & 0xF8) == 0xD0  # LDG: 0xeed0..0xeed7
    return (top & 0xFC) == 0xC4  # LD.E on Kepler


def measure(arch, variant):
    """A variant's measurement on one target: on sm_90 (key, machine instructions beyond the
    reference kernel's, dataflow depth); on Kepler/Maxwell, whose nvdisasm this script
    does not use, the instruction words of the kernel and of the reference; None when
    ptxas refuses it."""
    key, ins, body, out, helper = variant
    with tempfile.TemporaryDirectory() as tmp:
        k = assemble(arch, kernel(arch, ins, body, out), tmp)
        if k is None:
            return None
        new = needs_ptx80(body)
        ref = reference(arch, new)
        if arch == "sm_90":
            si, si_inlined = sass(k, tmp)
            if new not in _REF_SASS:
                _REF_SASS[new] = sass(ref, tmp)[0]
            sr = _REF_SASS[new]
            body_k = [i for i in si if not i.startswith("LDG")]
            body_r = [i for i in sr if not i.startswith("LDG")]
            n = len(body_k) - len(body_r) - helper
            d = depth_of_store(si if key in FAST_PATH_DEPTH else si_inlined)
            d -= 1 if key.startswith("setp.") else 0
            return key, n, d
        return key, words(arch, text_section(k)), words(arch, text_section(ref)), helper


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--out", default="sim-core/data/lowering.tsv")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--only", help="only keys containing one of these comma-separated texts "
                    "(debugging, and deriving a new family's rows)")
    args = ap.parse_args()
    variants = video_variants() + set_variants() + int_variants() + bit_variants() + cvt_variants()
    variants += cvt_fp8_variants() + cvt_pack_variants()
    if args.only:
        variants = [v for v in variants if any(o in v[0] for o in args.only.split(","))]
    results = {}
    for arch in ARCHS:
        reference(arch)
    with ThreadPoolExecutor(args.jobs) as pool:
        for arch in ARCHS:
            results[arch] = [r for r in pool.map(lambda v: measure(arch, v), variants) if r is not None]
            print(f"{arch}: {len(results[arch])} of {len(variants)} variants accepted", file=sys.stderr)
    rows = []
    n90 = {}
    for key, n, d in results["sm_90"]:
        n, d = max(n, 1), max(d, 1)
        d = min(d, n)
        n90[key] = (n, d)
        rows.append(("sm_90", key, n, d, "nvdisasm"))
    for arch in ("sm_35", "sm_53"):
        rs = results[arch]
        if not rs:
            continue  # a --only run of forms newer than the target
        # Padding NOPs (anywhere, not only at the end) are the most common word.
        counts = {}
        for r in rs:
            for w in r[1]:
                counts[w] = counts.get(w, 0) + 1
        nop = max(counts, key=counts.get)

        def ops(ws):
            """Instruction words that are neither padding NOPs nor global loads."""
            return sum(1 for w in ws if w != nop and not is_load(arch, w))

        for key, wk, wr, helper in rs:
            n = ops(wk) - ops(wr) - helper
            n = max(n, 1)
            if arch == "sm_35":
                # Kepler: the native op, after selector PRMTs that run in parallel.
                d = min(n, 2)
                note = "text-size; steps = min(uops, 2)"
            elif n <= 2 or key not in n90:
                d = n
                note = "text-size; steps = uops"
            else:
                n9, d9 = n90[key]
                d = min(n, max(1, round(d9 * n / n9)))
                note = "text-size; steps scaled from sm_90"
            rows.append((arch, key, n, d, note))
    # mov is one instruction or none (ptxas copy-propagates it, and what the
    # kernel measures is the 16-bit load/store handling around it): the
    # model has always counted it as one native instruction, so the rows say so.
    rows = [(a, k, 1, 1, "mov: one instruction") if k.startswith("alu.mov.") else (a, k, n, d, note)
            for a, k, n, d, note in rows]
    rows.sort()
    with open(args.out, "w") as f:
        f.write("# arch\tkey\tuops\tsteps\tnote\n")
        f.write("# Generated by tools/lowering/derive.py (ptxas 11.8; the PTX 8.0 forms ptxas 13.0.88 as $PTXAS80; nvdisasm 13); do not edit by hand.\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    print(f"wrote {len(rows)} rows to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
