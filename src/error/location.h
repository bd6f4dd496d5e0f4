// Shorthands for the kh::Location of an error, for code that names only a file or only a
// field (designated initialisers that skip members warn under -Wextra).
#pragma once

#include <string>
#include <utility>

#include "error/error.h"

namespace kh::detail {

[[nodiscard]] inline Location at_field(std::string field) {
  Location where;
  where.field = std::move(field);
  return where;
}

[[nodiscard]] inline Location at_file(std::string file) {
  Location where;
  where.file = std::move(file);
  return where;
}

}  // namespace kh::detail
