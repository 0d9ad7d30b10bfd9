#!/bin/bash
# The second run on a lent GPU (2026-11-28): f16 flush-to-zero boundary
# vectors (tools/gpu/ftz_edges.py, kernels made by `xtask gpu-kernels` into
# .gpu/vectors2/) and the approximate functions over their whole domains
# (tools/gpu/domain/forms-approx.txt). Same conventions as device_run.sh.
set -u
OUT=${1:?usage: device_run_edges.sh OUTDIR}
W=${GPU_WORK:-/tmp/gpu-work2}
rm -rf "$W"; mkdir -p "$W/domain" "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > "$W/info.txt" 2>&1
cat "$W/info.txt"
for d in .gpu/vectors2/*/; do
    n=$(basename "$d")
    timeout 90 python3 -m tools.gpu.run "$d" --observed "$W/vectors-$n.observed.jsonl" > "$W/vectors-$n.log" 2>&1
    echo "$n rc=$? $(tail -1 "$W/vectors-$n.log")"
done
timeout 200 python3 -m tools.gpu.domain.run "$W/domain" --forms tools/gpu/domain/forms-approx.txt --files 2 > "$W/domain.log" 2>&1
echo "domain rc=$?"; tail -22 "$W/domain.log"
mv "$W"/domain/domain-*.bin "$OUT/" 2>/dev/null
cp "$OUT/log.txt" "$W/"
tar czf "$OUT/results.tar.gz" -C "$(dirname "$W")" "$(basename "$W")"
ls -la "$OUT"
