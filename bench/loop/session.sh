#!/usr/bin/env bash
# The optimisation loop on the contest operators, and the baselines it must beat, in one
# device call. From the repository root on the GPU machine, with the build (or its pack)
# carried, and, for pytorch:, the FlashInfer-Trace set whose definitions hold the
# contest's PyTorch references (TRACE_SET, default ../shared/flashinfer-trace):
#
#   bash bench/loop/session.sh OUT_DIR ITEM[@SECONDS]...
#
# Items, each bounded by its SECONDS (defaults below) and run in order on one GPU:
#   baseline:D   kharness's CUDA baseline of D on all its contest workloads, official protocol
#   pytorch:D    the contest's PyTorch reference of D as a solution, light protocol (1
#                correctness trial; 1 timing trial of 1 warm-up and 5 iterations: a
#                Python reference takes milliseconds to seconds a call)
#   loop:D       kharness optimize from D's baseline, the cli agent proposing the
#                candidates of operators/D/loop/candidates and the cheat probes of
#                bench/loop/cheats/D (bench/loop/propose.py), on a
#                small trace set of D's workloads at fixed cost quantiles (bench/tuner_set.py;
#                the cost is the baseline's measured latency when baseline:D ran before);
#                LOOP_ARGS adds flags (default: --rounds 1 --robust-timeout 1)
#   final:D      the loop's best (loop:D's optimize JSON) on all D's contest workloads,
#                official protocol; nothing when the best is still the baseline
#   shipped:D    the solution D ships (operators/D/loop/shipped names the promoted candidate)
#                on all D's contest workloads, official protocol; nothing when D ships its
#                baseline
#   profile:D    kharness profile (ncu) of the loop's best where loop:D ran in this OUT_DIR,
#                else of what D ships; of the baseline when that is what there is
#   ctest:REGEX  those CTest tests
# Writes OUT_DIR/<item kind>_<D>.{jsonl,json,log}, loop_<D>/ (archive and report),
# profile_<D>/, steps.txt (exit code and seconds per item), and session.tgz (all of it:
# a device call returns only a few files, none deep).
set -o pipefail
OUT=$(mkdir -p "${1:?usage: session.sh OUT_DIR ITEM[@SECONDS]...}" && cd "$1" && pwd)
shift
cd "$(dirname "$0")/../.." || exit 1
source bench/device_env.sh
TRACE_SET=${TRACE_SET:-../shared/flashinfer-trace}
STEPS="$OUT/steps.txt"
{ date -u +%FT%TZ; nvidia-smi -L; git log -1 --format='commit %H' 2>/dev/null; } >>"$STEPS" 2>&1

official=(--protocol official --trials 3 --timing-trials 3 --warmup 10 --iterations 50)

# The solution JSON of the loop's best as the loop's archive holds it, or nothing when the loop
# kept the baseline. Exported from the archive, not rebuilt from operators/D/loop/candidates:
# the headers a candidate shares with others may have changed since the loop measured it.
best_solution() {  # best_solution D FILE
  local best set found
  best=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["best"]["name"])' "$OUT/loop_$1.json") || return 1
  [[ $best == *_baseline_cuda ]] && return 1
  set=$(mktemp -d) || return 1
  build/kharness archive export --archive "$OUT/loop_$1" --native --definition "$1" "$set/out" >/dev/null &&
    found=$(find "$set/out/solutions" -name "$best.json")
  if [ "$(printf '%s' "$found" | grep -c .)" != 1 ]; then
    echo "best_solution: not exactly one solution named $best in $OUT/loop_$1" >&2
    rm -rf "$set"
    return 2
  fi
  cp "$found" "$2"
  rm -rf "$set"
}

# The solution JSON of what D ships (operators/D/loop/shipped), or nothing when it ships its
# baseline.
shipped_solution() {  # shipped_solution D FILE
  [ -s "operators/$1/loop/shipped" ] || return 1
  python3 bench/loop/candidate_solution.py "operators/$1/loop/candidates" "$(<"operators/$1/loop/shipped")" >"$2"
}

item() {  # item KIND D LIMIT
  local kind=$1 d=$2 limit=$3
  case "$kind" in
    baseline)
      timeout --kill-after=10 "${limit:-300}" build/kharness eval --definition "$d" --baseline --backend cuda \
        "${official[@]}" --timeout 300 --no-reference-timing -o "$OUT/baseline_$d.jsonl" --json \
        >"$OUT/baseline_$d.json" 2>"$OUT/baseline_$d.log" ;;
    pytorch)
      local def
      def=$(find "$TRACE_SET/definitions" -name "$d.json" | head -n 1)
      [ -n "$def" ] || { echo "no $d.json under $TRACE_SET/definitions" >"$OUT/pytorch_$d.log"; return 2; }
      python3 bench/loop/reference_solution.py "$def" >"$OUT/pytorch_$d.solution.json" || return 2
      timeout --kill-after=10 "${limit:-240}" build/kharness eval --definition "$d" \
        --solution "$OUT/pytorch_$d.solution.json" --backend cuda --protocol official --trials 1 \
        --timing-trials 1 --warmup 1 --iterations 5 --timeout 120 --max-consecutive-failures 3 \
        --no-reference-timing -o "$OUT/pytorch_$d.jsonl" --json >"$OUT/pytorch_$d.json" 2>"$OUT/pytorch_$d.log" ;;
    loop)
      # Ranked by the baseline's measured latency where this call swept it first (baseline:D).
      local ranked=()
      [ -s "$OUT/baseline_$d.jsonl" ] && ranked=(--latencies "$OUT/baseline_$d.jsonl")
      # shellcheck disable=SC2086  # the quantiles are words
      python3 bench/tuner_set.py "$OUT/set_$d" "$d" --quantiles ${LOOP_QUANTILES:-0.1 0.4 0.7 0.9 1.0} \
        "${ranked[@]}" >"$OUT/loop_$d.log" 2>&1 || return 2
      # The operator's candidates, then the cheat probes written for it (bench/loop/cheats/D).
      local agent folders="$PWD/operators/$d/loop/candidates"
      [ -d "bench/loop/cheats/$d" ] && folders="$folders $PWD/bench/loop/cheats/$d"
      agent=$(printf '{"command": "python3 %s/bench/loop/propose.py %s", "timeout_s": 60}' "$PWD" "$folders")
      # shellcheck disable=SC2086  # LOOP_ARGS holds several flags
      timeout --kill-after=10 "${limit:-300}" build/kharness optimize --definition "$d" --backend cuda \
        --trace-set "$OUT/set_$d" --agent cli --agent-config "$agent" ${LOOP_ARGS:---rounds 1 --robust-timeout 1} \
        --archive "$OUT/loop_$d" --json >"$OUT/loop_$d.json" 2>>"$OUT/loop_$d.log"
      local rc=$?
      build/kharness report --archive "$OUT/loop_$d" --out "$OUT/loop_$d/report" >"$OUT/loop_$d/report.md" \
        2>>"$OUT/loop_$d.log"
      rm -rf "$OUT/loop_$d"/workspaces/*/*/parent
      return $rc ;;
    final)
      best_solution "$d" "$OUT/final_$d.solution.json" || { echo "the loop kept the baseline" >"$OUT/final_$d.log"; return 0; }
      timeout --kill-after=10 "${limit:-300}" build/kharness eval --definition "$d" \
        --solution "$OUT/final_$d.solution.json" --backend cuda "${official[@]}" --timeout 300 \
        --no-reference-timing -o "$OUT/final_$d.jsonl" --json >"$OUT/final_$d.json" 2>"$OUT/final_$d.log" ;;
    shipped)
      [ -s "operators/$d/loop/shipped" ] || { echo "operators/$d/loop/shipped: none: $d ships its baseline" >"$OUT/shipped_$d.log"; return 0; }
      shipped_solution "$d" "$OUT/shipped_$d.solution.json" || return 2
      timeout --kill-after=10 "${limit:-300}" build/kharness eval --definition "$d" \
        --solution "$OUT/shipped_$d.solution.json" --backend cuda "${official[@]}" --timeout 300 \
        --no-reference-timing -o "$OUT/shipped_$d.jsonl" --json >"$OUT/shipped_$d.json" 2>"$OUT/shipped_$d.log" ;;
    profile)
      local what=(--baseline)
      if [ -s "$OUT/loop_$d.json" ]; then
        best_solution "$d" "$OUT/profile_$d.solution.json" && what=(--solution "$OUT/profile_$d.solution.json")
      else
        shipped_solution "$d" "$OUT/profile_$d.solution.json" && what=(--solution "$OUT/profile_$d.solution.json")
      fi
      timeout --kill-after=10 "${limit:-180}" build/kharness profile --definition "$d" "${what[@]}" --backend cuda \
        --out "$OUT/profile_$d" --json >"$OUT/profile_$d.json" 2>"$OUT/profile_$d.log" ;;
    ctest)
      timeout --kill-after=10 "${limit:-300}" ctest --test-dir build -R "$d" --timeout 300 --output-on-failure \
        >"$OUT/ctest.log" 2>&1 ;;
    *) echo "unknown item kind '$kind' (baseline, pytorch, loop, final, shipped, profile, ctest)" >&2; return 2 ;;
  esac
}

# Everything so far into session.tgz, after each item, so that a call cut short still
# returns what it did. Written beside OUT_DIR first: tar refuses a folder that changes
# while it reads it.
pack() {
  tar -czf "$OUT.tgz" -C "$OUT" --exclude=./session.tgz --exclude='*/workspaces/*/*/parent' --exclude='*.so' . &&
    mv "$OUT.tgz" "$OUT/session.tgz"
}

for spec in "$@"; do
  limit=
  [[ $spec == *@* ]] && limit=${spec##*@} && spec=${spec%@*}
  start=$SECONDS
  item "${spec%%:*}" "${spec#*:}" "$limit"
  echo "$spec rc=$? seconds=$((SECONDS - start))" | tee -a "$STEPS"
  pack
done
