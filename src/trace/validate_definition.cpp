// Rules for a Definition on its own.
#include <set>

#include "naming/identifier.h"
#include "trace/axis_binding.h"
#include "trace/detail/report.h"
#include "trace/validate.h"

namespace kh {
namespace {

using detail::Report;

void check_axes(const Definition& d, Report& r) {
  for (const auto& [name, axis] : d.axes) {
    if (!is_identifier(name))
      r.warning("axes." + name,
                "axis name '" + name + "' is not an identifier, so constraints cannot name it");
    if (axis.is_const() && axis.const_value() < 0)
      r.error("axes." + name + ".value",
              "const axis value must be an integer >= 0, got " + std::to_string(axis.const_value()));
  }
}

void check_specs(const Definition& d, const NamedList<TensorSpec>& specs, const std::string& group, Report& r,
                 std::set<std::string>& bindable) {
  for (const auto& [name, spec] : specs) {
    if (!spec.shape) continue;
    for (std::size_t i = 0; i < spec.shape->size(); ++i) {
      const std::string& axis = (*spec.shape)[i];
      if (!d.axes.contains(axis))
        r.error(group + "." + name + ".shape[" + std::to_string(i) + "]",
                "axis '" + axis + "' is not declared in axes");
      if (group == "inputs") bindable.insert(axis);
    }
  }
}

void check_names(const Definition& d, Report& r) {
  for (const auto& [name, spec] : d.outputs)
    if (d.inputs.contains(name)) r.error("outputs." + name, "'" + name + "' is both an input and an output");
  if (d.outputs.empty()) r.error("outputs", "a definition needs at least one output");
}

bool names_something(const Definition& d, const std::string& n) {
  return d.axes.contains(n) || d.inputs.contains(n) || d.outputs.contains(n);
}

void check_constraints_parse(const Definition& d, Report& r) {
  for (std::size_t i = 0; i < d.constraints.size(); ++i) {
    const Constraint& c = d.constraints[i];
    const std::string field = "constraints[" + std::to_string(i) + "]";
    if (!c.parsed()) {
      r.error(field, "constraint '" + c.text + "' does not parse: " + c.parse_error + " at position " +
                         std::to_string(c.parse_error_position));
      continue;
    }
    for (const std::string& n : expr::collect_names(*c.ast))
      if (!names_something(d, n))
        r.error(field, "constraint '" + c.text + "' names '" + n +
                           "', which is neither an axis nor an input or output");
  }
}

// Constraints over const axes alone can be decided now (e.g. num_v_heads % num_q_heads == 0).
void check_constraints_on_consts(const Definition& d, Report& r) {
  AxisValues consts;
  for (const auto& [name, axis] : d.axes)
    if (axis.is_const()) consts[name] = axis.const_value();
  const SpecShapes shapes(d, consts);
  for (const ConstraintResult& res : evaluate_constraints(d, consts, &shapes)) {
    if (res.truth != expr::Truth::is_false) continue;
    const auto index = static_cast<std::size_t>(res.constraint - d.constraints.data());
    r.error("constraints[" + std::to_string(index) + "]", res.message);
  }
}

}  // namespace

std::vector<Diagnostic> validate_definition(const Definition& d, const Location& where) {
  Report r(where);
  if (d.name.empty()) r.error("name", "name is empty");
  if (d.op_type.empty()) r.warning("op_type", "op_type is missing");
  check_axes(d, r);
  std::set<std::string> bindable;
  check_specs(d, d.inputs, "inputs", r, bindable);
  check_specs(d, d.outputs, "outputs", r, bindable);
  for (const auto& [name, axis] : d.axes)
    if (!axis.is_const() && !bindable.contains(name))
      r.warning("axes." + name,
                "var axis '" + name + "' appears in no input shape, so inputs cannot bind it");
  check_names(d, r);
  check_constraints_parse(d, r);
  check_constraints_on_consts(d, r);
  if (d.reference.empty())
    r.error("reference", "reference is missing (Python source defining run)");
  else if (d.reference.find("def run") == std::string::npos)
    r.warning("reference", "reference defines no 'run' function");
  return r.take();
}

}  // namespace kh
