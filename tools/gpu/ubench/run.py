#!/usr/bin/env python3
"""Run the sm_90 microbenchmarks of manifest.json on a GPU; write OUTDIR/ubench.json.

    python3 -m tools.gpu.ubench.run OUTDIR            # on the GPU machine (libcuda, no compiler)
    python3 -m tools.gpu.ubench.run OUTDIR --dry-run  # here: ptxas + manifest checks, no GPU

Loads ubench.cubin (assembled by ptxas 13.0.88 in gen.py, so the GPU runs the
machine code whose histogram the manifest records); if the driver refuses the
cubin it JIT-compiles ubench.ptx instead and says so (`module` field). Each row
is one launch of one block, run 5 times; `cycles` is the minimum over the runs
of max(end) - min(start) of the warps' %clock64 pairs.

Robustness: the launches run in a child process that appends one JSON line per
row to OUTDIR/partial.jsonl. A row whose launch fails is recorded with its
error and the child exits (a failed launch can poison the CUDA context); a row
that makes no progress for --row-timeout seconds (hang) is recorded as such and
the child killed. Either way a fresh child continues with the next row.
"""

import argparse
import ctypes
import json
import os
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = 5


def load_manifest():
    """manifest.json next to this script: the rows and their kernels."""
    with open(os.path.join(HERE, "manifest.json")) as f:
        return json.load(f)


class FakeCuda:
    """UBENCH_FAKE=1: exercises the harness without a GPU (tests only)."""

    def __init__(self):
        """The failure to stand in for: UBENCH_FAKE=hang, crash or fail (else none)."""
        self.mode = os.environ.get("UBENCH_FAKE", "1")

    def info(self):
        """A fake device description."""
        return {"gpu": "FAKE", "sm": "sm_90", "driver": "none", "cuda": "0.0", "clock_khz": 0}

    def load_module(self):
        """No module: nothing runs."""
        return None, "fake"

    def launch(self, mod, row, inp):
        """Clock pairs a real launch would give (warp w ends 5000 + 100 w after the start),
        or the chosen failure on its row, to test the parent's recovery."""
        if self.mode == "hang" and row["name"] == "u5_lat":
            time.sleep(3600)
        if self.mode == "crash" and row["name"] == "u7_lat":
            os._exit(11)
        if self.mode == "fail" and row["name"] == "u3_lat":
            raise RuntimeError("cuLaunchKernel failed: 700 an illegal memory access")
        warps = row["warps"]
        base = 1000 * (1 + len(row["name"]))
        return [(base, base + 5000 + 100 * w) for w in range(warps)]


class GpuCuda:
    def __init__(self):
        """tools/gpu/run.py's driver wrapper, falling back on the primary context where
        cuCtxCreate_v2 is missing or refused."""
        from tools.gpu import run as gpu_run

        try:
            self.c = gpu_run.Cuda()  # tools/gpu/run.py: exits 2 when there is no driver
        except (SystemExit, AttributeError) as e:
            # cuCtxCreate_v2 missing or refused (newer drivers): the primary context.
            print(f"Cuda() failed ({e}); trying the device's primary context", file=sys.stderr)
            self.c = self.primary_context(gpu_run.Cuda)
        self.lib = self.c.lib

    @staticmethod
    def primary_context(cls):
        """A Cuda on device 0's primary context, for drivers that refuse cuCtxCreate_v2."""
        c = cls.__new__(cls)
        c.lib = ctypes.CDLL("libcuda.so.1")
        rc = c.lib.cuInit(0)
        if rc != 0:
            raise RuntimeError(f"cuInit failed: {rc}")
        c.dev = ctypes.c_int()
        if c.lib.cuDeviceGet(ctypes.byref(c.dev), 0) != 0:
            raise RuntimeError("cuDeviceGet failed")
        c.ctx = ctypes.c_void_p()
        if c.lib.cuDevicePrimaryCtxRetain(ctypes.byref(c.ctx), c.dev) != 0:
            raise RuntimeError("cuDevicePrimaryCtxRetain failed")
        if c.lib.cuCtxSetCurrent(c.ctx) != 0:
            raise RuntimeError("cuCtxSetCurrent failed")
        return c

    def check(self, rc, what):
        """Raises instead of exiting: the worker records the failed row and a fresh worker
        goes on."""
        if rc != 0:
            s = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(s))
            raise RuntimeError(f"{what} failed: {rc} {s.value.decode() if s.value else ''}")

    def info(self):
        """run.py's device description plus the maximum SM clock and the SM count."""
        info = self.c.info()
        clk = ctypes.c_int()
        # CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13 (kHz, the maximum SM clock)
        if self.lib.cuDeviceGetAttribute(ctypes.byref(clk), 13, self.c.dev) == 0:
            info["clock_khz"] = clk.value
        sms = ctypes.c_int()
        # CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
        if self.lib.cuDeviceGetAttribute(ctypes.byref(sms), 16, self.c.dev) == 0:
            info["sms"] = sms.value
        return info

    def load_module(self):
        """The cubin ptxas 13.0.88 made (the machine code the manifest's histograms
        describe), else ubench.ptx through the driver's JIT; returns (module, which one)."""
        mod = ctypes.c_void_p()
        with open(os.path.join(HERE, "ubench.cubin"), "rb") as f:
            cubin = f.read()
        rc = self.lib.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(cubin))
        if rc == 0:
            return mod, "cubin (ptxas 13.0.88)"
        print(f"cubin refused by the driver (rc {rc}); JIT-compiling ubench.ptx", file=sys.stderr)
        with open(os.path.join(HERE, "ubench.ptx"), "rb") as f:
            ptx = f.read() + b"\0"
        self.check(self.lib.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(ptx)), "cuModuleLoadData (PTX JIT)")
        return mod, "ptx JIT by the driver (machine code may differ from the manifest's histogram)"

    def launch(self, mod, row, inp):
        """One launch of a row's kernel (one block): the warps' (start, end) clock64 pairs."""
        lib = self.lib
        fn = ctypes.c_void_p()
        self.check(lib.cuModuleGetFunction(ctypes.byref(fn), mod, row["kernel"].encode()), "cuModuleGetFunction")
        warps, chains = row["warps"], row["chains_per_thread"]
        sizes = [len(inp), 32 * warps * 16 * chains, 16 * warps]
        ptrs = [ctypes.c_uint64() for _ in sizes]
        try:
            for p, n in zip(ptrs, sizes):
                self.check(lib.cuMemAlloc_v2(ctypes.byref(p), n), "cuMemAlloc")
                self.check(lib.cuMemsetD8_v2(p, 0, n), "cuMemsetD8")
            self.check(lib.cuMemcpyHtoD_v2(ptrs[0], inp, len(inp)), "cuMemcpyHtoD")
            args = (ctypes.c_void_p * 3)(*[ctypes.cast(ctypes.byref(p), ctypes.c_void_p) for p in ptrs])
            self.check(lib.cuLaunchKernel(fn, 1, 1, 1, 32 * warps, 1, 1, 0, None, args, None), "cuLaunchKernel")
            self.check(lib.cuCtxSynchronize(), "cuCtxSynchronize")
            host = ctypes.create_string_buffer(sizes[2])
            self.check(lib.cuMemcpyDtoH_v2(host, ptrs[2], sizes[2]), "cuMemcpyDtoH")
        finally:
            for p in ptrs:
                if p.value:
                    lib.cuMemFree_v2(p)
        return [struct.unpack_from("<QQ", host.raw, 16 * w) for w in range(warps)]


def worker(outdir, start):
    """Run rows from index `start`, one JSON line each; exit 3 after a failure."""
    rows = load_manifest()["rows"]
    with open(os.path.join(HERE, "ubench.in.bin"), "rb") as f:
        inp = f.read()
    partial = open(os.path.join(outdir, "partial.jsonl"), "a")

    def emit(obj):
        """Appends one record to partial.jsonl at once: what was written survives a crash or
        a kill."""
        partial.write(json.dumps(obj) + "\n")
        partial.flush()

    try:
        cuda = FakeCuda() if os.environ.get("UBENCH_FAKE") else GpuCuda()
        mod, how = cuda.load_module()
    except (Exception, SystemExit) as e:  # noqa: BLE001 - recorded, the parent stops
        emit({"fatal": f"module load: {e}"})
        return 4
    try:
        info = cuda.info()
    except (Exception, SystemExit) as e:  # noqa: BLE001 - the figures matter more than the name
        info = {"gpu": f"? ({e})"}
    emit({"info": info, "module": how})
    for idx in range(start, len(rows)):
        row = rows[idx]
        emit({"start": idx, "name": row["name"]})
        runs = []
        try:
            for _ in range(RUNS):
                clk = cuda.launch(mod, row, inp)
                t0 = min(a for a, _ in clk)
                t1 = max(b for _, b in clk)
                if any(b <= a for a, b in clk):
                    raise RuntimeError(f"clock pair not increasing: {clk[:4]}")
                runs.append(t1 - t0)
        except Exception as e:  # noqa: BLE001 - one failing kernel is recorded and skipped
            emit({"done": idx, "name": row["name"], "error": str(e), "runs": runs})
            return 3
        emit({"done": idx, "name": row["name"], "runs": runs})
    return 0


def read_partial(path):
    """The records of partial.jsonl; a torn last line (the worker killed mid-write) is
    skipped."""
    out = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return out


def drive(outdir, row_timeout, budget):
    """Parent: (re)start workers until every row has a result or an error."""
    rows = load_manifest()["rows"]
    partial = os.path.join(outdir, "partial.jsonl")
    if os.path.exists(partial):
        os.remove(partial)
    t0 = time.time()
    start = 0
    while start < len(rows):
        if time.time() - t0 > budget:
            with open(partial, "a") as f:
                f.write(json.dumps({"fatal": f"time budget of {budget} s spent; rows from "
                                             f"{rows[start]['name']} on not run"}) + "\n")
            break
        nrec = len(read_partial(partial))
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), outdir, "--worker", str(start)])
        # The first record comes after context creation and module load (slow
        # on a cold driver), hence the longer first allowance.
        before = os.path.getsize(partial) if os.path.exists(partial) else 0
        last_len, last_change, started_rows = before, time.time(), False
        while p.poll() is None:
            time.sleep(0.2)
            n = os.path.getsize(partial) if os.path.exists(partial) else 0
            if n != last_len:
                last_len, last_change, started_rows = n, time.time(), True
            elif time.time() - last_change > (row_timeout if started_rows else max(row_timeout, 90.0)):
                p.kill()
                p.wait()
                break
        recs = read_partial(partial)
        mine = recs[nrec:]  # this child's records only
        if any("fatal" in r for r in mine):
            break
        if not any("info" in r for r in mine):
            with open(partial, "a") as f:
                f.write(json.dumps({"fatal": f"worker exited ({p.returncode}) or hung before "
                                             "loading the module"}) + "\n")
            break
        done = {r["done"] for r in recs if "done" in r}
        started = [r["start"] for r in mine if "start" in r]
        if p.returncode == 0 and all(i in done for i in range(start, len(rows))):
            break
        # The row in progress when the child failed, died or hung: record it, go on.
        cur = started[-1] if started else start
        if cur not in done:
            with open(partial, "a") as f:
                f.write(json.dumps({"done": cur, "name": rows[cur]["name"],
                                    "error": f"no result (child exit {p.returncode}; hang or crash)"}) + "\n")
        start = cur + 1
    return read_partial(partial)


def assemble(rows, recs, doc):
    """ubench.json from the manifest rows and the workers' records: each row's minimum
    cycles over its runs (or its error), the device line and the module used."""
    info, how, fatal = {}, None, None
    res = {}
    for r in recs:
        if "info" in r:
            info, how = r["info"], r["module"]
        if "fatal" in r:
            fatal = r["fatal"]
        if "done" in r:
            res[r["done"]] = r
    device = (f"{info.get('gpu', '?')} ({info.get('sms', '?')} SMs, {info.get('sm', '?')}), "
              f"max SM clock {info.get('clock_khz', 0) // 1000} MHz, driver {info.get('driver', '?')}, "
              f"CUDA {info.get('cuda', '?')}")
    results = []
    for i, row in enumerate(rows):
        out = dict(row)
        r = res.get(i, {"error": "not run"})
        runs = r.get("runs") or []
        out["cycles"] = min(runs) if runs and "error" not in r else None
        out["runs"] = runs
        if "error" in r:
            out["error"] = r["error"]
        results.append(out)
    return {"device": device, "module": how, "fatal": fatal, "compiler": doc["compiler"],
            "ptx_version": doc["ptx_version"], "loop": doc["loop"], "input": doc["input"],
            "results": results}


def table(out):
    """Prints the results: cycles, cycles per body instance and instances per clock (all
    warps and chains), with the H100's figure where the row has one."""
    print(out["device"])
    print(f"module: {out['module']}")
    if out.get("fatal"):
        print(f"FATAL: {out['fatal']}")
    print(f"{'row':9} {'op':30} {'cycles':>8} {'cyc/body':>8} {'body/clk':>8}  isolates (H100 row: cycles)")
    for r in out["results"]:
        cyc = r["cycles"]
        if cyc is None:
            print(f"{r['name']:9} {r['op'][:30]:30} {'ERROR':>8}  {r.get('error', '')[:70]}")
            continue
        n = r["ptx_instructions_per_chain"] // len(r["ptx_body"])
        per = cyc / n
        tput = r["warps"] * r["chains_per_thread"] * n / cyc
        ref = f" ({r['h100_row']}: {r['h100_cycles']})" if r.get("h100_cycles") else ""
        print(f"{r['name']:9} {r['op'][:30]:30} {cyc:8d} {per:8.2f} {tput:8.3f}  {r['isolates'][:24]}{ref}")


def dry_run():
    """The checks possible without a GPU: ptxas accepts ubench.ptx and every kernel text the
    manifest names exists. 0 when all hold."""
    doc = load_manifest()
    ptxas = os.environ.get("PTXAS", "/work/venv-nv/lib/python3.11/site-packages/nvidia/cu13/bin/ptxas")
    if not os.path.exists(ptxas):
        ptxas = "ptxas"
    with open(os.path.join(HERE, "ubench.ptx")) as f:
        ptx = f.read()
    bad = 0
    names = set()
    for r in doc["rows"]:
        names.add(r["name"])
        if f".entry {r['kernel']}(" not in ptx:
            print(f"{r['name']}: kernel missing from ubench.ptx")
            bad += 1
        h = r.get("sass_opcodes_per_loop_iteration")
        if not h:
            print(f"{r['name']}: no SASS histogram")
            bad += 1
        kt = r.get("kernel_text")
        if kt and not os.path.exists(os.path.join(HERE, kt)):
            print(f"{r['name']}: kernel text {kt} missing")
            bad += 1
        if r["mode"] == "lat" and (r["warps"], r["chains_per_thread"]) != (1, 1):
            print(f"{r['name']}: lat row must be 1 warp x 1 chain")
            bad += 1
    if len(names) != len(doc["rows"]):
        print("duplicate row names")
        bad += 1
    if not os.path.exists(os.path.join(HERE, "ubench.cubin")):
        print("ubench.cubin missing (run gen.py)")
        bad += 1
    rc = subprocess.run([ptxas, "-arch=sm_90", os.path.join(HERE, "ubench.ptx"), "-o", os.devnull],
                        capture_output=True, text=True)
    if rc.returncode != 0:
        print(f"ptxas rejected ubench.ptx:\n{rc.stderr[:2000]}")
        bad += 1
    print(f"dry run: {len(doc['rows'])} rows, {'OK' if not bad else f'{bad} problems'}; ubench.ptx assembles "
          f"for sm_90: {rc.returncode == 0}")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--row-timeout", type=float, default=20.0, help="seconds without progress = hang")
    ap.add_argument("--budget", type=float, default=240.0, help="start no worker after this many seconds")
    a = ap.parse_args()
    if a.dry_run:
        return dry_run()
    os.makedirs(a.outdir, exist_ok=True)
    if a.worker is not None:
        return worker(a.outdir, a.worker)
    t = time.time()
    doc = load_manifest()
    recs = drive(a.outdir, a.row_timeout, a.budget)
    out = assemble(doc["rows"], recs, doc)
    out["wall_seconds"] = round(time.time() - t, 1)
    with open(os.path.join(a.outdir, "ubench.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    table(out)
    ok = sum(1 for r in out["results"] if r["cycles"] is not None)
    print(f"{ok}/{len(out['results'])} rows measured in {out['wall_seconds']} s; wrote {a.outdir}/ubench.json")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
