// Workload: one concrete instance of a definition: the var axes' values and where each
// input's data comes from.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "trace/named_list.h"

namespace kh {

using ordered_json = nlohmann::ordered_json;

struct RandomInput {};
struct ScalarInput {
  ordered_json value;  // number or bool, as written
};
struct SafetensorsInput {
  std::string path;  // relative to the trace set's root, e.g. "./blob/workloads/..."
  std::string tensor_key;
};

struct WorkloadInput {
  std::variant<RandomInput, ScalarInput, SafetensorsInput> source;
  ordered_json raw;
};

struct Workload {
  std::string uuid;
  NamedList<std::int64_t> axes;
  NamedList<WorkloadInput> inputs;
  ordered_json raw;
};

}  // namespace kh
