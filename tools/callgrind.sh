#!/usr/bin/env bash
# Host instructions per simulated warp-instruction (issue 10, acceptance 5):
# the mixed `gen` trace (64 warps x 3,000 instructions, sm_90) replayed by an
# AVX2 release build under callgrind, so the figure does not depend on a noisy
# machine. (`target-cpu=native` is avoided: valgrind cannot run every
# instruction a native build may use.)
#
#   tools/callgrind.sh            # prints Ir, warp instructions and Ir per warp-instruction
#   CALLGRIND_RUSTFLAGS= tools/callgrind.sh   # the same for the default (x86-64-v2) build
#
# Needs valgrind. Uses CARGO_TARGET_DIR if set.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

. "$ROOT/tools/callgrind_common.sh"
callgrind_build
"$SIMCLI" gen --warps 64 --instructions 3000 --arch sm_90 -o "$WORK/gen.bin" >&2
WARP_INSTR=$("$SIMCLI" run "$WORK/gen.bin" --arch sm_90 | awk '/^warp instructions/ {print $3}')
callgrind_report "$WARP_INSTR" run "$WORK/gen.bin" --arch sm_90
