// Where apache-tvm-ffi's C++ headers and libtvm_ffi.so are, for building and running
// solutions with `"binding": "tvm-ffi"`.
//
// kharness takes them from apache-tvm-ffi's PyPI wheel, the package flashinfer-bench
// builds with, found in this order:
//   1. $KHARNESS_TVM_FFI_ROOT: a folder with include/tvm/ffi/c_api.h and lib/libtvm_ffi.so;
//   2. `tvm-ffi/` beside the kharness executable (or one level up): CMake copies it there
//      at configure time from .deps/tvm-ffi, which scripts/setup.sh fills from the wheel;
//   3. the Python package: `python3 -c 'import tvm_ffi.libinfo ...'`, for a host where
//      `pip install apache-tvm-ffi` (or flashinfer-bench) put it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kh {

struct TvmFfiRuntime {
  std::vector<std::filesystem::path> include_dirs;  // tvm/ffi/*.h and dlpack/dlpack.h
  std::filesystem::path library_dir;                // libtvm_ffi.so
  std::string version;                              // "0.1.16", from c_api.h
  std::string found_by;                             // which of the three places
  std::string fingerprint;                          // SHA-256 of the version and every header
};

// Whether `root` holds include/tvm/ffi/c_api.h and lib/libtvm_ffi.so.
[[nodiscard]] bool is_tvm_ffi_root(const std::filesystem::path& root);

// The runtime, looked up once per process and per `beside` (the folder of the kharness
// executable that will run the solutions; empty: this process's). Throws kh::Error
// saying how to install it when none of the three places has it.
[[nodiscard]] const TvmFfiRuntime& find_tvm_ffi(const std::filesystem::path& beside = {});

}  // namespace kh
