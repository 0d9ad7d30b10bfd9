#!/usr/bin/env python3
"""Whole-domain PTX kernels for the forms in forms.txt (issue 23).

    python3 -m tools.gpu.domain.gen OUT.ptx          # write the module
    python3 -m tools.gpu.domain.gen --check          # ptxas each kernel alone

One kernel `k<INDEX>` per form (INDEX: the form's position among forms.txt's
non-comment lines), all in one module (.version 8.1, .target sm_90; 8.1 is the
lowest PTX ptxas 13.0.88 takes `cvt.*.satfinite.{f16,bf16}.f32` at, and it covers
every other form). The kind of a form follows from its registers: the
destination is the first operand (%h 16-bit, %r 32-bit, %p predicate), the
sources are the rest, in order.

  one16  one 16-bit source a: thread a (grid 256 x 256) stores the result at
         out[a] (2 or 4 bytes, little-endian).
  two16  two 16-bit sources a, b: block a (65,536 blocks of 256 threads) sums
         fmix32(result ^ (b * 0x9E3779B9)) over all 65,536 b (each thread a
         stride of b, then a butterfly shuffle over the warp, then one
         red.global.add.u32 per warp into out[a]; u32 wrapping).
  one32  one 32-bit source x = (a << 16) | b: block a sums, as two16, over the
         low half b into out[a].

The result is zero-extended to 32 bits first (a predicate as 0/1).
fmix32 is murmur3's finaliser: h ^= h >> 16; h *= 0x85ebca6b; h ^= h >> 13;
h *= 0xc2b2ae35; h ^= h >> 16. The output buffer is zeroed before each launch.
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = ".version 8.1\n.target sm_90\n.address_size 64\n\n"
BLOCK = 256
N_BLOCKS_ONE16 = 65536 // BLOCK
GOLDEN = 0x9E3779B9


def load_forms(path=None):
    """(index, text) for each non-comment, non-empty line of forms.txt."""
    path = path or os.path.join(HERE, "forms.txt")
    out = []
    with open(path) as f:
        for line in f:
            t = line.strip()
            if t and not t.startswith("#"):
                out.append((len(out), t))
    return out


def regs(text):
    """The %h/%r/%p registers a form names, destination first: the form's kind and result
    width follow from them."""
    return re.findall(r"%(?:h|r|p)\d+", text)


def kind_of(text):
    """("one16" | "two16" | "one32", result width in bits: 1, 16 or 32), or None."""
    rs = regs(text)
    if len(rs) < 2:
        return None
    dst, srcs = rs[0], rs[1:]
    width = {"h": 16, "r": 32, "p": 1}[dst[1]]
    if all(s.startswith("%h") for s in srcs) and len(srcs) == 1:
        return "one16", width
    if all(s.startswith("%h") for s in srcs) and len(srcs) == 2:
        return "two16", width
    if len(srcs) == 1 and srcs[0].startswith("%r"):
        return "one32", width
    return None


def _result_to_t4(text, width):
    """The instruction that widens the form's result into %t4 (a predicate as 0/1, 16 bits
    zero-extended), so every kernel stores or checksums 32-bit words."""
    dst = regs(text)[0]
    if width == 1:
        return f"selp.u32 %t4, 1, 0, {dst};"
    if width == 16:
        return f"cvt.u32.u16 %t4, {dst};"
    return f"mov.b32 %t4, {dst};"


FMIX = (
    "shr.u32 %t6, %t4, 16; xor.b32 %t4, %t4, %t6;\n"
    " mul.lo.u32 %t4, %t4, 0x85ebca6b;\n"
    " shr.u32 %t6, %t4, 13; xor.b32 %t4, %t4, %t6;\n"
    " mul.lo.u32 %t4, %t4, 0xc2b2ae35;\n"
    " shr.u32 %t6, %t4, 16; xor.b32 %t4, %t4, %t6;\n"
)

DECLS = (
    " .reg .b32 %t<12>; .reg .b64 %q<4>; .reg .pred %pl;\n"
    " .reg .b16 %h<9>; .reg .b32 %r<9>; .reg .pred %p<9>;\n"
)


def kernel(index, text):
    """The PTX of kernel k<index> for `text`, or None for a kind we do not run."""
    k = kind_of(text)
    if k is None:
        return None
    kind, width = k
    name = f"k{index}"
    src = regs(text)[1:]
    if kind == "one16":
        w = 2 if width == 16 else 4
        store = f"st.global.u16 [%q1], {regs(text)[0]};" if width == 16 else "st.global.u32 [%q1], %t4;"
        conv = "" if width == 16 else _result_to_t4(text, width)
        return (
            f".visible .entry {name}(.param .u64 pout) {{\n{DECLS}"
            " ld.param.u64 %q1, [pout]; cvta.to.global.u64 %q1, %q1;\n"
            " mov.u32 %t1, %ctaid.x; mov.u32 %t2, %ntid.x; mov.u32 %t3, %tid.x;\n"
            " mad.lo.u32 %t1, %t1, %t2, %t3;\n"
            f" cvt.u16.u32 {src[0]}, %t1;\n"
            f" {text}\n"
            f" {conv}\n"
            f" mul.wide.u32 %q2, %t1, {w}; add.u64 %q1, %q1, %q2;\n"
            f" {store}\n"
            " ret;\n}\n"
        )
    if kind == "two16":
        setup = f" cvt.u16.u32 {src[0]}, %t1;\n"
        inner = f" cvt.u16.u32 {src[1]}, %t2;\n"
    else:
        setup = " shl.b32 %t9, %t1, 16;\n"
        inner = f" or.b32 {src[0]}, %t9, %t2;\n"
    shuffles = "".join(
        f" shfl.sync.bfly.b32 %t7, %t3, {s}, 31, -1; add.u32 %t3, %t3, %t7;\n" for s in (16, 8, 4, 2, 1))
    return (
        f".visible .entry {name}(.param .u64 pout) {{\n{DECLS}"
        " ld.param.u64 %q1, [pout]; cvta.to.global.u64 %q1, %q1;\n"
        " mov.u32 %t1, %ctaid.x; mov.u32 %t2, %tid.x; mov.u32 %t3, 0;\n"
        f"{setup}"
        f"$L_{name}:\n"
        f"{inner}"
        f" {text}\n"
        f" {_result_to_t4(text, width)}\n"
        f" mul.lo.u32 %t5, %t2, {GOLDEN:#x}; xor.b32 %t4, %t4, %t5;\n"
        f" {FMIX}"
        " add.u32 %t3, %t3, %t4;\n"
        f" add.u32 %t2, %t2, {BLOCK}; setp.lt.u32 %pl, %t2, 65536;\n"
        f" @%pl bra $L_{name};\n"
        f"{shuffles}"
        " mov.u32 %t8, %tid.x; and.b32 %t8, %t8, 31; setp.eq.u32 %pl, %t8, 0;\n"
        " mul.wide.u32 %q2, %t1, 4; add.u64 %q1, %q1, %q2;\n"
        " @%pl red.global.add.u32 [%q1], %t3;\n"
        " ret;\n}\n"
    )


def module(forms):
    """The whole module and the (index, text, kind, width, kernel) of every form in it."""
    parts, table = [HEADER], []
    for i, t in forms:
        k = kernel(i, t)
        if k is None:
            continue
        kind, width = kind_of(t)
        parts.append(k)
        table.append((i, t, kind, width, k))
    return "".join(parts), table


def ptxas_path():
    """$PTXAS, else the pinned ptxas validate.sh installs, else ptxas on PATH."""
    cached = os.path.join(HERE, "..", "..", ".cache", "py", "nvidia", "cuda_nvcc", "bin", "ptxas")
    return os.environ.get("PTXAS") or (cached if os.path.exists(cached) else "ptxas")


def assemble(ptx_text):
    """ptxas -arch=sm_90 on `ptx_text`: (ok, stderr)."""
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(ptx_text)
        path = f.name
    try:
        r = subprocess.run([ptxas_path(), "-arch=sm_90", path, "-o", os.devnull],
                           capture_output=True, text=True)
        return r.returncode == 0, r.stderr
    except OSError as e:
        sys.exit(f"error: cannot run ptxas ({e}); set $PTXAS to ptxas 12.1 or newer")
    finally:
        os.unlink(path)


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):  # the usage, not an output path
        print(__doc__)
        return 0
    args = sys.argv[1:]
    forms = load_forms()
    text, table = module(forms)
    skipped = [t for i, t in forms if kind_of(t) is None]
    if "--check" in args:
        bad = 0
        for i, t, kind, _, k in table:
            ok, err = assemble(HEADER + k)
            if not ok:
                bad += 1
                print(f"REJECT {i} {t}: {err.strip()}")
        ok, err = assemble(text)
        print(f"{len(table)} kernels ({bad} rejected alone); whole module {'assembles' if ok else 'REJECTED: ' + err}")
        for t in skipped:
            print(f"not a domain form: {t}")
        return 1 if bad or not ok or skipped else 0
    if len(args) != 1:
        print(__doc__)
        return 2
    with open(args[0], "w") as f:
        f.write(text)
    print(f"{args[0]}: {len(table)} kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
