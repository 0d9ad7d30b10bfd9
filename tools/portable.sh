#!/usr/bin/env bash
# A portable release build (issue 27): simcli built for the x86-64-v2 baseline
# (SSE4.2, POPCNT; no AVX2, no FMA) instead of `.cargo/config.toml`'s
# `target-cpu=native`, run on an emulated x86-64-v2 CPU (QEMU's `Nehalem`
# model, from Debian's qemu-user-static, fetched with `apt-get download` into
# tools/.cache/qemu: no root needed) on the five small committed launches with
# `--check`, then both builds' host instructions per warp-instruction under
# callgrind (trace replay and the 128^3 SGEMM launch). docs/speed.md,
# "Portable builds", has the figures.
#
#   tools/portable.sh            # about 25 minutes on the 2-core dev machine
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=$ROOT/tools/.cache
V2=${PORTABLE_TARGET_DIR:-$CACHE/target-v2}
V3=${NATIVE_TARGET_DIR:-$CACHE/target-v3}
cd "$ROOT"
RUSTFLAGS="-C target-cpu=x86-64-v2" CARGO_TARGET_DIR=$V2 cargo build --release -p sim-cli --locked >&2
RUSTFLAGS="-C target-cpu=x86-64-v3" CARGO_TARGET_DIR=$V3 cargo build --release -p sim-cli --locked >&2

QEMU=$CACHE/qemu/usr/bin/qemu-x86_64-static
if [ ! -x "$QEMU" ]; then
    mkdir -p "$CACHE/qemu"
    (cd "$CACHE/qemu" && apt-get download qemu-user-static >&2 && dpkg-deb -x qemu-user-static_*.deb .)
fi
echo "== x86-64-v2 build on QEMU's Nehalem CPU (SSE4.2, no AVX)"
for L in workloads/{halfops,histogram,reduce,sgemm_128,sgemm_256}.json; do
    "$QEMU" -cpu Nehalem "$V2/release/simcli" run "$L" --threads 1 --check > /dev/null
    echo "$L: outputs match"
done
if "$QEMU" -cpu Nehalem "$V3/release/simcli" run traces/sad16x16.ptx --arch sm_53 > /dev/null 2>&1; then
    echo "the x86-64-v3 build also ran on Nehalem: the emulated CPU is not what it claims" >&2
    exit 1
fi
echo "(the x86-64-v3 build stops with an illegal instruction there, as it should)"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$V3/release/simcli" gen --warps 64 --instructions 3000 --arch sm_90 -o "$WORK/gen.bin" > /dev/null
for B in v2 v3; do
    S=$V2/release/simcli
    [ $B = v3 ] && S=$V3/release/simcli
    for IN in "$WORK/gen.bin" workloads/sgemm_128.json; do
        valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$S" run "$IN" --arch sm_90 > "$WORK/out.txt" 2> "$WORK/cg.log"
        IR=$(sed -n 's/.*refs: *//p' "$WORK/cg.log" | tr -d ',')
        W=$(awk '/warp-instr executed/ {print $3; exit} /^warp instructions/ {w=$3} END {if (w) print w}' "$WORK/out.txt" | head -1)
        echo "$B $(basename "$IN"): Ir $IR, warp instructions $W, per warp-instruction $((IR / W))"
    done
done
