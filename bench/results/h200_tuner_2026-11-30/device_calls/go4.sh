#!/usr/bin/env bash
# Device call 4 of session 2026-11-30b (one H200): round 2 (exploit) of the gdn decode and
# dsa sparse attention tuner loops of call 2, resumed from their archives.
OUT=$1
mkdir -p "$OUT/s"
source bench/device_env.sh
for d in gdn_decode_qk4_v8_d128_k_last dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64; do
  A=device-inputs/archives/optimize_$d
  start=$SECONDS
  timeout --kill-after=10 140 build/kharness optimize --definition $d --backend cuda --archive "$A" \
    --trace-set device-inputs/tuner_sets/$d --rounds 2 --max-candidates 10 --seed 7 --trials 2 --warmup 5 \
    --iterations 30 --timing-trials 2 --no-reference-timing --json >"$OUT/s/optimize_$d.json" 2>"$OUT/s/optimize_$d.log"
  echo "optimize $d (resumed, round 2) rc=$? seconds=$((SECONDS - start))" | tee -a "$OUT/s/calls.txt"
  cp -r "$A" "$OUT/s/optimize_${d}_archive"
done
tar -czf "$OUT/session.tgz" -C "$OUT/s" .
rm -rf "$OUT/s"
