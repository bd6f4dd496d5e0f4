#include "eval/solution_build.h"

#include <fmt/format.h>

#include "compile/build_queue.h"
#include "compile/include_dir.h"
#include "compile/toolchain.h"
#include "compile/tvm_ffi_runtime.h"
#include "error/error.h"
#include "eval/python/python_solution.h"
#include "worker/self_executable.h"

namespace kh {

namespace {

// Solution kinds that no worker of kharness runs, refused with what to use instead.
void refuse_unsupported(const Solution& s) {
  if (s.spec.language == "tilelang") {
    throw Error(
        Location{"", 0, "spec.language"},
        "language 'tilelang' is not supported: its kernels are compiled by the tilelang Python package at "
        "run time, which kharness does not run; port the kernel to 'triton', or to 'cuda' with binding "
        "'tvm-ffi'");
  }
  const bool native = s.spec.language == "cpp" || s.spec.language == "cuda";  // upstream ignores it elsewhere
  if (native && resolved_binding(s) == "torch") {
    throw Error(
        Location{"", 0, "spec.binding"},
        "binding 'torch' (a torch C++ extension) is not supported: its entry exists only as an attribute of "
        "a Python module that torch builds and loads, and kharness calls native entries from its C++ worker; "
        "keep the sources and export the entry with TVM_FFI_DLL_EXPORT_TYPED_FUNC over "
        "tvm::ffi::TensorView arguments (binding 'tvm-ffi', which flashinfer-bench runs too)");
  }
}

EntryBinding entry_binding(const Solution& s) {
  const std::string binding = resolved_binding(s);
  if (binding == "kharness") return EntryBinding::kharness;
  if (binding == "tvm-ffi") return EntryBinding::tvm_ffi;
  throw Error(Location{"", 0, "spec.binding"},
              fmt::format("binding '{}' is not supported; use 'tvm-ffi' or 'kharness'", binding));
}

// tvm-ffi's headers and library, and what flashinfer-bench links a CUDA solution with
// (the driver and cuBLAS), here only where the solution uses them.
void add_tvm_ffi(BuildRequest& r, const BuildSettings& settings) {
  const TvmFfiRuntime& runtime = find_tvm_ffi(settings.tvm_ffi_beside);
  r.extra_include_dirs = runtime.include_dirs;
  r.library_dirs = {runtime.library_dir};
  r.libraries = {"tvm_ffi"};
  r.dependency_fingerprint = "apache-tvm-ffi " + runtime.version + " " + runtime.fingerprint;
  if (r.language == "cuda") {
    r.libraries.insert(r.libraries.end(), {"cuda", "cublas"});
    if (auto lib = cuda_library_dir()) r.library_dirs.push_back(*lib);
  }
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
  settings.tvm_ffi_beside = worker.parent_path();
  return settings;
}

BuildCache evaluation_build_cache(const EvalOptions& options) {
  return BuildCache(options.cache_dir.empty() ? BuildCache::default_dir() : options.cache_dir);
}

BuildRequest build_request(const Solution& s, const Definition& definition, const BuildSettings& settings) {
  refuse_unsupported(s);
  const std::string wanted = language_for(settings.backend);
  if (s.spec.language != wanted) {
    throw Error(
        Location{"", 0, "spec.language"},
        fmt::format("language '{}' cannot run on the {} backend, which takes '{}', 'python'{} solutions",
                    s.spec.language, settings.backend, wanted, wanted == "cuda" ? " and 'triton'" : ""));
  }
  const EntryBinding binding = entry_binding(s);
  if (!s.spec.uses_destination_passing() && binding != EntryBinding::tvm_ffi) {
    throw Error(Location{"", 0, "spec.destination_passing_style"},
                "the kharness binding is destination-passing (outputs are the trailing arguments); a "
                "value-returning C++/CUDA entry needs binding 'tvm-ffi' (Python and Triton solutions may "
                "return their outputs too)");
  }
  BuildRequest r;
  r.language = s.spec.language;
  r.binding = binding;
  r.destination_passing = s.spec.uses_destination_passing();
  for (const auto& f : s.sources) r.sources.push_back({f.path, f.content});
  r.entry_file = s.spec.entry_file();
  r.entry_function = s.spec.entry_function();
  r.signature = kernel_signature(definition, r.entry_function);
  r.arch = wanted == "cuda" ? settings.arch : "";
  r.defines = settings.defines;
  r.timeout = settings.timeout;
  r.include_dir = settings.include_dir;
  if (binding == EntryBinding::tvm_ffi) add_tvm_ffi(r, settings);
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
