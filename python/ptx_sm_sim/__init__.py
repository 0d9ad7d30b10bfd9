"""The SM simulator from Python.

    import ptx_sm_sim
    report = ptx_sm_sim.simulate("traces/sad16x16.ptx", arch="sm_90")
    print(report["stats"]["cycles"])

``simulate`` runs a kernel-text or binary-trace file and returns the report
(the JSON report of ``simcli run --format json``) as a dict. ``Sm`` drives one
SM from Python: host-fed warps, stepping, registers. ``conform`` runs a
conformance-vector file.

``Module`` launches a PTX module's kernels with numpy arrays and scalars::

    m = ptx_sm_sim.Module("k.ptx")
    r = m.launch("vadd", 4, 256, args=[ptx_sm_sim.In(a), ptx_sm_sim.In(b), ptx_sm_sim.Out(c), np.int32(n)])
    print(r.cycles)

``compile`` turns CUDA C++ into PTX with nvcc; ``read_launch`` reads a launch
file.
"""

import json
import os

from . import _native
from ._launch import In, LaunchReport, Module, Out, compile, read_launch

__all__ = ["simulate", "conform", "Sm", "Module", "In", "Out", "LaunchReport", "compile", "read_launch"]


_RUN = ("policy", "sms", "threads")


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(str(v))


def simulate(path, arch="sm_90", config=None, **params):
    """Simulates the kernel text or binary trace at ``path`` on preset ``arch``.

    ``config``: a TOML configuration file (``simcli config`` prints one).
    ``params``: ``policy`` ("lrr", "gto", "oldest"), ``sms``, ``threads``, and
    any configuration key, as ``simcli run --set`` takes it; dotted keys go
    through a dict: ``simulate(p, **{"units.int_alu.latency": 6})``.
    Returns the report as a dict (``stats``, ``per_sm``, ``config``, ...).
    """
    run = {k: v for k, v in params.items() if k in _RUN}
    sets = [f"{k}={_toml_value(v)}" for k, v in params.items() if k not in _RUN]
    cfg = None if config is None else os.fspath(config)
    return json.loads(
        _native.simulate_json(os.fspath(path), arch, config=cfg, sets=sets, **run)
    )


def conform(path):
    """Runs the conformance vectors at ``path``; returns passed/failed/skipped counts."""
    return json.loads(_native.conform_json(os.fspath(path)))


class Sm(_native.Sm):
    """One SM running a program of PTX instructions, fed by the host.

    ``Sm(["add.u32 %r1, %r0, 4;"], arch="sm_90")``, then ``add_warp``,
    ``push`` (program indices), ``close``, ``run``/``step``, ``reg``/``set_reg``.
    """

    def stats(self):
        """The statistics so far, as a dict."""
        return json.loads(self.stats_json())
