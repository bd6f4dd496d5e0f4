// Evaluates a constraint expression over axis values and, optionally, tensors.
//
// Evaluation is three-valued: when an expression needs something the environment cannot
// supply (tensor data at validation time), the answer is `unknown` rather than an error,
// so a constraint is only reported when it is definitely false.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/expr/ast.h"
#include "trace/expr/tensor_access.h"

namespace kh::expr {

struct Environment {
  const std::map<std::string, std::int64_t>* axes = nullptr;  // may be null
  const TensorAccess* tensors = nullptr;                      // may be null
};

struct Value {
  enum class Kind : std::uint8_t { integer, real, boolean, shape, tensor, unknown };
  Kind kind = Kind::unknown;
  std::int64_t i = 0;
  double r = 0.0;
  bool b = false;
  std::vector<std::int64_t> dims;     // shape: the tuple; tensor: the full shape
  std::string tensor;                 // tensor: its name
  std::vector<std::int64_t> indices;  // tensor: leading indices already applied

  [[nodiscard]] std::string to_string() const;
};

enum class Truth : std::uint8_t { is_false, is_true, unknown };

// Throws kh::Error (no location) on division by zero, an index out of range, integer
// overflow, or an operation on the wrong kind of value (e.g. `3.shape`).
[[nodiscard]] Value evaluate(const Node& root, const Environment& env);

// evaluate(), then Python truthiness; a shape or tensor result is an error.
[[nodiscard]] Truth evaluate_truth(const Node& root, const Environment& env);

}  // namespace kh::expr
