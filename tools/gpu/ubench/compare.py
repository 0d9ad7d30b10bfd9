#!/usr/bin/env python3
"""Measured (ubench.json from run.py) vs simulated (simcli run) cycles, row by row.

    python3 -m tools.gpu.ubench.compare OUTDIR/ubench.json --simcli PATH/simcli [--json OUT.json]

For every row with a kernel text (kernels/NAME.ptx, the same instruction
stream without the bra) runs `simcli run K --arch sm_90` and prints measured
cycles, simulated cycles and simulated / measured. Rows without kernel text
(forms the simulator does not accept) and rows whose measurement failed are
listed as such. The geometric mean and the worst rows close the table.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def simulate(simcli, path):
    """(cycles, None) from `simcli run --arch sm_90` on a kernel text, or (None, why) when
    simcli refuses it or prints no cycles line."""
    r = subprocess.run([simcli, "run", path, "--arch", "sm_90"], capture_output=True, text=True)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["?"])[0][:120]
    m = re.search(r"^cycles\s+(\d+)", r.stdout, re.M)
    if not m:
        return None, "no `cycles` line in simcli's report"
    return int(m.group(1)), None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("measured", help="ubench.json written by run.py")
    ap.add_argument("--simcli", default=os.environ.get("SIMCLI", "simcli"))
    ap.add_argument("--json", help="also write the comparison here")
    a = ap.parse_args()
    with open(a.measured) as f:
        doc = json.load(f)
    print(doc.get("device", "?"))
    print(f"{'row':9} {'op':34} {'measured':>9} {'simulated':>9} {'sim/meas':>8}  isolates")
    out, ratios = [], []
    for r in doc["results"]:
        meas = r.get("cycles")
        kt = r.get("kernel_text")
        sim, why = None, None
        if kt:
            sim, why = simulate(a.simcli, os.path.join(HERE, kt))
        else:
            why = "no kernel text (simcli refused the form when generated)"
        ratio = sim / meas if sim and meas else None
        if ratio:
            ratios.append((ratio, r["name"]))
        ms = f"{meas:9d}" if meas else f"{'ERROR':>9}"
        ss = f"{sim:9d}" if sim else f"{'-':>9}"
        rs = f"{ratio:8.3f}" if ratio else f"{'-':>8}"
        note = r["isolates"] if ratio else (why or r.get("error", ""))
        if r.get("h100_cycles"):
            note += f"  [H100 {r['h100_row']}: {r['h100_cycles']}" + (
                f", this GPU / H100 {meas / r['h100_cycles']:.3f}]" if meas else "]")
        print(f"{r['name']:9} {r['op'][:34]:34} {ms} {ss} {rs}  {note}")
        out.append({"name": r["name"], "op": r["op"], "isolates": r["isolates"], "measured": meas,
                    "simulated": sim, "sim_over_measured": ratio, "note": why,
                    "h100_cycles": r.get("h100_cycles")})
    if ratios:
        g = math.exp(sum(math.log(x) for x, _ in ratios) / len(ratios))
        worst = sorted(ratios, key=lambda t: -abs(math.log(t[0])))[:5]
        print(f"{len(ratios)} rows compared; geometric mean sim/measured {g:.3f}; worst: "
              + ", ".join(f"{n} {x:.2f}" for x, n in worst))
    else:
        print("no rows compared")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": doc.get("device"), "rows": out}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
