// A trace line as flashinfer-bench's loader takes it.
//
// kharness's traces carry what upstream's model refuses: the status REWARD_HACK, and
// (before NaN was written as "NaN") null for a NaN error. flashinfer-bench loads a trace
// set whole or not at all, so one such line would lose the whole export.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kh::archive {

// The line rewritten for upstream, or nullopt when it is fine as it is (and is exported
// byte for byte). Rewrites: REWARD_HACK becomes RUNTIME_ERROR with "REWARD_HACK: " before
// the log (kharness's own block keeps the original status); a null correctness error
// becomes "NaN" and a null latency or speedup 0; an empty hardware name becomes "unknown"; and the
// solution's name becomes `rename` when set. Throws kh::Error for a line that is not JSON.
[[nodiscard]] std::optional<std::string> upstream_trace_line(std::string_view line,
                                                             const std::optional<std::string>& rename = {});

}  // namespace kh::archive
