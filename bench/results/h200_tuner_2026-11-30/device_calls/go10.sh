#!/usr/bin/env bash
# Device call 10 (session 2026-11-30c, one H200), at 9b2cf90 (the review commit):
# `ctest -L gpu`, and `kharness profile --archive` with ncu once more.
OUT=$1
mkdir -p "$OUT/s"
source bench/device_env.sh
timeout --kill-after=5 260 ctest --test-dir build -L gpu --output-on-failure >"$OUT/s/ctest_gpu.log" 2>&1
echo "ctest -L gpu rc=$?" | tee "$OUT/s/calls.txt"
def=gdn_decode_qk4_v8_d128_k_last
timeout --kill-after=10 120 build/kharness profile --definition $def --baseline --out "$OUT/p" \
  --archive "$OUT/a" --json >"$OUT/s/p_$def.json" 2>"$OUT/s/p_$def.log"
echo "profile --archive $def rc=$?" | tee -a "$OUT/s/calls.txt"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' archived:', d['archived'], 'seconds', round(d['seconds'],1), [r['status'] for r in d['regimes']], [len(r['kernels']) for r in d['regimes']])" \
  "$OUT/s/p_$def.json" | tee -a "$OUT/s/calls.txt"
build/kharness archive verify --archive "$OUT/a" --deep 2>&1 | tail -1 | tee -a "$OUT/s/calls.txt"
rm -rf "$OUT/p" "$OUT/a"
tail -6 "$OUT/s/ctest_gpu.log"
