#!/usr/bin/env bash
# Bounded differential validation of sim-isa against NVIDIA's tools (issue 5).
#
#   tools/validate.sh            # parts 1, 2 and 3-simulated (a few minutes on 2 cores;
#                                # `--ci`, as .ci/run calls it, means the same)
#   tools/validate.sh validity   # part 1 only: accept/reject vs ptxas 11.8
#   tools/validate.sh values     # part 2 only: sm_90 machine code vs sim-isa
#   tools/validate.sh gpu-sim    # part 3 without a GPU: harness kernels run in
#                                # the SASS interpreter (GPU_SIM_VECTORS, 2000)
#
# Installs the pinned pip packages into tools/.cache/py (git-ignored) on first
# use. Sizes: VALIDITY_COUNT (default 3000 instructions), VALUES_VARIANTS (300)
# x VALUES_INPUTS (10); SEED (default 1). Each part prints `N passed, M failed`;
# the script exits non-zero if either part fails. Full runs: docs/validation.md.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE="$ROOT/tools/.cache"
PY="$CACHE/py"
NVCC_PIN="nvidia-cuda-nvcc-cu11==11.8.89"
NVDISASM_PIN="nvidia-cuda-nvdisasm==13.5.37"

find_nvdisasm() {
    local f
    for f in "$PY"/nvidia/*/bin/nvdisasm; do
        [ -x "$f" ] && { echo "$f"; return 0; }
    done
    return 1
}

if [ -z "${PTXAS:-}" ] || [ -z "${NVDISASM:-}" ]; then
    if [ ! -x "$PY/nvidia/cuda_nvcc/bin/ptxas" ] || ! find_nvdisasm >/dev/null; then
        echo "installing $NVCC_PIN $NVDISASM_PIN into $PY" >&2
        mkdir -p "$PY"
        python3 -m pip install --quiet --disable-pip-version-check --no-deps \
            --target "$PY" "$NVCC_PIN" "$NVDISASM_PIN"
    fi
    export PTXAS="${PTXAS:-$PY/nvidia/cuda_nvcc/bin/ptxas}"
    NVDISASM="${NVDISASM:-$(find_nvdisasm)}"
    export NVDISASM
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
cargo build --quiet -p xtask --release --manifest-path "$ROOT/Cargo.toml"
XTASK="$CARGO_TARGET_DIR/release/xtask"
SEED="${SEED:-1}"
status=0

run_validity() {
    echo "== part 1: validity (ptxas 11.8, sm_35/sm_53/sm_90)"
    "$XTASK" validity --count "${VALIDITY_COUNT:-3000}" --seed "$SEED" --jobs 2 \
        --cache "$CACHE/ptxas-verdicts.tsv" --show 30 || status=1
}

run_values() {
    echo "== part 2: values (sm_90 machine code, SASS interpreter)"
    "$XTASK" values --variants "${VALUES_VARIANTS:-300}" --inputs "${VALUES_INPUTS:-10}" \
        --seed "$SEED" --jobs 2 --show 30 || status=1
}

run_gpu_sim() {
    echo "== part 3 (no GPU): GPU-harness kernels, simulated"
    local sample="$CACHE/gpu-sample.jsonl" dir="$CACHE/gpu-sample"
    python3 - "$ROOT/xtask/tests/data/compiler-sm90.jsonl.gz" "$sample" "${GPU_SIM_VECTORS:-2000}" <<'PY'
import gzip, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = [l for l in gzip.open(src, "rt") if l.startswith("{")]
step = max(len(lines) // n, 1)
open(dst, "w").writelines(lines[::step][:n])
PY
    "$XTASK" gpu-kernels "$sample" "$dir" >/dev/null && PYTHONPATH="$ROOT" python3 -m tools.gpu.run "$dir" --dry-run \
        && "$XTASK" gpu-simulate "$dir" || status=1
}

case "${1:-all}" in
    validity) run_validity ;;
    values) run_values ;;
    gpu-sim) run_gpu_sim ;;
    all | --ci) run_validity; run_values; run_gpu_sim ;;
    *) echo "usage: $0 [validity|values|gpu-sim|all]" >&2; exit 2 ;;
esac
exit $status
