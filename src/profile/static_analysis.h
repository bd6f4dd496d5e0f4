// Static analysis of a built CUDA solution, with no GPU: ptxas's resource report from
// the build log, a SASS scan of the library (cuobjdump), and the warnings that follow
// for the operator's kind:
//   - spills (or other local memory) in any kernel;
//   - a matmul-class operator (tensor-core compute unit) with no MMA instruction;
//   - an fp8 operator whose MMAs are all 16-bit (QGMMA would double the rate);
//   - a memory-bound operator with no 128-bit global load.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device/device_peaks.h"
#include "profile/ptxas_resources.h"
#include "profile/sass_scan.h"

namespace kh::profile {

struct StaticWarning {
  std::string kernel;  // demangled; empty when about the whole binary
  std::string kind;    // "spills", "local_memory", "no_tensor_cores", "fp8_without_qgmma", "narrow_loads"
  std::string message;
};

struct StaticContext {
  std::optional<ComputeUnit> compute;  // the operator's best unit, from its speed-of-light model
  bool memory_bound = false;           // its workloads sit below the ridge point
};

struct StaticReport {
  std::vector<KernelResources> resources;
  std::vector<SassSummary> sass;
  std::vector<StaticWarning> warnings;
  std::string note;  // why part of the analysis is missing (e.g. no cuobjdump)
};

// The warnings for already parsed evidence (pure: the rule table, testable alone).
[[nodiscard]] std::vector<StaticWarning> static_warnings(const std::vector<KernelResources>& resources,
                                                         const std::vector<SassSummary>& sass,
                                                         const StaticContext& context);

// Parses `build_log`, runs cuobjdump -sass on `library`, applies the rules. Never
// throws for missing tools: the report's note says what could not be done.
[[nodiscard]] StaticReport analyse_binary(const std::filesystem::path& library, std::string_view build_log,
                                          const StaticContext& context);

// $KHARNESS_CUOBJDUMP, PATH, beside nvcc, /usr/local/cuda/bin, then the copy that
// scripts/setup.sh fetches (~/.local/share/kharness/cuda-tools/bin).
[[nodiscard]] std::optional<std::filesystem::path> find_cuobjdump();

// "rmsnorm_kernel(float const*, ...)" from "_Z14rmsnorm_kernelPKf..."; the input when
// it is not a mangled name.
[[nodiscard]] std::string demangle(const std::string& name);

}  // namespace kh::profile
