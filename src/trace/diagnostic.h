// A problem found in a file: reported, not thrown, so one run can list them all.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "error/error.h"

namespace kh {

enum class Severity : std::uint8_t { error, warning };

struct Diagnostic {
  Severity severity = Severity::error;
  Location where;
  std::string message;
};

[[nodiscard]] std::string_view severity_name(Severity s) noexcept;  // "error" / "warning"

// "error: FILE:LINE: FIELD: message", with empty location parts left out.
[[nodiscard]] std::string format_diagnostic(const Diagnostic& d);

[[nodiscard]] Diagnostic diagnostic_from(const Error& e, Severity s = Severity::error);

[[nodiscard]] std::size_t count_errors(const std::vector<Diagnostic>& ds);

}  // namespace kh
