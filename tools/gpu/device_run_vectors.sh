#!/bin/bash
# There, on a lent GPU: the run tools/gpu/device_prepare_vectors.sh prepares
# (issue 23's families no GPU had run: bmsk, cvt.pack, testp, fns, the f64
# approximations, mma/ldmatrix/stmatrix/movmatrix, wmma), then
# tools/gpu/device_run_probes.sh's ubench rows and probes (issue 26). Carry `.gpu`.
#
#   tools/gpu/device_run_vectors.sh OUTDIR     # from the repository root
#
# OUTDIR gets results.tar.gz (every observed file and log) and log.txt.
set -u
OUT=${1:?usage: device_run_vectors.sh OUTDIR}
G=.gpu
W=${GPU_WORK:-/tmp/gpu-work-vectors}
rm -rf "$W"; mkdir -p "$W" "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1
BUDGET=${BUDGET:-420}
lim() { local left=$((BUDGET - SECONDS)); [ "$left" -lt "$1" ] && echo $((left > 5 ? left : 5)) || echo "$1"; }
step() { echo "=== [$(date +%T)] $*"; }

step info
{ date -u; nvidia-smi; cat /proc/driver/nvidia/version; } > "$W/info.txt" 2>&1
head -16 "$W/info.txt"

step "thread vectors (tools/gpu/run.py)"
for d in "$G"/vectors/*/; do
    n=$(basename "$d")
    timeout "$(lim 60)" python3 -m tools.gpu.run "$d" --observed "$W/vectors-$n.observed.jsonl" > "$W/vectors-$n.log" 2>&1
    echo "$n rc=$? $(tail -1 "$W/vectors-$n.log")"
done

step "warp vectors (tools/gpu/warp_run.py)"
for d in "$G"/warp/*/; do
    n=$(basename "$d")
    timeout "$(lim 150)" python3 -m tools.gpu.warp_run "$d" --observed "$W/warp-$n.observed.jsonl.gz" > "$W/warp-$n.log" 2>&1
    echo "$n rc=$? $(tail -1 "$W/warp-$n.log")"
    head -5 "$W/warp-$n.log"
done

step "ubench rows and int_math / float_math probes (device_run_probes.sh)"
GPU_WORK="$W/probes-run" timeout "$(lim 200)" tools/gpu/device_run_probes.sh "$W/probes-out" > "$W/probes-run.log" 2>&1
echo "probes rc=$?"; tail -30 "$W/probes-run.log"

step done
cp "$OUT/log.txt" "$W/log.txt"
tar czf "$OUT/results.tar.gz" -C "$(dirname "$W")" "$(basename "$W")"
ls -la "$OUT"
