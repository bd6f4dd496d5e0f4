#include "eval/speed_of_light.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "trace/constraint.h"
#include "trace/expr/expression_evaluator.h"

namespace kh {

namespace {

std::shared_ptr<const expr::Node> parse_formula(const nlohmann::ordered_json& j, const char* field,
                                                const Location& where, std::string& text) {
  Location at = where;
  at.field = where.field.empty() ? field : where.field + "." + field;
  if (!j.contains(field) || !j[field].is_string()) {
    throw Error(at, "missing: a formula over the definition's axes, as a string");
  }
  text = j[field].get<std::string>();
  Constraint parsed = parse_constraint(text);
  if (!parsed.parsed()) {
    throw Error(at, fmt::format("'{}' does not parse at offset {}: {}", text, parsed.parse_error_position,
                                parsed.parse_error));
  }
  return parsed.ast;
}

double evaluate_formula(const expr::Node& node, const std::string& text, const AxisValues& axes) {
  const std::map<std::string, std::int64_t> plain(axes.begin(), axes.end());
  const expr::Environment env{&plain, nullptr};
  expr::Value v;
  try {
    v = expr::evaluate(node, env);
  } catch (const Error& e) {
    throw Error(fmt::format("speed-of-light formula '{}': {}", text, e.what()));
  }
  if (v.kind == expr::Value::Kind::integer) return static_cast<double>(v.i);
  if (v.kind == expr::Value::Kind::real) return v.r;
  throw Error(fmt::format("speed-of-light formula '{}' is not a number over the workload's axes ({})", text,
                          v.to_string()));
}

}  // namespace

SpeedOfLightModel parse_speed_of_light(const nlohmann::ordered_json& j, const Location& where) {
  if (!j.is_object()) throw Error(where, "must be an object with flops, bytes and compute");
  SpeedOfLightModel m;
  m.flops = parse_formula(j, "flops", where, m.flops_text);
  m.bytes = parse_formula(j, "bytes", where, m.bytes_text);
  const std::string unit = j.value("compute", std::string("fp32"));
  if (unit == "fp32") {
    m.compute = ComputeUnit::fp32;
  } else if (unit == "bf16_tensor") {
    m.compute = ComputeUnit::bf16_tensor;
  } else if (unit == "fp8_tensor") {
    m.compute = ComputeUnit::fp8_tensor;
  } else {
    Location at = where;
    at.field = where.field.empty() ? "compute" : where.field + ".compute";
    throw Error(at, fmt::format("unknown compute unit '{}'; known: fp32, bf16_tensor, fp8_tensor", unit));
  }
  return m;
}

WorkloadWork evaluate_work(const SpeedOfLightModel& model, const AxisValues& axes) {
  return WorkloadWork{evaluate_formula(*model.flops, model.flops_text, axes),
                      evaluate_formula(*model.bytes, model.bytes_text, axes)};
}

std::optional<SpeedOfLight> speed_of_light(const WorkloadWork& work, ComputeUnit unit,
                                           const DevicePeaks& peaks) {
  const double compute_peak = peaks.compute(unit);
  if (peaks.bandwidth <= 0 || (work.flops > 0 && compute_peak <= 0)) return std::nullopt;
  SpeedOfLight s;
  s.compute_s = work.flops > 0 ? work.flops / compute_peak : 0;
  s.memory_s = work.bytes / peaks.bandwidth;
  s.launch_s = peaks.launch_latency;
  s.floor_s = std::max(s.compute_s, s.memory_s) + s.launch_s;
  s.intensity = work.bytes > 0 ? work.flops / work.bytes : 0;
  s.ridge = compute_peak > 0 ? compute_peak / peaks.bandwidth : 0;
  s.bound = s.compute_s >= s.memory_s ? "compute" : "memory";
  return s;
}

}  // namespace kh
