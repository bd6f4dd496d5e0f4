#include "eval/solution_build.h"

#include <fmt/format.h>

#include "build/build_queue.h"
#include "build/include_dir.h"
#include "error/error.h"
#include "eval/python/python_solution.h"
#include "worker/self_executable.h"

namespace kh {

namespace {

// A solution opts into the kharness ABI with binding "kharness", or by including
// <kharness/kernel.h> without naming a binding. tvm-ffi and torch bindings need a
// Python runtime that kharness does not embed.
void check_binding(const Solution& s) {
  const bool includes_abi = [&] {
    for (const auto& f : s.sources) {
      if (f.content.find("kharness/kernel.h") != std::string::npos) return true;
    }
    return false;
  }();
  if (s.spec.binding && *s.spec.binding == "kharness") return;
  if (!s.spec.binding && includes_abi) return;
  throw Error(
      Location{"", 0, "spec.binding"},
      fmt::format("binding '{}' is not supported: kharness calls entry points through its own C ABI; "
                  "write the entry against include/kharness/kernel.h and set spec.binding to 'kharness'",
                  s.spec.effective_binding()));
}

std::string language_for(const std::string& backend) { return backend == "cuda" ? "cuda" : "cpp"; }

BuildResult stage_python(const Solution& s, const Definition& definition, const BuildSettings& settings,
                         const BuildCache& cache) {
  if (s.spec.language == "triton" && settings.backend != "cuda") {
    throw Error(
        Location{"", 0, "spec.language"},
        fmt::format("a Triton solution needs a GPU: run it on the cuda backend, not {}", settings.backend));
  }
  return stage_python_solution(s, definition, cache.dir());
}

}  // namespace

BuildSettings evaluation_build_settings(const EvalOptions& options, int compute_capability) {
  BuildSettings settings;
  settings.backend = options.backend;
  settings.arch = arch_for_compute_capability(compute_capability, options.arch);
  // The headers candidates compile against sit beside the kharness binary that runs them.
  const std::filesystem::path worker =
      options.worker_executable.empty() ? self_executable() : options.worker_executable;
  if (is_include_dir(worker.parent_path() / "include"))
    settings.include_dir = worker.parent_path() / "include";
  return settings;
}

BuildCache evaluation_build_cache(const EvalOptions& options) {
  return BuildCache(options.cache_dir.empty() ? BuildCache::default_dir() : options.cache_dir);
}

KernelSignature kernel_signature(const Definition& definition, const std::string& function) {
  KernelSignature sig;
  sig.function = function;
  for (const auto& [name, spec] : definition.inputs) {
    sig.params.push_back(
        {name, spec.is_scalar() ? KernelParam::Role::scalar : KernelParam::Role::input, spec.dtype});
  }
  for (const auto& [name, spec] : definition.outputs) {
    sig.params.push_back({name, KernelParam::Role::output, spec.dtype});
  }
  return sig;
}

BuildRequest build_request(const Solution& s, const Definition& definition, const BuildSettings& settings) {
  const std::string wanted = language_for(settings.backend);
  if (s.spec.language != wanted) {
    throw Error(
        Location{"", 0, "spec.language"},
        fmt::format("language '{}' cannot run on the {} backend, which takes '{}', 'python'{} solutions",
                    s.spec.language, settings.backend, wanted, wanted == "cuda" ? " and 'triton'" : ""));
  }
  if (!s.spec.uses_destination_passing()) {
    throw Error(
        Location{"", 0, "spec.destination_passing_style"},
        "a C++ or CUDA entry writes outputs kharness allocates (destination passing); only Python and Triton "
        "solutions may return their outputs");
  }
  check_binding(s);
  BuildRequest r;
  r.language = s.spec.language;
  for (const auto& f : s.sources) r.sources.push_back({f.path, f.content});
  r.entry_file = s.spec.entry_file();
  r.entry_function = s.spec.entry_function();
  r.signature = kernel_signature(definition, r.entry_function);
  r.arch = wanted == "cuda" ? settings.arch : "";
  r.defines = settings.defines;
  r.timeout = settings.timeout;
  r.include_dir = settings.include_dir;
  return r;
}

std::vector<BuildResult> build_solutions(const BuildCache& cache, const std::vector<Solution>& solutions,
                                         const Definition& definition, const BuildSettings& settings,
                                         int jobs) {
  std::vector<BuildResult> results(solutions.size());
  std::vector<BuildRequest> requests;
  std::vector<std::size_t> slots;
  for (std::size_t i = 0; i < solutions.size(); ++i) {
    try {
      if (is_python_language(solutions[i].spec.language)) {
        results[i] = stage_python(solutions[i], definition, settings, cache);
        continue;
      }
      requests.push_back(build_request(solutions[i], definition, settings));
      slots.push_back(i);
    } catch (const Error& e) {
      results[i].status = BuildResult::Status::compile_error;
      results[i].message = e.what();
      results[i].log = e.what();
    }
  }
  std::vector<BuildResult> built = build_all(cache, requests, jobs);
  for (std::size_t k = 0; k < slots.size(); ++k) results[slots[k]] = std::move(built[k]);
  return results;
}

nlohmann::ordered_json load_request(const Solution& solution, const Definition& definition,
                                    const BuildResult& built) {
  if (is_python_language(solution.spec.language)) {
    return python_load_to_json(python_load(solution, definition, built));
  }
  return {{"library", built.library.string()},
          {"signature", signature_text(kernel_signature(definition, solution.spec.entry_function()))}};
}

}  // namespace kh
