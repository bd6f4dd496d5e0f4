#!/usr/bin/env bash
# Device call 5 of session 2026-11-30b (one H200), after the reference and candidate
# checks went side by side and the profiler's own run checks once, its ncu session with
# no timing: the GPU tests but the two slowest, then every contest baseline's profile.
OUT=$1
mkdir -p "$OUT/s"
source bench/device_env.sh
timeout --kill-after=5 100 ctest --test-dir build -L gpu -E "ReferenceAgreement|SpinningKernel" --output-on-failure \
  >"$OUT/s/ctest_gpu.log" 2>&1
echo "ctest -L gpu (but 2) rc=$?" | tee "$OUT/s/calls.txt"
bash bench/device_lanes.sh "$OUT/s/p" \
  "profile:moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048@75 profile:gdn_decode_qk4_v8_d128_k_last@30 profile:dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64@35 profile:dsa_topk_indexer_fp8_h64_d128_topk2048_ps64@30 profile:gdn_prefill_qk4_v8_d128_k_last@30"
tar -czf "$OUT/session.tgz" -C "$OUT/s" .
rm -rf "$OUT/s"
