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

. "$ROOT/tools/callgrind_common.sh"
callgrind_build
WARP_INSTR=$("$SIMCLI" run "$LAUNCH" --arch sm_90 | awk '/warp-instr executed/ {print $3}')
if [ -z "$WARP_INSTR" ]; then
    echo "callgrind_launch.sh: no 'warp-instr executed' in the report of $LAUNCH" >&2
    exit 1
fi
callgrind_report "$WARP_INSTR" run "$LAUNCH" --arch sm_90
