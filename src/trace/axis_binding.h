// Giving every axis of a definition a value: from a workload, or from actual tensor shapes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace/definition.h"
#include "trace/expr/expression_evaluator.h"
#include "trace/expr/tensor_access.h"
#include "trace/workload.h"

namespace kh {

using AxisValues = std::map<std::string, std::int64_t>;
using ShapeMap = std::map<std::string, std::vector<std::int64_t>>;

// Shapes of a definition's tensors computed from its specs and bound axes; no data. This
// is what validation knows, so `x.shape[0] == n` can be checked but `x[-1].item()` cannot.
class SpecShapes : public expr::TensorAccess {
 public:
  SpecShapes(const Definition& def, const AxisValues& axes) : def_(def), axes_(axes) {}
  [[nodiscard]] std::optional<std::vector<std::int64_t>> shape(std::string_view name) const override;
  [[nodiscard]] std::optional<double> value_at(std::string_view, std::int64_t) const override {
    return std::nullopt;
  }

 private:
  const Definition& def_;
  const AxisValues& axes_;
};

// Actual shapes given by a caller (plus, optionally, their data).
class GivenShapes : public expr::TensorAccess {
 public:
  GivenShapes(const ShapeMap& shapes, const expr::TensorAccess* data) : shapes_(shapes), data_(data) {}
  [[nodiscard]] std::optional<std::vector<std::int64_t>> shape(std::string_view name) const override;
  [[nodiscard]] std::optional<double> value_at(std::string_view name, std::int64_t flat) const override;

 private:
  const ShapeMap& shapes_;
  const expr::TensorAccess* data_;
};

struct ConstraintResult {
  const Constraint* constraint = nullptr;
  expr::Truth truth = expr::Truth::unknown;
  std::string message;            // why it failed or could not be evaluated; empty when true/unknown
  bool evaluation_error = false;  // e.g. division by zero, index out of range
};

// Evaluates every parsed constraint; never throws for a constraint's own failure.
[[nodiscard]] std::vector<ConstraintResult> evaluate_constraints(const Definition& def,
                                                                 const AxisValues& axes,
                                                                 const expr::TensorAccess* tensors);

// Throws kh::Error for the first constraint that is definitely false or cannot be
// evaluated, naming its text and the values involved.
void check_constraints(const Definition& def, const AxisValues& axes, const expr::TensorAccess* tensors);

// Const axes plus the workload's var axes, then the constraints that shapes alone decide.
// Throws kh::Error (field "workload.axes.<name>") for a missing or unknown axis, a const
// axis given a different value, or a failing constraint.
[[nodiscard]] AxisValues bind_axes(const Definition& def, const Workload& w);

// Binds var axes from actual tensor shapes (inputs and, if given, outputs), checks const
// axes and ranks, then the constraints (with `data` for `.item()` when supplied). Throws
// kh::Error, e.g. "axis M is 7 from A.shape[0] but 9 from C.shape[0]".
[[nodiscard]] AxisValues bind_axes_from_shapes(const Definition& def, const ShapeMap& shapes,
                                               const expr::TensorAccess* data = nullptr);

}  // namespace kh
