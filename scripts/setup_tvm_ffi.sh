#!/usr/bin/env bash
# Fetches apache-tvm-ffi's C++ headers and libtvm_ffi.so from its PyPI wheel (the package
# flashinfer-bench builds tvm-ffi solutions with) into .deps/tvm-ffi/{include,lib}, where
# the build finds them (CMake copies them beside kharness). The wheel is kept in
# .deps/tvm-ffi/wheels for hosts without PyPI (`pip install --no-index --find-links`).
# Only the headers and the library are used, so any Python's wheel serves.
# Safe to run again: nothing is fetched when the pinned version is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${KHARNESS_TVM_FFI_VERSION:-0.1.15.post2}
dest=.deps/tvm-ffi
if [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$version" ] &&
  [ -f "$dest/include/tvm/ffi/c_api.h" ] && [ -f "$dest/lib/libtvm_ffi.so" ]; then
  echo "setup: apache-tvm-ffi $version already in $dest"
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "setup: note: no pip to fetch apache-tvm-ffi; tvm-ffi solutions need it (pip install apache-tvm-ffi)" >&2
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" "apache-tvm-ffi==$version"
wheel=$(ls "$tmp"/apache_tvm_ffi-*.whl)
python3 -m zipfile -e "$wheel" "$tmp/x"
rm -rf "$dest.new"
mkdir -p "$dest.new/lib" "$dest.new/wheels"
cp -r "$tmp/x/tvm_ffi/include" "$dest.new/include"
cp "$tmp/x/tvm_ffi/lib/libtvm_ffi.so" "$dest.new/lib/"
cp "$wheel" "$dest.new/wheels/"
echo "$version" >"$dest.new/VERSION"
rm -rf "$dest"
mv "$dest.new" "$dest"
echo "setup: apache-tvm-ffi $version headers and library in $dest"
