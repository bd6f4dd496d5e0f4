#include "trace/solution.h"

#include <array>

namespace kh {
namespace {
constexpr std::array<std::string_view, 5> kLanguageNames = {"python", "triton", "cpp", "cuda", "tilelang"};
}

std::optional<Language> parse_language(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kLanguageNames.size(); ++i)
    if (kLanguageNames[i] == name) return static_cast<Language>(i);
  return std::nullopt;
}

std::string_view language_name(Language l) noexcept { return kLanguageNames[static_cast<std::size_t>(l)]; }

// "kharness" is our own C ABI (include/kharness/kernel.h); the others are upstream's.
bool is_known_binding(std::string_view name) noexcept {
  return name == "tvm-ffi" || name == "torch" || name == "kharness";
}

std::string SolutionSpec::entry_file() const {
  const auto at = entry_point.rfind("::");
  return at == std::string::npos ? std::string() : entry_point.substr(0, at);
}

std::string SolutionSpec::entry_function() const {
  const auto at = entry_point.rfind("::");
  return at == std::string::npos ? entry_point : entry_point.substr(at + 2);
}

std::string SolutionSpec::effective_binding() const {
  if (binding) return *binding;
  return (language == "cpp" || language == "cuda") ? "tvm-ffi" : "";
}

std::string resolved_binding(const Solution& s) {
  if (s.spec.binding) return *s.spec.binding;
  for (const SourceFile& f : s.sources) {
    if (f.content.find("kharness/kernel.h") != std::string::npos) return "kharness";
  }
  return s.spec.effective_binding();
}

}  // namespace kh
