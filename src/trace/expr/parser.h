// Parses a constraint expression into a syntax tree.
//
// The grammar is the part of Python that FlashInfer-Trace constraints use, with Python's
// precedence: or < and < not < comparisons (chainable) < + - < * / // % < unary - + < **,
// then postfix `.shape`, `.item()` and `[index]`.
#pragma once

#include <memory>
#include <string_view>

#include "trace/expr/ast.h"
#include "trace/expr/syntax_error.h"

namespace kh::expr {

// Throws SyntaxError naming the position of the first problem.
[[nodiscard]] std::unique_ptr<Node> parse_expression(std::string_view source);

}  // namespace kh::expr
