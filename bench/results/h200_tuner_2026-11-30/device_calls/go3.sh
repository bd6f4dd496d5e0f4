#!/usr/bin/env bash
# Device call 3 of session 2026-11-30b (one H200), on the final harness (device-side
# input hashing): every GPU test; profiles of the MoE, dsa top-k and gdn prefill
# baselines; the gemm tuner loop of call 2 (cut inside its confirmation) resumed from
# its archive.
OUT=$1
mkdir -p "$OUT/s"
source bench/device_env.sh
timeout --kill-after=10 220 ctest --test-dir build -L gpu --output-on-failure >"$OUT/s/ctest_gpu.log" 2>&1
echo "ctest -L gpu rc=$?" | tee "$OUT/s/calls.txt"
bash bench/device_lanes.sh "$OUT/s/p" \
  "profile:moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048@100 profile:dsa_topk_indexer_fp8_h64_d128_topk2048_ps64@50 profile:gdn_prefill_qk4_v8_d128_k_last@55"
A=device-inputs/archives/optimize_gemm_n4096_k4096
start=$SECONDS
timeout --kill-after=10 150 build/kharness optimize --definition gemm_n4096_k4096 --backend cuda --archive "$A" \
  --trace-set device-inputs/tuner_sets/gemm_n4096_k4096 --rounds 1 --max-candidates 6 --seed 7 --trials 2 --warmup 5 \
  --iterations 30 --timing-trials 2 --no-reference-timing --json >"$OUT/s/optimize_gemm.json" 2>"$OUT/s/optimize_gemm.log"
echo "optimize gemm (resumed) rc=$? seconds=$((SECONDS - start))" | tee -a "$OUT/s/calls.txt"
cp -r "$A" "$OUT/s/optimize_gemm_archive"
tar -czf "$OUT/session.tgz" -C "$OUT/s" .
rm -rf "$OUT/s"
