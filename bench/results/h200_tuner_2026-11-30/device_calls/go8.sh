#!/usr/bin/env bash
# Device call 8 (session 2026-11-30c, one H200): a profile stopped by SIGTERM while its
# ncu session runs (call 7 sent it too late): nothing it started may outlive it.
OUT=$1
mkdir -p "$OUT/s"
source bench/device_env.sh
build/kharness profile --definition moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048 --baseline \
  --out "$OUT/s/sig" --json >/dev/null 2>"$OUT/s/sig.log" &
pid=$!
for _ in $(seq 1 900); do grep -q "ncu: one session" "$OUT/s/sig.log" 2>/dev/null && break; sleep 0.1; done
sleep 8
{ echo "before SIGTERM ($(date -u +%T)):"; ps -eo pid,pgid,ppid,etimes,args | grep -E "[n]cu|[k]harness"; } >"$OUT/s/sig_ps.txt"
kill -TERM $pid
wait $pid
echo "profile stopped by SIGTERM: exit $?" >>"$OUT/s/sig_ps.txt"
sleep 3
{ echo "3 s after:"; ps -eo pid,pgid,ppid,etimes,args | grep -E "[n]cu|[k]harness"; echo "(end)"; } >>"$OUT/s/sig_ps.txt"
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv >>"$OUT/s/sig_ps.txt" 2>&1
cp "$OUT/s/sig/ncu/ncu.log" "$OUT/s/sig_ncu.log" 2>/dev/null
cp "$OUT/s/sig/ncu/ncu.csv" "$OUT/s/sig_ncu.csv" 2>/dev/null
rm -rf "$OUT/s/sig"
cat "$OUT/s/sig_ps.txt"
