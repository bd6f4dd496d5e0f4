#!/usr/bin/env bash
# Device call 3 (not committed): finish the operator sweeps, the async-scratch GPU test,
# and the tuner on the GPU.
OUT=$1
for d in rmsnorm_h4096 gdn_decode_qk4_v8_d128_k_last gemm_n4096_k4096 dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64; do
  q="0.2 0.6 0.9"; [ "$d" = rmsnorm_h4096 ] && q="0.2 0.5 0.75"
  python3 bench/tuner_set.py /tmp/tuner_sets/$d $d --quantiles $q >>"$OUT/tuner_sets.txt"
done
export WORKLOAD_LISTS=$PWD/device-inputs/remaining TUNER_SETS=/tmp/tuner_sets
export OPTIMIZE_ARGS="--rounds 1 --max-candidates 6 --seed 7 --trials 2 --warmup 3 --iterations 20 --timing-trials 1"
bash bench/device_lanes.sh "$OUT/s" \
  "gemm_n4096_k4096@70 rmsnorm_h4096@60 softmax_h4096@40 gdn_decode_qk4_v8_d128_k_last@30 dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64@60 gdn_prefill_qk4_v8_d128_k_last@110 optimize:rmsnorm_h4096@75 optimize:gdn_decode_qk4_v8_d128_k_last@75" \
  "ctest:CudaEndToEnd.PerCallAsync@30 dsa_topk_indexer_fp8_h64_d128_topk2048_ps64@150 moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048@330"
mv "$OUT/s/session.tgz" "$OUT/"
cp "$OUT/s/operators_summary.md" "$OUT/" 2>/dev/null
rm -rf "$OUT/s"
