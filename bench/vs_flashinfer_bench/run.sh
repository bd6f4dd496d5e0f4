#!/usr/bin/env bash
# kharness and flashinfer-bench side by side on one H200, in one call: the shared trace
# set's gemm_n4096_k4096 (all its workloads), the tvm-ffi example solution unmodified in
# flashinfer-bench and its kernel ported to the kharness ABI (port_example.py: the body
# byte for byte), both built for sm_90a, official protocol (3 correctness trials; 3
# trials of 10 warm-ups and 50 timed iterations). Cold costs (first builds, the
# reference's first timing) are measured apart from the timed runs. From the repository
# root, with the build pack and bench/vs_flashinfer_bench/fib/ (prepare.sh) carried:
#
#   bash bench/vs_flashinfer_bench/run.sh TRACE_SET OUT_DIR [ISOLATED_WORKLOADS]
#
# Another definition and a solution both run unmodified (a tvm-ffi CUDA one):
#
#   DEF=rmsnorm_h4096 SOLUTION=examples/solutions/upstream/tvm-ffi/rmsnorm_h4096_tvm_ffi_cuda.json \
#     bash bench/vs_flashinfer_bench/run.sh TRACE_SET OUT_DIR 3
#
# ISOLATED_WORKLOADS (default 6): how many workloads flashinfer-bench's isolated runner
# (a process per workload, 6-10 s each) runs; the summary says so and scales it. On the
# H200 (2026-12-02) the steps took about 7 minutes with 3 isolated workloads, kharness's
# warm run alone over a minute: give the call the whole 10 minutes. A kharness step cut
# by its limit is marked in the summary (kharness_complete: false). Writes into OUT_DIR: summary.json, times.json,
# kharness_{cold,warm,reference_timed}.{jsonl,log}, fib_{cold,persistent,isolated}.log,
# fib_{persistent,isolated}_traces.jsonl, port.json, steps.txt.
set -o pipefail
SET=$(cd "${1:?usage: run.sh TRACE_SET OUT_DIR [ISOLATED_WORKLOADS]}" && pwd)
OUT=$(mkdir -p "${2:?usage: run.sh TRACE_SET OUT_DIR [ISOLATED_WORKLOADS]}" && cd "$2" && pwd)
ISOLATED=${3:-6}
cd "$(dirname "$0")/../.." || exit 1
source bench/device_env.sh
DEF=${DEF:-gemm_n4096_k4096}
SOLUTION=${SOLUTION:+$(cd "$(dirname "$SOLUTION")" && pwd)/$(basename "$SOLUTION")}
FAMILY=$(basename "$(dirname "$(find "$SET/definitions" -name "$DEF.json" | head -n 1)")")
FIB=bench/vs_flashinfer_bench/fib
[ -d "$FIB/flashinfer_bench" ] || { echo "no $FIB: run prepare.sh first and carry it" >&2; exit 2; }
STEPS="$OUT/steps.txt"
: >"$STEPS"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# flashinfer-bench and its wheels, beside the device's torch, triton and numpy.
python3 -m pip install -q --no-index --no-deps --no-compile --target "$WORK/site" "$FIB"/wheels/*.whl
export PYTHONPATH="$WORK/site:$(cd "$FIB" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export TVM_FFI_CUDA_ARCH_LIST=9.0a
export FIB_CACHE_PATH="$WORK/fib_cache"      # empty: the first build is the cold cost
export KHARNESS_CACHE_DIR="$WORK/kh_cache"   # likewise for kharness
{ date -u +%FT%TZ; nvidia-smi -L; nvcc --version | tail -1; git log -1 --format='kharness %H';
  cat "$FIB/flashinfer_bench.commit" 2>/dev/null | sed 's/^/flashinfer-bench /';
  python3 -c 'import torch, flashinfer, tvm_ffi; print("torch", torch.__version__, "flashinfer", flashinfer.__version__)'; } >>"$STEPS" 2>&1

# timed NAME LIMIT COMMAND...: wall seconds into $WORK/t_NAME, exit code into steps.txt.
timed() {
  local name=$1 limit=$2
  shift 2
  local start end
  start=$(date +%s.%N)
  timeout --kill-after=10 "$limit" "$@"
  local rc=$?
  end=$(date +%s.%N)
  python3 -c "print($end - $start)" >"$WORK/t_$name"
  echo "$rc" >"$WORK/rc_$name"
  echo "$name rc=$rc seconds=$(cat "$WORK/t_$name")" | tee -a "$STEPS"
}

# Trace sets for flashinfer-bench: the definition, its workloads (all, or the isolated
# runner's first N), and the example solution, unmodified.
make_set() {  # make_set DIR N
  mkdir -p "$1/definitions/$FAMILY" "$1/workloads/$FAMILY" "$1/solutions/$FAMILY"
  cp "$SET/definitions/$FAMILY/$DEF.json" "$1/definitions/$FAMILY/"
  head -n "$2" "$SET/workloads/$FAMILY/$DEF.jsonl" >"$1/workloads/$FAMILY/$DEF.jsonl"
  cp "${SOLUTION:-$SET/solutions/${DEF}_example_tvmffi.json}" "$1/solutions/$FAMILY/"
}
ALL=$(grep -c . "$SET/workloads/$FAMILY/$DEF.jsonl")
make_set "$WORK/fib_cold" 1
make_set "$WORK/fib_all" "$ALL"
make_set "$WORK/fib_iso" "$ISOLATED"
if [ -n "$SOLUTION" ]; then  # the same file in both
  cp "$SOLUTION" "$WORK/port.json"
  python3 -c 'import hashlib, json, sys; h = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
print(json.dumps({"same_solution_file": sys.argv[1], "sha256": h}))' "$SOLUTION" >"$OUT/port.json"
else
  python3 bench/vs_flashinfer_bench/port_example.py "$SET/solutions/${DEF}_example_tvmffi.json" "$WORK/port.json" \
    >"$OUT/port.json"
fi
cp "$WORK/port.json" "$OUT/kharness_solution.json"
FIB_NAME=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' \
  "${SOLUTION:-$SET/solutions/${DEF}_example_tvmffi.json}")

# --- kharness ----------------------------------------------------------------------
KH=(build/kharness eval --trace-set "$SET" --definition "$DEF" --solution "$WORK/port.json" --backend cuda
  --protocol official --json)
timed kharness_cold 150 "${KH[@]}" -o "$OUT/kharness_cold.jsonl" >"$OUT/kharness_cold.json" 2>"$OUT/kharness_cold.log"
timed kharness_warm 100 "${KH[@]}" -o "$OUT/kharness_warm.jsonl" >"$OUT/kharness_warm.json" 2>"$OUT/kharness_warm.log"
timed kharness_reference_timed 120 "${KH[@]}" --remeasure-reference -o "$OUT/kharness_reference_timed.jsonl" \
  >"$OUT/kharness_reference_timed.json" 2>"$OUT/kharness_reference_timed.log"

# --- flashinfer-bench --------------------------------------------------------------
FIBRUN=(python3 -m flashinfer_bench run --definitions "$DEF" --solutions "$FIB_NAME"
  --warmup-runs 10 --iterations 50 --num-trials 3 --save-results --log-level INFO)
timed fib_cold 60 "${FIBRUN[@]}" --local "$WORK/fib_cold" >"$OUT/fib_cold.log" 2>&1
timed fib_persistent 90 "${FIBRUN[@]}" --local "$WORK/fib_all" >"$OUT/fib_persistent.log" 2>&1
timed fib_isolated 60 "${FIBRUN[@]}" --use-isolated-runner --local "$WORK/fib_iso" >"$OUT/fib_isolated.log" 2>&1
# Every trace file at any depth (a plain ** glob does not recurse without globstar).
find "$WORK/fib_all/traces" -name '*.jsonl' -exec cat {} + >"$OUT/fib_persistent_traces.jsonl" 2>/dev/null
find "$WORK/fib_iso/traces" -name '*.jsonl' -exec cat {} + >"$OUT/fib_isolated_traces.jsonl" 2>/dev/null
grep -l "Falling back to CUDA events" "$OUT"/fib_*.log >>"$STEPS" 2>/dev/null && echo "flashinfer-bench timed with CUDA events (no CUPTI)" >>"$STEPS"

python3 - "$WORK" "$ISOLATED" >"$OUT/times.json" <<'PY'
import json, sys
work, isolated = sys.argv[1], int(sys.argv[2])
t = lambda n: float(open(f"{work}/t_{n}").read())
print(json.dumps({"kharness_cold_s": t("kharness_cold"), "kharness_s": t("kharness_warm"),
                  "kharness_reference_timed_s": t("kharness_reference_timed"), "fib_cold_s": t("fib_cold"),
                  "fib_persistent_s": t("fib_persistent"), "fib_isolated_s": t("fib_isolated"),
                  "fib_isolated_workloads": isolated,
                  "kharness_complete": open(f"{work}/rc_kharness_warm").read().strip() == "0"}, indent=2))
PY
python3 bench/vs_flashinfer_bench/summary.py --times "$OUT/times.json" --kharness "$OUT/kharness_warm.jsonl" \
  --fib-persistent "$WORK/fib_all" --fib-isolated "$WORK/fib_iso" --port "$OUT/port.json" --out "$OUT/summary.json"
cat "$STEPS"
