// EvalOptions, tolerance and the speed-of-light model as JSON, both ways: a run stores
// what shaped its measurement, and rerun reads it back. Paths, callbacks and the
// worker executable are left out: they belong to the machine, not to the measurement.
#pragma once

#include <nlohmann/json.hpp>

#include "eval/check/value_comparison.h"
#include "eval/eval_options.h"
#include "eval/speed_of_light.h"

namespace kh {

[[nodiscard]] nlohmann::ordered_json options_to_json(const EvalOptions& options);
// Fields absent from `j` keep EvalOptions' defaults; a field of the wrong type throws
// kh::Error naming it.
[[nodiscard]] EvalOptions options_from_json(const nlohmann::ordered_json& j);

[[nodiscard]] nlohmann::ordered_json tolerance_to_json(const Tolerance& t);
[[nodiscard]] Tolerance tolerance_from_json(const nlohmann::ordered_json& j);

// The operator.json form ({"flops", "bytes", "compute"}), which parse_speed_of_light reads.
[[nodiscard]] nlohmann::ordered_json speed_of_light_to_json(const SpeedOfLightModel& model);

}  // namespace kh
