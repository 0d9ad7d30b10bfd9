#!/bin/bash
# A short run on a lent GPU for the int_math / float_math question alone: the
# ubench rows (u39-u47 among them) and tools/gpu/probes.sh. Nothing to build
# or carry: the cubin, the PTX and the launch files are committed. About a
# minute (ubench under 60 s, the probes about 10 s; limits 150 and 60).
#
#   tools/gpu/device_run_probes.sh OUTDIR     # from the repository root
#
# OUTDIR gets results.tar.gz (ubench/ubench.json, probes/launches.json,
# probes/outputs/, probes/phases.txt, the logs) and log.txt.
set -u
OUT=${1:?usage: device_run_probes.sh OUTDIR}
W=${GPU_WORK:-/tmp/gpu-work-probes}
rm -rf "$W"; mkdir -p "$W" "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1
# ubench loads its module through `tools`: the repository root on the path.
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > "$W/info.txt" 2>&1
cat "$W/info.txt"
timeout 150 python3 -m tools.gpu.ubench.run "$W/ubench" > "$W/ubench.log" 2>&1
echo "ubench rc=$?"; grep -E "^u(39|4[0-7])_" "$W/ubench.log"; tail -2 "$W/ubench.log"
timeout 60 tools/gpu/probes.sh "$W/probes" > "$W/probes.log" 2>&1
echo "probes rc=$?"; tail -14 "$W/probes.log"
cp "$OUT/log.txt" "$W/"
tar czf "$OUT/results.tar.gz" -C "$(dirname "$W")" "$(basename "$W")"
ls -la "$OUT"
