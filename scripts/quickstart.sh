#!/usr/bin/env bash
# The README's main command: installs dependencies, builds, and runs the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
build=${BUILD_DIR:-build}
echo
echo "== kharness validate examples/trace-set"
"$build/kharness" validate examples/trace-set
