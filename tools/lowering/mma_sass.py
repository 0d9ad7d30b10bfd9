#!/usr/bin/env python3
"""The sm_90 machine code ptxas 13.0.88 emits for each tensor-core form.

Writes sim-isa/tests/data/mma-sass-sm90.txt: `PTX<TAB>SASS` per form, the
form's statement alone in a kernel (its fragments loaded from global memory
and the results stored, so nothing is optimised away) and the tensor-core,
LDSM/STSM or MOVM instruction nvdisasm shows for it (operands dropped).
sim-isa/tests/it/mma.rs holds `db::warp_machine_opcode` (the opcode and
modifiers sim-core's pipe rules time an `mma`/`movmatrix` by) to it.

    PTXAS=$CUDA13_ROOT/bin/ptxas NVDISASM=/path/to/nvdisasm python3 -m tools.lowering.mma_sass
"""

import os
import subprocess
import sys
import tempfile

from tools import sass_listing  # the one listing reader (sim-sass, through xtask)
from tools.ptxas_grid.verdict import write_lines

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
PTXAS = os.environ.get("PTXAS", os.path.join(ROOT, "tools/.cache/sass/nvcc13/nvidia/cu13/bin/ptxas"))
NVDISASM = os.environ.get("NVDISASM", "nvdisasm")
OUT = os.path.join(ROOT, "sim-isa/tests/data/mma-sass-sm90.txt")

F4 = "{%f1, %f2, %f3, %f4}"
R4 = "{%r1, %r2, %r3, %r4}"
D4 = "{%r9, %r10, %r11, %r12}"
FORMS = [
    f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {F4}, {R4}, {{%r5, %r6}}, {F4}",
    f"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {F4}, {R4}, {{%r5, %r6}}, {F4}",
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r9, %r10}, " + R4 + ", {%r5, %r6}, {%r7, %r8}",
    f"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {F4}, {{%r1, %r2}}, {{%r5}}, {F4}",
    f"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {F4}, {{%r1, %r2}}, {{%r5}}, {F4}",
    "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r9, %r10}, {%r1, %r2}, {%r5}, {%r7, %r8}",
    f"mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {D4}, {{%r1, %r2}}, {{%r5}}, {D4}",
    f"mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {D4}, {{%r1, %r2}}, {{%r5}}, {D4}",
    f"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {D4}, {R4}, {{%r5, %r6}}, {D4}",
    f"mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {D4}, {R4}, {{%r5, %r6}}, {D4}",
    f"mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {D4}, {R4}, {{%r5, %r6}}, {D4}",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2}",
    "movmatrix.sync.aligned.m8n8.trans.b16 %r9, %r1",
    "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r9, %r10, %r11, %r12}, [%r1]",
    "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r9, %r10}, [%r1]",
    "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r9}, [%r1]",
    "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r1], {%r2, %r3, %r4, %r5}",
    "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%r1], {%r2}",
]

KERNEL = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .b32 %r<16>; .reg .f32 %f<8>; .reg .f64 %fd<8>; .reg .b64 %rd<4>;
ld.param.u64 %rd1, [p];
ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];
ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd1+16];
ld.global.v4.u32 {%r9, %r10, %r11, %r12}, [%rd1+32];
ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+48];
ld.global.v2.f64 {%fd1, %fd2}, [%rd1+64];
ld.global.v2.f64 {%fd3, %fd4}, [%rd1+80];
STMT;
st.global.v4.u32 [%rd1], {%r9, %r10, %r11, %r12};
st.global.v4.f32 [%rd1+16], {%f1, %f2, %f3, %f4};
st.global.v2.f64 [%rd1+32], {%fd1, %fd2};
ret;
}
"""

UNITS = ("HMMA", "IMMA", "DMMA", "LDSM", "STSM", "MOVM")


def sass(stmt, tmp):
    ptx = os.path.join(tmp, "k.ptx")
    cubin = os.path.join(tmp, "k.cubin")
    with open(ptx, "w") as f:
        f.write(KERNEL.replace("STMT", stmt))
    subprocess.run([PTXAS, "-arch=sm_90", ptx, "-o", cubin], check=True)
    out = subprocess.run([NVDISASM, "-c", cubin], check=True, capture_output=True, text=True).stdout
    found = [t.opcode for t in sass_listing.instructions(out, "sm_90") if t.base in UNITS and "." in t.opcode]
    if len(found) != 1:
        sys.exit(f"{stmt}: expected one tensor-core instruction, found {found}")
    return found[0]


def main():
    lines = [
        "# ptxas 13.0.88 -arch=sm_90 and nvdisasm on each form alone (tools/lowering/mma_sass.py):",
        "# the PTX statement, a tab, the one tensor-core/LDSM/STSM/MOVM instruction emitted.",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for s in FORMS:
            lines.append(f"{s}\t{sass(s, tmp)}")
    write_lines(OUT, lines)
    print(f"{len(FORMS)} forms -> {OUT}")


if __name__ == "__main__":
    sys.exit(main())
