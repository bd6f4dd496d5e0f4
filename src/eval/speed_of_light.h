// Speed of light: the least time a workload can take on a device.
//
// An operator states its work as two formulas over the definition's axes (in
// operator.json): the floating-point operations it must do, and the fewest bytes it
// must move to and from device memory (every input read once, every output written
// once, unless the operator reads less by design). With the device's *measured* peaks
// (bandwidth and the throughput of the unit the operator's math runs on) the floor is
//     floor = max(flops / compute_peak, bytes / bandwidth) + launch_latency
// and a kernel's speed-of-light fraction is floor / its latency. The launch latency is
// what the harness's timer reports for an empty kernel on that device (~1 us on an
// H200): without it a call moving a few kilobytes had a floor of nanoseconds, and no
// kernel could show more than a few percent of it. Arithmetic intensity
// (flops / bytes) against the ridge point (compute_peak / bandwidth) says which of the
// two bounds it is.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "device/device_peaks.h"
#include "error/error.h"
#include "eval/workload_shapes.h"
#include "trace/expr/ast.h"

namespace kh {

struct SpeedOfLightModel {
  std::string flops_text;
  std::string bytes_text;
  std::shared_ptr<const expr::Node> flops;
  std::shared_ptr<const expr::Node> bytes;
  ComputeUnit compute = ComputeUnit::fp32;
};

// {"flops": EXPR, "bytes": EXPR, "compute": "fp32|bf16_tensor|fp8_tensor"}; throws
// kh::Error at `where` naming the field that is missing or does not parse.
[[nodiscard]] SpeedOfLightModel parse_speed_of_light(const nlohmann::ordered_json& j, const Location& where);

struct WorkloadWork {
  double flops = 0;
  double bytes = 0;
};

// Throws kh::Error naming the formula when it needs an axis the workload lacks.
[[nodiscard]] WorkloadWork evaluate_work(const SpeedOfLightModel& model, const AxisValues& axes);

struct SpeedOfLight {
  double floor_s = 0;
  double compute_s = 0;
  double memory_s = 0;
  double intensity = 0;  // flops per byte
  double ridge = 0;      // the device's flops per byte at which both bounds meet
  std::string bound;     // "compute" or "memory"
  double launch_s = 0;   // the device's empty-kernel latency, part of floor_s
};

// nullopt when the peaks the model needs were not measured (zero).
[[nodiscard]] std::optional<SpeedOfLight> speed_of_light(const WorkloadWork& work, ComputeUnit unit,
                                                         const DevicePeaks& peaks);

}  // namespace kh
