#!/usr/bin/env bash
# Runs kharness's GPU tests and harness benchmarks on a CUDA machine, with a build
# folder made elsewhere and carried here: `build` itself, or the small pack that
# bench/pack_build.sh makes as `device-build`. From the repository root:
#
#   bash bench/run_device.sh OUT_DIR
#
# Writes at most 8 files into OUT_DIR (no sub-folders):
#   run.log                 device, toolkit, path fix-up, benchmark and eval output
#   gpu_tests.log/.xml      ctest -L gpu (output, JUnit)
#   bench_empty_kernel.json, bench_copy_20us.json, bench_harness_overhead.json
#   traces.jsonl            `kharness eval` traces: a correct CUDA solution and a cheat
#   summary.txt             one line per step with its exit code
# Every step runs even when an earlier one fails; each has a time limit so the whole
# script ends within about 8 minutes.
set -o pipefail
OUT=$(mkdir -p "${1:?usage: run_device.sh OUT_DIR}" && cd "$1" && pwd)
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
LOG="$OUT/run.log"
SUMMARY="$OUT/summary.txt"
: >"$LOG"
: >"$SUMMARY"

step() {  # step NAME SECONDS COMMAND...: run with a limit, record the exit code
  local name=$1 limit=$2
  shift 2
  echo "=== $name: $*"
  local start=$SECONDS
  timeout --kill-after=10 "$limit" "$@"
  local rc=$?
  echo "$name rc=$rc seconds=$((SECONDS - start))" | tee -a "$SUMMARY"
  return $rc
}

# --- toolkit -------------------------------------------------------------------
export PATH="/usr/local/cuda/bin:$PATH"
for d in /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64; do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
{
  echo "date: $(date -u +%FT%TZ)  root: $ROOT"
  nvidia-smi -L || echo "nvidia-smi failed"
  if [ -x /usr/local/cuda/bin/nvcc ]; then nvcc --version; else echo "MISSING /usr/local/cuda/bin/nvcc: candidates cannot be compiled"; fi
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
} 2>&1 | tee -a "$LOG"

# --- the build's absolute paths ------------------------------------------------
# A pack made by bench/pack_build.sh stands in for the build folder.
if [ ! -f build/CMakeCache.txt ] && [ -f device-build/CMakeCache.txt ]; then
  rm -rf build && ln -s device-build build && echo "using device-build as build" | tee -a "$LOG"
  # The shared libraries pack_build.sh carried (cpp-httplib and its dependencies).
  [ -d device-build/lib ] && export LD_LIBRARY_PATH="$ROOT/device-build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# CMake, CTest and the test binaries hold the source and build paths of the machine
# that configured them. When the checkout lives elsewhere here, make the old path a
# link to this one.
BUILT_ROOT=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' build/CMakeCache.txt 2>/dev/null)
if [ -z "$BUILT_ROOT" ]; then
  echo "no build/CMakeCache.txt: carry the build folder" | tee -a "$LOG" "$SUMMARY"
elif [ "$(cd "$BUILT_ROOT" 2>/dev/null && pwd -P)" != "$(pwd -P)" ]; then
  if [ -e "$BUILT_ROOT" ]; then
    echo "WARNING: $BUILT_ROOT exists and is not this checkout; tests may run stale paths" | tee -a "$LOG" "$SUMMARY"
  else
    mkdir -p "$(dirname "$BUILT_ROOT")" && ln -s "$ROOT" "$BUILT_ROOT"
    echo "linked $BUILT_ROOT -> $ROOT" | tee -a "$LOG"
  fi
fi

# --- GPU tests -----------------------------------------------------------------
step gpu_tests 300 ctest --test-dir build -L gpu --output-on-failure --timeout 200 \
  --output-junit "$OUT/gpu_tests.xml" 2>&1 | tee "$OUT/gpu_tests.log"

# --- benchmarks ----------------------------------------------------------------
step bench_empty_kernel 60 build/bench/bench_empty_kernel --backend cuda --out "$OUT/bench_empty_kernel.json" \
  >>"$LOG" 2>&1
step bench_copy_20us 120 build/bench/bench_copy_stability --backend cuda --out "$OUT/bench_copy_20us.json" \
  >>"$LOG" 2>&1
step bench_harness_overhead 60 build/bench/bench_harness_overhead --backend cuda \
  --out "$OUT/bench_harness_overhead.json" >>"$LOG" 2>&1

# --- kharness eval: a correct CUDA solution and a cheat ------------------------
SOLUTIONS=tests/eval/solutions/rmsnorm_h128_cuda
SCRATCH=$(mktemp -d)
for s in correct modifies_input; do
  python3 bench/solution_json.py rmsnorm_h128 cuda "$SOLUTIONS/$s.cu::rmsnorm" \
    "$SOLUTIONS/rmsnorm_common.cuh" "$SOLUTIONS/slow_path.cuh" >"$SCRATCH/$s.json"
  step "eval_$s" 60 build/kharness eval --definition rmsnorm_h128 --solution "$SCRATCH/$s.json" --backend cuda \
    -o "$OUT/traces.jsonl" >>"$LOG" 2>&1
done
rm -rf "$SCRATCH"

echo "--- summary" | tee -a "$LOG"
cat "$SUMMARY"
