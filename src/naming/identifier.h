// Lexical rules for C++ names: entry points named by solutions (checked by trace/
// validation) end up in generated C++ and on compiler command lines (build/).
#pragma once

#include <string_view>

namespace kh {

// [A-Za-z_][A-Za-z0-9_]*
[[nodiscard]] bool is_identifier(std::string_view s) noexcept;

// Identifiers joined by "::", e.g. "rmsnorm" or "kernels::rmsnorm".
[[nodiscard]] bool is_qualified_identifier(std::string_view s) noexcept;

}  // namespace kh
