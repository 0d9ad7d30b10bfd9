#!/bin/bash
# The int_math / float_math probes on a lent GPU (docs/validation.md, "Integer
# division ... and f32/f64 division and square root"), from the repository
# root: the launches of tools/gpu/probes (tools/gpu/make_probes.py; committed,
# nothing to prepare), then the split of each clock window.
#
#   tools/gpu/probes.sh DIR      # DIR/launches.json, DIR/outputs/, DIR/phases.txt
#
# device_run.sh runs it as one step; device_run_probes.sh runs it with the
# ubench rows alone, for a short window (about a minute).
set -u
D=${1:?usage: probes.sh DIR}
mkdir -p "$D"
python3 -m tools.gpu.launch_check "$D" tools/gpu/probes/*.json
rc=$?
python3 -m tools.gpu.make_probes --phases "$D" | tee "$D/phases.txt"
exit $rc
