#include "eval/trace_record.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>

#include "eval/device_peaks_json.h"
#include "trace/json_io.h"

namespace kh {

namespace {

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

ordered_json stats_json(const SampleStatistics& s) {
  return {{"count", s.count}, {"median_ms", s.median},   {"mean_ms", s.mean},        {"q1_ms", s.q1},
          {"q3_ms", s.q3},    {"min_ms", s.min},         {"max_ms", s.max},          {"stdev_ms", s.stdev},
          {"noise", s.noise}, {"ci95_low_ms", s.ci_low}, {"ci95_high_ms", s.ci_high}};
}

ordered_json latency_json(const LatencyMeasurement& m) {
  ordered_json j = {{"source", m.source}};
  if (m.source == "cache") {
    j["measured_at"] = m.measured_at;
    j["cache_key"] = m.cache_key;
  }
  j.update(ordered_json{{"timer", m.timer},
                        {"timer_note", m.timer_note},
                        {"latency_ms", m.latency_ms},
                        {"trial_medians_ms", m.trial_medians_ms},
                        {"samples", stats_json(m.stats)},
                        {"throttled_samples", m.throttled},
                        {"mean_sm_clock_mhz", m.mean_sm_clock_mhz},
                        {"stop_reason", m.stop_reason},
                        {"request_wall_ms", m.request_wall_ms},
                        {"worker_phases_ms", m.phases_ms},
                        {"input_set_seeds", m.set_seeds}});
  return j;
}

ordered_json protocol_json(const EvalOptions& o) {
  // A correctness-only run (--no-timing, the profiler's ncu session) must not claim the
  // iterations and statistic of a timing it never did.
  if (!o.time_candidate) {
    return {{"name", std::string(o.protocol.name())},
            {"correctness_trials", o.correctness_trials},
            {"timing", "none (--no-timing): correctness only"}};
  }
  ordered_json p = {{"name", std::string(o.protocol.name())},
                    {"correctness_trials", o.correctness_trials},
                    {"warmup", o.protocol.warmup},
                    {"recheck", o.recheck},
                    {"throttle_ratio", o.throttle_ratio},
                    {"cache_flush", "before every iteration"},
                    {"cuda_graphs", false}};
  p.update(o.protocol.description());
  return p;
}

ordered_json speed_of_light_json(const EvaluationTarget& target, const SolutionEvaluation& e,
                                 const WorkloadResult& w) {
  ordered_json j = {{"flops", w.work->flops},
                    {"bytes", w.work->bytes},
                    {"compute", std::string(compute_unit_name(target.speed_of_light->compute))},
                    {"flops_formula", target.speed_of_light->flops_text},
                    {"bytes_formula", target.speed_of_light->bytes_text}};
  if (w.speed_of_light) {
    const SpeedOfLight& s = *w.speed_of_light;
    j["floor_ms"] = s.floor_s * 1e3;
    j["launch_ms"] = s.launch_s * 1e3;
    j["bound"] = s.bound;
    j["arithmetic_intensity"] = s.intensity;
    j["ridge_point"] = s.ridge;
    if (w.speed_of_light_fraction() > 0) j["fraction"] = w.speed_of_light_fraction();
    if (const auto& peaks = e.peaks_of(w)) j["device_peaks"] = peaks_json(*peaks);
  } else {
    j["floor_ms"] = nullptr;
    j["note"] = e.peaks_note;
  }
  return j;
}

}  // namespace

ordered_json environment_json(const SolutionEvaluation& e) { return e.device; }

Trace make_trace(const EvaluationTarget& target, const SolutionEvaluation& evaluation,
                 const WorkloadResult& w, const EvalOptions& options, TraceStyle style) {
  Trace t;
  t.definition = target.definition.name;
  t.workload = w.workload;
  t.solution = target.candidate.name;
  Evaluation ev;
  ev.status = w.status;
  if (style.official_status && w.status == EvalStatus::reward_hack) {
    ev.status = EvalStatus::runtime_error;
    ev.log = "REWARD_HACK: ";
  }
  ev.log += w.log;
  ev.timestamp = utc_timestamp();
  // The isolation the candidate ran under, after upstream's fields.
  if (!evaluation.sandbox.is_null())
    ev.environment.raw = {
        {"hardware", ""}, {"libs", ordered_json::object()}, {"sandbox", evaluation.sandbox}};
  const nlohmann::ordered_json& device = evaluation.device_of(w);  // the lane's: the GPU it ran on
  ev.environment.hardware = device.value("name", std::string("unknown"));
  ev.environment.libs.add("driver", device.value("driver", std::string()));
  ev.environment.libs.add("cuda_runtime", device.value("runtime", std::string()));
  ev.environment.libs.add("compiler", evaluation.compiler);
  ev.environment.libs.add("kharness", "0.1.0");
  if (w.correctness && (w.status == EvalStatus::passed || w.status == EvalStatus::incorrect_numerical)) {
    ev.correctness = Correctness{
        w.correctness->max_relative_error, w.correctness->max_absolute_error, w.correctness->extra, {}};
  }
  if (w.status == EvalStatus::passed && w.latency) {
    Performance p;
    p.latency_ms = w.latency->latency_ms;
    p.reference_latency_ms = w.reference_latency ? w.reference_latency->latency_ms : 0;
    p.speedup_factor = w.speedup();
    ev.performance = p;
  }
  ordered_json ours = {{"protocol", protocol_json(options)},
                       {"backend", options.backend},
                       {"status", std::string(status_name(w.status))},
                       {"correctness_seeds", w.check_seeds},
                       {"device", device},
                       {"build",
                        {{"key", evaluation.candidate_build.key},
                         {"cache_hit", evaluation.candidate_build.cache_hit},
                         {"seconds", evaluation.candidate_build.seconds}}},
                       {"worker_restarts", w.worker_restarts}};
  if (w.not_run) ours["not_run"] = true;
  if (!w.orchestrator_ms.empty()) ours["orchestrator_ms"] = w.orchestrator_ms;
  if (!w.requests.empty()) ours["requests"] = w.requests;
  if (w.latency) ours["latency"] = latency_json(*w.latency);
  if (w.reference_latency) ours["reference_latency"] = latency_json(*w.reference_latency);
  if (w.work) ours["speed_of_light"] = speed_of_light_json(target, evaluation, w);
  // Upstream's fields first, ours last, so a reader skimming the line sees the verdict.
  ev.raw = to_json(ev);
  ev.raw["kharness"] = ours;
  t.evaluation = std::move(ev);
  t.raw = ordered_json::object();
  return t;
}

}  // namespace kh
