#!/usr/bin/env bash
# Device call 1 of session 2026-11-30b (one H200): the 85 contest workloads never run,
# a profile of the gdn decode baseline through the one-session ncu path, and the tuner
# on rmsnorm_h4096.
OUT=$1
export WORKLOAD_LISTS=$PWD/device-inputs/remaining TUNER_SETS=$PWD/device-inputs/tuner_sets
export OPTIMIZE_ARGS="--rounds 1 --max-candidates 6 --seed 7 --trials 2 --warmup 5 --iterations 30 --timing-trials 2 --no-reference-timing"
bash bench/device_lanes.sh "$OUT/s" \
  "profile:gdn_decode_qk4_v8_d128_k_last@50 dsa_topk_indexer_fp8_h64_d128_topk2048_ps64@210 gdn_prefill_qk4_v8_d128_k_last@90 gdn_decode_qk4_v8_d128_k_last@30 optimize:rmsnorm_h4096@170"
mv "$OUT/s/session.tgz" "$OUT/"
cp "$OUT/s/operators_summary.md" "$OUT/" 2>/dev/null
rm -rf "$OUT/s"
