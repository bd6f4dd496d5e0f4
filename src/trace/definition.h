// Definition: an operator's contract (axes, input and output tensors, constraints, and
// the reference implementation as Python source, which kharness reads but never runs).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tensor/dtype.h"
#include "trace/constraint.h"
#include "trace/named_list.h"

namespace kh {

using ordered_json = nlohmann::ordered_json;

struct ConstAxis {
  std::int64_t value = 0;
};
struct VarAxis {};

struct Axis {
  std::variant<ConstAxis, VarAxis> kind;
  std::string description;
  ordered_json raw;  // the object as read: keeps fields we do not model (e.g. `parent`)

  [[nodiscard]] bool is_const() const { return std::holds_alternative<ConstAxis>(kind); }
  [[nodiscard]] std::int64_t const_value() const { return std::get<ConstAxis>(kind).value; }
};

struct TensorSpec {
  // nullopt: a scalar (JSON null); empty vector: a 0-d tensor.
  std::optional<std::vector<std::string>> shape;
  DType dtype = DType::float32;
  std::string description;
  bool optional = false;
  ordered_json raw;

  [[nodiscard]] bool is_scalar() const { return !shape.has_value(); }
};

struct Definition {
  std::string name;
  std::string op_type;
  std::string description;
  std::vector<std::string> tags;
  NamedList<Axis> axes;
  NamedList<TensorSpec> inputs;
  NamedList<TensorSpec> outputs;
  std::vector<Constraint> constraints;
  std::string reference;  // Python source; empty when absent (validation reports it)
  ordered_json raw;
};

}  // namespace kh
