#!/usr/bin/env bash
# Makes a small copy of a build folder that can travel to a GPU machine: the
# kharness binary and the headers beside it (kharness's and tvm-ffi's), the benchmarks, the test executables
# labelled `gpu`, and CTest's files, with debug info stripped. A full build folder
# (objects, static libraries, debug info) is about a gigabyte; the pack is a few tens
# of megabytes.
#
#   bash bench/pack_build.sh [BUILD [PACK]]     # defaults: build device-build
#
# On the GPU machine bench/run_device.sh uses PACK in place of BUILD (it links BUILD
# to it), so the absolute paths that CTest and the tests hold still resolve.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PACK=${2:-device-build}
[ -f "$BUILD/CMakeCache.txt" ] || { echo "no build at $BUILD" >&2; exit 1; }
rm -rf "$PACK"
mkdir -p "$PACK"

copy_stripped() {  # copy_stripped FILE: FILE under BUILD to the same place under PACK
  mkdir -p "$PACK/$(dirname "$1")"
  strip --strip-debug -o "$PACK/$1" "$BUILD/$1"
}

cp "$BUILD/CMakeCache.txt" "$PACK/"
cp -r "$BUILD/include" "$PACK/include"
# apache-tvm-ffi's headers and library, for tvm-ffi solutions (docs/kernel-abi.md, section 8).
if [ -d "$BUILD/tvm-ffi" ]; then cp -r "$BUILD/tvm-ffi" "$PACK/tvm-ffi"; fi
copy_stripped kharness
for b in "$BUILD"/bench/bench_*; do [ -x "$b" ] && copy_stripped "bench/$(basename "$b")"; done
# CTest's own files, for every test: ctest reads them all, then filters by label.
(cd "$BUILD" && find . -name CTestTestfile.cmake -o -name '*_include.cmake' -o -name '*_tests.cmake') |
  while read -r f; do mkdir -p "$PACK/$(dirname "$f")" && cp "$BUILD/$f" "$PACK/$f"; done
# The executables of gtest suites with a test labelled gpu (none in a CPU-only build:
# grep's "no match" is not a failure here).
(cd "$BUILD" && grep -l 'LABELS gpu' $(find . -name '*_tests.cmake') || true) |
  while read -r f; do copy_stripped "${f%\[1\]_tests.cmake}"; done
# Shared libraries the GPU host may lack: cpp-httplib (Debian ships it only as a
# shared library; `kharness serve` uses it) and what it pulls in beyond glibc, zlib and
# the CUDA toolkit. run_device.sh puts PACK/lib on LD_LIBRARY_PATH.
ldd "$BUILD/kharness" | awk '/libcpp-httplib|libbrotli|libssl|libcrypto/ {print $3}' |
  while read -r lib; do
    if [ -f "$lib" ]; then mkdir -p "$PACK/lib" && cp -L "$lib" "$PACK/lib/"; fi
  done
du -sh "$PACK"
