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
"$SIMCLI" gen --warps 64 --instructions 3000 --arch sm_90 -o "$WORK/gen.bin" >&2
WARP_INSTR=$("$SIMCLI" run "$WORK/gen.bin" --arch sm_90 | awk '/^warp instructions/ {print $3}')
valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
    "$SIMCLI" run "$WORK/gen.bin" --arch sm_90 > /dev/null 2> "$WORK/cg.log"
IR=$(sed -n 's/.*refs: *//p' "$WORK/cg.log" | tr -d ',')
echo "Ir $IR, warp instructions $WARP_INSTR, Ir per warp-instruction $((IR / WARP_INSTR))"
