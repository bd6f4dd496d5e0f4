#include "eval/workload_shapes.h"

#include <fmt/format.h>

#include "error/error.h"
#include "tensor/dtype.h"

namespace kh {

AxisValues resolve_axes(const Definition& definition, const Workload& workload) {
  AxisValues axes;
  for (const auto& [name, axis] : definition.axes) {
    if (axis.is_const()) {
      axes[name] = axis.const_value();
      continue;
    }
    const std::int64_t* value = workload.axes.find(name);
    if (value == nullptr) {
      throw Error(Location{"", 0, fmt::format("workload {}: axes.{}", workload.uuid, name)},
                  fmt::format("var axis '{}' of definition '{}' has no value", name, definition.name));
    }
    if (*value < 0) {
      throw Error(Location{"", 0, fmt::format("workload {}: axes.{}", workload.uuid, name)},
                  fmt::format("axis value {} is negative", *value));
    }
    axes[name] = *value;
  }
  return axes;
}

std::vector<std::int64_t> concrete_shape(const TensorSpec& spec, const AxisValues& axes,
                                         std::string_view tensor_name) {
  std::vector<std::int64_t> shape;
  if (spec.is_scalar()) return shape;
  for (const std::string& axis : *spec.shape) {
    auto it = axes.find(axis);
    if (it == axes.end()) {
      throw Error(Location{"", 0, fmt::format("{}.shape", tensor_name)},
                  fmt::format("axis '{}' is not declared", axis));
    }
    shape.push_back(it->second);
  }
  return shape;
}

std::size_t tensor_bytes(const NamedList<TensorSpec>& specs, const AxisValues& axes) {
  std::size_t total = 0;
  for (const auto& [name, spec] : specs) {
    std::size_t n = 1;
    for (std::int64_t d : concrete_shape(spec, axes, name)) n *= static_cast<std::size_t>(d);
    total += dtype_storage_bytes(spec.dtype, n);
  }
  return total;
}

}  // namespace kh
