#!/usr/bin/env bash
# The FlashInfer 0.6.4 baselines of this folder, evaluated by kharness on an H200, in one
# device call. From the repository root, with the build pack and the wheels of prepare.sh
# carried:
#
#   bash bench/loop/flashinfer/run.sh WHEELS_DIR OUT_DIR
#
# Installs the wheels into a temporary target (beside the device's torch and triton), then
# per operator, cheapest first: a JIT warm-up (warm.py: one call of the solution on small
# inputs, which makes FlashInfer compile its module into the shared cache FI_CACHE, then a
# comparison with the definition's PyTorch reference on those inputs), then
#   build/kharness eval --definition D --solution bench/loop/flashinfer/D.json --backend cuda
#     --protocol official --sandbox off --no-reference-timing [--workload UUID]...
# (sandbox off: the jail would keep the worker from the JIT cache, nvcc and ninja; with it
# off the worker inherits this environment: PYTHONPATH, PATH, FLASHINFER_*).
#
# Environment:
#   FI_OPS        operators to run, a space-separated list of name prefixes
#                 (default: "dsa_topk dsa_sparse gdn_prefill moe", this order)
#   FI_WORKLOADS  how many of each operator's workloads (the first N of
#                 operators/D/workloads.jsonl) kharness evaluates; "all" for all (default 8)
#   FI_BUDGET_S   wall-clock budget of the whole script in seconds (default 340); every step's
#                 limit is cut to what is left, and a step with under 20 s left is skipped
#   FI_WARM_PARALLEL  1: all the operators' JIT builds at once, before the first eval
#   FI_EVAL_LIMIT seconds each eval may take (default: per operator, 90-180)
#   FI_EVAL_ARGS  more flags for every eval, e.g. "--atol 0.01" to judge FlashInfer at the
#                 contest's default tolerance where an operator's own is tighter
#   FI_AOT_DIR    modules built ahead of time by build_aot.py (DIR/<module>/<module>.so): copied
#                 into FlashInfer's AOT folder, where FlashInfer loads them instead of building
#   FI_CACHE      FlashInfer's JIT cache (FLASHINFER_WORKSPACE_BASE; default
#                 /tmp/kh_flashinfer_cache: kept across calls on a machine that stays warm)
#
# Writes into OUT_DIR: steps.txt (rc and seconds per step), D.warm.log, D.json (eval
# --json), D.jsonl (traces), D.log (eval's stderr), summary.md.
set -o pipefail
START=$(date +%s)
WHEELS=$(cd "${1:?usage: run.sh WHEELS_DIR OUT_DIR}" && pwd)
OUT=$(mkdir -p "${2:?usage: run.sh WHEELS_DIR OUT_DIR}" && cd "$2" && pwd)
cd "$(dirname "$0")/../../.." || exit 1
source bench/device_env.sh
BUDGET=${FI_BUDGET_S:-340}
DEADLINE=$((START + BUDGET))
WORKLOADS=${FI_WORKLOADS:-8}
OPS=${FI_OPS:-"dsa_topk dsa_sparse gdn_prefill moe"}
STEPS="$OUT/steps.txt"
: >"$STEPS"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# FlashInfer and its wheels, beside the device's torch and triton.
python3 -m pip install -q --no-index --no-deps --no-compile --target "$WORK/site" "$WHEELS"/*.whl ||
  echo "pip install of $WHEELS/*.whl failed" | tee -a "$STEPS"
if [ -n "${FI_AOT_DIR:-}" ]; then
  mkdir -p "$WORK/site/flashinfer/data/aot"
  cp -r "$FI_AOT_DIR"/. "$WORK/site/flashinfer/data/aot/" || echo "copy of FI_AOT_DIR $FI_AOT_DIR failed" | tee -a "$STEPS"
  echo "AOT modules: $(cd "$WORK/site/flashinfer/data/aot" && ls -d -- */ 2>/dev/null | tr -d / | tr '\n' ' ')" >>"$STEPS"
fi
export PYTHONPATH="$WORK/site${PYTHONPATH:+:$PYTHONPATH}"
export PATH="$WORK/site/bin:$PATH"                      # ninja, which FlashInfer's JIT runs
export KHARNESS_PYTHON=${KHARNESS_PYTHON:-python3}
export FI_CACHE=${FI_CACHE:-/tmp/kh_flashinfer_cache}
mkdir -p "$FI_CACHE"
export FLASHINFER_WORKSPACE_BASE="$FI_CACHE"            # cache: $FI_CACHE/.cache/flashinfer/0.6.4/90a/
export FLASHINFER_CUDA_ARCH_LIST="9.0a"                 # compilation_context.py: only sm_90a
export TORCH_CUDA_ARCH_LIST="9.0a"
export TRTLLM_DG_CACHE_DIR="$FI_CACHE/deepgemm"         # the fused MoE's DeepGEMM kernels (nvcc at run time)
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export MAX_JOBS=${MAX_JOBS:-$(nproc)}                   # ninja -j
{ date -u +%FT%TZ; nvidia-smi -L; nvcc --version | tail -1; git log -1 --format='kharness %H';
  echo "ninja $(command -v ninja) $(ninja --version)"; echo "FI_CACHE $FI_CACHE ($(du -sh "$FI_CACHE" | cut -f1) at start)";
  echo "budget ${BUDGET} s, workloads per operator: $WORKLOADS, operators: $OPS";
  python3 -c 'import torch, flashinfer, tvm_ffi; print("torch", torch.__version__, "flashinfer", flashinfer.__version__, "tvm_ffi", tvm_ffi.__version__)'; } >>"$STEPS" 2>&1

# timed NAME LIMIT COMMAND...: runs COMMAND under min(LIMIT, what is left of the budget);
# appends "NAME rc=.. seconds=.. limit=.." to steps.txt; returns the command's rc (124/137:
# cut by the limit; 200: skipped, under 20 s left).
timed() {
  local name=$1 limit=$2
  shift 2
  local left=$((DEADLINE - $(date +%s)))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -lt 20 ]; then
    echo "$name skipped (budget: ${left} s left)" | tee -a "$STEPS"
    return 200
  fi
  local start end rc
  start=$(date +%s.%N)
  timeout --kill-after=10 "$limit" "$@"
  rc=$?
  end=$(date +%s.%N)
  echo "$name rc=$rc seconds=$(python3 -c "print(round($end - $start, 1))") limit=$limit" | tee -a "$STEPS"
  return $rc
}

# Per operator: warm-up limit, eval limit (seconds), cheapest first.
declare -A WARM_LIMIT=(
  [dsa_topk_indexer_fp8_h64_d128_topk2048_ps64]=150
  [dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64]=180
  [gdn_prefill_qk4_v8_d128_k_last]=240
  [moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048]=600
)
declare -A EVAL_LIMIT=(
  [dsa_topk_indexer_fp8_h64_d128_topk2048_ps64]=90
  [dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64]=90
  [gdn_prefill_qk4_v8_d128_k_last]=120
  [moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048]=180
)
ORDER=(dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
  gdn_prefill_qk4_v8_d128_k_last moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048)

selected() {
  local d=$1 p
  for p in $OPS; do [[ $d == "$p"* ]] && return 0; done
  return 1
}

warm() {  # warm D: the JIT build and first call; its rc also into $WORK/D.warm.rc
  timed "$1.warm" "${WARM_LIMIT[$1]}" python3 bench/loop/flashinfer/warm.py "$1" >"$OUT/$1.warm.log" 2>&1
  local rc=$?
  echo "$rc" >"$WORK/$1.warm.rc"
  return $rc
}

# With FI_WARM_PARALLEL=1 every operator's JIT build runs at once, before any timing: one
# module's build leaves cores idle while its last, longest files compile.
if [ "${FI_WARM_PARALLEL:-0}" = 1 ]; then
  for D in "${ORDER[@]}"; do selected "$D" && warm "$D" & done
  wait
fi

for D in "${ORDER[@]}"; do
  selected "$D" || continue
  if [ -s "$WORK/$D.warm.rc" ]; then rc=$(<"$WORK/$D.warm.rc"); else warm "$D"; rc=$?; fi
  if [ "$rc" != 0 ]; then
    echo "$D.eval skipped (warm-up rc=$rc: the JIT module is not built)" | tee -a "$STEPS"
    continue
  fi
  selection=()
  if [ "$WORKLOADS" != all ]; then
    while read -r uuid; do selection+=(--workload "$uuid"); done < <(python3 -c '
import json, sys
for line in list(open(sys.argv[1]))[: int(sys.argv[2])]:
    print(json.loads(line)["workload"]["uuid"])' "operators/$D/workloads.jsonl" "$WORKLOADS")
  fi
  rm -f "$OUT/$D.jsonl"
  # shellcheck disable=SC2086  # FI_EVAL_ARGS holds several flags
  timed "$D.eval" "${FI_EVAL_LIMIT:-${EVAL_LIMIT[$D]}}" build/kharness eval --definition "$D" --solution "bench/loop/flashinfer/$D.json" \
    --backend cuda --protocol official --sandbox off --no-reference-timing --timeout 120 "${selection[@]}" \
    ${FI_EVAL_ARGS:-} \
    -o "$OUT/$D.jsonl" --json >"$OUT/$D.json" 2>"$OUT/$D.log"
done

# summary.md: per operator, passed/total and the mean latency of the passed workloads, from
# the traces (D.jsonl).
python3 - "$OUT" "${ORDER[@]}" >"$OUT/summary.md" <<'PY'
import json, os, sys
out = sys.argv[1]
print("| definition | passed | mean latency ms | statuses | first failure |")
print("|---|---|---|---|---|")
for d in sys.argv[2:]:
    path = os.path.join(out, d + ".jsonl")
    if not os.path.exists(path):
        continue
    with open(path) as f:
        ev = [json.loads(line)["evaluation"] for line in f if line.strip()]
    lat = [e["performance"]["latency_ms"] for e in ev if e.get("status") == "PASSED" and e.get("performance")]
    statuses = {}
    for e in ev:
        statuses[e.get("status")] = statuses.get(e.get("status"), 0) + 1
    first = next(((e.get("log") or "").strip().splitlines()[:1] for e in ev if e.get("status") != "PASSED"), [])
    mean = sum(lat) / len(lat) if lat else float("nan")
    print(f"| {d} | {len(lat)}/{len(ev)} | {mean:.4f} | {statuses} | {(first[0][:120] if first else '')} |")
PY
echo "total seconds=$(( $(date +%s) - START ))" >>"$STEPS"
cat "$STEPS" "$OUT/summary.md"
