#!/usr/bin/env bash
# Runs independent GPU work side by side, one lane per GPU, so that a machine of two
# GPUs does a session's work in half the wall time. Timings stay honest: each lane owns
# its GPU (CUDA_VISIBLE_DEVICES), and nothing in one lane shares a GPU with another.
#
#   bash bench/device_lanes.sh OUT_DIR "LANE0 ITEMS" ["LANE1 ITEMS" ...]
#
# An item is an operator name (its baseline on every contest workload, through
# bench/operators_suite.sh), profile:NAME (kharness profile of its baseline),
# optimize:NAME (kharness optimize from its baseline, flags in OPTIMIZE_ARGS, archive
# under the lane) or ctest:REGEX (those tests), with an optional @SECONDS limit
# (defaults OPERATOR_LIMIT, PROFILE_LIMIT, OPTIMIZE_LIMIT; 300 for tests). Everything lands under
# OUT_DIR/laneN/, and OUT_DIR/session.tgz packs it all (a device call returns few files).
set -o pipefail
OUT=$(mkdir -p "${1:?usage: device_lanes.sh OUT_DIR LANE...}" && cd "$1" && pwd)
shift
cd "$(dirname "$0")/.." || exit 1
source bench/device_env.sh

lane() {  # lane GPU DIR ITEMS...
  local gpu=$1 dir=$2
  shift 2
  mkdir -p "$dir"
  export CUDA_VISIBLE_DEVICES=$gpu
  { date -u +%FT%TZ; nvidia-smi -L; } >"$dir/lane.txt" 2>&1
  for item in "$@"; do
    local start=$SECONDS rc limit=
    [[ $item == *@* ]] && limit=${item##*@} && item=${item%@*}
    case "$item" in
      profile:*)
        local name=${item#profile:}
        timeout --kill-after=10 "${limit:-${PROFILE_LIMIT:-120}}" build/kharness profile --definition "$name" --baseline \
          --out "$dir/profile_$name" --json >"$dir/profile_$name.json" 2>"$dir/profile_$name.log"
        rc=$? ;;
      optimize:*)
        local name=${item#optimize:} set=()
        # TUNER_SETS=DIR: a small trace set per definition (bench/tuner_set.py), when present
        [ -n "${TUNER_SETS:-}" ] && [ -d "$TUNER_SETS/$name" ] && set=(--trace-set "$TUNER_SETS/$name")
        # shellcheck disable=SC2086  # OPTIMIZE_ARGS holds several flags
        timeout --kill-after=10 "${limit:-${OPTIMIZE_LIMIT:-300}}" build/kharness optimize --definition "$name" \
          --backend cuda --archive "$dir/optimize_$name" "${set[@]}" ${OPTIMIZE_ARGS:-} --json \
          >"$dir/optimize_$name.json" 2>"$dir/optimize_$name.log"
        rc=$? ;;
      ctest:*)
        timeout --kill-after=10 "${limit:-300}" ctest --test-dir build -R "${item#ctest:}" --output-on-failure \
          >"$dir/ctest.log" 2>&1
        rc=$? ;;
      *)
        OPERATOR_LIMIT=${limit:-${OPERATOR_LIMIT:-240}} bash bench/operators_suite.sh "$dir" "$item" >>"$dir/suite.txt" 2>&1
        rc=$? ;;
    esac
    echo "$item rc=$rc seconds=$((SECONDS - start))" | tee -a "$dir/lane.txt"
  done
}

i=0
for items in "$@"; do
  # shellcheck disable=SC2086  # the lane's items are words
  lane "$i" "$OUT/lane$i" $items &
  i=$((i + 1))
done
wait
python3 bench/operators_summary.py "$OUT"/lane*/op_*.json --json "$OUT/operators_summary.json" \
  --markdown "$OUT/operators_summary.md"
tar -czf "$OUT/session.tgz" -C "$OUT" --exclude=session.tgz .
cat "$OUT"/lane*/lane.txt
