// Concrete axis values and tensor shapes of one workload of a definition.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/definition.h"
#include "trace/workload.h"

namespace kh {

using AxisValues = std::map<std::string, std::int64_t, std::less<>>;

// Const axes from the definition plus var axes from the workload. Throws kh::Error
// naming the workload and axis when a var axis has no value or a value is negative.
[[nodiscard]] AxisValues resolve_axes(const Definition& definition, const Workload& workload);

// The shape of a tensor spec under `axes`; a scalar spec gives an empty shape.
[[nodiscard]] std::vector<std::int64_t> concrete_shape(const TensorSpec& spec, const AxisValues& axes,
                                                       std::string_view tensor_name);

// Bytes of all inputs (or outputs) of one workload; used to size rotating input sets.
[[nodiscard]] std::size_t tensor_bytes(const NamedList<TensorSpec>& specs, const AxisValues& axes);

}  // namespace kh
