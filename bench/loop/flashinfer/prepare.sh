#!/usr/bin/env bash
# Downloads, on a machine with PyPI, the wheels the FlashInfer baselines need on the GPU
# machine (CPython 3.12, x86-64 Linux; torch, triton, numpy, jinja2, filelock, packaging
# are already there): about 10.5 MB in all. Carry the folder and give it to run.sh.
#
#   bash bench/loop/flashinfer/prepare.sh WHEELS_DIR
#
# Not included: nvidia-cutlass-dsl (its cu13 libs wheel alone is 92 MB, over the 64 MiB a
# device call may carry): FlashInfer's CuTe-DSL kernels (GDN decode among them) cannot run.
set -euo pipefail
DEST=${1:?usage: prepare.sh WHEELS_DIR}
mkdir -p "$DEST"
binary() {
  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$DEST" "$1"
}
pure() {
  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform any -d "$DEST" "$1"
}
pure flashinfer-python==0.6.4     # 7.8 MB: Python, headers and the CUDA sources it JIT-compiles
binary apache-tvm-ffi==0.1.9      # 2.3 MB: FlashInfer's C++/Python binding layer
binary ninja==1.13.2              # 0.2 MB: FlashInfer's JIT builds run ninja from PATH
pure einops==0.8.2
pure tabulate==0.10.0
pure nvidia-ml-py==13.615.71
ls -la "$DEST"
du -sh "$DEST"
