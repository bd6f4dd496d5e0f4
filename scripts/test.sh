#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, runs every test.
# GPU tests carry the CTest label "gpu" and skip with a message where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Every target: the tests and benchmarks too (a build folder configured without them is
# switched back on).
KHARNESS_TARGETS= bash scripts/build.sh -DKHARNESS_BUILD_TESTS=ON -DKHARNESS_BUILD_BENCH=ON
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --timeout 600 -j "${JOBS:-$(nproc)}"
