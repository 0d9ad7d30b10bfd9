#!/bin/bash
# Prepares .gpu/ (git-ignored) for tools/gpu/device_run_vectors.sh: the issue
# 23 families no GPU had run here (2026-11-30), as kernels and input buffers.
#
#   PTXAS=<ptxas 13.0.88> NVDISASM=<nvdisasm 13> tools/gpu/device_prepare_vectors.sh
#
# - thread vectors (tools/gpu/run.py): the committed SASS-oracle files of bmsk,
#   cvt.pack, testp and fns, larger random sets of the same forms from the same
#   oracle, and the f64 approximations (tools/gpu/approx64_vectors.py: MUFU.RCP64H
#   and MUFU.RSQ64H are models, docs/validation.md);
# - warp vectors (tools/gpu/warp_run.py): the tensor-core and WMMA forms
#   (`xtask values --family mma|wmma --gpu-dir`), new seeds, more inputs, and
#   the async family's one-thread kernels (`--family async`).
# Fixed seeds: the same files every time. About a minute; .gpu is about 20 MB.
set -eu
cd "$(dirname "$0")/../.."
: "${PTXAS:?set PTXAS to ptxas 13.0.88}"
G=.gpu
X=${XTASK:-target/release/xtask}
[ -x "$X" ] || cargo build --release -p xtask --locked
rm -rf "$G/vectors" "$G/warp" "$G/big"
mkdir -p "$G/vectors" "$G/warp" "$G/big"

for f in bmsk cvt-pack testp fns; do
    "$X" gpu-kernels "sim-isa/tests/data/sass-$f.jsonl" "$G/vectors/sass-$f" --ptx-version 8.0
done
for spec in bmsk:200:2001 cvt-pack:1000:2002 testp:500:2003 fns:300:2004; do
    IFS=: read -r f n s <<< "$spec"
    "$X" values --texts "sim-isa/tests/data/$f-forms.txt" --inputs "$n" --seed "$s" --write "$G/big/$f.jsonl"
    "$X" gpu-kernels "$G/big/$f.jsonl" "$G/vectors/big-$f" --ptx-version 8.0
done
python3 -m tools.gpu.approx64_vectors "$G/big/approx64.jsonl" --count 4000 --seed 64
"$X" gpu-kernels "$G/big/approx64.jsonl" "$G/vectors/approx64" --ptx-version 8.0
for d in "$G"/vectors/*; do
    gzip -9f "$d/manifest.json"
    python3 -m tools.gpu.run "$d" --dry-run
done

"$X" values --family mma --inputs 64 --seed 90 --write "$G/big/mma.jsonl.gz" --gpu-dir "$G/warp/mma"
"$X" values --family wmma --inputs 32 --seed 91 --write "$G/big/wmma.jsonl.gz" --gpu-dir "$G/warp/wmma"
"$X" values --family async --texts sim-isa/tests/data/async-forms.txt --inputs 200 --seed 92 \
    --write "$G/big/async.jsonl" --gpu-dir "$G/warp/async"
for d in "$G"/warp/*; do
    python3 -m tools.gpu.warp_run "$d" --dry-run
done
rm -rf "$G/big"
du -sh "$G"
