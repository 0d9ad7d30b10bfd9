"""One statement through ptxas: the verdict the grid scripts record.

`assemble(ptxas, target, version, text)` wraps `text` in a kernel that
declares every register class the grids use (`%h` b16, `%r` b32, `%rd`
b64, `%f` f32, `%fd` f64, `%p` pred; unused declarations change no
verdict), runs `ptxas -arch=TARGET` on it and returns `(verdict, errors)`:
"accept", "arch" (every error is a "requires .target" one), "version"
(every error a "requires PTX ISA .version" one, when `versions` is set),
or "reject"; `errors` are ptxas's "error   :" lines.
"""

import os
import subprocess
import tempfile

REGS = (
    ".reg .b16 %h<9>; .reg .b32 %r<9>; .reg .b64 %rd<9>; .reg .f32 %f<9>;\n"
    ".reg .f64 %fd<9>; .reg .pred %p<9>;\n"
)


def assemble(ptxas, target, version, text, versions=False):
    """(verdict, errors) of ptxas on text in a kernel declaring every register class the
    grids use (see the module docstring)."""
    src = (
        f".version {version}\n.target {target}\n.address_size 64\n"
        f".visible .entry k()\n{{\n{REGS}{text}\nret;\n}}\n"
    )
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t.ptx")
        with open(p, "w") as f:
            f.write(src)
        r = subprocess.run([ptxas, f"-arch={target}", p, "-o", os.path.join(d, "t.o")],
                           capture_output=True, text=True)
    errs = [l for l in r.stderr.splitlines() if "error   :" in l]
    if r.returncode == 0:
        return "accept", errs
    if errs and all("requires .target" in l for l in errs):
        return "arch", errs
    if versions and errs and all("requires PTX ISA .version" in l for l in errs):
        return "version", errs
    return "reject", errs
