// Rules for a Workload and a Trace, alone and against their definition.
#include "trace/axis_binding.h"
#include "trace/detail/report.h"
#include "trace/validate.h"

namespace kh {
namespace {

using detail::Report;

void check_inputs_alone(const Workload& w, Report& r) {
  for (const auto& [name, in] : w.inputs) {
    const auto* st = std::get_if<SafetensorsInput>(&in.source);
    if (st == nullptr) continue;
    if (std::string why = detail::unsafe_path_reason(st->path); !why.empty())
      r.error("inputs." + name + ".path", "safetensors path '" + st->path + "' " + why);
    if (st->tensor_key.empty()) r.error("inputs." + name + ".tensor_key", "tensor_key is empty");
  }
}

void check_axes_against(const Workload& w, const Definition& d, Report& r) {
  for (const auto& [name, value] : w.axes) {
    const Axis* axis = d.axes.find(name);
    if (axis == nullptr)
      r.error("axes." + name, "axis '" + name + "' is not declared by definition '" + d.name + "'");
    else if (axis->is_const() && axis->const_value() != value)
      r.error("axes." + name, "axis " + name + " is const " + std::to_string(axis->const_value()) +
                                  " in the definition but " + std::to_string(value) + " here");
  }
  for (const auto& [name, axis] : d.axes)
    if (!axis.is_const() && !w.axes.contains(name))
      r.error("axes", "var axis '" + name + "' of definition '" + d.name + "' has no value");
}

void check_inputs_against(const Workload& w, const Definition& d, Report& r) {
  for (const auto& [name, spec] : d.inputs)
    if (!spec.optional && !w.inputs.contains(name))
      r.error("inputs", "input '" + name + "' has no descriptor");
  for (const auto& [name, in] : w.inputs) {
    const TensorSpec* spec = d.inputs.find(name);
    if (spec == nullptr) {
      r.error("inputs." + name, "'" + name + "' is not an input of definition '" + d.name + "'");
      continue;
    }
    if (std::holds_alternative<ScalarInput>(in.source) && !spec->is_scalar())
      r.error("inputs." + name,
              "a scalar value is given for '" + name + "', which is a tensor (shape not null)");
  }
}

void check_constraints_against(const Workload& w, const Definition& d, Report& r) {
  AxisValues axes;
  for (const auto& [name, axis] : d.axes)
    if (axis.is_const()) axes[name] = axis.const_value();
  for (const auto& [name, value] : w.axes)
    if (!axes.contains(name)) axes[name] = value;
  const SpecShapes shapes(d, axes);
  for (const ConstraintResult& res : evaluate_constraints(d, axes, &shapes))
    if (res.truth == expr::Truth::is_false) r.error("axes", res.message);
}

void check_evaluation(const Evaluation& e, Report& r) {
  const std::string status(status_name(e.status));
  const bool c = e.correctness.has_value();
  const bool p = e.performance.has_value();
  if (e.status == EvalStatus::passed) {
    if (!c) r.error("evaluation.correctness", "status PASSED needs a correctness block");
    if (!p) r.error("evaluation.performance", "status PASSED needs a performance block");
  } else if (e.status == EvalStatus::incorrect_numerical) {
    if (!c) r.error("evaluation.correctness", "status INCORRECT_NUMERICAL needs a correctness block");
    if (p) r.error("evaluation.performance", "status INCORRECT_NUMERICAL must not have a performance block");
  } else {
    if (c)
      r.error("evaluation.correctness",
              "status " + status + " must have neither correctness nor performance, but has correctness");
    if (p)
      r.error("evaluation.performance",
              "status " + status + " must have neither correctness nor performance, but has performance");
  }
}

}  // namespace

std::vector<Diagnostic> validate_workload(const Workload& w, const Definition* def, const Location& where) {
  Report r(where);
  if (w.uuid.empty()) r.error("uuid", "uuid is missing");
  for (const auto& [name, value] : w.axes)
    if (value < 0)
      r.error("axes." + name, "axis value must be an integer >= 0, got " + std::to_string(value));
  check_inputs_alone(w, r);
  if (def != nullptr) {
    check_axes_against(w, *def, r);
    check_inputs_against(w, *def, r);
    check_constraints_against(w, *def, r);
  }
  return r.take();
}

std::vector<Diagnostic> validate_trace(const Trace& t, const Definition* def, const Location& where) {
  Report r(where);
  if (t.definition.empty()) r.error("definition", "definition is empty");
  Location wl = where;
  wl.field = detail::join_field(where.field, "workload");
  r.append(validate_workload(t.workload, def, wl));
  if (t.evaluation) {
    if (!t.solution) r.warning("solution", "an evaluation without a solution");
    check_evaluation(*t.evaluation, r);
  }
  return r.take();
}

}  // namespace kh
