// A definition's constraint: its source text and, when it parses, its syntax tree.
//
// A constraint that does not parse is kept (with the reason) rather than rejected while
// reading, so the file still round-trips and validation can report it with the others.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "trace/expr/ast.h"
#include "trace/expr/expression_evaluator.h"

namespace kh {

struct Constraint {
  std::string text;
  std::shared_ptr<const expr::Node> ast;  // null when the text does not parse
  std::string parse_error;                // reason, when ast is null
  std::size_t parse_error_position = 0;   // 0-based offset into text

  [[nodiscard]] bool parsed() const { return ast != nullptr; }
};

[[nodiscard]] Constraint parse_constraint(std::string text);

// "constraint 'a == b + 1' failed: a=5, b=5" with the known axis values and tensor shapes
// the expression names.
[[nodiscard]] std::string describe_failure(const Constraint& c, const expr::Environment& env);

}  // namespace kh
