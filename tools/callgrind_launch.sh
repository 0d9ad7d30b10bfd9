#!/usr/bin/env bash
# Host instructions per simulated warp-instruction of a whole launch
# (execution, timing and memory model): `simcli run
# workloads/sgemm_128.json --arch sm_90` (128 warps, 171,520
# warp-instructions) by an AVX2 release build under callgrind, so the figure
# does not depend on a noisy machine. (`target-cpu=native` is avoided:
# valgrind cannot run every instruction a native build may use.)
#
#   tools/callgrind_launch.sh     # prints Ir, warp instructions and Ir per warp-instruction
#   tools/callgrind_launch.sh workloads/histogram.json   # another launch
#   CALLGRIND_RUSTFLAGS= tools/callgrind_launch.sh   # the default (x86-64-v2) build
#
# The warp-instruction count is the report's `warp-instr executed` (the
# `launch` section). Needs valgrind. Uses CARGO_TARGET_DIR if set.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
LAUNCH=${1:-$ROOT/workloads/sgemm_128.json}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# CALLGRIND_RUSTFLAGS replaces the x86-64-v3 flags: set it empty to
# measure the default portable build (`CALLGRIND_RUSTFLAGS= tools/...`).
FLAGS=${CALLGRIND_RUSTFLAGS-"-C target-cpu=x86-64-v3"}
if [ -n "$FLAGS" ]; then
    (cd "$ROOT" && RUSTFLAGS="$FLAGS" cargo build --release -p sim-cli --locked >&2)
else
    # Unset, not empty: an empty RUSTFLAGS would override .cargo/config.toml.
    (cd "$ROOT" && env -u RUSTFLAGS cargo build --release -p sim-cli --locked >&2)
fi
SIMCLI="$TARGET/release/simcli"
WARP_INSTR=$("$SIMCLI" run "$LAUNCH" --arch sm_90 | awk '/warp-instr executed/ {print $3}')
if [ -z "$WARP_INSTR" ]; then
    echo "callgrind_launch.sh: no 'warp-instr executed' in the report of $LAUNCH" >&2
    exit 1
fi
valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
    "$SIMCLI" run "$LAUNCH" --arch sm_90 > /dev/null 2> "$WORK/cg.log"
IR=$(sed -n 's/.*refs: *//p' "$WORK/cg.log" | tr -d ',')
echo "Ir $IR, warp instructions $WARP_INSTR, Ir per warp-instruction $((IR / WARP_INSTR))"
