// KH_CUPTI_CALL(expr): every CUPTI call goes through it; a failure throws kh::Error
// naming the call, file:line and CUPTI's result string (for example
// CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, which the caller reports as the reason it
// fell back to event timing). KH_CUPTI_CALL_NOEXCEPT is the destructor form.
#pragma once

#include <cupti.h>

#include "base/call_error.h"

namespace kh::detail {

inline const char* cupti_result_text(CUptiResult status) noexcept {
  const char* text = nullptr;
  if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || text == nullptr) return "unknown CUPTI result";
  return text;
}

inline void check_cupti(CUptiResult status, const char* call, const char* file, int line) {
  if (status != CUPTI_SUCCESS) throw_call_error(call, file, line, "CUPTI", cupti_result_text(status));
}

inline void check_cupti_noexcept(CUptiResult status, const char* call, const char* file, int line) noexcept {
  if (status != CUPTI_SUCCESS) report_call_error(call, file, line, "CUPTI", cupti_result_text(status));
}

}  // namespace kh::detail

#define KH_CUPTI_CALL(expr) ::kh::detail::check_cupti((expr), #expr, __FILE__, __LINE__)
#define KH_CUPTI_CALL_NOEXCEPT(expr) ::kh::detail::check_cupti_noexcept((expr), #expr, __FILE__, __LINE__)
