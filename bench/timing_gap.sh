#!/usr/bin/env bash
# Where kharness's latency and ncu's kernel time part, for the cases the H200 profiles
# showed (issue 15): gdn decode "small" (kharness 2.30 us vs ncu 3.33 us) and gdn prefill
# "medium" (34.2 us vs 25.4 us), and gemm as the control that agreed. For each workload,
# on the same build and baseline:
#   1. kharness eval, official protocol: the per-call span (CUPTI all-stream) statistics;
#   2. ncu --clock-control none on the candidate's second check call (NVTX range
#      kh_candidate_2/), twice: --cache-control all (ncu flushes caches before each
#      kernel, as kharness flushes L2 before each call) and --cache-control none: every
#      kernel of the call with gpu__time_duration, its SM clock, grid and block;
#   3. where nsys is installed, the GPU timeline of the eval (kernels, memsets, copies,
#      every stream): timing_gap.py rebuilds each timed call's span from it and says
#      whether memsets, extra kernels or idle gaps lie inside the span.
# From the repository root, on the GPU machine, with the build (or its pack) carried:
#
#   bash bench/timing_gap.sh OUT_DIR
#
# Writes OUT_DIR/<case>/{eval.jsonl,eval.log,ncu_flush.csv,ncu_noflush.csv,nsys_gpu_trace.csv}
# and OUT_DIR/timing_gap.json (timing_gap.py), from which docs/timing.md's "Where
# kharness and ncu differ" is written. About 2-3 minutes.
set -o pipefail
OUT=$(mkdir -p "${1:?usage: timing_gap.sh OUT_DIR}" && cd "$1" && pwd)
cd "$(dirname "$0")/.." || exit 1
source bench/device_env.sh
STEPS="$OUT/steps.txt"
{ date -u +%FT%TZ; nvidia-smi -L; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks_throttle_reasons.active --format=csv;
  ncu --version | tail -1; command -v nsys && nsys --version; git log -1 --format='commit %H'; } >"$STEPS" 2>&1

CASES=(
  "gdn_decode_small gdn_decode_qk4_v8_d128_k_last 7b949ee3-1754-5225-b1af-980e9832125b"
  "gdn_prefill_medium gdn_prefill_qk4_v8_d128_k_last fa41a129-0a8a-5c49-93fa-97e38709e9bd"
  "gemm_control gemm_n4096_k4096 37d69def-3557-561a-8724-8bddc1e57c5c"
)
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,launch__grid_size,launch__block_size,dram__bytes.sum
step() {  # step NAME SECONDS COMMAND...
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout --kill-after=10 "$limit" "$@"
  echo "$name rc=$? seconds=$((SECONDS - start))" | tee -a "$STEPS"
}
for c in "${CASES[@]}"; do
  read -r name def uuid <<<"$c"
  dir="$OUT/$name"
  mkdir -p "$dir"
  rm -f "$dir/eval.jsonl"
  # The eval's own protocol (3 x (10 + 50)), then the same workload under ncu: two
  # check calls, no timing; the second call's kernels are the ones profiled.
  step "$name:eval" 120 build/kharness eval --definition "$def" --baseline --backend cuda --workload "$uuid" \
    --protocol official --warmup 10 --iterations 50 --timing-trials 3 --remeasure-reference \
    -o "$dir/eval.jsonl" --json >"$dir/eval.json" 2>"$dir/eval.log"
  # Under ncu the workers keep the user and leave the namespaces (--sandbox profiled):
  # ncu's injection does not start inside the full jail (the worker crashed there).
  NCU_EVAL=(build/kharness eval --definition "$def" --baseline --backend cuda --workload "$uuid" --trials 2 --no-timing
    --sandbox profiled)
  for cache in all none; do
    file=$([ "$cache" = all ] && echo ncu_flush || echo ncu_noflush)
    step "$name:ncu_cache_$cache" 120 ncu --clock-control none --cache-control "$cache" --target-processes all \
      --nvtx --nvtx-include "kh_candidate_2/" --metrics "$METRICS" --csv --page raw "${NCU_EVAL[@]}" \
      >"$dir/$file.csv" 2>"$dir/$file.log"
  done
  if command -v nsys >/dev/null; then
    step "$name:nsys" 150 nsys profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --force-overwrite=true \
      -o "$dir/timeline" build/kharness eval --definition "$def" --baseline --backend cuda --workload "$uuid" \
      --protocol official --warmup 10 --iterations 50 --timing-trials 1 --no-reference-timing >"$dir/nsys.log" 2>&1
    step "$name:nsys_stats" 60 nsys stats --report cuda_gpu_trace --format csv --output "$dir/nsys" \
      --force-export=true "$dir/timeline.nsys-rep" >>"$dir/nsys.log" 2>&1
    mv "$dir"/nsys_cuda_gpu_trace.csv "$dir/nsys_gpu_trace.csv" 2>/dev/null
    rm -f "$dir/timeline.nsys-rep" "$dir/timeline.sqlite"
  else
    echo "$name: nsys not installed: no timeline (ncu and the eval only)" | tee -a "$STEPS"
  fi
done
python3 bench/timing_gap.py "$OUT" --out "$OUT/timing_gap.json"
cat "$STEPS"
