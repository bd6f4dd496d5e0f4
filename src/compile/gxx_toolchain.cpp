// g++: C++ solutions for the CPU backend.
#include <memory>

#include "base/executable_lookup.h"
#include "compile/toolchain.h"
#include "error/error.h"

namespace kh {

namespace {
class GxxToolchain final : public Toolchain {
 public:
  std::string_view name() const noexcept override { return "g++"; }
  std::string_view language() const noexcept override { return "cpp"; }
  std::string_view shim_extension() const noexcept override { return ".cpp"; }

  bool compiles(const std::filesystem::path& source) const override {
    const std::string ext = source.extension().string();
    return ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c";
  }

  std::filesystem::path executable() const override {
    auto found = detail::find_compiler("KHARNESS_GXX", "g++", {});
    if (!found) throw Error("g++ not found; the cpp language needs g++ (set KHARNESS_GXX or PATH)");
    return *found;
  }

  std::string version() const override { return detail::compiler_version(executable()); }

  // No -march=native: cached libraries must run on any x86-64 host that shares the cache.
  std::vector<std::string> flags(std::string_view /*arch*/) const override {
    // -pipe: no temporary files, so a compile killed on timeout leaves nothing in /tmp.
    return {"-O3", "-std=c++20", "-fPIC", "-shared", "-pipe"};
  }

 protected:
  // Unresolved symbols fail the build here instead of at dlopen in the worker.
  std::vector<std::string> link_flags() const override { return {"-Wl,--no-undefined"}; }
};
}  // namespace

std::unique_ptr<Toolchain> make_gxx_toolchain() { return std::make_unique<GxxToolchain>(); }

}  // namespace kh
