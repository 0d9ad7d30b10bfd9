"""The SM simulator from Python.

    import ptx_sm_sim
    report = ptx_sm_sim.simulate("traces/sad16x16.ptx", arch="sm_90")
    print(report["stats"]["cycles"])

``simulate`` runs a kernel-text or binary-trace file and returns the report
(the JSON report of ``simcli run --format json``) as a dict. ``Sm`` drives one
SM from Python: host-fed warps, stepping, registers. ``conform`` runs a
conformance-vector file.
"""

import json
import os

from . import _native

__all__ = ["simulate", "conform", "Sm"]


def simulate(path, arch="sm_90", **params):
    """Simulates the kernel text or binary trace at ``path`` on preset ``arch``.

    ``params``: ``policy`` ("lrr", "gto", "oldest"), ``sms``, ``threads``.
    Returns the report as a dict (``stats``, ``per_sm``, ``config``, ...).
    """
    return json.loads(_native.simulate_json(os.fspath(path), arch, **params))


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
