#!/usr/bin/env python3
"""Writes the sample kernels in traces/ with their `.expect` lines.

The expected values come from a small model written here from the spec's
Semantics blocks (and ERRATA 8/17), independent of sim-isa, so `run --check`
compares two implementations. Re-run: python3 traces/tools/mktraces.py
"""
import os, struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)
M32 = 0xFFFFFFFF


def s(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def lanes_of(v, n, bits, signed):
    return [s(v >> (bits * i), bits) if signed else (v >> (bits * i)) & ((1 << bits) - 1) for i in range(n)]


def clamp(t, lo, hi):
    return max(lo, min(hi, t))


def vop(op, n, a, b, c, asg=False, bsg=False, dsg=False, sat=False, add=False):
    bits = 32 // n
    va, vb = lanes_of(a, n, bits, asg), lanes_of(b, n, bits, bsg)
    vc = lanes_of(c, n, bits, False)
    t = []
    for x, y in zip(va, vb):
        r = {
            "add": x + y,
            "sub": x - y,
            "avrg": (x + y + 1) >> 1 if x + y >= 0 else (x + y) >> 1,
            "absdiff": abs(x - y),
            "min": min(x, y),
            "max": max(x, y),
        }[op]
        if sat:
            r = clamp(r, -(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dsg else clamp(r, 0, (1 << bits) - 1)
        t.append(r)
    if add:
        return (c + sum(t)) & M32
    d = 0
    for i in range(n):
        d |= (t[i] & ((1 << bits) - 1)) << (bits * i)
    return d


def vset4(cmp, a, b, c, add=False):
    va, vb = lanes_of(a, 4, 8, False), lanes_of(b, 4, 8, False)
    t = [1 if {"gt": x > y, "lt": x < y, "eq": x == y}[cmp] else 0 for x, y in zip(va, vb)]
    if add:
        return (c + sum(t)) & M32
    return sum(t[i] << (8 * i) for i in range(4))


def bf16(h):
    return struct.unpack("<f", struct.pack("<I", h << 16))[0]


def expect_lines(name, per_warp_lanes, warps, fmt=lambda v: "0x%08x" % v):
    """per_warp_lanes(w) -> 32 values. One line for all warps when they agree."""
    vals = [per_warp_lanes(w) for w in range(warps)]
    def one(v):
        return fmt(v[0]) if all(x == v[0] for x in v) else "{" + ", ".join(fmt(x) for x in v) + "}"
    if all(v == vals[0] for v in vals):
        return [".expect %s = %s;" % (name, one(vals[0]))]
    return [".expect w%d %s = %s;" % (w, name, one(vals[w])) for w in range(warps)]


def lane_expects(names, model, warps):
    """The expect lines of registers `names`, model(lane)[k] the k-th's value
    in every warp."""
    ex = []
    for k, name in enumerate(names):
        ex += expect_lines(name, lambda w, k=k: [model(l)[k] for l in range(32)], warps)
    return ex


def head(comment, target, warps, regs, version="7.8"):
    """A sample's header: its `//` comment lines, then `.version` (none for the sm_13
    microbenchmarks), `.target`, `.warps` and one `.reg` line per entry of regs."""
    directives = ([f".version {version}"] if version else []) + [f".target {target}", f".warps {warps}"]
    return comment + "\n".join(directives + [f".reg {r};" for r in regs]) + "\n"


def write(fname, header, body, expects):
    with open(os.path.join(OUT, fname), "w") as f:
        f.write(header.strip("\n") + "\n\n" + body.strip("\n") + "\n")
        if expects:
            f.write("\n// Expected final values (traces/tools/mktraces.py, from the spec's Semantics).\n")
            f.write("\n".join(expects) + "\n")


# --- Motion-estimation SAD over 16x16 blocks --------------------------------
def sad():
    warps = 8
    def model(w):
        out_sad, out_ref = [], []
        for l in range(32):
            cur = [0x80808080, 0x90909090, 0x70707070, 0x80808080]
            ref = ((l + w) * 0x01010101) & M32
            acc = 0
            for _row in range(16):
                for c in cur:
                    acc = vop("absdiff", 4, c, ref, acc, add=True)
                ref = (ref + 0x01010101) & M32
            out_sad.append(acc)
            out_ref.append(ref)
        return out_sad, out_ref
    header = head("""
// Motion-estimation SAD: each lane compares one 16x16 block of the current
// frame (4 packed words per row) with a candidate block of the reference
// frame at offset lane + warp, accumulating |cur - ref| per byte with
// vabsdiff4 ... .add (native on sm_30, and the one native SIMD video
// instruction from sm_50 on).
""", "sm_53", warps, [".b32 %cur<4>", ".b32 %ref", ".b32 %sad", ".b32 %t"])
    body = """
mov.u32 %t, %laneid;
mov.u32 %ref, %warpid;
add.u32 %ref, %ref, %t;
mul.lo.u32 %ref, %ref, 0x01010101;
mov.u32 %cur0, 0x80808080;
mov.u32 %cur1, 0x90909090;
mov.u32 %cur2, 0x70707070;
mov.u32 %cur3, 0x80808080;
.repeat 16 {                 // 16 rows
    vabsdiff4.u32.u32.u32.add %sad, %cur0, %ref, %sad;
    vabsdiff4.u32.u32.u32.add %sad, %cur1, %ref, %sad;
    vabsdiff4.u32.u32.u32.add %sad, %cur2, %ref, %sad;
    vabsdiff4.u32.u32.u32.add %sad, %cur3, %ref, %sad;
    add.u32 %ref, %ref, 0x01010101;   // next row of the candidate
}
"""
    ex = expect_lines("%sad", lambda w: model(w)[0], warps) + expect_lines("%ref", lambda w: model(w)[1], warps)
    # Closed form as a cross-check of the model: 30848 - 256 * (lane + warp).
    assert all(model(w)[0][l] == 30848 - 256 * (l + w) for w in range(warps) for l in range(32))
    write("sad16x16.ptx", header, body, ex)


# --- Packed-byte threshold and clamp -----------------------------------------
def threshold():
    warps = 4
    def model(l):
        px = ((l * 0x04040404) + 0x00204060) & M32
        mask = cnt = clampv = 0
        for _ in range(32):
            mask = vset4("gt", px, 0x50505050, 0)
            cnt = vset4("gt", px, 0x50505050, cnt, add=True)
            clampv = vop("max", 4, px, 0x30303030, 0)
            clampv = vop("min", 4, clampv, 0xC0C0C0C0, 0)
            px = (px + 0x01010101) & M32
        return mask, cnt, clampv, px
    header = head("""
// Packed-byte threshold and clamp over 4 pixels per register: vset4 marks the
// bytes above a threshold (and, with .add, counts them), vmax4/vmin4 clamp
// each byte to [0x30, 0xc0]. Targets sm_30, where all three are native.
""", "sm_30", warps, [".b32 %px, %thr, %lo, %hi, %zero", ".b32 %mask, %cnt, %clamp, %t"])
    body = """
mov.u32 %t, %laneid;
mul.lo.u32 %px, %t, 0x04040404;
add.u32 %px, %px, 0x00204060;
mov.u32 %thr, 0x50505050;
mov.u32 %lo, 0x30303030;
mov.u32 %hi, 0xc0c0c0c0;
.repeat 32 {
    vset4.u32.u32.gt %mask, %px, %thr, %zero;
    vset4.u32.u32.gt.add %cnt, %px, %thr, %cnt;
    vmax4.u32.u32.u32 %clamp, %px, %lo, %zero;
    vmin4.u32.u32.u32 %clamp, %clamp, %hi, %zero;
    add.u32 %px, %px, 0x01010101;
}
"""
    write("threshold.ptx", header, body, lane_expects(["%mask", "%cnt", "%clamp", "%px"], model, warps))


# --- Saturating 16-bit audio mixer -------------------------------------------
def audio():
    warps = 2
    def model(l):
        a = (l * 0x04000400 + 0x60002000) & M32
        b = (l * 0x01000100 + 0x5000D000) & M32
        mix = avg = acc = 0
        for _ in range(64):
            mix = vop("add", 2, a, b, 0, True, True, True, sat=True)
            avg = vop("avrg", 2, a, b, 0, True, True, True)
            acc = vop("add", 2, acc, avg, 0, True, True, True, sat=True)
            a = (a + 0x00100010) & M32
        return mix, avg, acc, a
    header = head("""
// Saturating 16-bit audio mixer: two signed 16-bit samples per register.
// vadd2 ... .sat mixes two channels with clipping, vavrg2 averages them
// (rounding .5 towards +inf, per the spec's Semantics), and a
// saturating accumulator sums the averages. Targets sm_30 (native SIMD video).
""", "sm_30", warps, [".b32 %a, %b, %mix, %avg, %acc, %zero, %t"])
    body = """
mov.u32 %t, %laneid;
mul.lo.u32 %a, %t, 0x04000400;
add.u32 %a, %a, 0x60002000;
mul.lo.u32 %b, %t, 0x01000100;
add.u32 %b, %b, 0x5000d000;
.repeat 64 {
    vadd2.s32.s32.s32.sat %mix, %a, %b, %zero;
    vavrg2.s32.s32.s32 %avg, %a, %b, %zero;
    vadd2.s32.s32.s32.sat %acc, %acc, %avg, %zero;
    add.u32 %a, %a, 0x00100010;
}
"""
    write("audio_mix.ptx", header, body, lane_expects(["%mix", "%avg", "%acc", "%a"], model, warps))


# --- bf16 mask (sm_90 only) ----------------------------------------------------
def bf16mask():
    warps = 2
    def model(l):
        x = (l * 0x00080000 + 0x3F004000 - 8 * l) & M32
        thr = 0x3F803F80
        m = h = 0
        for i in range(2):
            xv, tv = bf16((x >> (16 * i)) & 0xFFFF), bf16((thr >> (16 * i)) & 0xFFFF)
            m |= (0xFFFF if xv > tv else 0) << (16 * i)           # ERRATA 17: u32 dst, x2 src
            h |= (0x3F80 if xv <= tv else 0) << (16 * i)          # bf16x2 dst: 1.0 per half
        return m, x & m, h
    header = head("""
// bf16 mask: compares pairs of bf16 values with 1.0 and keeps those above it
// (set ... .bf16x2 needs sm_90; on sm_53 the run is refused before simulating).
""", "sm_90", warps, [".b32 %x, %thr, %m, %y, %h, %u, %t"])
    body = """
mov.u32 %t, %laneid;
mul.lo.u32 %x, %t, 0x00080000;
add.u32 %x, %x, 0x3f004000;
mul.lo.u32 %u, %t, 8;
sub.u32 %x, %x, %u;
mov.u32 %thr, 0x3f803f80;
.repeat 100 {
    set.gt.u32.bf16x2 %m, %x, %thr;
    and.b32 %y, %x, %m;
    set.le.bf16x2.bf16x2 %h, %x, %thr;
}
"""
    write("bf16_mask.ptx", header, body, lane_expects(["%m", "%y", "%h"], model, warps))


# --- sim-core microbenchmarks ------------------------------------------------
def micro():
    header = head("""
// Microbenchmark: one warp, a chain of 1000 dependent set.lt.u32.u32.
// Cycles per instruction should equal the preset's dependent ALU latency.
""", "sm_13", 1, [".b32 %r<3>"], version=None)
    body = """
mov.u32 %r2, 1000;
.repeat 1000 {
    set.lt.u32.u32 %r1, %r1, %r2;
}
"""
    # 0 < 1000 -> 0xffffffff; 0xffffffff < 1000 is false -> 0; 1000 steps end at 0.
    write("chain_set.ptx", header, body, [".expect %r1 = 0x00000000;", ".expect %r2 = 0x000003e8;"])

    header = head("""
// Microbenchmark: one warp, a chain of 1000 dependent selp.b32 (one SEL
// machine instruction on every target, where set.lt.u32.u32 is ISETP+SEL from
// sm_90 on). Cycles per instruction should equal the preset's ALU latency.
""", "sm_13", 1, [".b32 %r<4>", ".pred %p1"], version=None)
    body = """
mov.u32 %r3, %laneid;
setp.lt.u32 %p1, %r3, 16;
.repeat 1000 {
    selp.b32 %r1, %r1, %r3, %p1;
}
"""
    # Lanes 0-15 keep %r1 (0); lanes 16-31 take %r3 (the lane id) every step.
    ex = [".expect %%r1 = {%s};" % ", ".join("0x%08x" % (0 if l < 16 else l) for l in range(32)),
          ".expect %%r3 = {%s};" % ", ".join("0x%08x" % l for l in range(32)),
          ".expect %%p1 = {%s};" % ", ".join("true" if l < 16 else "false" for l in range(32))]
    write("chain_selp.ptx", header, body, ex)

    header = head("""
// Microbenchmark: one warp, a chain of 1000 dependent vadd4 (native on sm_30;
// emulated from sm_50 on, where the chain costs the expansion's dependent
// steps times the latency per instruction).
""", "sm_30", 1, [".b32 %r<11>"])
    body = """
mov.u32 %r9, 0x01020304;
.repeat 1000 {
    vadd4.u32.u32.u32 %r1, %r1, %r9, %r10;
}
"""
    acc = 0
    for _ in range(1000):
        acc = vop("add", 4, acc, 0x01020304, 0)
    write("chain_vadd4.ptx", header, body, [".expect %%r1 = 0x%08x;" % acc, ".expect %r9 = 0x01020304;"])

    regs = "\n".join("    set.lt.u32.u32 %%r%d, %%r8, %d;" % (i, 4 * i) for i in range(8))
    header = head("""
// Microbenchmark: 64 warps, independent compares (8 registers round-robin).
// Warp-instructions per cycle per SM should match the compare throughput.
""", "sm_13", 64, [".b32 %r<9>"], version=None)
    body = "mov.u32 %r8, %laneid;\n.repeat 125 {\n" + regs + "\n}\n"
    ex = [".expect %%r%d = {%s};" % (i, ", ".join("0x%08x" % (M32 if l < 4 * i else 0) for l in range(32))) for i in range(8)]
    write("indep_cmp.ptx", header, body, ex)

    for op, fname, what in [("vadd4", "vadd4_tput.ptx", "vadd4"), ("vabsdiff4", "vabsdiff4_tput.ptx", "vabsdiff4")]:
        header = head("""
// Microbenchmark: %s throughput, 64 warps of independent instructions
// (8 destination registers round-robin, sources never written in the loop).
""" % what, "sm_30", 64, [".b32 %r<11>"])
        lines = "\n".join("    %s.u32.u32.u32 %%r%d, %%r8, %%r9, %%r10;" % (op, i) for i in range(8))
        body = "mov.u32 %r8, %laneid;\nmul.lo.u32 %r8, %r8, 0x01010101;\nmov.u32 %r9, 0x10203040;\n.repeat 125 {\n" + lines + "\n}\n"
        def val(l):
            a = (l * 0x01010101) & M32
            return vop("add" if op == "vadd4" else "absdiff", 4, a, 0x10203040, 0)
        ex = [".expect %%r%d = {%s};" % (i, ", ".join("0x%08x" % val(l) for l in range(32))) for i in range(8)]
        write(fname, header, body, ex)


sad(); threshold(); audio(); bf16mask(); micro()
