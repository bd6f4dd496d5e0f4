#include "eval/eval_options_json.h"

#include <string>

#include "base/json_field.h"
#include "error/error.h"
#include "timing/timing_protocol.h"

namespace kh {
namespace {

using json = nlohmann::ordered_json;

// Reads `key` of the stored options into `out` when present.
template <class T>
void read(const json& j, const char* key, T& out) {
  read_optional_field(j, "options", key, out);
}

}  // namespace

json options_to_json(const EvalOptions& o) {
  json j = {{"backend", o.backend},
            {"arch", o.arch},
            {"correctness_trials", o.correctness_trials},
            {"recheck", o.recheck},
            {"throttle_ratio", o.throttle_ratio},
            {"timeout_s", o.timeout.count()},
            {"input_set_budget_bytes", o.input_set_budget_bytes},
            {"time_candidate", o.time_candidate},
            {"time_reference", o.time_reference},
            {"speed_of_light", o.speed_of_light},
            {"max_consecutive_failures", o.max_consecutive_failures}};
  write_protocol(j, o.protocol);
  j["seed"] = o.seed ? json(*o.seed) : json(nullptr);
  j["seed_scheme"] = o.seed_scheme == SeedScheme::per_workload ? "per_workload" : "sequential";
  return j;
}

EvalOptions options_from_json(const json& j) {
  if (!j.is_object()) throw Error(Location{"", 0, "options"}, "not a JSON object");
  EvalOptions o;
  read(j, "backend", o.backend);
  read(j, "arch", o.arch);
  o.protocol = read_protocol(j, "options");
  read(j, "correctness_trials", o.correctness_trials);
  read(j, "recheck", o.recheck);
  read(j, "throttle_ratio", o.throttle_ratio);
  long timeout_s = static_cast<long>(o.timeout.count());
  read(j, "timeout_s", timeout_s);
  o.timeout = std::chrono::seconds(timeout_s);
  read(j, "input_set_budget_bytes", o.input_set_budget_bytes);
  read(j, "time_candidate", o.time_candidate);  // absent in archives older than --no-timing: timed
  read(j, "time_reference", o.time_reference);
  read(j, "speed_of_light", o.speed_of_light);
  read(j, "max_consecutive_failures", o.max_consecutive_failures);  // absent in older archives: the default
  std::uint64_t seed = 0;
  if (j.contains("seed") && !j["seed"].is_null()) {
    read(j, "seed", seed);
    o.seed = seed;
  }
  // Runs recorded before per-workload seeds drew one stream through their workloads.
  std::string scheme = "sequential";
  read(j, "seed_scheme", scheme);
  if (scheme != "per_workload" && scheme != "sequential")
    throw Error(Location{"", 0, "options.seed_scheme"}, "unknown seed scheme '" + scheme + "'");
  o.seed_scheme = scheme == "per_workload" ? SeedScheme::per_workload : SeedScheme::sequential;
  return o;
}

json tolerance_to_json(const Tolerance& t) {
  return {{"atol", t.atol}, {"rtol", t.rtol}, {"required_matched_ratio", t.required_matched_ratio}};
}

Tolerance tolerance_from_json(const json& j) {
  Tolerance t;
  if (!j.is_object()) return t;
  read(j, "atol", t.atol);
  read(j, "rtol", t.rtol);
  read(j, "required_matched_ratio", t.required_matched_ratio);
  return t;
}

json speed_of_light_to_json(const SpeedOfLightModel& m) {
  return {{"flops", m.flops_text},
          {"bytes", m.bytes_text},
          {"compute", std::string(compute_unit_name(m.compute))}};
}

}  // namespace kh
