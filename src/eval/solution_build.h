// Turns a FlashInfer-Trace Solution into a build request for its definition's kernel
// ABI, and builds it through the content-addressed cache.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compile/build_cache.h"
#include "compile/build_request.h"
#include "compile/definition_signature.h"
#include "eval/eval_options.h"
#include "trace/definition.h"
#include "trace/solution.h"

namespace kh {

struct BuildSettings {
  std::string backend = "cpu";  // "cpu" builds cpp solutions, "cuda" builds cuda ones
  std::string arch;             // for cuda; from the device unless overridden
  std::vector<std::string> defines;
  std::chrono::seconds timeout{300};
  std::filesystem::path include_dir;  // kharness + dlpack headers; empty: default_include_dir()
  std::filesystem::path
      tvm_ffi_beside;  // where to look for tvm-ffi (find_tvm_ffi); empty: this executable's folder
};

// The settings evaluate_solution builds with on a device of this compute capability (0:
// none, the CPU), so that a build made ahead of an evaluation is the cache entry the
// evaluation then finds: the loop builds a stage's candidates side by side this way.
[[nodiscard]] BuildSettings evaluation_build_settings(const EvalOptions& options, int compute_capability);

// The build cache evaluate_solution uses under these options.
[[nodiscard]] BuildCache evaluation_build_cache(const EvalOptions& options);

// The build request, or kh::Error saying why this solution cannot run on this
// backend (language, binding, destination passing, entry point).
[[nodiscard]] BuildRequest build_request(const Solution& solution, const Definition& definition,
                                         const BuildSettings& settings);

// Builds `solutions` (up to `jobs` compilers at once), in order; Python and Triton
// solutions are staged instead (python/python_solution.h). A solution that cannot even
// be requested comes back as a compile_error result with the reason.
[[nodiscard]] std::vector<BuildResult> build_solutions(const BuildCache& cache,
                                                       const std::vector<Solution>& solutions,
                                                       const Definition& definition,
                                                       const BuildSettings& settings, int jobs);

// The worker's "load" request for a solution built (or staged) as `built`: the runtime
// that runs it and what that runtime needs (eval/worker_side/kernel_loader.h).
[[nodiscard]] nlohmann::ordered_json load_request(const Solution& solution, const Definition& definition,
                                                  const BuildResult& built);

}  // namespace kh
