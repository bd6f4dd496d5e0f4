// Lexical checks for names that end up in generated C++ or on a compiler's command line.
#pragma once

#include <string_view>

namespace kh::detail {

// [A-Za-z_][A-Za-z0-9_]*
[[nodiscard]] bool is_identifier(std::string_view s) noexcept;

// Identifiers joined by "::", e.g. "rmsnorm" or "kernels::rmsnorm".
[[nodiscard]] bool is_qualified_identifier(std::string_view s) noexcept;

}  // namespace kh::detail
