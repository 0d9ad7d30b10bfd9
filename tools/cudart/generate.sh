#!/usr/bin/env bash
# Regenerates sim-cudart's data from NVIDIA's CUDA 13 runtime wheel
# (nvidia-cuda-runtime 13.0.96: headers and libcudart.so.13):
# - sim-cudart/src/gen/layout.rs: struct offsets and enum values (layout.c);
# - sim-cudart/src/gen/errors.rs: `enum cudaError` names and values;
# - sim-cudart/data/libcudart13.symbols: every function libcudart.so.13
#   exports (its dynamic symbol table), which sim-cudart must export too.
# With a second argument, from CUDA 12's runtime (nvidia-cuda-runtime-cu12
# 12.9.79, whose headers need the crt/ folder of nvidia-cuda-nvcc-cu12
# 12.9.86):
# - sim-cudart/src/gen/layout12.rs: the same layouts as CUDA 12 has them,
#   only where they differ from layout.rs (tools/cudart/share.py: the rest
#   is re-exported from there);
# - sim-cudart/data/libcudart12.symbols: libcudart.so.12's functions.
# Usage: tools/cudart/generate.sh CUDA_ROOT [CUDA12_NVIDIA]
#   CUDA_ROOT: the CUDA 13 wheel's nvidia/cu13 folder;
#   CUDA12_NVIDIA: the CUDA 12 wheels' nvidia folder (cuda_runtime, cuda_nvcc).
set -euo pipefail
ROOT=${1:?usage: generate.sh CUDA_ROOT [CUDA12_NVIDIA]}
CU12=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
gcc -I"$ROOT/include" "$HERE/layout.c" -o "$TMP/layout"
"$TMP/layout" > "$REPO/sim-cudart/src/gen/layout.rs"
python3 "$HERE/errors.py" "$ROOT/include/driver_types.h" > "$REPO/sim-cudart/src/gen/errors.rs"
objdump -T "$ROOT/lib/libcudart.so.13" | awk '$NF ~ /^(cuda|__cuda)/ {print $NF}' | sort -u \
    > "$REPO/sim-cudart/data/libcudart13.symbols"
if [ -n "$CU12" ]; then
    gcc -I"$CU12/cuda_runtime/include" -I"$CU12/cuda_nvcc/include" "$HERE/layout.c" -o "$TMP/layout12"
    "$TMP/layout12" > "$TMP/layout12.rs"
    (cd "$REPO" && python3 -m tools.cudart.share sim-cudart/src/gen/layout.rs "$TMP/layout12.rs") \
        > "$REPO/sim-cudart/src/gen/layout12.rs"
    # As cargo fmt would leave it (it sorts the re-exported names).
    rustfmt --edition 2021 "$REPO/sim-cudart/src/gen/layout12.rs"
    objdump -T "$CU12/cuda_runtime/lib/libcudart.so.12" | awk '$NF ~ /^(cuda|__cuda)/ {print $NF}' | sort -u \
        > "$REPO/sim-cudart/data/libcudart12.symbols"
fi
