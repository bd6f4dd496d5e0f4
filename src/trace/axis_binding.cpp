#include "trace/axis_binding.h"

#include "error/error.h"

namespace kh {
namespace {

const TensorSpec* find_spec(const Definition& def, std::string_view name) {
  if (const TensorSpec* s = def.inputs.find(name)) return s;
  return def.outputs.find(name);
}

std::string shape_text(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return "[" + s + "]";
}

Location field(const std::string& f) { return Location{"", 0, f}; }

// Binds the axes of one tensor; `origin` remembers where each var axis got its value.
void bind_one(const Definition& def, const std::string& tensor, const std::vector<std::string>& spec,
              const std::vector<std::int64_t>& dims, AxisValues& out,
              std::map<std::string, std::string>& origin) {
  const std::string where = (def.inputs.contains(tensor) ? "inputs." : "outputs.") + tensor + ".shape";
  if (dims.size() != spec.size())
    throw Error(field(where), "'" + tensor + "' has rank " + std::to_string(dims.size()) +
                                  " but the definition gives shape " + shape_text(spec) + " (rank " +
                                  std::to_string(spec.size()) + ")");
  for (std::size_t d = 0; d < spec.size(); ++d) {
    const std::string here = tensor + ".shape[" + std::to_string(d) + "]";
    const Axis* axis = def.axes.find(spec[d]);
    if (axis == nullptr) throw Error(field(where), "axis '" + spec[d] + "' is not declared in axes");
    if (dims[d] < 0) throw Error(field(where), here + " is negative (" + std::to_string(dims[d]) + ")");
    if (axis->is_const()) {
      if (dims[d] != axis->const_value())
        throw Error(field(where), "axis " + spec[d] + " is const " + std::to_string(axis->const_value()) +
                                      " but " + here + " is " + std::to_string(dims[d]));
      continue;
    }
    auto [it, fresh] = out.emplace(spec[d], dims[d]);
    if (fresh) {
      origin[spec[d]] = here;
    } else if (it->second != dims[d]) {
      throw Error(field(where), "axis " + spec[d] + " is " + std::to_string(it->second) + " from " +
                                    origin[spec[d]] + " but " + std::to_string(dims[d]) + " from " + here);
    }
  }
}

}  // namespace

std::optional<std::vector<std::int64_t>> SpecShapes::shape(std::string_view name) const {
  const TensorSpec* spec = find_spec(def_, name);
  if (spec == nullptr || !spec->shape) return std::nullopt;
  std::vector<std::int64_t> dims;
  for (const std::string& axis : *spec->shape) {
    auto it = axes_.find(axis);
    if (it == axes_.end()) return std::nullopt;
    dims.push_back(it->second);
  }
  return dims;
}

std::optional<std::vector<std::int64_t>> GivenShapes::shape(std::string_view name) const {
  auto it = shapes_.find(std::string(name));
  if (it == shapes_.end()) return std::nullopt;
  return it->second;
}

std::optional<double> GivenShapes::value_at(std::string_view name, std::int64_t flat) const {
  return data_ == nullptr ? std::nullopt : data_->value_at(name, flat);
}

std::vector<ConstraintResult> evaluate_constraints(const Definition& def, const AxisValues& axes,
                                                   const expr::TensorAccess* tensors) {
  std::vector<ConstraintResult> out;
  const expr::Environment env{&axes, tensors};
  for (const Constraint& c : def.constraints) {
    if (!c.parsed()) continue;
    ConstraintResult r;
    r.constraint = &c;
    try {
      r.truth = expr::evaluate_truth(*c.ast, env);
      if (r.truth == expr::Truth::is_false) r.message = describe_failure(c, env);
    } catch (const Error& e) {
      r.truth = expr::Truth::is_false;
      r.evaluation_error = true;
      r.message = "constraint '" + c.text + "' cannot be evaluated: " + e.reason();
    }
    out.push_back(std::move(r));
  }
  return out;
}

void check_constraints(const Definition& def, const AxisValues& axes, const expr::TensorAccess* tensors) {
  for (const ConstraintResult& r : evaluate_constraints(def, axes, tensors))
    if (r.truth == expr::Truth::is_false) throw Error(field("constraints"), r.message);
}

AxisValues bind_axes(const Definition& def, const Workload& w) {
  AxisValues out;
  for (const auto& [name, axis] : def.axes)
    if (axis.is_const()) out[name] = axis.const_value();
  for (const auto& [name, value] : w.axes) {
    const Axis* axis = def.axes.find(name);
    const Location at = field("workload.axes." + name);
    if (axis == nullptr)
      throw Error(at, "axis '" + name + "' is not declared by definition '" + def.name + "'");
    if (axis->is_const() && axis->const_value() != value)
      throw Error(at, "axis " + name + " is const " + std::to_string(axis->const_value()) +
                          " but the workload gives " + std::to_string(value));
    out[name] = value;
  }
  for (const auto& [name, axis] : def.axes)
    if (!out.contains(name)) throw Error(field("workload.axes"), "var axis '" + name + "' has no value");
  const SpecShapes shapes(def, out);
  check_constraints(def, out, &shapes);
  return out;
}

AxisValues bind_axes_from_shapes(const Definition& def, const ShapeMap& shapes,
                                 const expr::TensorAccess* data) {
  AxisValues out;
  std::map<std::string, std::string> origin;
  for (const auto& [name, dims] : shapes) {
    const TensorSpec* spec = find_spec(def, name);
    if (spec == nullptr)
      throw Error(field(name), "'" + name + "' is not an input or output of definition '" + def.name + "'");
    if (!spec->shape) continue;  // a scalar has no shape to bind from
    bind_one(def, name, *spec->shape, dims, out, origin);
  }
  for (const auto& [name, spec] : def.inputs)
    if (spec.shape && !spec.optional && !shapes.contains(name))
      throw Error(field("inputs." + name), "no shape given for input '" + name + "'");
  for (const auto& [name, axis] : def.axes) {
    if (axis.is_const())
      out[name] = axis.const_value();
    else if (!out.contains(name))
      throw Error(field("axes." + name), "var axis '" + name + "' appears in no given shape");
  }
  const GivenShapes given(shapes, data);
  check_constraints(def, out, &given);
  return out;
}

}  // namespace kh
