#!/usr/bin/env bash
# Runs the GPU benchmarks and collects their results in one flat folder.
#   tools/gpu/bench/run.sh OUTDIR [--tar | --tar-to FILE] [--bin BINDIR] [--only "grid bw memlat"]
# BINDIR (default tools/gpu/bench/bin, or $BENCH_BIN) holds the binaries made
# by build.sh. A binary that is missing or cannot start (exit 126/127, or a
# loader error such as a too-old glibc) is rebuilt here with
# `nvcc -O3 -arch=sm_90` into /tmp and run from there.
# Writes OUTDIR/info.txt (GPU, driver, CUDA, clocks, power limit, nvcc),
# OUTDIR/clocks.csv (nvidia-smi clocks before and after each program),
# OUTDIR/smi_NAME.csv (nvidia-smi samples every 250 ms while NAME runs),
# OUTDIR/status.txt (one line per program), each program's results
# (NAME.jsonl, grid_*.bin) and NAME.stdout / NAME.stderr. --tar also packs
# them into OUTDIR/bench.tar.gz, --tar-to FILE into FILE (e.g. one file in
# the device tool's $OUT, which takes back at most 8 files). With cuobjdump
# there, NAME.sass is the machine code that ran. Exit status: 0 when every program ran
# cleanly, 3 when there is no usable GPU, 1 otherwise.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
out=""; tar=0; tarfile=""; bindir="${BENCH_BIN:-$here/bin}"; only="grid bw memlat"
while [ $# -gt 0 ]; do
    case "$1" in
    --tar) tar=1 ;;
    --tar-to) shift; tar=1; tarfile="$1" ;;
    --bin) shift; bindir="$1" ;;
    --only) shift; only="$1" ;;
    *) out="$1" ;;
    esac
    shift
done
if [ -z "$out" ]; then echo "usage: $0 OUTDIR [--tar | --tar-to FILE] [--bin BINDIR] [--only \"grid bw memlat\"]" >&2; exit 2; fi
mkdir -p "$out" || exit 2
out="$(cd "$out" && pwd)"
[ -n "$tarfile" ] || tarfile="$out/bench.tar.gz"
pack() { tar -C "$out" --exclude bench.tar.gz -czf "$tarfile" . && echo "wrote $tarfile"; }
# seconds per program (the whole suite normally takes well under two minutes)
declare -A limit=([grid]=${BENCH_T_GRID:-150} [bw]=${BENCH_T_BW:-90} [memlat]=${BENCH_T_MEMLAT:-150})

info="$out/info.txt"
{
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -n) $(uname -srm)"
    echo "bindir: $bindir"
    [ -f "$bindir/build-info.txt" ] && sed 's/^/build: /' "$bindir/build-info.txt"
    git -C "$here" rev-parse HEAD 2>/dev/null | sed 's/^/commit: /'
    if command -v nvidia-smi >/dev/null 2>&1; then
        echo "--- nvidia-smi -L"
        nvidia-smi -L 2>&1
        echo "--- nvidia-smi --query-gpu"
        # two queries: one unknown field fails a whole query
        nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit --format=csv 2>&1
        nvidia-smi --query-gpu=pci.bus_id,vbios_version,clocks.applications.graphics,power.max_limit,temperature.gpu,persistence_mode,compute_mode,mig.mode.current --format=csv 2>&1
        echo "--- nvidia-smi -q (excerpt)"
        nvidia-smi -q 2>&1 | grep -iE 'Product Name|Product Architecture|Driver Version|CUDA Version|VBIOS|MIG Mode|Current *:|Pending *:|Persistence|Compute Mode|Power Limit|Power Draw|Clocks Event|Throttle|Graphics|SM  |Memory  |Video|Max Clocks|Default Applications|Applications Clocks|GPU Current Temp|Bus Id|Total  ' | head -120
    else
        echo "nvidia-smi: not found"
    fi
    echo "--- nvcc"
    if command -v nvcc >/dev/null 2>&1; then nvcc --version 2>&1; else echo "nvcc: not on PATH"; fi
} > "$info" 2>&1
echo "wrote $info"

clocks() {  # label
    if command -v nvidia-smi >/dev/null 2>&1; then
        local v r
        v="$(nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader 2>&1 | head -1)"
        r="$(nvidia-smi --query-gpu=clocks_event_reasons.active --format=csv,noheader 2>/dev/null | head -1)"
        echo "$1,$v,$r" >> "$out/clocks.csv"
    fi
}
[ -f "$out/clocks.csv" ] || echo "label,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active" > "$out/clocks.csv"

find_nvcc() {
    if [ -n "${NVCC:-}" ]; then echo "$NVCC"; return; fi
    for c in nvcc /usr/local/cuda/bin/nvcc /usr/local/cuda-13.0/bin/nvcc /usr/local/cuda-*/bin/nvcc; do
        command -v "$c" >/dev/null 2>&1 && { command -v "$c"; return; }
        [ -x "$c" ] && { echo "$c"; return; }
    done
}

# runs one program; sets rc
run_prog() {  # name binary
    local p="$1" bin="$2"
    clocks "before_$p"
    # clocks while it runs: nvidia-smi samples every 250 ms into smi_NAME.csv
    local spid=""
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu --format=csv,noheader -lms 250 > "$out/smi_$p.csv" 2>&1 &
        spid=$!
    fi
    local t0=$(date +%s)
    timeout -k 10 "${limit[$p]}" "$bin" "$out" > "$out/$p.stdout" 2> "$out/$p.stderr"
    rc=$?
    local t1=$(date +%s)
    if [ -n "$spid" ]; then kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; fi
    clocks "after_$p"
    echo "$p rc=$rc seconds=$((t1 - t0)) binary=$bin" >> "$out/status.txt"
    if command -v cuobjdump >/dev/null 2>&1; then cuobjdump --dump-sass "$bin" > "$out/$p.sass" 2>&1; fi
}

loader_failed() {  # name: did the binary fail to start?
    [ "$rc" = 126 ] || [ "$rc" = 127 ] || grep -qE 'error while loading shared libraries|not found \(required by|cannot execute|Exec format error' "$out/$1.stderr" 2>/dev/null
}

status=0
for p in $only; do
    bin="$bindir/$p"
    rc=127
    if [ -x "$bin" ]; then
        run_prog "$p" "$bin"
    else
        echo "$p: no binary at $bin" | tee -a "$out/status.txt"
    fi
    if [ ! -x "$bin" ] || loader_failed "$p"; then
        nv="$(find_nvcc)"
        if [ -z "$nv" ]; then
            echo "$p: cannot start the binary and no nvcc to rebuild it" | tee -a "$out/status.txt"
            status=1; continue
        fi
        echo "$p: rebuilding with $nv" | tee -a "$out/status.txt"
        nvroot="$(cd "$(dirname "$nv")/.." && pwd)"
        nvx=()  # a pip-installed nvcc keeps headers and static libs beside bin/
        [ -f "$nvroot/include/cuda_runtime.h" ] && nvx+=(-I"$nvroot/include")
        [ -f "$nvroot/lib/libcudart_static.a" ] && nvx+=(-L"$nvroot/lib")
        if ! "$nv" -O3 -arch=sm_90 "${nvx[@]}" -o "/tmp/bench-$p" "$here/$p.cu" > "$out/$p.build.log" 2>&1; then
            echo "$p: rebuild failed (see $p.build.log)" | tee -a "$out/status.txt"
            status=1; continue
        fi
        run_prog "$p" "/tmp/bench-$p"
    fi
    case "$rc" in
    0) echo "$p: ok" ;;
    3) echo "$p: no usable CUDA device ($(grep -m1 'no CUDA device' "$out/$p.stderr" 2>/dev/null))" >&2
       echo "no GPU: stopping; $info was written" >&2
       [ $tar = 1 ] && pack
       exit 3 ;;
    124|137) echo "$p: timed out after ${limit[$p]} s (results so far kept)" >&2; status=1 ;;
    *) echo "$p: exit $rc (see $p.stderr)" >&2; status=1 ;;
    esac
done
[ $tar = 1 ] && pack
exit $status
