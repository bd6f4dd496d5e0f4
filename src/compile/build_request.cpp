#include "compile/build_request.h"

#include <array>
#include <utility>

namespace kh {

namespace {
constexpr std::array<std::pair<BuildResult::Status, std::string_view>, 3> kStatusNames{{
    {BuildResult::Status::ok, "ok"},
    {BuildResult::Status::compile_error, "compile_error"},
    {BuildResult::Status::timeout, "timeout"},
}};
}  // namespace

std::string_view build_status_name(BuildResult::Status s) noexcept {
  for (const auto& [status, name] : kStatusNames) {
    if (status == s) return name;
  }
  return "unknown";
}

std::optional<BuildResult::Status> parse_build_status(std::string_view name) noexcept {
  for (const auto& [status, n] : kStatusNames) {
    if (n == name) return status;
  }
  return std::nullopt;
}

std::string_view entry_binding_name(EntryBinding b) noexcept {
  return b == EntryBinding::tvm_ffi ? "tvm-ffi" : "kharness";
}

std::string arch_for_compute_capability(int cc, std::string_view override_arch) {
  if (!override_arch.empty()) return std::string(override_arch);
  switch (cc) {
    case 90:
    case 100:
    case 120:
      return "sm_" + std::to_string(cc) + "a";
    default:
      return "sm_" + std::to_string(cc);
  }
}

}  // namespace kh
