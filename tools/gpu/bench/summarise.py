#!/usr/bin/env python3
"""Markdown summary of a tools/gpu/bench/run.sh result folder.

    python3 -m tools.gpu.bench.summarise OUTDIR > summary.md
    python3 -m tools.gpu.bench.summarise --selftest   # on generated fake data

Reads OUTDIR/{memlat,bw,grid}.jsonl, grid_*.bin, info.txt and clocks.csv
(README.md describes every field); a missing file only drops its section.
Standard library only.
"""
import json
import os
import re
import statistics
import struct
import sys
import tempfile

REC = struct.Struct("<IIqqQQ")  # smid, pad, clk0, clk1, gt0, gt1 (common.h BlockRec)


def load(outdir, name):
    """The JSON rows of one of run.sh's .jsonl files; a missing file or a line that is not
    JSON (a benchmark killed mid-line) is skipped, so a partial run still summarises."""
    rows = []
    path = os.path.join(outdir, name)
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            line = line.strip()
            # printf writes nan/inf, which JSON lacks
            line = re.sub(r":(-?)(nan|inf)\b", ":null", line)
            if line:
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    pass  # a line cut short by a timeout
    return rows


def size(b):
    """A byte count in the unit the benchmarks were sized in: binary sizes as KiB/MiB/GiB,
    the decimal ones (the 1 GB triad) as GB."""
    if b >= 1000000 and b % 1000000 == 0 and b % 1024:
        return f"{b / 1e9:g} GB"  # a decimal size, e.g. the 1 GB triad
    for unit, s in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= s and b % (s // 16) == 0:
            return f"{b / s:g} {unit}"
    return f"{b} B"


def table(head, rows):
    """A Markdown table: a header row, the separator, one row per entry."""
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def fmt(v, nd=1):
    """A number with nd decimals, or an empty cell for a missing value."""
    return "" if v is None else f"{v:.{nd}f}"


def header(outdir, all_rows):
    """The summary's opening: the device as the benchmarks saw it and the driver and CUDA
    versions from info.txt, so a summary says which machine it describes."""
    out = ["# GPU benchmark summary\n"]
    dev = next((r for r in all_rows if r.get("kind") == "device"), None)
    if dev:
        out.append(f"Device: {dev['name']} (cc {dev['cc']}, {dev['sms']} SMs, L2 {dev['l2_bytes'] / 2**20:.0f} MiB, "
                   f"{dev['global_bytes'] / 2**30:.0f} GiB); driver API {dev['driver_api']}, runtime {dev['runtime']}.\n")
    info = os.path.join(outdir, "info.txt")
    if os.path.exists(info):
        keep = [l.strip() for l in open(info, errors="replace")
                if any(k in l for k in ("Driver Version", "CUDA Version", "Product Name", "Power Limit", "release", "date_utc", "commit"))]
        if keep:
            out.append("```\n" + "\n".join(dict.fromkeys(keep)) + "\n```\n")
    clk = os.path.join(outdir, "clocks.csv")
    if os.path.exists(clk):
        out.append("nvidia-smi clocks around each program:\n\n```\n" + open(clk).read().strip() + "\n```\n")
    errs = [r for r in all_rows if r.get("kind") == "error"]
    for e in errs:
        out.append(f"**error** in {e.get('prog')}: {e.get('error')}\n")
    return "\n".join(out)


def memlat_section(rows):
    """The pointer-chase latencies: cycles per hop by footprint for the cache operators and
    strides, and the plateaus (L1, L2, DRAM) the timing model's memory latencies are read
    from."""
    out = []
    main = [r for r in rows if r.get("kind") == "chase" and r.get("set") == "main"]
    if main:
        cols = [("cg", 128, "random"), ("ca", 128, "random"), ("cg", 32, "random"), ("ca", 32, "sequential")]
        by = {}
        for r in main:
            by.setdefault(r["bytes"], {})[(r["op"], r["stride"], r["order"])] = r["cph_b"]
        body = [[size(b)] + [fmt(by[b].get(c)) for c in cols] for b in sorted(by)]
        out.append("## Pointer-chase latency (cycles per dependent load, pass B, warmed)\n")
        out.append(table(["working set"] + [f"{o} {s} B {d}" for o, s, d in cols], body))

        def plateau(op, lo, hi):
            """The median cycles per hop of 128-byte random chases with op whose footprint
            lies in [lo, hi]: one level of the hierarchy."""
            v = [r["cph_b"] for r in main if r["op"] == op and r["stride"] == 128 and r["order"] == "random" and lo <= r["bytes"] <= hi]
            return statistics.median(v) if v else None

        out.append(table(["level", "rule", "cycles"], [
            ["L1 hit", "ca, 128 B random, 4-64 KiB", fmt(plateau("ca", 4096, 65536))],
            ["L2 hit", "cg, 128 B random, 1-16 MiB", fmt(plateau("cg", 1 << 20, 16 << 20))],
            ["DRAM", "cg, 128 B random, 256 MiB-1 GiB", fmt(plateau("cg", 256 << 20, 1 << 30))],
        ]))
    sh = [r for r in rows if r.get("kind") == "h100_memlat"]
    if sh:
        ref = {}
        refp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "sim-core", "data", "calibration", "h100", "memory.json")
        if os.path.exists(refp):
            for r in json.load(open(refp)).get("rows", []):
                ref[r.get("footprint_bytes", "shared")] = r
        body = []
        for r in sh:
            k = r.get("footprint_bytes", "shared")
            h = ref.get(k, {})
            if k == "shared":
                body.append(["shared", fmt(r["shared"]), fmt(h.get("shared")), "", "", "", ""])
            else:
                body.append([size(k), fmt(r["ldcg_first"]), fmt(h.get("ldcg_first")), fmt(r["ldcg_second"]),
                             fmt(h.get("ldcg_second")), fmt(r["ldca_second"]), fmt(h.get("ldca_second"))])
        out.append("## The H100 memlat.cu kernels, this GPU vs sim-core/data/calibration/h100/memory.json (cycles per load)\n")
        out.append(table(["footprint", "ldcg first", "H100", "ldcg second", "H100", "ldca second", "H100"], body))
    tlb = [r for r in rows if r.get("kind") == "chase" and r.get("set") == "tlb"]
    if tlb:
        out.append("## TLB reach (one hop per stride, random order, cg; pass B after pass A visited every element)\n")
        out.append(table(["stride", "working set", "elements", "cycles/hop"],
                         [[size(r["stride"]), size(r["bytes"]), r["bytes"] // r["stride"], fmt(r["cph_b"])] for r in tlb]))
    ft = [r for r in rows if r.get("kind") == "first_touch"]
    if ft:
        out.append("## First touch (fresh cudaMalloc + cudaMemcpy, no warm-up; cycles per hop)\n")
        out.append(table(["working set", "first launch", "second launch"],
                         [[size(r["bytes"]), fmt(r["first_cph_a"]), fmt(r["second_cph_a"])] for r in ft]))
    misc = [r for r in rows if r.get("kind") == "clock_overhead"]
    if misc:
        out.append(f"clock64 read-to-read: {misc[0]['cycles']} cycles.\n")
    cs = [r for r in rows if r.get("kind") == "const"]
    if cs:
        out.append("## Constant memory gathers (cycles per dependent access; k distinct words per warp)\n")
        ks = sorted({r["distinct_per_warp"] for r in cs})
        by = {(r["distinct_per_warp"], r["warps"]): r for r in cs}
        out.append(table(["k", "1 warp: cycles/access", "32 warps: cycles/access", "32 warps: warp-accesses/cycle"],
                         [[k, fmt(by.get((k, 1), {}).get("cycles_per_access"), 2),
                           fmt(by.get((k, 32), {}).get("cycles_per_access"), 2),
                           fmt(by.get((k, 32), {}).get("warp_accesses_per_cycle"), 3)] for k in ks]))
    return "\n".join(out)


def bw_section(rows):
    """The bandwidth table (best of five event times per kernel) and the peak per access
    width, the figures the memory model's bandwidth is checked against."""
    out = []
    bw = [r for r in rows if r.get("kind") == "bw"]
    if bw:
        out.append("## Bandwidth (GB/s = bytes moved / best of 5 event times)\n")
        peaks = []
        for op in ("read", "write", "copy", "triad"):
            for vec in ("float4", "float"):
                v = [r for r in bw if r["op"] == op and r["vec"] == vec]
                if v:
                    best = max(v, key=lambda r: r["gbps_best"])
                    big = [r for r in v if r["footprint"] >= 1 << 30]
                    dram = max((r["gbps_best"] for r in big), default=None)
                    peaks.append([op, vec, fmt(best["gbps_best"]), size(best["footprint"]), fmt(dram)])
        out.append(table(["op", "vector", "peak GB/s", "at footprint", "best at >= 1 GiB (DRAM)"], peaks))
        fps = sorted({r["footprint"] for r in bw})
        by = {(r["op"], r["vec"], r["footprint"]): r["gbps_best"] for r in bw}
        cols = [(o, v) for o in ("read", "write", "copy", "triad") for v in ("float4", "float")]
        out.append(table(["footprint"] + [f"{o} {v}" for o, v in cols],
                         [[size(f)] + [fmt(by.get((o, v, f))) for o, v in cols] for f in fps]))
    at = [r for r in rows if r.get("kind") == "atomic"]
    if at:
        out.append("## atomicAdd u32 throughput (result unused: RED / ATOMS)\n")
        out.append(table(["space", "mode", "grid", "ops", "best ms", "Gops/s", "clock GHz", "cycles/op/SM", "ops/cycle/SM"],
                         [[r["space"], r["mode"], r["grid"], f"{r['ops']:.0f}", fmt(r["best_ms"], 4), fmt(r["gops"], 2),
                           fmt(r["clock_ghz"], 3), fmt(r["cycles_per_op_per_sm"], 3), fmt(r["ops_per_cycle_per_sm"], 2)]
                          for r in at]))
    return "\n".join(out)


def timeline(path, blocks):
    """Per-run block-placement figures from a grid_*.bin file (last run)."""
    if not os.path.exists(path) or blocks <= 0:
        return None
    data = open(path, "rb").read()
    n = len(data) // REC.size
    runs = n // blocks
    if runs == 0:
        return None
    recs = [REC.unpack_from(data, ((runs - 1) * blocks + i) * REC.size) for i in range(blocks)]
    recs = [r for r in recs if r[5] > 0]  # blocks that wrote their exit record
    if not recs:
        return None
    per = {}
    for r in recs:
        per.setdefault(r[0], []).append(r)
    g0 = min(r[4] for r in recs)
    g1 = max(r[5] for r in recs)
    conc = []
    for sm, rs in per.items():
        ev = sorted([(r[2], 1) for r in rs] + [(r[3], -1) for r in rs], key=lambda e: (e[0], e[1]))
        c = m = 0
        for _, d in ev:
            c += d
            m = max(m, c)
        conc.append(m)
    dur = [r[3] - r[2] for r in recs]
    first = [min(r[4] for r in rs) - g0 for rs in per.values()]
    last_end = [max(r[5] for r in rs) for rs in per.values()]
    counts = [len(rs) for rs in per.values()]
    return {
        "runs": runs,
        "sms": len(per),
        "blocks_per_sm": f"{min(counts)}-{max(counts)}",
        "max_resident": f"{min(conc)}-{max(conc)}",
        "block_cycles_median": statistics.median(dur),
        "start_spread_us": max(first) / 1e3,
        "end_spread_us": (max(last_end) - min(last_end)) / 1e3,
        "span_us": (g1 - g0) / 1e3,
    }


def grid_section(outdir, rows):
    """The whole-grid launches: cycles per SM and overall from the blocks' clock64 records,
    blocks per SM, and the clock rate, to compare with simcli's launch timing."""
    g = [r for r in rows if r.get("kind") == "grid"]
    if not g:
        return ""
    out = ["## Whole-grid launches\n",
           "plain = the workload kernel as written; rec = the per-block-record copy. cycles (per SM) = max over SMs of "
           "(last exit - first entry) in that SM's clock64; cycles (global) = max(exit) - min(entry) over all blocks "
           "(meaningful only if the SMs' clock64 counters agree); GHz = clock64 ticks per %globaltimer ns.\n"]
    body = []
    for r in g:
        lr = r.get("last_run", {})
        body.append([r["name"], "x".join(map(str, r["grid"])), r["blocks"], fmt(min(r["plain_ms"]) if r["plain_ms"] else None, 4),
                     fmt(min(r["rec_ms"]) if r["rec_ms"] else None, 4), lr.get("cycles_max_per_sm", ""),
                     lr.get("cycles_global", ""), fmt(lr.get("globaltimer_ns", 0) / 1e3, 1) if lr else "",
                     fmt(lr.get("clock_ghz_median_sm"), 3), fmt(lr.get("clock_ghz_median_block"), 3), r.get("check", "")])
    out.append(table(["launch", "grid", "blocks", "plain ms", "rec ms", "cycles (per SM)", "cycles (global)",
                      "globaltimer us", "GHz (SM)", "GHz (block)", "check"], body))
    tl = []
    for r in g:
        t = timeline(os.path.join(outdir, r.get("rec_file", "")), r["blocks"])
        if t:
            tl.append([r["name"], t["runs"], t["sms"], t["blocks_per_sm"], t["max_resident"], f"{t['block_cycles_median']:.0f}",
                       fmt(t["start_spread_us"], 2), fmt(t["end_spread_us"], 2), fmt(t["span_us"], 1)])
    if tl:
        out.append("Block placement (last recorded run): blocks per SM, most blocks resident at once on one SM, median "
                   "block duration, spread of the SMs' first entries and last exits, whole span (globaltimer).\n")
        out.append(table(["launch", "runs", "SMs", "blocks/SM", "resident", "block cycles (median)", "start spread us",
                          "end spread us", "span us"], tl))
    return "\n".join(out)


def summarise(outdir):
    """The whole Markdown summary of an output folder."""
    m, b, g = load(outdir, "memlat.jsonl"), load(outdir, "bw.jsonl"), load(outdir, "grid.jsonl")
    parts = [header(outdir, m + b + g), memlat_section(m), bw_section(b), grid_section(outdir, g)]
    return "\n".join(p for p in parts if p)


def fake(outdir):
    """Writes plausible fake results (the shapes run.sh produces) for --selftest."""
    dev = {"kind": "device", "name": "FAKE H200", "cc": "9.0", "sms": 4, "l2_bytes": 62914560, "global_bytes": 150 << 30,
           "smem_per_sm": 233472, "clock_khz_attr": 1980000, "memclk_khz_attr": 2619000, "bus_width": 6144,
           "driver_api": 13000, "runtime": 13000}
    with open(os.path.join(outdir, "memlat.jsonl"), "w") as f:
        for prog in ("memlat",):
            f.write(json.dumps(dict(dev, prog=prog)) + "\n")
        f.write(json.dumps({"kind": "clock_overhead", "cycles": 2}) + "\n")
        f.write(json.dumps({"kind": "h100_memlat", "footprint_bytes": 4096, "ldcg_first": 290.0, "ldcg_second": 289.0, "ldca_second": 40.0}) + "\n")
        f.write(json.dumps({"kind": "h100_memlat", "shared": 29.0}) + "\n")
        for s in [4096 << i for i in range(19)]:
            for op, st, order in (("cg", 128, "random"), ("ca", 128, "random"), ("cg", 32, "random"), ("ca", 32, "sequential")):
                lat = 33 if op == "ca" and s <= 131072 else (270 if s <= 32 << 20 else 600)
                f.write(json.dumps({"kind": "chase", "set": "main", "bytes": s, "stride": st, "order": order, "op": op, "warm": True,
                                    "hops": 8192, "cycles_a": lat * 8192, "cycles_b": lat * 8192, "cph_a": lat, "cph_b": lat}) + "\n")
        f.write(json.dumps({"kind": "chase", "set": "tlb", "bytes": 1 << 30, "stride": 2 << 20, "order": "random", "op": "cg",
                            "warm": False, "hops": 4096, "cycles_a": 1, "cycles_b": 1, "cph_a": 700.0, "cph_b": 650.0}) + "\n")
        f.write(json.dumps({"kind": "first_touch", "bytes": 65536, "stride": 128, "order": "random", "op": "cg", "hops": 2048,
                            "first_cycles_a": 1, "first_cycles_b": 1, "second_cycles_a": 1, "second_cycles_b": 1,
                            "first_cph_a": 700.0, "second_cph_a": 280.0}) + "\n")
        for k in (1, 2, 4, 8, 16, 32):
            for w in (1, 32):
                f.write(json.dumps({"kind": "const", "distinct_per_warp": k, "warps": w, "iters": 4096, "cycles": 4096 * 8 * k,
                                    "cycles_per_access": 8.0 * k, "warp_accesses_per_cycle": w / (8.0 * k)}) + "\n")
        f.write(json.dumps({"kind": "done", "prog": "memlat", "errors": 0}) + "\n")
    with open(os.path.join(outdir, "bw.jsonl"), "w") as f:
        f.write(json.dumps(dict(dev, prog="bw")) + "\n")
        for fp in [1 << (20 + i) for i in range(12)] + [10**9]:
            for op, arrays in (("read", 1), ("write", 1), ("copy", 2), ("triad", 3)):
                for vec in ("float4", "float"):
                    gb = 4000.0 if fp >= 1 << 28 else 8000.0
                    ms = fp / gb / 1e6
                    f.write(json.dumps({"kind": "bw", "op": op, "vec": vec, "footprint": fp, "bytes_moved": fp, "elements": fp // 16,
                                        "grid": 1056, "block": 256, "best_ms": ms, "median_ms": ms, "gbps_best": gb, "gbps_median": gb}) + "\n")
        f.write(json.dumps({"kind": "atomic", "space": "global", "mode": "same_address", "grid": 1056, "block": 256, "iters": 64,
                            "ops": 17301504, "best_ms": 9.0, "median_ms": 9.1, "gops": 1.9, "clock_ghz": 1.98,
                            "cycles_per_op_per_sm": 136.0, "ops_per_cycle_per_sm": 0.0073}) + "\n")
    blocks, runs = 64, 3
    with open(os.path.join(outdir, "grid.jsonl"), "w") as f:
        f.write(json.dumps(dict(dev, prog="grid")) + "\n")
        f.write('{"kind":"grid","name":"sgemm_1024","kernel":"sgemm","grid":[8,8,1],"block":[32,8,1],"blocks":64,'
                '"warmup_ms":[0.5],"plain_ms":[0.2,0.21,0.2],"rec_ms":[0.21,0.2,0.2],"rec_file":"grid_sgemm_1024.bin",'
                '"rec_runs":3,"rec_bytes":40,"check":"ok","last_run":{"sms_used":4,"blocks_per_sm_min":16,'
                '"blocks_per_sm_max":16,"cycles_global":400000,"cycles_max_per_sm":396000,"globaltimer_ns":200000,'
                '"clock_ghz_median_sm":1.98,"clock_ghz_median_block":1.97,"blocks_for_block_ghz":64}}\n')
        f.write('{"kind":"grid","name":"cut_short"')  # a line a timeout cut: must be skipped
    with open(os.path.join(outdir, "grid_sgemm_1024.bin"), "wb") as f:
        for run in range(runs):
            for i in range(blocks):
                sm, wave = i % 4, i // 4 // 8
                c0 = 1000 + wave * 50000 + (i % 8) * 10
                t0 = 10**9 + c0 // 2
                f.write(REC.pack(sm, 0, c0, c0 + 49000, t0, t0 + 24500))
    with open(os.path.join(outdir, "info.txt"), "w") as f:
        f.write("date_utc: 2026-11-28T17:00:00Z\n    Driver Version                            : 580.00\n    CUDA Version                              : 13.0\n")


def selftest():
    """Summarises fake() data and checks the cells it must contain: the summary's format is
    tested without a GPU. 0 when every check holds."""
    with tempfile.TemporaryDirectory() as d:
        fake(d)
        md = summarise(d)
        checks = ["FAKE H200", "| L1 hit | ca, 128 B random, 4-64 KiB | 33.0 |", "| DRAM | cg, 128 B random, 256 MiB-1 GiB | 600.0 |",
                  "| read | float4 | 8000.0 |", "| sgemm_1024 | 8x8x1 | 64 |", "| 1.980 | 1.970 | ok |", "| sgemm_1024 | 3 | 4 | 16-16 | 8-8 | 49000 |",
                  "| 32 | 256.00 |", "CUDA Version", "| 1 GB | 4000.0 |"]
        bad = [c for c in checks if c not in md]
        print(md)
        if bad:
            print("SELFTEST FAILED, missing:", bad, file=sys.stderr)
            return 1
        print("selftest ok", file=sys.stderr)
        return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--selftest":
        return selftest()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    print(summarise(sys.argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
