#!/bin/sh
# Rebuilds every fixture of this folder from k.cu and app.cu (see README.md).
# NVCC_BIN: the bin folder of pip's nvidia-cuda-nvcc 13.0.88; CUDART_LIB: a
# folder with libcudart.so (-> the wheel's lib/libcudart.so.13) and libcudadevrt.a.
set -eu
cd "$(dirname "$0")"
PATH="${NVCC_BIN:?}:$PATH"
nvcc --version | grep -q 'V13.0.88'
K=k.cu
nvcc -arch=sm_90 -ptx -o k.sm_90.ptx $K
nvcc -arch=compute_80 -ptx -o k.sm_80.ptx $K
nvcc -arch=compute_120 -ptx -o k.sm_120.ptx $K
nvcc -arch=sm_90 -ptx -o app.sm_90.ptx app.cu
nvcc -arch=sm_90 -fatbin -o default.fatbin $K
for m in default size speed balance none; do
    nvcc -arch=sm_90 -fatbin -compress-mode=$m -o mode_$m.fatbin $K
done
nvcc -arch=sm_90 -fatbin -no-compress -o no_compress.fatbin $K
nvcc -fatbin -gencode arch=compute_80,code=compute_80 -gencode arch=compute_90,code=compute_90 \
    -gencode arch=compute_120,code=compute_120 -o multi_ptx.fatbin $K
nvcc -fatbin -gencode arch=compute_90,code=sm_90 -o sass_only.fatbin $K
nvcc -arch=sm_90a -fatbin -o sm_90a.fatbin $K
nvcc -fatbin -gencode arch=compute_100f,code=compute_100f -o compute_100f.fatbin $K
nvcc -fatbin -gencode 'arch=compute_100,code=[sm_100,compute_100]' -o sm_100.fatbin $K
# fatbinary itself, on the cubin and PTX nvcc -keep leaves.
tmp=$(mktemp -d)
nvcc -arch=sm_90 -fatbin -keep -keep-dir "$tmp" -o "$tmp/x.fatbin" $K
img="--image3=kind=elf,sm=90,file=$tmp/k.sm_90.cubin --image3=kind=ptx,sm=90,file=$tmp/k.ptx"
fatbinary --create=algo1_zlib.fatbin -64 --compress-algorithm=1 --compress-all $img
fatbinary --create=algo3_lz4_frame.fatbin -64 --compress-algorithm=3 --compress-all $img
fatbinary --create=algo4_lz4.fatbin -64 --compress-algorithm=4 --compress-all $img
fatbinary --create=ident_options.fatbin -64 --ident=myident.cu --cmdline="-O2 -v" --compress=false $img
rm -rf "$tmp"
nvcc -arch=sm_90 -cudart shared -L"${CUDART_LIB:?}" -o app.full app.cu
strip -o app app.full
nvcc -arch=sm_90 -rdc=true -cudart shared -L"${CUDART_LIB:?}" -o app.full app.cu
strip -o app_rdc app.full
rm app.full
