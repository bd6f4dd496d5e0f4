#!/usr/bin/env bash
# One GPU session in priority order, each step time-limited, so a single device call
# (10 minutes at most) yields the most evidence:
#   1. the device's peaks (kharness peaks)
#   2. the GPU tests (ctest -L gpu: CUDA end to end, CUDA vs C++ references)
#   3. ncu's CSV on one baseline kernel, kept as a parser fixture (issue 6)
#   4. every operator's CUDA baseline on its contest workloads (bench/operators_suite.sh)
# From the repository root, with the build (or device-build pack) carried:
#
#   bash bench/device_session.sh OUT_DIR [DEFINITION...]
set -o pipefail
OUT=$(mkdir -p "${1:?usage: device_session.sh OUT_DIR [DEFINITION...]}" && cd "$1" && pwd)
shift
cd "$(dirname "$0")/.." || exit 1
source bench/device_env.sh
SUMMARY="$OUT/session.txt"
step() {  # step NAME SECONDS COMMAND...
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout --kill-after=10 "$limit" "$@"
  local rc=$?
  echo "$name rc=$rc seconds=$((SECONDS - start))" | tee -a "$SUMMARY"
}
{ date -u +%FT%TZ; nvidia-smi -L; nvcc --version | tail -1; git log -1 --format='commit %H'; } >"$SUMMARY" 2>&1

step peaks 60 sh -c "build/kharness peaks --backend cuda --json >'$OUT/peaks.json' 2>'$OUT/peaks.log'"
step gpu_tests "${GPU_TESTS_LIMIT:-200}" sh -c "ctest --test-dir build -L gpu --timeout 200 --output-on-failure >'$OUT/gpu_tests.log' 2>&1"
tail -5 "$OUT/gpu_tests.log" >>"$SUMMARY"

# ncu on one launch of the rmsnorm_h4096 baseline kernel, after warm-up calls.
NCU_ARGS=(--clock-control none --target-processes all --kernel-name regex:baseline --launch-skip 3 --launch-count 1
  --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis
  --section WarpStateStats --csv)
EVAL=(build/kharness eval --definition rmsnorm_h4096 --baseline --backend cuda --trials 1 --timing-trials 1
  --warmup 2 --iterations 2 --no-reference-timing)
if command -v ncu >/dev/null; then
  step ncu_details 60 sh -c "ncu ${NCU_ARGS[*]} --page details ${EVAL[*]} >'$OUT/ncu_details.csv' 2>'$OUT/ncu_details.log'"
  step ncu_raw 60 sh -c "ncu ${NCU_ARGS[*]} --page raw ${EVAL[*]} >'$OUT/ncu_raw.csv' 2>'$OUT/ncu_raw.log'"
else
  echo "ncu not found" >>"$SUMMARY"
fi

# kharness profile (regimes, ncu, static analysis, diagnosis) on baselines, timed for
# the 60 s budget of issue 6.
for name in ${PROFILE_DEFINITIONS-rmsnorm_h4096}; do
  step "profile_$name" "${PROFILE_LIMIT:-120}" sh -c "build/kharness profile --definition $name --baseline --out '$OUT/profile_$name' --json >'$OUT/profile_$name.json' 2>'$OUT/profile_$name.log'"
done

# Cheap operators first, so a session cut short still covers most of them.
if [ $# -eq 0 ]; then
  set -- rmsnorm_h128 rmsnorm_h4096 softmax_h4096 gemm_n4096_k4096 gdn_decode_qk4_v8_d128_k_last \
    dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64 dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 \
    gdn_prefill_qk4_v8_d128_k_last moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048
fi
step operators "${OPERATORS_LIMIT:-420}" bash bench/operators_suite.sh "$OUT" "$@"
echo "--- session" && cat "$SUMMARY"
