// nvcc: CUDA solutions. Host code goes through nvcc's host compiler (g++ on PATH).
#include <memory>
#include <regex>

#include "base/executable_lookup.h"
#include "compile/toolchain.h"
#include "error/error.h"
#include "error/location.h"

namespace kh {

namespace {
class NvccToolchain final : public Toolchain {
 public:
  std::string_view name() const noexcept override { return "nvcc"; }
  std::string_view language() const noexcept override { return "cuda"; }
  std::string_view shim_extension() const noexcept override { return ".cu"; }

  bool compiles(const std::filesystem::path& source) const override {
    const std::string ext = source.extension().string();
    return ext == ".cu" || ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c";
  }

  std::filesystem::path executable() const override {
    auto found = detail::find_compiler("KHARNESS_NVCC", "nvcc", {"/usr/local/cuda/bin/nvcc"});
    if (!found)
      throw Error("nvcc not found; the cuda language needs the CUDA toolkit (set KHARNESS_NVCC or PATH)");
    return *found;
  }

  // The host compiler takes part in every build, so its version is part of ours.
  std::string version() const override {
    std::string v = detail::compiler_version(executable());
    if (auto host = detail::find_compiler("", "g++", {})) {
      v += " | host: " + detail::compiler_version(*host);
    }
    return v;
  }

  std::vector<std::string> flags(std::string_view arch) const override {
    return {"-O3", "-std=c++17", "-Xcompiler", "-fPIC", "-shared", "--expt-relaxed-constexpr", "-lineinfo",
            // Static cudart: the library then loads on a host whose libcudart
            // differs, and dlopen works on a machine without a GPU.
            "-cudart=static",
            // ptxas's resource report (registers, shared memory, stack, spills) lands
            // in every build log, where static analysis and agents read it.
            "-Xptxas=-v", gencode(arch)};
  }

 protected:
  // Unresolved symbols fail the build here instead of at dlopen in the worker.
  std::vector<std::string> link_flags() const override { return {"-Xlinker", "--no-undefined"}; }
  std::vector<std::string> linker_option(std::string_view option) const override {
    return {"-Xlinker", std::string(option)};
  }

 private:
  // "sm_90a" -> "-gencode=arch=compute_90a,code=sm_90a"
  static std::string gencode(std::string_view arch) {
    static const std::regex kArch("sm_([0-9]{2,3}[af]?)");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_match(arch.begin(), arch.end(), m, kArch)) {
      throw Error(detail::at_field("arch"),
                  "'" + std::string(arch) + "' is not an nvcc arch such as sm_90a, sm_100a or sm_80");
    }
    const std::string v = m[1].str();
    return "-gencode=arch=compute_" + v + ",code=sm_" + v;
  }
};
}  // namespace

std::optional<std::filesystem::path> cuda_library_dir() {
  const auto nvcc = detail::find_compiler("KHARNESS_NVCC", "nvcc", {"/usr/local/cuda/bin/nvcc"});
  if (!nvcc) return std::nullopt;
  std::error_code ec;
  const std::filesystem::path home = std::filesystem::canonical(*nvcc, ec).parent_path().parent_path();
  for (const char* sub : {"lib64", "targets/x86_64-linux/lib", "lib"}) {
    if (std::filesystem::exists(home / sub / "libcudart.so", ec)) return home / sub;
  }
  return std::nullopt;
}

std::unique_ptr<Toolchain> make_nvcc_toolchain() { return std::make_unique<NvccToolchain>(); }

}  // namespace kh
