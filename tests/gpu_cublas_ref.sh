#!/usr/bin/env bash
# gpu_cublas_ref.sh FPLAB WORKDIR [DIM] — a real GPU kernel through fplab's
# kernel-reference path: `fplab gpu-check --gemm-dump` runs one
# cublasGemmEx (fp16 in, fp32 compute and out) on seeded inputs, then
# `fplab ref gemm --tc h100-fp16` computes the reference in the H100
# tensor-core model (blocks of 16 products, 2 extra alignment bits,
# truncation, fp32 rounded toward zero) and `fplab compare` gives the
# verdict.  Without a GPU (or a CUDA build) the dump exits 77 and so does
# this test (skipped).  The test fails only when the path itself breaks
# (a command exits 2); the verdict (exit 0 or 1) is printed, with its JSON,
# for docs/gpu-results.md: whether cuBLAS's kernel is the H100 model is a
# measurement, not an assumption.
set -u
fplab=${1:?usage: $0 FPLAB WORKDIR [DIM]}
work=${2:?usage}
dim=${3:-256}
rm -rf "$work" && mkdir -p "$work" || exit 2
"$fplab" gpu-check --gemm-dump "$work" --dim "$dim" --seed 1
rc=$?
[ $rc = 0 ] || exit $rc                        # 77: skipped, 2: broken
"$fplab" ref gemm "$work/A.npy" "$work/B.npy" --tc h100-fp16 \
    --out-format binary32 --out "$work/ref.npy" || exit 2
"$fplab" ref gemm "$work/A.npy" "$work/B.npy" --exact \
    --out-format binary32 --out "$work/exact.npy" || exit 2
"$fplab" compare "$work/D.npy" "$work/ref.npy" --inputs "$work/A.npy" \
    "$work/B.npy" --exact "$work/exact.npy" --tile 16x16 --show 5 \
    --json "$work/verdict.json"
rc=$?
echo "compare exit $rc (0: cuBLAS is the h100-fp16 model bit for bit; 1: it is not)"
cat "$work/verdict.json"
[ $rc = 0 ] || [ $rc = 1 ] || exit 2
exit 0
