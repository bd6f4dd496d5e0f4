#include "trace/diagnostic.h"

namespace kh {

std::string_view severity_name(Severity s) noexcept { return s == Severity::error ? "error" : "warning"; }

std::string format_diagnostic(const Diagnostic& d) {
  const std::string where = d.where.to_string();
  return std::string(severity_name(d.severity)) + ": " + (where.empty() ? "" : where + ": ") + d.message;
}

Diagnostic diagnostic_from(const Error& e, Severity s) { return Diagnostic{s, e.where(), e.reason()}; }

std::size_t count_errors(const std::vector<Diagnostic>& ds) {
  std::size_t n = 0;
  for (const auto& d : ds) n += d.severity == Severity::error ? 1 : 0;
  return n;
}

}  // namespace kh
