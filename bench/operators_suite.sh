#!/usr/bin/env bash
# Every shipped operator's CUDA baseline on every contest workload, timed beside its
# CUDA reference, with the speed-of-light floor from this device's measured peaks.
# Run on the GPU machine, from the repository root (bench/device_env.sh sets the paths):
#
#   bash bench/operators_suite.sh OUT_DIR [DEFINITION...]     # default: all operators
#
# Writes OUT_DIR/op_<definition>.json (kharness eval --json), op_<definition>.log
# (stderr: progress, notes), and operators_summary.json/.md (bench/operators_summary.py).
# Correctness is the contest's (3 trials); timing is lighter (1 trial of 2 warm-ups and
# 10 iterations; MoE 2 and 5), because every timed iteration gets a freshly generated
# input set and generation dominates on the big workloads: the point is the baseline's
# correctness on every workload and its latency next to the reference's, not a
# leaderboard. A 10-minute device call may not cover all nine operators; pass a
# subset as arguments and run the rest in a second call.
set -o pipefail
OUT=$(mkdir -p "${1:?usage: operators_suite.sh OUT_DIR [DEFINITION...]}" && cd "$1" && pwd)
shift
cd "$(dirname "$0")/.." || exit 1
source bench/device_env.sh
if [ $# -gt 0 ]; then
  names=("$@")
else
  names=()
  for d in operators/*/operator.json; do names+=("$(basename "$(dirname "$d")")"); done
fi
build/kharness peaks --backend cuda --json >"$OUT/peaks.json" 2>"$OUT/peaks.log"
for name in "${names[@]}"; do
  extra=()
  case "$name" in
    # Every MoE input set is ~1.4 GB of weights to generate and upload: two correctness
    # trials and a short timing keep all 19 workloads inside one device call.
    moe_*) extra=(--trials 2 --timing-trials 1 --warmup 1 --iterations 3 --timeout 600) ;;
    *) extra=(--timing-trials 1 --warmup 2 --iterations 10) ;;
  esac
  start=$SECONDS
  # WORKLOAD_LISTS=DIR: only the workload uuids listed in DIR/<definition>.txt (to finish
  # a sweep that an earlier call cut short); an empty list skips the definition.
  only=()
  if [ -n "${WORKLOAD_LISTS:-}" ] && [ -f "$WORKLOAD_LISTS/$name.txt" ]; then
    while read -r uuid; do [ -n "$uuid" ] && only+=(--workload "$uuid"); done <"$WORKLOAD_LISTS/$name.txt"
    [ ${#only[@]} -eq 0 ] && { echo "$name: nothing left to run" | tee -a "$OUT/operators_runs.txt"; continue; }
  fi
  rm -f "$OUT/op_$name.jsonl"  # eval -o appends; each trace lands as its workload finishes
  timeout --kill-after=10 "${OPERATOR_LIMIT:-240}" build/kharness eval --definition "$name" --baseline --backend cuda --json \
    -o "$OUT/op_$name.jsonl" "${extra[@]}" "${only[@]}" >"$OUT/op_$name.json" 2>"$OUT/op_$name.log"
  echo "$name rc=$? seconds=$((SECONDS - start))" | tee -a "$OUT/operators_runs.txt"
done
python3 bench/operators_summary.py "$OUT"/op_*.json --json "$OUT/operators_summary.json" \
  --markdown "$OUT/operators_summary.md"
cat "$OUT/operators_summary.md"
