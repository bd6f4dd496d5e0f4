#!/usr/bin/env bash
# Fetches flashinfer-bench's data model (its pydantic classes and TraceSet loader) and
# pydantic into .deps/flashinfer-bench, for the test that loads kharness's exports with
# flashinfer-bench's own loader (tests/archive/upstream_load_test.sh). Only the package's
# files are unpacked, not installed: its other modules need torch and flashinfer, which
# the loader does not. Safe to run again: nothing is fetched when the pinned version is
# already there.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${KHARNESS_FLASHINFER_BENCH_VERSION:-0.1.2}
dest=.deps/flashinfer-bench
if [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$version" ] && [ -d "$dest/site/pydantic" ]; then
  echo "setup: flashinfer-bench $version data model already in $dest"
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "setup: note: no pip to fetch flashinfer-bench's data model; its loader test will skip" >&2
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$dest.new"
# --target installs into a folder of its own (no system packages touched, PEP 668 allows it).
python3 -m pip install -q --target "$dest.new/site" "pydantic>=2,<3"
python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" "flashinfer-bench==$version"
python3 -m zipfile -e "$tmp"/flashinfer_bench-*.whl "$tmp/x"
cp -r "$tmp/x/flashinfer_bench" "$dest.new/site/"
echo "$version" >"$dest.new/VERSION"
rm -rf "$dest"
mv "$dest.new" "$dest"
echo "setup: flashinfer-bench $version data model and pydantic in $dest"
