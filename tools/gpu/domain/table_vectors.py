"""The writer that ex2_vectors.py and tanh_vectors.py share: conformance vectors
picked from an H200's whole 16-bit tables (the extract
`xtask/tests/data/domain-h200-approx.bin`, README.md here)."""

import gzip
import json
import os
import struct

from tools.gpu.domain.run import records

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
SRC = os.path.join(ROOT, "xtask/tests/data/domain-h200-approx.bin")
STRIDE = 64


def write(out, header, forms, special, extra):
    """Writes out (gzip, no timestamp): the `#` comment header, then for each form of
    SRC that forms names (text: whether it is bf16), one vector per source among every
    STRIDE-th, the special ones and extra(table, bf16), in order, with the GPU's result.
    Prints and returns the number of vectors."""
    lines = [header]
    n = 0
    for _, text, kind, elem, count, raw in records(SRC):
        if text not in forms:
            continue
        assert kind == 0 and elem == 2 and count == 65536
        bf16 = forms[text]
        table = struct.unpack(f"<{count}H", raw)
        picks = set(range(0, count, STRIDE)) | set(special) | set(extra(table, bf16))
        for a in sorted(picks):
            v = {"arch": "sm_90", "ptx": text, "in": {"%h1": hex(a), "%h5": "0x0"},
                 "out": {"%h5": hex(table[a])}, "source": "h200"}
            lines.append(json.dumps(v, separators=(",", ":")))
            n += 1
    with gzip.GzipFile(out, "wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode())
    print(f"wrote {out}: {n} vectors")
    return n
