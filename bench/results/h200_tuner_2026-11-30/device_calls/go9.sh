#!/usr/bin/env bash
# Device call 9 (session 2026-11-30c, one H200), at e98c8c4: `ctest -L gpu`, then
# `kharness profile --archive` with ncu (the evidence kept with the candidate), the
# archive verified, and the archived profile run repeated by `kharness rerun`.
OUT=$1
mkdir -p "$OUT/s"
source bench/device_env.sh
timeout --kill-after=5 260 ctest --test-dir build -L gpu --output-on-failure >"$OUT/s/ctest_gpu.log" 2>&1
echo "ctest -L gpu rc=$?" | tee "$OUT/s/calls.txt"
A=$OUT/s/archive
for def in gdn_decode_qk4_v8_d128_k_last dsa_topk_indexer_fp8_h64_d128_topk2048_ps64; do
  s=$SECONDS
  timeout --kill-after=10 120 build/kharness profile --definition $def --baseline --out "$OUT/s/p_$def" \
    --archive "$A" --json >"$OUT/s/p_$def.json" 2>"$OUT/s/p_$def.log"
  echo "profile --archive $def rc=$? seconds=$((SECONDS - s))" | tee -a "$OUT/s/calls.txt"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' archived:', d['archived'], 'seconds', round(d['seconds'],1), [r['status'] for r in d['regimes']], [len(r['kernels']) for r in d['regimes']])" \
    "$OUT/s/p_$def.json" | tee -a "$OUT/s/calls.txt"
done
build/kharness archive verify --archive "$A" --deep 2>&1 | tail -3 | tee -a "$OUT/s/calls.txt"
build/kharness archive ls --archive "$A" 2>&1 | tee -a "$OUT/s/calls.txt"
timeout 120 build/kharness rerun --archive "$A" 1 2>&1 | tail -6 | tee -a "$OUT/s/calls.txt"
rm -rf "$A/blobs"
tar -czf "$OUT/session.tgz" -C "$OUT/s" .
rm -rf "$OUT/s/p_"*/ "$OUT/s/archive"
tail -6 "$OUT/s/ctest_gpu.log"
