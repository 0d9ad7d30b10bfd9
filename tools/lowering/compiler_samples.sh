#!/usr/bin/env bash
# `simcli run --lowering compiler` on every sample in traces/ (issue 10, item 3;
# docs/lowering.md), with the compiler the H100 figures came from.
#
#   tools/lowering/compiler_samples.sh [SIMCLI]
#
# SIMCLI: the simcli binary (default: built with `cargo build --release -p sim-cli`).
# Installs its pinned tools on first use, where tools/lowering/derive_sass.py
# keeps them (tools/.cache/sass, git-ignored): ptxas 13.0.88
# (nvidia-cuda-nvcc) and nvdisasm 13.2.51 (nvidia-cuda-nvdisasm). PTXAS and
# NVDISASM, when set, are used instead. Each sample runs on sm_90 with --check
# (values still come from sim-isa); the script fails if any run fails.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE="$ROOT/tools/.cache/sass"

pip_tool() { # dir spec path-inside
    local dir="$CACHE/$1" path="$CACHE/$1/$3"
    if [ ! -x "$path" ]; then
        echo "installing $2 into $dir" >&2
        python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$dir" "$2"
        chmod +x "$path"
    fi
    echo "$path"
}

export PTXAS="${PTXAS:-$(pip_tool nvcc13 nvidia-cuda-nvcc==13.0.88 nvidia/cu13/bin/ptxas)}"
export NVDISASM="${NVDISASM:-$(pip_tool nvdisasm13 nvidia-cuda-nvdisasm==13.2.51 nvidia/cu13/bin/nvdisasm)}"

SIMCLI="${1:-}"
if [ -z "$SIMCLI" ]; then
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
    cargo build --quiet --release -p sim-cli --manifest-path "$ROOT/Cargo.toml"
    SIMCLI="$CARGO_TARGET_DIR/release/simcli"
fi

status=0
cd "$ROOT"
for f in traces/*.ptx; do
    if out=$("$SIMCLI" run "$f" --arch sm_90 --lowering compiler --check 2>&1); then
        compiled=$(echo "$out" | awk '/^cycles/ {print $2}')
        table=$("$SIMCLI" run "$f" --arch sm_90 | awk '/^cycles/ {print $2}')
        printf '%-28s compiler %8s cycles   table %8s cycles\n' "$f" "$compiled" "$table"
    else
        echo "$f: FAILED"
        echo "$out" | tail -5
        status=1
    fi
done
exit $status
