#include "base/call_error.h"

#include <cstdio>
#include <string>

#include "error/error.h"

namespace kh::detail {

namespace {
std::string describe(std::string_view call, std::string_view error_name, std::string_view error_text) {
  std::string reason(call);
  reason += " failed: ";
  reason += error_name;
  if (!error_text.empty()) {
    reason += ": ";
    reason += error_text;
  }
  return reason;
}
}  // namespace

void throw_call_error(std::string_view call, const char* file, int line, std::string_view error_name,
                      std::string_view error_text) {
  throw Error(Location{file, static_cast<std::size_t>(line), ""}, describe(call, error_name, error_text));
}

void report_call_error(std::string_view call, const char* file, int line, std::string_view error_name,
                       std::string_view error_text) noexcept {
  const std::string reason = describe(call, error_name, error_text);
  std::fprintf(stderr, "kharness: %s:%d: %s\n", file, line, reason.c_str());
}

}  // namespace kh::detail
