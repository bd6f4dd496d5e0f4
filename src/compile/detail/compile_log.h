// Reading a compiler's log for the one line a person needs.
#pragma once

#include <string>
#include <string_view>

namespace kh::detail {

// The most useful single line of a failed compile's log:
//   1. a kharness shim message ("kharness: entry 'f' argument 2 ..."), as written;
//   2. else the first line that reports an error ("error:" / "error " / "undefined reference");
//   3. else the last non-empty line;
//   4. else "" (the caller supplies a fallback).
[[nodiscard]] std::string first_error_line(std::string_view log);

}  // namespace kh::detail
