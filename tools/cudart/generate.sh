#!/usr/bin/env bash
# Regenerates sim-cudart's data from NVIDIA's CUDA 13 runtime wheel
# (nvidia-cuda-runtime 13.0.96: headers and libcudart.so.13):
# - sim-cudart/src/gen/layout.rs: struct offsets and enum values (layout.c);
# - sim-cudart/src/gen/errors.rs: `enum cudaError` names and values;
# - sim-cudart/data/libcudart13.symbols: every function libcudart.so.13
#   exports (its dynamic symbol table), which sim-cudart must export too.
# Usage: tools/cudart/generate.sh CUDA_ROOT   (the wheel's nvidia/cu13 folder)
set -euo pipefail
ROOT=${1:?usage: generate.sh CUDA_ROOT (nvidia/cu13 of the runtime wheel)}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
gcc -I"$ROOT/include" "$HERE/layout.c" -o "$TMP/layout"
"$TMP/layout" > "$REPO/sim-cudart/src/gen/layout.rs"
python3 "$HERE/errors.py" "$ROOT/include/driver_types.h" > "$REPO/sim-cudart/src/gen/errors.rs"
objdump -T "$ROOT/lib/libcudart.so.13" | awk '$NF ~ /^(cuda|__cuda)/ {print $NF}' | sort -u \
    > "$REPO/sim-cudart/data/libcudart13.symbols"
