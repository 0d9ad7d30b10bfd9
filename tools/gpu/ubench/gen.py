#!/usr/bin/env python3
"""Microbenchmarks for the sm_90 machine opcodes the H100 set never measured.

    python3 -m tools.gpu.ubench.gen            # writes ubench.ptx, ubench.cubin,
                                               # manifest.json, kernels/*.ptx here

Same shape as sim-core/data/calibration/h100/microbench.json (see README.md
here): one block, `lat` = 1 warp x 1 chain, `tput` = 32 warps x 4 chains, loop
body = the PTX form repeated 64 times, 16 iterations, %clock64 per warp around
the loop. The module is assembled here by ptxas 13.0.88 (the assembler behind
the H100 figures) to ubench.cubin, which run.py loads so the GPU runs exactly
the machine code whose per-iteration opcode histogram manifest.json records;
ubench.ptx is the fallback (driver JIT) if the driver refuses the cubin.
Needs $PTXAS (default: /work/venv-nv/.../cu13/bin/ptxas) and $NVDISASM.
"""

import collections
import json
import os
import subprocess
import sys

from tools import sass_listing  # the one listing reader (sim-sass, through xtask)
from tools.gpu.clock_loop import loop_tail

HERE = os.path.dirname(os.path.abspath(__file__))
PTXAS = os.environ.get("PTXAS", "/work/venv-nv/lib/python3.11/site-packages/nvidia/cu13/bin/ptxas")
NVDISASM = os.environ.get("NVDISASM", "/work/main/tools/.cache/sass/nvdisasm13/nvidia/cu13/bin/nvdisasm")
VERSION = "8.0"  # lowest PTX ISA that has every form below (add.u16x2, elect.sync: 8.0)
ITER = 16
COPIES = 64

# name, op (the PTX form or pair), the SASS opcode the row isolates, body lines.
# Registers per chain: %x{i} .b32, %h{i} .b16, %d{i} .b64, %p{i} .pred; shared
# inputs loaded from global memory: %y %z %m .b32, %hy .b16, %dy %dz .b64, %q .pred.
ROWS = [
    ("u0", "cvt.f32.f16+cvt.rn.f16.f32", "HADD2.F32+F2FP.F16.F32.PACK_AB",
     ["cvt.rn.f16.f32 %h{i}, %x{i};", "cvt.f32.f16 %x{i}, %h{i};"]),
    ("u1", "cvt.f64.f32+cvt.rn.f32.f64", "F2F.F64.F32+F2F.F32.F64",
     ["cvt.f64.f32 %d{i}, %x{i};", "cvt.rn.f32.f64 %x{i}, %d{i};"]),
    ("u2", "cvt.rn.f16x2.f32", "F2FP.F16",
     ["cvt.rn.f16x2.f32 %x{i}, %x{i}, %y;"]),
    ("u3", "cvt.rn.bf16x2.f32", "F2FP.BF16",
     ["cvt.rn.bf16x2.f32 %x{i}, %x{i}, %y;"]),
    ("u4", "cvt.rn.satfinite.e4m3x2.f32+cvt.rn.f16x2.e4m3x2", "F2FP.SATFINITE.E4M3+F2FP.F16.E4M3",
     ["cvt.rn.satfinite.e4m3x2.f32 %h{i}, %x{i}, %y;", "cvt.rn.f16x2.e4m3x2 %x{i}, %h{i};"]),
    ("u5", "mul.rn.f16x2", "HMUL2",
     ["mul.rn.f16x2 %x{i}, %x{i}, %y;"]),
    ("u6", "mul.rn.bf16x2", "HMUL2.BF16",
     ["mul.rn.bf16x2 %x{i}, %x{i}, %y;"]),
    ("u7", "min.f16x2+xor", "HMNMX2",
     ["min.f16x2 %x{i}, %x{i}, %y;", "xor.b32 %x{i}, %x{i}, %z;"]),
    ("u8", "max.bf16x2+xor", "HMNMX2.BF16",
     ["max.bf16x2 %x{i}, %x{i}, %y;", "xor.b32 %x{i}, %x{i}, %z;"]),
    ("u9", "dp4a.u32.u32", "IDP.4A",
     ["dp4a.u32.u32 %x{i}, %x{i}, %y, %z;"]),
    ("u10", "dp2a.lo.u32.u32", "IDP.2A",
     ["dp2a.lo.u32.u32 %x{i}, %x{i}, %y, %z;"]),
    ("u11", "mul.rn.f64", "DMUL",
     ["mul.rn.f64 %d{i}, %d{i}, %dy;"]),
    ("u12", "min.f32+max.f32", "FMNMX",
     ["min.f32 %x{i}, %x{i}, %y;", "max.f32 %x{i}, %x{i}, %z;"]),
    ("u32", "cvt.rn.f16.f64+cvt.f64.f16", "F2F.F16.F64+F2F.F64.F16",
     ["cvt.rn.f16.f64 %h{i}, %d{i};", "cvt.f64.f16 %d{i}, %h{i};"]),
    ("u13", "cvt.rni.f32.f32+xor", "FRND",
     ["cvt.rni.f32.f32 %x{i}, %x{i};", "xor.b32 %x{i}, %x{i}, %z;"]),
    ("u14", "min.f64+xor", "DSETP.MIN+FSEL+SEL (no DMNMX)",
     ["min.f64 %d{i}, %d{i}, %dy;", "xor.b64 %d{i}, %d{i}, %dz;"]),
    ("u15", "bmsk.clamp.b32", "BMSK",
     ["bmsk.clamp.b32 %x{i}, %x{i}, %y;"]),
    ("u16", "szext.clamp.s32+xor", "SGXT",
     ["szext.clamp.s32 %x{i}, %x{i}, %y;", "xor.b32 %x{i}, %x{i}, %z;"]),
    ("u18", "add.u16x2", "VIADD.16",
     ["add.u16x2 %x{i}, %x{i}, %y;"]),
    ("u19", "min.u16x2+xor", "VIMNMX.U16",
     ["min.u16x2 %x{i}, %x{i}, %y;", "xor.b32 %x{i}, %x{i}, %z;"]),
    ("u20", "max.s16x2+xor", "VIMNMX.S16",
     ["max.s16x2 %x{i}, %x{i}, %y;", "xor.b32 %x{i}, %x{i}, %z;"]),
    ("u21", "sad.u32", "VABSDIFF.U32",
     ["sad.u32 %x{i}, %x{i}, %y, %z;"]),
    ("u22", "copysign.f32", "LOP3.LUT",
     ["copysign.f32 %x{i}, %y, %x{i};"]),
    ("u23", "redux.sync.add.u32", "REDUX.SUM",
     ["redux.sync.add.u32 %x{i}, %x{i}, 0xffffffff;"]),
    ("u24", "redux.sync.min.u32+xor", "REDUX.MIN",
     ["redux.sync.min.u32 %x{i}, %x{i}, 0xffffffff;", "xor.b32 %x{i}, %x{i}, %z;"]),
    ("u25", "redux.sync.and.b32+xor", "REDUX.AND",
     ["redux.sync.and.b32 %x{i}, %x{i}, 0xffffffff;", "xor.b32 %x{i}, %x{i}, %z;"]),
    ("u26", "match.any.sync.b32", "MATCH.ANY",
     ["match.any.sync.b32 %x{i}, %x{i}, 0xffffffff;"]),
    ("u27", "match.all.sync.b32+selp", "MATCH.ALL",
     ["match.all.sync.b32 %x{i}|%p{i}, %x{i}, 0xffffffff;", "selp.b32 %x{i}, %x{i}, %y, %p{i};"]),
    ("u28", "setp+vote.sync.ballot", "VOTE.ANY",
     ["setp.ne.u32 %p{i}, %x{i}, %y;", "vote.sync.ballot.b32 %x{i}, %p{i}, 0xffffffff;"]),
    ("u29", "or+elect.sync(data mask)+add", "ELECT (+REDUX.OR, R2UR, BRA.DIV)",
     ["or.b32 %w{i}, %x{i}, %m;", "elect.sync %w{i}|%p{i}, %w{i};", "add.u32 %x{i}, %x{i}, %w{i};"]),
    ("u30", "setp+bar.red.popc", "BAR.RED.POPC",
     ["setp.ne.u32 %p{i}, %x{i}, %y;", "bar.red.popc.u32 %x{i}, 0, %p{i};"]),
    ("u33", "bfe.u32", "SGXT.U32 (in the bfe lowering)",
     ["bfe.u32 %x{i}, %x{i}, %y, %z;"]),
    ("u34", "bfi.b32", "BMSK (in the bfi lowering)",
     ["bfi.b32 %x{i}, %x{i}, %z, %y, %y;"]),
    ("u35", "xor.pred+and.pred+xor.pred (2 loop-carried preds)", "PLOP3.LUT (+ISETP for %q)",
     ["xor.pred %p{i}, %p{i}, %pb{i};", "and.pred %pb{i}, %pb{i}, %q;", "xor.pred %pb{i}, %pb{i}, %p{i};"]),
    ("u36", "add.s32+min.s32 (fused by ptxas)", "VIADDMNMX",
     ["add.s32 %x{i}, %x{i}, %y;", "min.s32 %x{i}, %x{i}, %z;"]),
    ("u37", "max.s32+min.s32", "VIMNMX (no partner)",
     ["max.s32 %x{i}, %x{i}, %y;", "min.s32 %x{i}, %x{i}, %z;"]),
    ("u38", "min.NaN.f32+max.NaN.f32", "FMNMX.NAN",
     ["min.NaN.f32 %x{i}, %x{i}, %y;", "max.NaN.f32 %x{i}, %x{i}, %z;"]),
    ("u31", "shfl.sync.idx", "SHFL.IDX",
     ["shfl.sync.idx.b32 %x{i}, %x{i}, %x{i}, 0x1f, 0xffffffff;"]),
    # The XU and wide-multiply opcodes of ptxas's division and square root (int_math.t,
    # float_math.t; docs/validation.md): measured nowhere before 2026-11-30.
    # Without the xor ptxas folds rcp(rcp(x)) and leaves an empty loop.
    ("u39", "rcp.approx.ftz.f32+xor", "MUFU.RCP",
     ["rcp.approx.ftz.f32 %x{i}, %x{i};", "xor.b32 %x{i}, %x{i}, %z;"]),
    ("u40", "rsqrt.approx.ftz.f32", "MUFU.RSQ",
     ["rsqrt.approx.ftz.f32 %x{i}, %x{i};"]),
    ("u41", "rcp.approx.ftz.f64", "MUFU.RCP64H",
     ["rcp.approx.ftz.f64 %d{i}, %d{i};"]),
    ("u42", "cvt.rp.f32.u32", "I2F.U32.RP (the XU's, not the ALU's I2FP)",
     ["cvt.rp.f32.u32 %x{i}, %x{i};"]),
    ("u43", "cvt.rzi.ftz.u32.f32", "F2I.FTZ.U32.TRUNC",
     ["cvt.rzi.ftz.u32.f32 %x{i}, %x{i};"]),
    ("u44", "mad.hi.u32", "IMAD.HI.U32",
     ["mad.hi.u32 %x{i}, %x{i}, %y, %z;"]),
    # The high half goes into the chain (xor into the low half), so it is live: a mul.wide
    # whose high half is dead becomes a plain IMAD (H100 b53).
    ("u45", "mul.wide.u32+xor(high into low)", "IMAD.WIDE.U32",
     ["mul.wide.u32 %d{i}, %x{i}, %z;", "mov.b64 {%x{i}, %w{i}}, %d{i};", "xor.b32 %x{i}, %x{i}, %w{i};"]),
    # FCHK has no PTX form of its own: x / x keeps the quotient 1.0, on ptxas's fast path.
    ("u46", "div.rn.f32 (x / x, fast path)", "FCHK (+MUFU.RCP, FFMA, the fast path)",
     ["div.rn.f32 %x{i}, %x{i}, %x{i};"]),
    # The divisor changes every time, so nothing of ptxas's sequence leaves the loop.
    ("u47", "div.u32 (z / x)", "I2F.U32.RP+MUFU.RCP+F2I+IMAD.HI (whole u32 division)",
     ["div.u32 %x{i}, %z, %x{i};"]),
    # The tensor-core forms sim-isa runs (issue 23: the pipe's latency and rate had come
    # from published H100 figures): a chain through the accumulator, D = C. The extra
    # per-chain registers %v %u (.b32) and %e (.b64) are declared only where a row uses them.
    ("u48", "mma.m16n8k16.f32.f16.f16.f32", "HMMA.16816.F32",
     ["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%x{i}, %w{i}, %v{i}, %u{i}}, "
      "{%y, %z, %m, %y}, {%z, %m}, {%x{i}, %w{i}, %v{i}, %u{i}};"]),
    ("u49", "mma.m16n8k16.f16.f16.f16.f16", "HMMA.16816.F16",
     ["mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%x{i}, %w{i}}, "
      "{%y, %z, %m, %y}, {%z, %m}, {%x{i}, %w{i}};"]),
    ("u50", "mma.m16n8k16.f32.bf16.bf16.f32", "HMMA.16816.F32.BF16",
     ["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%x{i}, %w{i}, %v{i}, %u{i}}, "
      "{%y, %z, %m, %y}, {%z, %m}, {%x{i}, %w{i}, %v{i}, %u{i}};"]),
    ("u51", "mma.m16n8k8.f32.f16.f16.f32", "HMMA.1688.F32",
     ["mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%x{i}, %w{i}, %v{i}, %u{i}}, "
      "{%y, %z}, {%m}, {%x{i}, %w{i}, %v{i}, %u{i}};"]),
    ("u52", "mma.m16n8k32.s32.s8.s8.s32", "IMMA.16832.S8.S8",
     ["mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%x{i}, %w{i}, %v{i}, %u{i}}, "
      "{%y, %z, %m, %y}, {%z, %m}, {%x{i}, %w{i}, %v{i}, %u{i}};"]),
    ("u53", "mma.m8n8k4.f64", "DMMA.8x8x4",
     ["mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%d{i}, %e{i}}, {%dy}, {%dz}, {%d{i}, %e{i}};"]),
    ("u54", "movmatrix.m8n8.trans.b16", "MOVM.16.MT88",
     ["movmatrix.sync.aligned.m8n8.trans.b16 %x{i}, %x{i};"]),
]
# The per-chain registers only some rows use: (prefix, type, start value from x).
EXTRA = [("v", "b32", "xor.b32 %v{c}, %x{c}, %y;"), ("u", "b32", "xor.b32 %u{c}, %x{c}, %m;"),
         ("e", "b64", "add.u64 %e{c}, %d{c}, %dy;")]


def extra_regs(body):
    """The EXTRA registers the body names."""
    return [e for e in EXTRA if any(f"%{e[0]}{{i}}" in line for line in body)]

# Reference rows: H100 rows (microbench.json) measured again here, so the new
# rows can be put next to the H100 set (same SM? same cycles?) and partners
# subtracted with figures from the same GPU.
REFS = [
    ("r0", "b0", "add.u32+xor (H100 b0)", "IMAD.IADD+LOP3.LUT"),
    ("r21", "b21", "selp.b32 (H100 b21)", "SEL"),
    ("r29", "b29", "lop3.b32 (H100 b29)", "LOP3.LUT"),
    ("r36", "b36", "setp.lt.f32+selp (H100 b36)", "FSETP+SEL"),
    ("r38", "b38", "fma.rn.f32 (H100 b38)", "FFMA"),
    ("r43", "b43", "add.rn.f64 (H100 b43)", "DADD"),
    ("r52", "b52", "shfl.sync.bfly (H100 b52)", "SHFL.BFLY"),
]
H100 = os.path.join(HERE, "..", "..", "..", "sim-core", "data", "calibration", "h100", "microbench.json")

MODES = {"lat": (1, 1), "tput": (32, 4)}
# Rows whose tput kernel runs one chain per thread: with 4, ptxas runs out of
# the 7 predicate registers and spills them (P2R), which is not the opcode.
TPUT_CHAINS = {"u35": 1}


def body_lines(body, chains):
    """The loop body: COPIES copies of the form's lines, each line for every chain in turn
    (independent chains interleaved, as in the H100 set)."""
    out = []
    for _ in range(COPIES):
        for line in body:
            for c in range(chains):
                out.append("  " + line.replace("{i}", str(c)))
    return out


def regs(chains):
    """The register declarations: shared inputs, and per chain a register of each class the
    forms use."""
    def rl(p):
        """The per-chain registers of prefix p, comma-separated."""
        return ", ".join(f"%{p}{c}" for c in range(chains))
    return (f"  .reg .b32 %y, %z, %m, %cnt, %tx, %wid, %t32, {rl('x')}, {rl('w')};\n"
            f"  .reg .b16 %hy, {rl('h')};\n"
            f"  .reg .b64 %dy, %dz, %ra, %rb, %c0, %c1, {rl('d')};\n"
            f"  .reg .pred %q, %pz, %pl, {rl('p')}, {rl('pb')};\n")


# Each chain's registers' start values: x from the thread index and the chain, the
# others from x and the inputs.
CHAIN_INIT = """\
  add.u32 %x{c}, %tx, {x0};
  mov.u32 %w{c}, %z;
  cvt.u16.u32 %h{c}, %x{c};
  or.b16 %h{c}, %h{c}, %hy;
  cvt.u64.u32 %d{c}, %x{c};
  add.u64 %d{c}, %d{c}, %dz;
  setp.lt.u32 %p{c}, %x{c}, %z;
  setp.lt.u32 %pb{c}, %x{c}, %y;
"""
# Each chain's results, into its 16-byte slot of the output: x, h, the predicate p plus
# w, pb, d.
CHAIN_STORES = """\
  st.global.u32 [%rb+{o0}], %x{c};
  st.global.u16 [%rb+{o4}], %h{c};
  selp.u32 %t32, 1, 0, %p{c};
  add.u32 %t32, %t32, %w{c};
  st.global.u8 [%rb+{o6}], %t32;
  selp.u32 %t32, 1, 0, %pb{c};
  st.global.u8 [%rb+{o7}], %t32;
  st.global.u64 [%rb+{o8}], %d{c};
"""


def per_chain(template, chains):
    """template for each chain c in turn: {c} the chain, {x0} its x's offset from the
    thread index, {oK} byte K of its output slot."""
    out = []
    for c in range(chains):
        slot = {f"o{k}": 16 * c + k for k in (0, 4, 6, 7, 8)}
        out.append(template.format(c=c, x0=0x1234567 + 0x111 * c, **slot))
    return "".join(out)


def kernel(name, chains, body):
    """The PTX of one microbenchmark kernel in the H100 set's shape (inputs from memory,
    clock64 read around an ITER-iteration loop, every warp's clock pair and each chain's
    result stored)."""
    extra = extra_regs(body)
    decl = "".join(f"  .reg .{t} " + ", ".join(f"%{p}{c}" for c in range(chains)) + ";\n"
                   for p, t, _ in extra)
    init = "".join("  " + i.format(c=c) + "\n" for c in range(chains) for _, _, i in extra)
    return f""".visible .entry {name}(.param .u64 pin, .param .u64 pout, .param .u64 pclk)
{{
{regs(chains)}{decl}  mov.u32 %tx, %tid.x;
  ld.param.u64 %ra, [pin];
  cvta.to.global.u64 %ra, %ra;
  ld.global.u32 %y, [%ra+0];
  ld.global.u32 %z, [%ra+4];
  ld.global.u32 %m, [%ra+8];
  ld.global.u16 %hy, [%ra+12];
  ld.global.u64 %dy, [%ra+16];
  ld.global.u64 %dz, [%ra+24];
  ld.global.u32 %cnt, [%ra+32];
  setp.ne.u32 %q, %cnt, 0;
  ld.global.u32 %cnt, [%ra+36];
  setp.ne.u32 %pz, %cnt, 0;
  ld.global.u32 %cnt, [%ra+40];
{per_chain(CHAIN_INIT, chains)}{init}  mov.u64 %c0, %clock64;
LOOP:
{chr(10).join(body_lines(body, chains))}
{loop_tail(ITER, "%tx", "%wid", "%c0", "%c1", 16 * chains)}{per_chain(CHAIN_STORES, chains)}  ret;
}}
"""


# Input buffer (48 bytes): y, z, m, hy(+pad), dy, dz, q-source, pz-source, counter start.
def input_bytes():
    """The kernels' input buffer (the values their registers start from, as in the H100
    set): u32 y, z, m, b16 hy, f64 dy, dz, and the loop counter's start."""
    import struct
    return (struct.pack("<IIIHH", 0x30201, 0x10203040, 0xffffffff, 0x4000, 0)
            + struct.pack("<dd", 1.0000001, 0.5)
            + struct.pack("<III", 1, 0, 0) + bytes(4))


SIMCLI = os.environ.get("SIMCLI", "/work/target-speed-v3/release/simcli")


def kernel_text(warps, chains, body):
    """The row as kernel text for `simcli run` (the loop's bra has no form there)."""
    import struct
    dy = struct.unpack("<Q", struct.pack("<d", 1.0000001))[0]
    lines = [".version 8.0", ".target sm_90", f".warps {warps}",
             ".reg .b32 %y, %z, %m, %cnt;", ".reg .b16 %hy;", ".reg .b64 %dy, %dz;",
             ".reg .pred %q, %pz, %pl;"]
    for t, p in (("b32", "x"), ("b32", "w"), ("b16", "h"), ("b64", "d"), ("pred", "p"), ("pred", "pb")):
        lines.append(f".reg .{t} " + ", ".join(f"%{p}{c}" for c in range(chains)) + ";")
    lines += ["mov.u32 %y, 0x30201;", "mov.u32 %z, 0x10203040;", "mov.u32 %m, 0xffffffff;",
              "mov.b16 %hy, 0x4000;", f"mov.b64 %dy, {dy:#x};", "mov.b64 %dz, 0x3fe0000000000000;",
              "setp.ne.u32 %q, %m, 0;", "setp.eq.u32 %pz, %m, 0;", "mov.u32 %cnt, 0;"]
    extra = extra_regs(body)
    for p, t, _ in extra:
        lines.append(f".reg .{t} " + ", ".join(f"%{p}{c}" for c in range(chains)) + ";")
    for c in range(chains):
        x = 0x1234567 + 0x111 * c
        lines += [f"mov.u32 %x{c}, {x:#x};", f"mov.u32 %w{c}, 0x10203040;",
                  f"mov.b16 %h{c}, {(x & 0xffff) | 0x4000:#x};", f"mov.b64 %d{c}, {x + (1 << 61):#x};",
                  f"setp.lt.u32 %p{c}, %x{c}, %z;", f"setp.lt.u32 %pb{c}, %x{c}, %y;"]
        lines += [i.format(c=c) for _, _, i in extra]
    lines.append(f".repeat {ITER} {{")
    lines += body_lines(body, chains)
    lines += ["  add.u32 %cnt, %cnt, 1;", f"  setp.lt.u32 %pl, %cnt, {ITER};", "}"]
    return "\n".join(lines) + "\n"


def write_kernel_texts(manifest, rows_by_name):
    """Keep a kernel text only where simcli accepts every form in it."""
    kdir = os.path.join(HERE, "kernels")
    os.makedirs(kdir, exist_ok=True)
    for f in os.listdir(kdir):
        if f.endswith(".ptx"):
            os.remove(os.path.join(kdir, f))
    have = os.path.exists(SIMCLI)
    for row in manifest:
        text = kernel_text(row["warps"], row["chains_per_thread"], row["ptx_body"])
        path = os.path.join(kdir, row["name"] + ".ptx")
        with open(path, "w") as f:
            f.write(text)
        if not have:
            continue  # cannot tell here; keep the file, compare.py reports refusals
        r = subprocess.run([SIMCLI, "run", path, "--arch", "sm_90"], capture_output=True, text=True)
        if r.returncode == 0:
            row["kernel_text"] = f"kernels/{row['name']}.ptx"
        else:
            os.remove(path)
            row["simcli_refuses"] = (r.stderr.strip().splitlines() or ["?"])[0][:200]


def loop_histograms(cubin):
    """Per kernel: opcode histogram of the loop (backward BRA target .. BRA), the
    listing read by tools/sass_listing.py."""
    r = subprocess.run([NVDISASM, "-c", cubin], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"nvdisasm failed: {r.stderr}")
    hists = {}
    for name, lines in sass_listing.functions(r.stdout, "sm_90").items():
        if not name:
            continue
        labels, loop = {}, None
        for idx, t in enumerate(lines):
            if t.kind == "label":
                labels[t.name] = idx
            elif sass_listing.loop_branch(t) and t.target in labels and loop is None:
                loop = (labels[t.target], idx)
        if loop is None:
            hists[name] = None
            continue
        h = collections.Counter(t.opcode for t in lines[loop[0]:loop[1] + 1] if t.kind == "inst")
        hists[name] = dict(h)
    return hists


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):  # the usage, not an output path
        print(__doc__)
        return 0
    kernels, manifest = [], []
    with open(H100) as f:
        h100 = {r["name"]: r for r in json.load(f)["results"]}
    rows = [(n, op, sass, body, None) for n, op, sass, body in ROWS]
    for n, b, op, sass in REFS:
        rows.append((n, op, sass, h100[f"{b}_lat"]["ptx_body"], b))
    for name, op, sass, body, ref in rows:
        for mode, (warps, chains) in MODES.items():
            if mode == "tput":
                chains = TPUT_CHAINS.get(name, chains)
            kname = f"{name}_{mode}"
            kernels.append(kernel(kname, chains, body))
            manifest.append({
                "name": kname, "op": op, "isolates": sass, "mode": mode, "warps": warps,
                "chains_per_thread": chains, "ptx_body": body,
                "ptx_instructions_per_chain": len(body) * COPIES * ITER, "kernel": kname,
            })
            if ref:
                hr = h100[f"{ref}_{mode}"]
                manifest[-1].update({"h100_row": hr["name"], "h100_cycles": hr["h100_cycles"],
                                     "h100_sass_opcodes_per_loop_iteration": hr["sass_opcodes_per_loop_iteration"]})
    ptx = f".version {VERSION}\n.target sm_90\n.address_size 64\n\n" + "\n".join(kernels)
    with open(os.path.join(HERE, "ubench.ptx"), "w") as f:
        f.write(ptx)
    with open(os.path.join(HERE, "ubench.in.bin"), "wb") as f:
        f.write(input_bytes())
    cubin = os.path.join(HERE, "ubench.cubin")
    r = subprocess.run([PTXAS, "-arch=sm_90", os.path.join(HERE, "ubench.ptx"), "-o", cubin],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"ptxas rejected ubench.ptx:\n{r.stderr[:4000]}")
    ver = subprocess.run([PTXAS, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    hists = loop_histograms(cubin)
    for row in manifest:
        h = hists.get(row["kernel"])
        row["sass_per_loop_iteration"] = sum(h.values()) if h else None
        row["sass_opcodes_per_loop_iteration"] = h
        if "h100_row" in row:
            same = h == row["h100_sass_opcodes_per_loop_iteration"]
            row["same_sass_as_h100_row"] = same
            if not same:
                print(f"note: {row['name']} SASS differs from {row['h100_row']}'s", file=sys.stderr)
    write_kernel_texts(manifest, None)
    doc = {
        "compiler": f"ptxas ({ver}), -arch=sm_90",
        "ptx_version": VERSION,
        "loop": {"iterations": ITER, "unrolled_body_copies": COPIES,
                 "overhead_per_iteration": "add.u32 counter; setp.lt.u32; @p bra"},
        "input": "ubench.in.bin (48 bytes: y=0x30201 z=0x10203040 m=0xffffffff hy=0x4000 "
                 "dy=1.0000001 dz=0.5 q=1 pz=0 counter=0)",
        "out_bytes_per_thread_per_chain": 16,
        "rows": manifest,
    }
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for row in manifest:
        h = row["sass_opcodes_per_loop_iteration"]
        kt = row.get("kernel_text") or ("simcli refuses: " + row.get("simcli_refuses", "?"))
        print(f"{row['name']:10} {row['op']:45} {json.dumps(h)}  [{kt}]")


if __name__ == "__main__":
    main()
