// Walking raw JSON text a character at a time while knowing whether the character is
// part of a string literal: the checks that run before (or instead of) the parser, the
// nesting limit and the quoting of bare NaN/Infinity, must not read brackets or tokens
// inside strings.
#pragma once

namespace kh::detail {

class JsonStringScan {
 public:
  // Feeds the next character; true when it belongs to a string literal, its quotes
  // and escapes included.
  bool in_string(char c) noexcept {
    if (inside_) {
      if (escaped_)
        escaped_ = false;
      else if (c == '\\')
        escaped_ = true;
      else if (c == '"')
        inside_ = false;
      return true;
    }
    inside_ = c == '"';
    return inside_;
  }

 private:
  bool inside_ = false;
  bool escaped_ = false;
};

}  // namespace kh::detail
