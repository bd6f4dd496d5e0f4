#!/usr/bin/env bash
# Configures and builds kharness into ${BUILD_DIR:-build}: every target, or only those
# named in KHARNESS_TARGETS (space separated, e.g. "kharness"). CUDA support turns on by
# itself where the CUDA toolkit is found (nvcc on PATH or in /usr/local/cuda).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} "$@"
targets=()
for t in ${KHARNESS_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" --parallel "${JOBS:-$(nproc)}" "${targets[@]}"
