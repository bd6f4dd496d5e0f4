#!/usr/bin/env bash
# `--gpus all` against the default path, on this host's GPUs: for each definition, the
# baseline on every workload twice with one base seed, once as today (no --gpus) and
# once dealt over every GPU. The verdicts and every seed must be equal; each --gpus
# trace must name a GPU (index, UUID, PCI id) that nvidia-smi lists. On one GPU the
# two runs use the same device, so only the device fields and the timings may differ.
# Run on the GPU machine, from the repository root (bench/device_env.sh sets the paths):
#
#   bash bench/gpus_parity.sh OUT_DIR [DEFINITION...]   # default: rmsnorm, gemm, softmax, gdn decode
#
# Exit 0 when every definition matches, 1 otherwise; OUT_DIR/parity.txt says why.
set -o pipefail
OUT=$(mkdir -p "${1:?usage: gpus_parity.sh OUT_DIR [DEFINITION...]}" && cd "$1" && pwd)
shift
cd "$(dirname "$0")/.." || exit 1
source bench/device_env.sh
backend=${BACKEND:-cuda}  # BACKEND=cpu tries the script itself on a host without a GPU
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(rmsnorm_h4096 gemm_n4096_k4096 softmax_h4096 gdn_decode_qk4_v8_d128_k_last)
nvidia-smi -L >"$OUT/nvidia-smi.txt" 2>&1 || [ "$backend" = cpu ]
status=0
for name in "${names[@]}"; do
  for mode in default gpus; do
    flags=()
    [ "$mode" = gpus ] && flags=(--gpus all)
    build/kharness eval --definition "$name" --baseline --backend "$backend" --small --seed 2121 --json "${flags[@]}" \
      >"$OUT/$name.$mode.json" 2>"$OUT/$name.$mode.log"
  done
  python3 - "$OUT/$name.default.json" "$OUT/$name.gpus.json" "$OUT/nvidia-smi.txt" "$name" "$backend" >>"$OUT/parity.txt" <<'PY' || status=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
smi, name, backend = open(sys.argv[3]).read(), sys.argv[4], sys.argv[5]
problems = []
if len(a["traces"]) != len(b["traces"]):
    problems.append(f"{len(a['traces'])} traces against {len(b['traces'])}")
for x, y in zip(a["traces"], b["traces"]):
    ex, ey = x["evaluation"], y["evaluation"]
    uuid = x["workload"]["uuid"][:8]
    if ex["status"] != ey["status"]:
        problems.append(f"{uuid}: status {ex['status']} against {ey['status']}")
    for key in ("correctness_seeds",):
        if ex["kharness"][key] != ey["kharness"][key]:
            problems.append(f"{uuid}: {key} differ")
    if ex["kharness"].get("latency", {}).get("input_set_seeds") != ey["kharness"].get("latency", {}).get("input_set_seeds"):
        problems.append(f"{uuid}: input_set_seeds differ")
    d = ey["kharness"]["device"]
    if backend == "cuda" and (not d.get("uuid", "").startswith("GPU-") or d["uuid"] not in smi or not d.get("pci_bus_id")):
        problems.append(f"{uuid}: --gpus trace names no listed GPU: {d.get('index')} {d.get('uuid')} {d.get('pci_bus_id')}")
statuses = sorted({t["evaluation"]["status"] for t in b["traces"]})
print(f"{name}: {len(b['traces'])} workloads, statuses {statuses}, lanes {len(b.get('lanes', [])) or 1}: "
      + ("MATCH" if not problems else "MISMATCH\n  " + "\n  ".join(problems)))
sys.exit(1 if problems else 0)
PY
done
cat "$OUT/parity.txt"
exit $status
