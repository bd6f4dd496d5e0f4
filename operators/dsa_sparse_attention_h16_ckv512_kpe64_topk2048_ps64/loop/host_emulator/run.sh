#!/bin/sh
# CPU check of a candidate without a GPU: one std::thread per CUDA thread, barriers for
# __syncthreads and warp ops, mma.m16n8k16 / ldmatrix emulated from the PTX ISA fragment
# layouts, cp.async as a synchronous copy (so it cannot find a missing wait_group), shared
# memory and scratch poisoned with 0xff (bf16 NaN). Compares against a float64 reference
# with the operator's tolerance (atol 5e-3, rtol 1e-2) on generator-like lists, a P < T
# case (all -1 token), short lists with interleaved -1 and a duplicate, and T=9.
# Usage: run.sh <candidate folder> <entry function>   (takes 1.5-4 minutes on 2 cores)
# -fno-strict-aliasing: the baseline's uint4 -> bf162 reinterpretation miscompiles on GCC -O2.
set -e
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
cp "$here/emu.h" "$work/"
python3 "$here/transform.py" "$1/kernel.cu" "$work/k.cpp"
g++ -std=c++20 -O2 -fno-strict-aliasing -w -I/usr/local/cuda/include -I"$here/../../../../include" -I/work/main/include \
  -I"$work" -DKERNEL_FILE='"k.cpp"' -DENTRY="$2" "$here/driver.cpp" -o "$work/d" -lpthread
"$work/d"
