#!/usr/bin/env bash
# Usage: fuzz/run.sh TARGET SECONDS
# Builds TARGET_fuzz with clang + libFuzzer + ASan/UBSan in build-fuzz/, seeds
# fuzz/corpus-TARGET/ (gitignored) and fuzzes for SECONDS. Crashes land in fuzz/artifacts/.
#   A seed script fuzz/seed_TARGET.py CORPUS_DIR, and a dictionary fuzz/TARGET.dict, are
#   used when present.
set -euo pipefail
target=${1:?usage: fuzz/run.sh TARGET SECONDS}
seconds=${2:?usage: fuzz/run.sh TARGET SECONDS}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
corpus=$root/fuzz/corpus-$target
artifacts=$root/fuzz/artifacts

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DKHARNESS_BUILD_FUZZERS=ON -DKHARNESS_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target "${target}_fuzz" -j "$(nproc)"

mkdir -p "$corpus" "$artifacts"
if [[ -f "$root/fuzz/seed_$target.py" ]]; then
  python3 "$root/fuzz/seed_$target.py" "$corpus"
fi
args=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/")
if [[ -f "$root/fuzz/$target.dict" ]]; then
  args+=(-dict="$root/fuzz/$target.dict")
fi
exec "$build/fuzz/${target}_fuzz" "${args[@]}" "$corpus"
