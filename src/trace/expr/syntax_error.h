// A constraint that does not parse: the reason and the 0-based offset where it went wrong.
#pragma once

#include <cstddef>
#include <string>

#include "error/error.h"

namespace kh::expr {

class SyntaxError : public Error {
 public:
  SyntaxError(std::size_t position, const std::string& reason)
      : Error(reason + " at position " + std::to_string(position)), position_(position), what_(reason) {}

  [[nodiscard]] std::size_t position() const noexcept { return position_; }
  // The reason without the position.
  [[nodiscard]] const std::string& what_went_wrong() const noexcept { return what_; }

 private:
  std::size_t position_;
  std::string what_;
};

}  // namespace kh::expr
