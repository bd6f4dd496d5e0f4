#!/usr/bin/env bash
# Device call 7 (session 2026-11-30c, one H200), on the final code: the whole GPU test
# suite; every contest baseline's profile; the dsa sparse profile twice more (call 5's
# stall did not recur in call 6); and a profile stopped by SIGTERM in its ncu session,
# to see that nothing it started outlives it.
OUT=$1
mkdir -p "$OUT/s"
source bench/device_env.sh
timeout --kill-after=5 260 ctest --test-dir build -L gpu --output-on-failure >"$OUT/s/ctest_gpu.log" 2>&1
echo "ctest -L gpu rc=$?" | tee "$OUT/s/calls.txt"
DSA=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
PROFILE_LIMIT=120 bash bench/device_lanes.sh "$OUT/s/p" \
  "profile:$DSA profile:moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048 profile:gdn_decode_qk4_v8_d128_k_last profile:dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 profile:gdn_prefill_qk4_v8_d128_k_last"
rm -f "$OUT/s/p/session.tgz"
for i in 2 3; do
  s=$SECONDS
  timeout --kill-after=10 120 build/kharness profile --definition $DSA --baseline --out "$OUT/s/dsa_again_$i" --json \
    >/dev/null 2>"$OUT/s/dsa_again_$i.log"
  echo "dsa sparse profile again ($i) rc=$? seconds=$((SECONDS - s))" | tee -a "$OUT/s/calls.txt"
done
# SIGTERM while ncu runs: then no ncu and no kharness may be left.
build/kharness profile --definition gdn_prefill_qk4_v8_d128_k_last --baseline --out "$OUT/s/sig" --json \
  >/dev/null 2>"$OUT/s/sig.log" &
pid=$!
for _ in $(seq 1 600); do grep -q "Connected" "$OUT/s/sig/ncu/ncu.log" 2>/dev/null && break; sleep 0.1; done
sleep 1
{ echo "before SIGTERM:"; ps -eo pid,pgid,ppid,args | grep -E "[n]cu|[k]harness"; } >"$OUT/s/sig_ps.txt"
kill -TERM $pid
wait $pid
echo "profile stopped by SIGTERM: exit $?" >>"$OUT/s/sig_ps.txt"
sleep 3
{ echo "3 s after:"; ps -eo pid,pgid,ppid,args | grep -E "[n]cu|[k]harness"; echo "(end)"; } >>"$OUT/s/sig_ps.txt"
cat "$OUT/s/sig_ps.txt" | tee -a "$OUT/s/calls.txt"
tar -czf "$OUT/session.tgz" -C "$OUT/s" .
tail -8 "$OUT/s/ctest_gpu.log"
cat "$OUT/s/p/lane0/lane.txt"
