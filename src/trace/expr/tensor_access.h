// What an expression may ask about tensors: their shapes and single element values.
//
// Callers supply it: the validator knows shapes (from the definition and a workload's axes)
// but no data; the harness knows both once inputs exist.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace kh::expr {

class TensorAccess {
 public:
  virtual ~TensorAccess() = default;
  // nullopt when the tensor or its shape is not known here.
  [[nodiscard]] virtual std::optional<std::vector<std::int64_t>> shape(std::string_view name) const = 0;
  // Element `flat_index` (row-major) of tensor `name`; nullopt when the data is not available.
  [[nodiscard]] virtual std::optional<double> value_at(std::string_view name,
                                                       std::int64_t flat_index) const = 0;
};

}  // namespace kh::expr
