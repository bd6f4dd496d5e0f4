// Splits a constraint expression into tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kh::expr {

enum class TokenKind : std::uint8_t { integer, real, name, op, end };

struct Token {
  TokenKind kind = TokenKind::end;
  std::string text;  // the source text of the token
  std::size_t pos = 0;
  std::int64_t int_value = 0;
  double real_value = 0.0;
};

// Throws SyntaxError (see syntax_error.h) on a character that starts no token or on an
// integer literal too large for int64.
[[nodiscard]] std::vector<Token> tokenize(std::string_view source);

}  // namespace kh::expr
