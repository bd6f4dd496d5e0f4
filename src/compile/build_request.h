// What to build and what came of it.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compile/kernel_signature.h"

namespace kh {

// One file of a solution. `path` is relative (no leading '/', no ".." component).
struct BuildSource {
  std::string path;
  std::string content;
};

// How the worker reaches the entry function: through kharness's own ABI
// (include/kharness/kernel.h) or through apache-tvm-ffi's, as flashinfer-bench calls it.
// Either way the built library exports kharness/entry.h; only the generated shim differs.
enum class EntryBinding { kharness, tvm_ffi };

[[nodiscard]] std::string_view entry_binding_name(EntryBinding b) noexcept;  // "kharness", "tvm-ffi"

struct BuildRequest {
  std::string language;  // "cuda" (nvcc) or "cpp" (g++)
  EntryBinding binding = EntryBinding::kharness;
  // tvm-ffi only: false when the entry returns its outputs instead of writing them.
  bool destination_passing = true;
  std::vector<BuildSource> sources;
  std::string entry_file;      // one of sources[].path
  std::string entry_function;  // must equal signature.function when that is set
  KernelSignature signature;
  std::string arch;                      // "sm_90a", "sm_100a", ...; "" for cpp
  std::vector<std::string> defines;      // "NAME" or "NAME=value", passed as -D
  std::vector<std::string> extra_flags;  // passed to the compiler verbatim (harness-chosen)
  std::filesystem::path include_dir;     // kharness public headers + dlpack; "" = default_include_dir()
  // A binding's own headers and libraries (tvm-ffi's): searched before include_dir, each
  // library directory also an rpath, libraries linked only where used (--as-needed).
  std::vector<std::filesystem::path> extra_include_dirs;
  std::vector<std::filesystem::path> library_dirs;
  std::vector<std::string> libraries;
  std::string dependency_fingerprint;  // identifies those headers and libraries; part of the key
  std::chrono::seconds timeout{300};   // wall clock for the whole compile
};

struct BuildResult {
  enum class Status { ok, compile_error, timeout };
  Status status = Status::compile_error;
  std::filesystem::path library;  // the cached .so; empty unless status is ok
  std::string log;                // the compiler's stdout+stderr
  std::string key;                // the cache key (hex SHA-256)
  bool cache_hit = false;
  double seconds = 0;   // this call's wall time (a cache lookup on a hit)
  std::string message;  // one line: the first error (e.g. a kharness static_assert)
};

[[nodiscard]] std::string_view build_status_name(BuildResult::Status s) noexcept;  // "ok", ...
[[nodiscard]] std::optional<BuildResult::Status> parse_build_status(std::string_view name) noexcept;

// The nvcc arch for a device's compute capability (major*10+minor), using the
// arch-specific "a" targets where they exist so that wgmma/tcgen05 code builds:
// 90 -> "sm_90a", 100 -> "sm_100a", 120 -> "sm_120a", else "sm_<cc>".
// A non-empty `override_arch` (from the user) wins.
[[nodiscard]] std::string arch_for_compute_capability(int cc, std::string_view override_arch = {});

}  // namespace kh
