#!/usr/bin/env bash
# The README's main command: installs dependencies, builds, validates the shipped
# operators and examples, then evaluates an example solution end to end: build, isolate,
# check against the reference on fresh inputs, time, and write FlashInfer-Trace; then
# runs the optimisation loop (the built-in tuner) on rmsnorm_h4096's small workloads.
# It runs on CUDA where a GPU and nvcc are present, and on the CPU backend otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Only what the main job runs: the kharness binary. The tests and benchmarks are built
# by the test command (scripts/test.sh), not here.
KHARNESS_TARGETS=kharness bash scripts/build.sh
build=${BUILD_DIR:-build}
kharness="$build/kharness"

echo
echo "== kharness validate: the shipped operators and example solutions"
bash scripts/validate_shipped.sh "$kharness"

backend=cpu
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && command -v nvcc >/dev/null 2>&1; then
  backend=cuda
fi
echo
echo "== kharness eval: examples/solutions/rmsnorm_h128_${backend}.json on the ${backend} backend"
"$kharness" eval --definition rmsnorm_h128 --solution "examples/solutions/rmsnorm_h128_${backend}.json" \
  --backend "$backend" -o "$build/quickstart-traces.jsonl"
echo
echo "traces appended to $build/quickstart-traces.jsonl"

echo
echo "== kharness optimize: the tuner on rmsnorm_h4096 (small workloads), ${backend} backend"
"$kharness" optimize --definition rmsnorm_h4096 --small --backend "$backend" --rounds 2 \
  --archive "$build/quickstart-runs"
echo
echo "the loop's runs and decisions are in $build/quickstart-runs (kharness report --archive $build/quickstart-runs)"
