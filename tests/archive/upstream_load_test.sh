#!/usr/bin/env bash
# An archive holding what upstream's loader refuses (a REWARD_HACK trace, a kharness-
# binding solution, two contents under one name, NaN errors written both ways, a var axis
# written as {}, an axis of 0) is exported by `kharness archive export`, and
# flashinfer-bench's own loader (TraceSet.from_path, from its PyPI package) must load the
# export whole; the `--native` export of the same archive must be refused by it (the test
# can fail). Skips (77) where scripts/setup_flashinfer_bench.sh has not fetched the loader.
#
# Usage: upstream_load_test.sh KHARNESS SOURCE_DIR
set -euo pipefail
kharness=$1
src=$2
site="$src/.deps/flashinfer-bench/site"
if [ ! -d "$site/flashinfer_bench" ] || [ ! -d "$site/pydantic" ]; then
  echo "SKIP: flashinfer-bench's data model is not in $site (run scripts/setup_flashinfer_bench.sh)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export KHARNESS_CACHE_DIR="$work/cache"
archive="$work/archive"
load() { python3 "$src/tests/archive/flashinfer_bench_load.py" "$site" "$1"; }
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }

# 1. An honest kharness-binding solution, evaluated twice under one name with two contents.
solution="$src/examples/solutions/rmsnorm_h128_cpu.json"
"$kharness" eval --definition rmsnorm_h128 --solution "$solution" --small --backend cpu \
  --trials 1 --iterations 2 --warmup 0 --timing-trials 1 --archive "$archive" >/dev/null
python3 - "$solution" "$work/edited.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["sources"][0]["content"] += "\n// edited\n"
json.dump(s, open(sys.argv[2], "w"))
EOF
"$kharness" eval --definition rmsnorm_h128 --solution "$work/edited.json" --small --backend cpu \
  --trials 1 --iterations 2 --warmup 0 --timing-trials 1 --archive "$archive" >/dev/null

# 2. A cheat (it writes into its input): REWARD_HACK, recorded as kharness decided it.
python3 - "$src" "$work/cheat.json" <<'EOF'
import json, sys
from pathlib import Path
d = Path(sys.argv[1]) / "tests/eval/solutions/rmsnorm_h128"
json.dump({"name": "modifies_input", "definition": "rmsnorm_h128", "author": "test",
           "spec": {"language": "cpp", "entry_point": "modifies_input.cpp::rmsnorm", "binding": "kharness"},
           "sources": [{"path": p, "content": (d / p).read_text()}
                       for p in ("modifies_input.cpp", "rmsnorm_common.h")]},
          open(sys.argv[2], "w"))
EOF
if "$kharness" eval --definition rmsnorm_h128 --solution "$work/cheat.json" --small --backend cpu \
  --trials 1 --no-timing --archive "$archive" >"$work/cheat.out" 2>&1; then
  echo "FAIL: the cheat passed"; cat "$work/cheat.out"; exit 1
fi
grep -q REWARD_HACK "$work/cheat.out" || { echo "FAIL: the cheat was not REWARD_HACK"; cat "$work/cheat.out"; exit 1; }

# 3. Upstream data kharness used to refuse, imported.
set_dir="$work/set"
mkdir -p "$set_dir/definitions/gqa" "$set_dir/workloads/gqa" "$set_dir/solutions/gqa" "$set_dir/traces/gqa"
cat >"$set_dir/definitions/gqa/tiny_paged.json" <<'EOF'
{"name": "tiny_paged", "op_type": "gqa_paged", "axes": {"num_pages": {}, "page_size": {"type": "const", "value": 1},
 "head_dim": {"type": "const", "value": 4}}, "inputs": {"k_cache": {"shape": ["num_pages", "page_size", "head_dim"],
 "dtype": "float32"}}, "outputs": {"out": {"shape": ["head_dim"], "dtype": "float32"}},
 "reference": "import torch\ndef run(k_cache):\n    return k_cache.sum(dim=(0, 1))\n"}
EOF
echo '{"definition": "tiny_paged", "solution": null, "workload": {"uuid": "w0", "axes": {"num_pages": 0}, "inputs": {"k_cache": {"type": "random"}}}, "evaluation": null}' \
  >"$set_dir/workloads/gqa/tiny_paged.jsonl"
cat >"$set_dir/solutions/gqa/s.json" <<'EOF'
{"name": "s", "definition": "tiny_paged", "author": "a", "spec": {"language": "python", "target_hardware": ["H200"],
 "entry_point": "main.py::run"}, "sources": [{"path": "main.py", "content": "def run(k_cache):\n    return k_cache.sum(dim=(0, 1))\n"}]}
EOF
ev='"environment": {"hardware": "H200"}, "timestamp": "2026-01-01T00:00:00"'
wl='"workload": {"uuid": "w0", "axes": {"num_pages": 0}, "inputs": {"k_cache": {"type": "random"}}}'
{
  echo "{\"definition\": \"tiny_paged\", \"solution\": \"s\", $wl, \"evaluation\": {\"status\": \"INCORRECT_NUMERICAL\", $ev, \"correctness\": {\"max_relative_error\": \"NaN\", \"max_absolute_error\": \"Infinity\"}}}"
  echo "{\"definition\": \"tiny_paged\", \"solution\": \"s\", $wl, \"evaluation\": {\"status\": \"INCORRECT_NUMERICAL\", $ev, \"correctness\": {\"max_relative_error\": NaN, \"max_absolute_error\": Infinity, \"extra\": {\"margin\": -Infinity}}}}"
} >"$set_dir/traces/gqa/tiny_paged.jsonl"
"$kharness" archive import "$set_dir" --archive "$archive" --quiet --json >"$work/import.out" ||
  { echo "FAIL: the import found problems"; cat "$work/import.out"; exit 1; }
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['counts']; sys.exit(0 if c['traces']['added']==2 and c['workloads']['added']==1 else 1)" \
  "$work/import.out" || { echo "FAIL: the NaN traces or the zero-axis workload were not imported"; cat "$work/import.out"; exit 1; }

# 4. The default export loads whole; the native one is refused.
"$kharness" archive export --archive "$archive" "$work/out" >"$work/export.out"
cat "$work/export.out"
result=$(load "$work/out") || { echo "FAIL: flashinfer-bench refused the export: $result"; exit 1; }
echo "default export: $result"
check() {
  python3 - "$result" <<'EOF'
import json, sys
r = json.loads(sys.argv[1])
problems = []
if "RUNTIME_ERROR" not in r["statuses"] or "REWARD_HACK" not in r["logs"]:
    problems.append("the REWARD_HACK trace is not a RUNTIME_ERROR whose log names it")
if "REWARD_HACK" in r["statuses"]:
    problems.append("a REWARD_HACK status reached the export")
if r["bindings"] != ["None", "tvm-ffi"]:
    problems.append(f"bindings {r['bindings']}: the kharness solutions should be tvm-ffi")
if len(r["solutions"]) != 4 or len(set(r["solutions"])) != 4:
    problems.append(f"solutions {r['solutions']}: expected four distinct names")
if r["nan_errors"] != 2:
    problems.append(f"{r['nan_errors']} NaN errors, expected 2")
if "tiny_paged" not in r["definitions"]:
    problems.append("the typeless-axis definition is missing")
print("\n".join(problems))
sys.exit(1 if problems else 0)
EOF
}
check || { echo "FAIL: the export is not what upstream should see"; exit 1; }
# The NaN traces go back byte for byte.
cmp "$set_dir/traces/gqa/tiny_paged.jsonl" "$work/out/traces/gqa/tiny_paged.jsonl" ||
  { echo "FAIL: the imported NaN traces did not export byte for byte"; exit 1; }

# ... and round-trip: the export imported into a fresh archive exports the same lines.
"$kharness" archive import "$work/out" --archive "$work/again" --quiet >/dev/null
"$kharness" archive export --archive "$work/again" "$work/out2" >/dev/null
cmp "$work/out/traces/gqa/tiny_paged.jsonl" "$work/out2/traces/gqa/tiny_paged.jsonl" ||
  { echo "FAIL: the NaN traces did not round-trip"; exit 1; }

"$kharness" archive export --native --archive "$archive" "$work/native" >/dev/null
if native=$(load "$work/native"); then
  echo "FAIL: flashinfer-bench loaded the native export, which has REWARD_HACK: $native"; exit 1
fi
echo "native export refused as expected: $native"
echo "1 passed, 0 failed"
