#!/usr/bin/env bash
# Builds the GPU benchmarks into BINDIR (default: tools/gpu/bench/bin).
#   tools/gpu/bench/build.sh [BINDIR]
# nvcc: $NVCC, else nvcc on PATH, else the pip-installed 13.0.88 in
# /work/venv-nv (workloads/README.md). Static cudart (nvcc's default), so
# the binaries need only libc/libm/libstdc++/libgcc_s/ld-linux (checked with
# ldd below). libstdc++ stays dynamic on purpose: the static one pulls
# arc4random (glibc 2.36, newer than Ubuntu 22.04's 2.35); dynamic, the
# binaries need glibc >= 2.34 and GLIBCXX_3.4.21. sm_90 machine code plus
# compute_90 PTX (the driver can JIT it if the SASS were refused).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bindir="${1:-$here/bin}"
mkdir -p "$bindir"
bindir="$(cd "$bindir" && pwd)"
if [ -n "${NVCC:-}" ]; then nvcc="$NVCC"
elif command -v nvcc >/dev/null 2>&1; then nvcc="$(command -v nvcc)"
else nvcc=/work/venv-nv/lib/python3.11/site-packages/nvidia/cu13/bin/nvcc
fi
root="$(cd "$(dirname "$nvcc")/.." && pwd)"
extra=()
# the pip layout keeps headers and libcudart_static.a beside bin/
[ -f "$root/include/cuda_runtime.h" ] && extra+=(-I"$root/include")
[ -f "$root/lib/libcudart_static.a" ] && extra+=(-L"$root/lib")
flags=(-O3 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
       -cudart static "${extra[@]}")
"$nvcc" --version > "$bindir/build-info.txt"
echo "flags: ${flags[*]}" >> "$bindir/build-info.txt"
status=0
for p in memlat bw grid; do
    echo "building $p"
    if ! "$nvcc" "${flags[@]}" -o "$bindir/$p" "$here/$p.cu"; then
        echo "build of $p failed" >&2; status=1; continue
    fi
    # only the C runtime may be dynamic: no libcudart.so, no libstdc++.so
    bad="$(ldd "$bindir/$p" | awk '{print $1}' | grep -vE '^(linux-vdso\.so|/lib64/ld-linux|libc\.so|libm\.so|libgcc_s\.so|libdl\.so|libpthread\.so|librt\.so|libstdc\+\+\.so)' || true)"
    if [ -n "$bad" ]; then echo "$p depends on: $bad" >&2; status=1; fi
    glibc="$(objdump -T "$bindir/$p" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 || true)"
    glibcxx="$(objdump -T "$bindir/$p" 2>/dev/null | grep -o 'GLIBCXX_[0-9.]*' | sort -uV | tail -1 || true)"
    echo "$p: $(sha256sum "$bindir/$p" | cut -c1-16) needs ${glibc:-?} ${glibcxx:-}" | tee -a "$bindir/build-info.txt"
done
exit $status
