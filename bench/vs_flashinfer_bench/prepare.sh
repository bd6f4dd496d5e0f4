#!/usr/bin/env bash
# Prepares, on a machine with PyPI, what the side-by-side run with flashinfer-bench needs
# on a GPU machine without internet: the wheels (flashinfer-bench's Python dependencies
# that are not on the device; torch, triton and numpy are) and flashinfer-bench's own
# `flashinfer_bench/` package folder, copied from a checkout of its public repository
# (its bench/eval_config.yaml, which the runner loads, comes with it). Both go into
# bench/vs_flashinfer_bench/fib/, which git ignores. From the repository root:
#
#   bash bench/vs_flashinfer_bench/prepare.sh FLASHINFER_BENCH_CHECKOUT    # or FIB_SRC=...
#
# Then carry bench/vs_flashinfer_bench/fib/ with the build pack and run run.sh there.
set -euo pipefail
cd "$(dirname "$0")/../.."
SRC=${1:-${FIB_SRC:-}}
if [ -z "$SRC" ] || [ ! -d "$SRC/flashinfer_bench" ]; then
  echo "usage: prepare.sh FLASHINFER_BENCH_CHECKOUT (or FIB_SRC=...): a folder holding flashinfer_bench/" >&2
  exit 2
fi
DEST=bench/vs_flashinfer_bench/fib
rm -rf "$DEST"
mkdir -p "$DEST/wheels"

# Binary wheels for CPython 3.12 on x86-64 Linux (the device's python3).
binary() {
  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$DEST/wheels" "$1"
}
# Pure-Python wheels.
pure() {
  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform any -d "$DEST/wheels" "$1"
}
# flashinfer-python 0.6.4 (7.8 MB, with flashinfer.testing; 0.7 is over 100 MB).
pure flashinfer-python==0.6.4
binary apache-tvm-ffi==0.1.9
binary cupti-python==13.0.1
pure pydantic==2.11.7
binary pydantic-core==2.33.2
pure annotated-types==0.7.0
pure typing-inspection==0.4.1
pure typing-extensions==4.14.1
pure docstring-parser==0.17.0
# flashinfer-bench reads its eval_config.yaml and the trace set's safetensors.
binary pyyaml==6.0.2
binary safetensors==0.6.2

cp -r "$SRC/flashinfer_bench" "$DEST/flashinfer_bench"
find "$DEST/flashinfer_bench" -name '__pycache__' -prune -exec rm -rf {} +
[ -f "$DEST/flashinfer_bench/bench/eval_config.yaml" ] || echo "note: no bench/eval_config.yaml in the checkout" >&2
( cd "$SRC" && git log -1 --format='%H %cs' 2>/dev/null || echo unknown ) >"$DEST/flashinfer_bench.commit"

# A check that needs no GPU, where this python3 is the device's 3.12: the package and
# its dependencies import from the wheels (torch must be installed for the last import).
if python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))'; then
  SITE=$(mktemp -d)
  python3 -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "$DEST"/wheels/*.whl
  PYTHONPATH="$SITE:$DEST" python3 -c 'import pydantic, yaml, safetensors, tvm_ffi, docstring_parser; from flashinfer_bench.bench import BenchmarkConfig; print("imports ok")' ||
    echo "note: the import check failed here (torch missing?); the device has torch" >&2
  rm -rf "$SITE"
else
  echo "note: python3 here is not 3.12; the wheels are checked by run.sh on the device" >&2
fi
ls -la "$DEST/wheels"
du -sh "$DEST"
