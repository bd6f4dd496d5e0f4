#include "profile/static_analysis.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "base/executable_lookup.h"
#include "base/process_runner.h"
#include "error/error.h"

namespace kh::profile {

namespace {

bool is_matmul_class(const StaticContext& c) {
  return c.compute && (*c.compute == ComputeUnit::bf16_tensor || *c.compute == ComputeUnit::fp8_tensor);
}

void kernel_warnings(const KernelResources& k, std::vector<StaticWarning>& out) {
  if (k.spill_store_bytes > 0 || k.spill_load_bytes > 0) {
    out.push_back(
        {demangle(k.name), "spills",
         fmt::format("spills {} bytes stored / {} loaded at {} registers: cut live registers (smaller "
                     "tile, fewer accumulators) or raise the register budget",
                     k.spill_store_bytes, k.spill_load_bytes, k.registers)});
  }
}

void sass_warnings(const SassSummary& f, bool spilled, const StaticContext& c,
                   std::vector<StaticWarning>& out) {
  if (!spilled && f.local_loads + f.local_stores > 0) {
    out.push_back(
        {demangle(f.function), "local_memory",
         fmt::format("{} local-memory accesses (LDL/STL) without spills: an array indexed at run time "
                     "lives in local memory; unroll or index it with constants",
                     f.local_loads + f.local_stores)});
  }
  // A kernel that streams its operands with wide asynchronous copies (cp.async, TMA) keeps
  // scalar LDGs for scales and indices: telling it to vectorise those misleads.
  if (c.memory_bound && f.global_loads > 0 && f.global_loads_128 == 0 && f.async_copies_wide == 0) {
    out.push_back(
        {demangle(f.function), "narrow_loads",
         fmt::format("{} global loads, none 128-bit, in a memory-bound operator: vectorise (16-byte "
                     "loads) and coalesce",
                     f.global_loads)});
  }
}

}  // namespace

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

std::vector<StaticWarning> static_warnings(const std::vector<KernelResources>& resources,
                                           const std::vector<SassSummary>& sass,
                                           const StaticContext& context) {
  std::vector<StaticWarning> out;
  for (const KernelResources& k : resources) kernel_warnings(k, out);
  long mma = 0, qgmma = 0;
  for (const SassSummary& f : sass) {
    bool spilled = false;
    for (const KernelResources& k : resources) {
      spilled |= k.name == f.function && (k.spill_store_bytes > 0 || k.spill_load_bytes > 0);
    }
    sass_warnings(f, spilled, context, out);
    mma += f.tensor;
    qgmma += f.qgmma;
  }
  if (is_matmul_class(context) && !sass.empty() && mma == 0) {
    out.push_back(
        {"", "no_tensor_cores",
         fmt::format("no tensor-core instruction (HGMMA/QGMMA/HMMA) in any kernel of a {} operator: the "
                     "math runs on FFMA at a fraction of the tensor rate",
                     compute_unit_name(*context.compute))});
  }
  if (context.compute == ComputeUnit::fp8_tensor && mma > 0 && qgmma == 0) {
    out.push_back({"", "fp8_without_qgmma",
                   "tensor cores are used at 16 bits only: fp8 MMA (QGMMA) doubles the rate on Hopper"});
  }
  return out;
}

std::optional<std::filesystem::path> find_cuobjdump() {
  std::vector<std::filesystem::path> fallbacks{"/usr/local/cuda/bin/cuobjdump"};
  if (const auto nvcc = detail::find_compiler("KHARNESS_NVCC", "nvcc", {"/usr/local/cuda/bin/nvcc"})) {
    fallbacks.insert(fallbacks.begin(), nvcc->parent_path() / "cuobjdump");
  }
  if (const char* home = std::getenv("HOME")) {
    fallbacks.push_back(std::filesystem::path(home) / ".local/share/kharness/cuda-tools/bin/cuobjdump");
  }
  return detail::find_compiler("KHARNESS_CUOBJDUMP", "cuobjdump", fallbacks);
}

StaticReport analyse_binary(const std::filesystem::path& library, std::string_view build_log,
                            const StaticContext& context) {
  StaticReport r;
  r.resources = parse_ptxas_resources(build_log);
  if (r.resources.empty()) r.note = "the build log has no ptxas report (built without -Xptxas=-v?)";
  const auto cuobjdump = find_cuobjdump();
  if (!cuobjdump) {
    r.note +=
        (r.note.empty() ? "" : "; ") +
        std::string("cuobjdump not found (set KHARNESS_CUOBJDUMP or run scripts/setup.sh): no SASS scan");
  } else {
    ProcessSpec spec;
    spec.argv = {cuobjdump->string(), "-sass", library.string()};
    spec.cwd = library.parent_path();
    spec.role = "cuobjdump";
    RunOptions options;
    options.timeout = std::chrono::seconds(60);
    const ProcessRun p = run_process(std::move(spec), options);
    if (p.exit_code() != 0) {
      r.note += (r.note.empty() ? "" : "; ") +
                fmt::format("cuobjdump -sass failed ({}): {}", p.exit_code(), p.out.substr(0, 300));
    } else {
      r.sass = parse_sass(p.out);
    }
  }
  r.warnings = static_warnings(r.resources, r.sass, context);
  return r;
}

}  // namespace kh::profile
