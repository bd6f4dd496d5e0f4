#!/usr/bin/env bash
# Device call 2 of session 2026-11-30b (one H200): the tuner on gemm, gdn decode and dsa
# sparse attention; profiles of the dsa sparse attention and MoE baselines.
OUT=$1
export TUNER_SETS=$PWD/device-inputs/tuner_sets
export OPTIMIZE_ARGS="--rounds 1 --max-candidates 6 --seed 7 --trials 2 --warmup 5 --iterations 30 --timing-trials 2 --no-reference-timing"
bash bench/device_lanes.sh "$OUT/s" \
  "optimize:gemm_n4096_k4096@140 optimize:gdn_decode_qk4_v8_d128_k_last@140 optimize:dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64@140 profile:dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64@60 profile:moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048@90"
mv "$OUT/s/session.tgz" "$OUT/"
rm -rf "$OUT/s"
