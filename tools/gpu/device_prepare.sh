#!/bin/bash
# Prepares .gpu/ (git-ignored) for tools/gpu/device_run.sh: everything that
# needs Rust, ptxas or time, so that the GPU machine only runs.
#
#   PTXAS=<ptxas 13.0.88> NVDISASM=<nvdisasm 13> tools/gpu/device_prepare.sh
#
# Then carry `.gpu` to the GPU machine (it is about 25 MB) and run
# `tools/gpu/device_run.sh OUTDIR` there.
set -eu
cd "$(dirname "$0")/../.."
: "${PTXAS:?set PTXAS to ptxas 13.0.88}"
G=.gpu
X=${XTASK:-target/release/xtask}
[ -x "$X" ] || cargo build --release -p xtask --locked
rm -rf "$G/vectors"
mkdir -p "$G/vectors" "$G/big"

# Conformance vectors: the committed SASS-oracle files, and larger random sets
# from the same oracle (fixed seeds, so they can be made again).
"$X" values --texts sim-isa/tests/data/int-simd-forms.txt --inputs 1000 --seed 1001 --write "$G/big/isimd.jsonl"
"$X" values --texts sim-isa/tests/data/cvt-fp8-forms.txt --inputs 3000 --seed 1002 --write "$G/big/fp8.jsonl"
(unset PTXAS; "$X" values --family half --inputs 300 --seed 1003 --write "$G/big/half.jsonl")
for f in isimd fp8 half; do
    "$X" gpu-kernels "$G/big/$f.jsonl" "$G/vectors/big-$f" --ptx-version 8.0
done
for f in sass-half-arith sass-int-simd sass-cvt-fp8; do
    "$X" gpu-kernels "sim-isa/tests/data/$f.jsonl" "$G/vectors/$f" --ptx-version 8.0
done
for d in "$G"/vectors/*; do
    gzip -9f "$d/manifest.json"
    python3 -m tools.gpu.run "$d" --dry-run
done
rm -rf "$G/big"

# The launch files' random inputs (pure Python there would spend GPU time).
python3 -m tools.gpu.launch_check /dev/null workloads/*.json --inputs "$G/inputs" --make-inputs --max-random 1048576
du -sh "$G"
