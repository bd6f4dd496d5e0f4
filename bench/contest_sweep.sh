#!/usr/bin/env bash
# The five contest operators' CUDA baselines on all their contest workloads (324), under
# the official protocol in full (3 correctness trials; 3 timing trials of 10 warm-ups and
# 50 timed iterations; GDN prefill too, overriding its contest setting of 1 + 5), beside
# their CUDA references, in one call. The reference's latency comes from the
# reference-latency cache when an earlier sweep filled it; the first ("cold") sweep
# measures and stores it. From the repository root on the GPU machine, with the build
# (or its pack) carried:
#
#   bash bench/contest_sweep.sh OUT_DIR [CACHE_DIR]
#
# CACHE_DIR (default OUT_DIR/cache) is the build and reference-latency cache: give the
# cold sweep's folder to a second call to run it warm. Writes OUT_DIR/<definition>.jsonl
# (traces) and .log, and OUT_DIR/sweep.json and sweep.md: per operator the wall seconds,
# workloads, passed, and how many reference latencies came from the cache.
set -o pipefail
OUT=$(mkdir -p "${1:?usage: contest_sweep.sh OUT_DIR [CACHE_DIR]}" && cd "$1" && pwd)
CACHE=$(mkdir -p "${2:-$OUT/cache}" && cd "${2:-$OUT/cache}" && pwd)
cd "$(dirname "$0")/.." || exit 1
source bench/device_env.sh
export KHARNESS_CACHE_DIR="$CACHE"
{ date -u +%FT%TZ; nvidia-smi -L; git log -1 --format='commit %H'; echo "cache $CACHE"; } >"$OUT/sweep.txt" 2>&1
# Cheap first, so a sweep cut short still covers most operators.
for name in gdn_decode_qk4_v8_d128_k_last dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64 \
  dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 gdn_prefill_qk4_v8_d128_k_last \
  moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048; do
  rm -f "$OUT/$name.jsonl"
  start=$(date +%s.%N)
  timeout --kill-after=10 "${OPERATOR_LIMIT:-300}" build/kharness eval --definition "$name" --baseline --backend cuda \
    --protocol official --trials 3 --timing-trials 3 --warmup 10 --iterations 50 --timeout 300 \
    -o "$OUT/$name.jsonl" --json >"$OUT/$name.json" 2>"$OUT/$name.log"
  rc=$?
  echo "$name rc=$rc seconds=$(python3 -c "print(round($(date +%s.%N) - $start, 1))")" | tee -a "$OUT/sweep.txt"
done
python3 - "$OUT" <<'PY'
import json, os, re, sys
out = sys.argv[1]
rows = []
for line in open(os.path.join(out, "sweep.txt")):
    m = re.match(r"(\S+) rc=(\d+) seconds=([\d.]+)", line)
    if not m:
        continue
    name, rc, seconds = m.group(1), int(m.group(2)), float(m.group(3))
    path = os.path.join(out, name + ".jsonl")
    traces = [json.loads(l) for l in open(path) if l.strip()] if os.path.exists(path) else []
    ev = [t["evaluation"] for t in traces]
    rows.append({"definition": name, "rc": rc, "wall_s": seconds, "workloads": len(traces),
                 "passed": sum(e["status"] == "PASSED" for e in ev),
                 "reference_from_cache": sum((e.get("kharness", {}).get("reference_latency") or {}).get("source") == "cache"
                                             for e in ev),
                 "s_per_workload": seconds / len(traces) if traces else None})
total = {"wall_s": sum(r["wall_s"] for r in rows), "workloads": sum(r["workloads"] for r in rows),
         "passed": sum(r["passed"] for r in rows), "reference_from_cache": sum(r["reference_from_cache"] for r in rows)}
json.dump({"operators": rows, "total": total}, open(os.path.join(out, "sweep.json"), "w"), indent=2)
with open(os.path.join(out, "sweep.md"), "w") as f:
    f.write("| operator | workloads | passed | reference latencies from cache | wall (s) | s / workload |\n")
    f.write("|---|---|---|---|---|---|\n")
    for r in rows:
        per = f"{r['s_per_workload']:.2f}" if r["s_per_workload"] else "-"
        f.write(f"| {r['definition']} | {r['workloads']} | {r['passed']} | {r['reference_from_cache']} | {r['wall_s']:.1f} | {per} |\n")
    f.write(f"| total | {total['workloads']} | {total['passed']} | {total['reference_from_cache']} | {total['wall_s']:.1f} | |\n")
print(open(os.path.join(out, "sweep.md")).read())
PY
