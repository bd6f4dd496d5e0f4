#include "trace/expr/lexer.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>

#include "trace/expr/syntax_error.h"

namespace kh::expr {
namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Longest operators first so that "**" wins over "*".
constexpr std::array<std::string_view, 19> kOperators = {
    "**", "//", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", "(", ")", "[", "]", ".", ","};

Token lex_number(std::string_view src, std::size_t start) {
  std::size_t i = start;
  bool real = false;
  while (i < src.size() && (is_digit(src[i]) || src[i] == '_')) ++i;
  // "3." followed by a name is attribute access on an int in no constraint we know; treat
  // a dot as a decimal point only when a digit follows, so "x.shape[0].item" still works.
  if (i + 1 < src.size() && src[i] == '.' && is_digit(src[i + 1])) {
    real = true;
    ++i;
    while (i < src.size() && is_digit(src[i])) ++i;
  }
  if (i < src.size() && (src[i] == 'e' || src[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < src.size() && (src[j] == '+' || src[j] == '-')) ++j;
    if (j < src.size() && is_digit(src[j])) {
      real = true;
      i = j;
      while (i < src.size() && is_digit(src[i])) ++i;
    }
  }
  Token t;
  t.pos = start;
  t.text = std::string(src.substr(start, i - start));
  std::string digits;
  for (char c : t.text)
    if (c != '_') digits += c;
  if (real) {
    t.kind = TokenKind::real;
    t.real_value = std::strtod(digits.c_str(), nullptr);
    return t;
  }
  t.kind = TokenKind::integer;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), t.int_value);
  if (ec != std::errc{} || ptr != digits.data() + digits.size())
    throw SyntaxError(start, "integer literal '" + t.text + "' does not fit in 64 bits");
  return t;
}

}  // namespace

std::vector<Token> tokenize(std::string_view src) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < src.size()) {
    const char c = src[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    if (is_digit(c)) {
      out.push_back(lex_number(src, i));
      i += out.back().text.size();
      continue;
    }
    if (is_name_start(c)) {
      std::size_t j = i;
      while (j < src.size() && is_name_char(src[j])) ++j;
      out.push_back(Token{TokenKind::name, std::string(src.substr(i, j - i)), i});
      i = j;
      continue;
    }
    bool matched = false;
    for (std::string_view op : kOperators) {
      if (src.substr(i, op.size()) == op) {
        out.push_back(Token{TokenKind::op, std::string(op), i});
        i += op.size();
        matched = true;
        break;
      }
    }
    if (!matched) {
      const auto byte = static_cast<unsigned char>(c);
      std::string shown =
          std::isprint(byte) != 0 ? std::string("'") + c + "'" : "byte " + std::to_string(byte);
      throw SyntaxError(i, "unexpected character " + shown);
    }
  }
  out.push_back(Token{TokenKind::end, "", src.size()});
  return out;
}

}  // namespace kh::expr
