#include "trace/trace.h"

#include <array>

namespace kh {
namespace {
constexpr std::array<std::string_view, 8> kStatusNames = {
    "PASSED",        "INCORRECT_SHAPE", "INCORRECT_NUMERICAL", "INCORRECT_DTYPE", "RUNTIME_ERROR",
    "COMPILE_ERROR", "TIMEOUT",         "REWARD_HACK"};
}

std::optional<EvalStatus> parse_status(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kStatusNames.size(); ++i)
    if (kStatusNames[i] == name) return static_cast<EvalStatus>(i);
  return std::nullopt;
}

std::string_view status_name(EvalStatus s) noexcept { return kStatusNames[static_cast<std::size_t>(s)]; }

std::string status_list() {
  std::string out;
  for (auto n : kStatusNames) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

}  // namespace kh
