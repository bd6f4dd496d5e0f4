// KH_NVML_CALL(expr): every NVML call goes through it; a failure throws kh::Error
// naming the call, file:line and NVML's error string. NVML is loaded at run time
// (nvml_library.h), so the error string comes from the loaded library when there is
// one, and from the numeric code otherwise.
#pragma once

#include <string>

#include "base/call_error.h"
#include "timing/detail/nvml_abi.h"

namespace kh::detail {

// nvmlErrorString(status) of the loaded library, or "NVML error <status>".
[[nodiscard]] std::string nvml_error_text(nvml::Return status);

inline void check_nvml(nvml::Return status, const char* call, const char* file, int line) {
  if (status != nvml::kSuccess) throw_call_error(call, file, line, "NVML", nvml_error_text(status));
}

inline void check_nvml_noexcept(nvml::Return status, const char* call, const char* file, int line) noexcept {
  if (status != nvml::kSuccess) report_call_error(call, file, line, "NVML", "non-zero nvmlReturn_t");
}

}  // namespace kh::detail

#define KH_NVML_CALL(expr) ::kh::detail::check_nvml((expr), #expr, __FILE__, __LINE__)
#define KH_NVML_CALL_NOEXCEPT(expr) ::kh::detail::check_nvml_noexcept((expr), #expr, __FILE__, __LINE__)
