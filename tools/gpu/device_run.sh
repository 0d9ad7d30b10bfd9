#!/bin/bash
# One short session on a lent GPU machine: every measurement tools/gpu
# prepares, each part under its own time limit, so that one failing part
# leaves the others' results.
#
#   tools/gpu/device_prepare.sh            # here: builds .gpu/ (git-ignored)
#   tools/gpu/device_run.sh OUTDIR         # there, from the repository root
#
# OUTDIR gets results.tar.gz (everything small), bench.tar.gz (the memory
# and whole-grid benchmarks' raw records) and the whole-domain files, which
# do not compress; log.txt is the run's log. Carry `.gpu` and
# `tools/gpu/bench/bin` (tools/gpu/bench/build.sh) to the GPU machine.
set -u
OUT=${1:?usage: device_run.sh OUTDIR}
G=.gpu
# Only 8 files come back from the lent machine: the results are gathered in
# one archive, and the work folder stays outside OUTDIR.
W=${GPU_WORK:-/tmp/gpu-work}
rm -rf "$W"
mkdir -p "$W" "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1
step() { echo "=== [$(date +%T)] $*"; }
# The whole run ends within BUDGET seconds (the lent machine's per-command
# limit is 600): each part gets its own limit or what is left, if less.
BUDGET=${BUDGET:-560}
lim() { local left=$((BUDGET - SECONDS)); [ "$left" -lt "$1" ] && echo $((left > 5 ? left : 5)) || echo "$1"; }

step info
{
    date -u
    nvidia-smi
    nvidia-smi -q | grep -E -i "product name|driver version|cuda version|vbios|clocks|graphics|sm |memory  |max|power limit" | head -60
    command -v nvcc && nvcc --version
    python3 --version
    uname -a
    cat /proc/driver/nvidia/version
} > "$W/info.txt" 2>&1
head -20 "$W/info.txt"

# 108 rows (54 forms; u39-u47 the division's opcodes, 2026-11-30): under a minute.
step "microbenchmarks (tools/gpu/ubench)"
timeout $(lim 120) python3 -m tools.gpu.ubench.run "$W/ubench" > "$W/ubench.log" 2>&1
echo "ubench rc=$?"; tail -5 "$W/ubench.log"

step "vectors (tools/gpu/run.py)"
for d in "$G"/vectors/*/; do
    n=$(basename "$d")
    timeout $(lim 90) python3 -m tools.gpu.run "$d" --observed "$W/vectors-$n.observed.jsonl" > "$W/vectors-$n.log" 2>&1
    echo "$n rc=$? $(tail -1 "$W/vectors-$n.log")"
done

step "whole domains (tools/gpu/domain)"
mkdir -p "$W/domain"
timeout $(lim 150) python3 -m tools.gpu.domain.run "$W/domain" --files 3 > "$W/domain.log" 2>&1
echo "domain rc=$?"; tail -8 "$W/domain.log"
mv "$W"/domain/domain-*.bin "$OUT/" 2>/dev/null   # they do not compress

step "launches (tools/gpu/launch_check.py)"
mapfile -t L < <(ls workloads/*.json sim-kernel/tests/data/*/*.json sim-module/tests/data/*/*.json \
    | grep -v -E 'sgemm_2048')
timeout $(lim 150) python3 -m tools.gpu.launch_check "$W/launches" "${L[@]}" --inputs "$G/inputs" --max-random 1048576 \
    > "$W/launches.log" 2>&1
echo "launches rc=$? $(tail -1 "$W/launches.log")"

# About 10 s: 11 one-block launches of tools/gpu/probes (make_probes.py), each twice.
step "int_math / float_math probes (tools/gpu/probes)"
timeout $(lim 60) tools/gpu/probes.sh "$W/probes" > "$W/probes.log" 2>&1
echo "probes rc=$?"; tail -14 "$W/probes.log"

step "memory and whole-grid benchmarks (tools/gpu/bench)"
timeout $(lim 420) tools/gpu/bench/run.sh "$W/bench" --tar-to "$OUT/bench.tar.gz" > "$W/bench.log" 2>&1
echo "bench rc=$?"; tail -5 "$W/bench.log"
python3 -m tools.gpu.bench.summarise "$W/bench" > "$W/bench-summary.md" 2>&1
rm -rf "$W/bench"   # in bench.tar.gz already

step done
cp "$OUT/log.txt" "$W/log.txt"
tar czf "$OUT/results.tar.gz" -C "$(dirname "$W")" "$(basename "$W")"
ls -la "$OUT"
