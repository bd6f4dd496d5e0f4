#!/usr/bin/env bash
# An ablation on the GPU (docs/ablation.md): the tuner against replay of the shipped CUDA
# baseline, on one contest operator's small workloads, from that baseline, at equal
# budgets; then the comparison report. The replay arm re-proposes the baseline's own code
# under another name (a different content id, the same kernel): a null arm, which must
# never be promoted, whatever the noise. From the repository root, with build/ (or the
# carried device-build pack) present:
#
#   bash bench/ablate_tuner_replay.sh OUT_DIR [DEFINITION]     # default gdn_decode_qk4_v8_d128_k_last
#
# Writes into OUT_DIR: ablate.log (progress), summary.json (the ablation's --json),
# report/ (report.md, report.json, budget.svg, fast_p.svg, statuses.svg), replayed.json
# (the null arm's solution) and archive.tgz (the archive, for kharness report/serve).
# Budget: about 4 minutes on one H200: the ablation is cut at 170 s and, if it was, the
# same command resumes it for 60 s more (nothing measured is lost or repeated).
set -o pipefail
OUT=$(mkdir -p "${1:?usage: ablate_tuner_replay.sh OUT_DIR [DEFINITION]}" && cd "$1" && pwd)
DEF=${2:-gdn_decode_qk4_v8_d128_k_last}
cd "$(dirname "$0")/.." || exit 1
source bench/device_env.sh
ARCHIVE="$OUT/archive"
ID="$DEF-tuner-vs-replay"
BACKEND=${BACKEND:-cuda}  # cpu: the same on the CPU backend, to try the script without a GPU
language=$([ "$BACKEND" = cuda ] && echo cuda || echo cpp)
entry=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['baselines'][sys.argv[2]])" \
  "operators/$DEF/operator.json" "$language")
headers=(operators/"$DEF"/*.h)
[ -e "${headers[0]}" ] || headers=()
python3 bench/solution_json.py "$DEF" "$language" "operators/$DEF/$entry" "${headers[@]}" >"$OUT/replayed.json"
ablate() {  # ablate SECONDS: the same command each time, so a second run resumes the first
  timeout --kill-after=10 "$1" build/kharness ablate --definition "$DEF" --small --backend "$BACKEND" --seed 7 \
    --rounds 2 --max-candidates 6 --archive "$ARCHIVE" --ablation "$ID" \
    --arm tuner:agent=tuner --arm replay:agent=replay --replay "$OUT/replayed.json" \
    --json >"$OUT/summary.json" 2>>"$OUT/ablate.log"
  local rc=$?
  echo "ablate exit $rc after $SECONDS s" >>"$OUT/ablate.log"
  return $rc
}
: >"$OUT/ablate.log"
ablate 170 || ablate 60
# The report reads whatever the archive holds, a cut ablation included (its arms so far).
build/kharness report --archive "$ARCHIVE" --ablation "$ID" --out "$OUT/report" >>"$OUT/ablate.log" 2>&1
build/kharness report --archive "$ARCHIVE" --definition "$DEF" >"$OUT/report/definition.md" 2>>"$OUT/ablate.log"
tar -czf "$OUT/archive.tgz" -C "$OUT" archive && rm -rf "$ARCHIVE"
