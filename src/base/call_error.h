// The one place where a failed CUDA, CUPTI or NVML call becomes a kh::Error.
//
// The checked-call macros (cuda_call.h, cupti_call.h, nvml_call.h) funnel here so
// every message has the same shape: "<file>:<line>: <call text> failed: <library
// error name>: <library error string>". The call text is the source expression, so
// a report names the exact call that failed without a debugger.
#pragma once

#include <string_view>

namespace kh::detail {

[[noreturn]] void throw_call_error(std::string_view call, const char* file, int line,
                                   std::string_view error_name, std::string_view error_text);

// For destructors and release paths, which must not throw: one line on stderr, so a
// failure there is still seen rather than silently dropped.
void report_call_error(std::string_view call, const char* file, int line, std::string_view error_name,
                       std::string_view error_text) noexcept;

}  // namespace kh::detail
