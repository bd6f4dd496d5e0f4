#include "eval/evaluation_json.h"

#include <fmt/format.h>

#include <string>

#include "error/error.h"
#include "eval/device_peaks_json.h"

namespace kh {

namespace {

using json = nlohmann::ordered_json;

// Reads j[key] as T; a missing or mistyped value is an error naming where.
template <class T>
T get(const json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end()) throw Error(Location{"", 0, where + "." + key}, "missing");
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(Location{"", 0, where + "." + key}, std::string("wrong type: ") + e.what());
  }
}

const json* optional_object(const json& j, const char* key) {
  const auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

json build_json(const BuildResult& b) {
  return {{"status", std::string(build_status_name(b.status))},
          {"library", b.library.string()},
          {"log", b.log},
          {"key", b.key},
          {"cache_hit", b.cache_hit},
          {"seconds", b.seconds},
          {"message", b.message}};
}

BuildResult build_from_json(const json& j, const std::string& where) {
  BuildResult b;
  const std::string status = get<std::string>(j, "status", where);
  const auto parsed = parse_build_status(status);
  if (!parsed) throw Error(Location{"", 0, where + ".status"}, "unknown build status '" + status + "'");
  b.status = *parsed;
  b.library = get<std::string>(j, "library", where);
  b.log = get<std::string>(j, "log", where);
  b.key = get<std::string>(j, "key", where);
  b.cache_hit = get<bool>(j, "cache_hit", where);
  b.seconds = get<double>(j, "seconds", where);
  b.message = get<std::string>(j, "message", where);
  return b;
}

json stats_json(const SampleStatistics& s) {
  return {{"count", s.count}, {"mean", s.mean},     {"median", s.median},  {"q1", s.q1},
          {"q3", s.q3},       {"min", s.min},       {"max", s.max},        {"stdev", s.stdev},
          {"noise", s.noise}, {"ci_low", s.ci_low}, {"ci_high", s.ci_high}};
}

SampleStatistics stats_from_json(const json& j, const std::string& w) {
  return {get<std::size_t>(j, "count", w), get<double>(j, "mean", w),   get<double>(j, "median", w),
          get<double>(j, "q1", w),         get<double>(j, "q3", w),     get<double>(j, "min", w),
          get<double>(j, "max", w),        get<double>(j, "stdev", w),  get<double>(j, "noise", w),
          get<double>(j, "ci_low", w),     get<double>(j, "ci_high", w)};
}

}  // namespace

json latency_to_json(const LatencyMeasurement& m) {
  return {{"timer", m.timer},
          {"timer_note", m.timer_note},
          {"latency_ms", m.latency_ms},
          {"trial_medians_ms", m.trial_medians_ms},
          {"stats", stats_json(m.stats)},
          {"throttled", m.throttled},
          {"mean_sm_clock_mhz", m.mean_sm_clock_mhz},
          {"set_seeds", m.set_seeds},
          {"samples_ms", m.samples_ms},
          {"stop_reason", m.stop_reason},
          {"phases_ms", m.phases_ms},
          {"request_wall_ms", m.request_wall_ms},
          {"source", m.source},
          {"measured_at", m.measured_at},
          {"cache_key", m.cache_key}};
}

LatencyMeasurement latency_from_json(const json& j, const std::string& w) {
  LatencyMeasurement m;
  m.timer = get<std::string>(j, "timer", w);
  m.timer_note = get<std::string>(j, "timer_note", w);
  m.latency_ms = get<double>(j, "latency_ms", w);
  m.trial_medians_ms = get<std::vector<double>>(j, "trial_medians_ms", w);
  m.stats = stats_from_json(get<json>(j, "stats", w), w + ".stats");
  m.throttled = get<std::size_t>(j, "throttled", w);
  m.mean_sm_clock_mhz = get<double>(j, "mean_sm_clock_mhz", w);
  m.set_seeds = get<std::vector<std::vector<std::uint64_t>>>(j, "set_seeds", w);
  m.samples_ms = get<std::vector<std::vector<double>>>(j, "samples_ms", w);
  m.stop_reason = get<std::string>(j, "stop_reason", w);
  m.phases_ms = get<json>(j, "phases_ms", w);
  m.request_wall_ms = get<double>(j, "request_wall_ms", w);
  m.source = get<std::string>(j, "source", w);
  m.measured_at = get<std::string>(j, "measured_at", w);
  m.cache_key = get<std::string>(j, "cache_key", w);
  return m;
}

namespace {

json verdict_json(const CheckVerdict& v) {
  return {{"passed", v.passed},
          {"non_finite", v.non_finite},
          {"reason", v.reason},
          {"max_absolute_error", v.max_absolute_error},
          {"max_relative_error", v.max_relative_error},
          {"extra", v.extra}};
}

CheckVerdict verdict_from_json(const json& j, const std::string& w) {
  return {get<bool>(j, "passed", w),
          get<bool>(j, "non_finite", w),
          get<std::string>(j, "reason", w),
          get<double>(j, "max_absolute_error", w),
          get<double>(j, "max_relative_error", w),
          get<json>(j, "extra", w)};
}

json sol_json(const SpeedOfLight& s) {
  return {{"floor_s", s.floor_s},   {"compute_s", s.compute_s}, {"memory_s", s.memory_s},
          {"launch_s", s.launch_s}, {"intensity", s.intensity}, {"ridge", s.ridge},
          {"bound", s.bound}};
}

SpeedOfLight sol_from_json(const json& j, const std::string& w) {
  SpeedOfLight s{get<double>(j, "floor_s", w),  get<double>(j, "compute_s", w),
                 get<double>(j, "memory_s", w), get<double>(j, "intensity", w),
                 get<double>(j, "ridge", w),    get<std::string>(j, "bound", w)};
  s.launch_s = j.value("launch_s", 0.0);  // absent before floors included it
  return s;
}

json workload_json(const WorkloadResult& r) {
  auto optional = [](const auto& v, auto encode) { return v ? encode(*v) : json(nullptr); };
  return {{"uuid", r.workload.uuid},
          {"status", std::string(status_name(r.status))},
          {"log", r.log},
          {"check_seeds", r.check_seeds},
          {"correctness", optional(r.correctness, verdict_json)},
          {"latency", optional(r.latency, latency_to_json)},
          {"reference_latency", optional(r.reference_latency, latency_to_json)},
          {"worker_restarts", r.worker_restarts},
          {"orchestrator_ms", r.orchestrator_ms},
          {"requests", r.requests},
          {"fatal", r.fatal},
          {"not_run", r.not_run},
          {"lane", r.lane},
          {"work", r.work ? json{{"flops", r.work->flops}, {"bytes", r.work->bytes}} : json(nullptr)},
          {"speed_of_light", optional(r.speed_of_light, sol_json)}};
}

WorkloadResult workload_from_json(const json& j, const Workload& workload, const std::string& w) {
  WorkloadResult r;
  r.workload = workload;
  if (const auto uuid = get<std::string>(j, "uuid", w); uuid != workload.uuid) {
    throw Error(Location{"", 0, w + ".uuid"},
                fmt::format("'{}' where workload '{}' was expected", uuid, workload.uuid));
  }
  const std::string status = get<std::string>(j, "status", w);
  const auto parsed = parse_status(status);
  if (!parsed) throw Error(Location{"", 0, w + ".status"}, "unknown status '" + status + "'");
  r.status = *parsed;
  r.log = get<std::string>(j, "log", w);
  r.check_seeds = get<std::vector<std::uint64_t>>(j, "check_seeds", w);
  if (const json* c = optional_object(j, "correctness"))
    r.correctness = verdict_from_json(*c, w + ".correctness");
  if (const json* l = optional_object(j, "latency")) r.latency = latency_from_json(*l, w + ".latency");
  if (const json* l = optional_object(j, "reference_latency"))
    r.reference_latency = latency_from_json(*l, w + ".reference_latency");
  r.worker_restarts = get<std::size_t>(j, "worker_restarts", w);
  // Records written before the field existed have none.
  if (const json* o = optional_object(j, "orchestrator_ms")) r.orchestrator_ms = *o;
  if (const json* o = optional_object(j, "requests")) r.requests = *o;
  r.fatal = get<bool>(j, "fatal", w);
  r.not_run = get<bool>(j, "not_run", w);
  r.lane = get<std::size_t>(j, "lane", w);
  if (const json* k = optional_object(j, "work"))
    r.work = WorkloadWork{get<double>(*k, "flops", w + ".work"), get<double>(*k, "bytes", w + ".work")};
  if (const json* s = optional_object(j, "speed_of_light"))
    r.speed_of_light = sol_from_json(*s, w + ".speed_of_light");
  return r;
}

json lane_json(const LaneDevice& l) {
  return {{"device", l.device},
          {"peaks", l.peaks ? peaks_json(*l.peaks) : json(nullptr)},
          {"peaks_note", l.peaks_note}};
}

LaneDevice lane_from_json(const json& j, const std::string& w) {
  LaneDevice l;
  l.device = get<json>(j, "device", w);
  if (const json* p = optional_object(j, "peaks")) l.peaks = peaks_from_json(*p);
  l.peaks_note = get<std::string>(j, "peaks_note", w);
  return l;
}

}  // namespace

json evaluation_to_json(const SolutionEvaluation& e) {
  json lanes = json::array();
  for (const LaneDevice& l : e.lanes) lanes.push_back(lane_json(l));
  json workloads = json::array();
  for (const WorkloadResult& r : e.workloads) workloads.push_back(workload_json(r));
  return {{"candidate_build", build_json(e.candidate_build)},
          {"reference_build", build_json(e.reference_build)},
          {"device", e.device},
          {"compiler", e.compiler},
          {"peaks", e.peaks ? peaks_json(*e.peaks) : json(nullptr)},
          {"peaks_note", e.peaks_note},
          {"sandbox", e.sandbox},
          {"lanes", std::move(lanes)},
          {"workloads", std::move(workloads)}};
}

SolutionEvaluation evaluation_from_json(const json& j, std::span<const Workload> workloads) {
  if (!j.is_object()) throw Error(Location{"", 0, "evaluation"}, "not a JSON object");
  SolutionEvaluation e;
  e.candidate_build =
      build_from_json(get<json>(j, "candidate_build", "evaluation"), "evaluation.candidate_build");
  e.reference_build =
      build_from_json(get<json>(j, "reference_build", "evaluation"), "evaluation.reference_build");
  e.device = get<json>(j, "device", "evaluation");
  e.compiler = get<std::string>(j, "compiler", "evaluation");
  if (const json* p = optional_object(j, "peaks")) e.peaks = peaks_from_json(*p);
  e.peaks_note = get<std::string>(j, "peaks_note", "evaluation");
  e.sandbox = get<json>(j, "sandbox", "evaluation");
  const json lanes = get<json>(j, "lanes", "evaluation");
  for (std::size_t i = 0; i < lanes.size(); ++i)
    e.lanes.push_back(lane_from_json(lanes[i], fmt::format("evaluation.lanes[{}]", i)));
  const json results = get<json>(j, "workloads", "evaluation");
  if (!results.is_array() || results.size() != workloads.size()) {
    throw Error(Location{"", 0, "evaluation.workloads"},
                fmt::format("{} results for {} workloads", results.is_array() ? results.size() : 0,
                            workloads.size()));
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string where = fmt::format("evaluation.workloads[{}]", i);
    e.workloads.push_back(workload_from_json(results[i], workloads[i], where));
    if (!e.lanes.empty() && e.workloads.back().lane >= e.lanes.size())
      throw Error(Location{"", 0, where + ".lane"}, "names no lane of the evaluation");
  }
  return e;
}

}  // namespace kh
