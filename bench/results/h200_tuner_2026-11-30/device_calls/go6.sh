#!/usr/bin/env bash
# Device call 6 (session 2026-11-30c, one H200): the whole GPU test suite on the final
# code, then every contest baseline's profile with room to finish, dsa sparse first
# (its build cache cold, as a user's first profile would be).
OUT=$1
mkdir -p "$OUT/s"
source bench/device_env.sh
git rev-parse HEAD >"$OUT/s/commit.txt" 2>/dev/null || true
timeout --kill-after=5 260 ctest --test-dir build -L gpu --output-on-failure >"$OUT/s/ctest_gpu.log" 2>&1
echo "ctest -L gpu rc=$?" | tee "$OUT/s/calls.txt"
PROFILE_LIMIT=120 bash bench/device_lanes.sh "$OUT/s/p" \
  "profile:dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64 profile:moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048 profile:gdn_decode_qk4_v8_d128_k_last profile:dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 profile:gdn_prefill_qk4_v8_d128_k_last"
rm -f "$OUT/s/p/session.tgz"
tar -czf "$OUT/session.tgz" -C "$OUT/s" .
tail -8 "$OUT/s/ctest_gpu.log"
rm -rf "$OUT/s"
