// harness_overhead: what evaluate_solution costs beyond the kernels it times, for a
// solution already in the build cache. rmsnorm_h128's own reference is evaluated as
// the candidate under the official protocol: once to fill the cache, once with no
// workloads (setup: build-cache hits, two worker starts, library loads), then timed
// on all workloads. Per workload, the wall clock between progress reports minus the
// device time the protocol spent in kernels (estimated from the measured latencies:
// candidate and reference, every correctness, warm-up and timed call) is the
// overhead. The reference's latency comes from the reference-latency cache after the
// first run (its correctness calls still run). Target: median overhead < 20 ms per workload.
#include <numeric>

#include "bench_session.h"
#include "error/error.h"
#include "timing/sample_statistics.h"

namespace kh::bench {
namespace {

constexpr double kTargetMs = 20.0;

// Device time of the kernel calls the protocol made for one workload: a reference
// latency taken from the cache cost its correctness calls only.
double kernel_ms(const WorkloadResult& w, const EvalOptions& o) {
  const double calls_per_trial = o.protocol.warmup + o.protocol.iterations;
  double ms = 0;
  for (const auto* m : {&w.latency, &w.reference_latency}) {
    if (!*m) continue;
    const double timed_calls = (*m)->source == "cache" ? 0.0 : calls_per_trial * o.protocol.trials;
    ms += (*m)->latency_ms * (timed_calls + o.correctness_trials);
  }
  return ms;
}

int run(BenchSession& session) {
  const std::string definition = "rmsnorm_h128";
  EvaluationTarget t = session.target(definition, Solution{});
  t.candidate = t.reference;
  t.candidate.name = definition + "_candidate";

  EvalOptions warm = session.official_options("warm");
  const auto warm_start = Clock::now();
  (void)evaluate_solution(t, warm);  // fills the build cache
  const double warm_ms = ms_between(warm_start, Clock::now());

  EvaluationTarget empty = t;
  empty.workloads.clear();
  const auto setup_start = Clock::now();
  const SolutionEvaluation setup = evaluate_solution(empty, session.official_options("setup"));
  const double setup_ms = ms_between(setup_start, Clock::now());
  if (!setup.candidate_build.cache_hit) throw Error("the candidate was not a build-cache hit");

  EvalOptions o = session.official_options("timed");
  std::vector<Clock::time_point> reported;
  o.on_progress = [&](const EvalProgress&) { reported.push_back(Clock::now()); };
  const auto start = Clock::now();
  const SolutionEvaluation e = evaluate_solution(t, o);
  const double total_ms = ms_between(start, Clock::now());
  session.set_device(e.device);

  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::vector<double> overheads;
  for (std::size_t i = 0; i < e.workloads.size(); ++i) {
    const WorkloadResult& w = e.workloads[i];
    // The first interval also holds the workers' start and the build-cache lookups, so
    // it is reported but left out of the statistic.
    const bool includes_setup = i == 0;
    const double wall =
        includes_setup ? ms_between(start, reported[0]) : ms_between(reported[i - 1], reported[i]);
    const double kernels = kernel_ms(w, o);
    if (!includes_setup) overheads.push_back(wall - kernels);
    rows.push_back(
        {{"uuid", w.workload.uuid},
         {"status", status_name(w.status)},
         {"wall_ms", wall},
         {"kernel_ms", kernels},
         {"overhead_ms", wall - kernels},
         {"latency_us", w.latency ? w.latency->latency_ms * 1e3 : 0.0},
         {"reference_latency_us", w.reference_latency ? w.reference_latency->latency_ms * 1e3 : 0.0},
         {"includes_setup", includes_setup},
         {"candidate_time_requests_ms", w.latency ? w.latency->request_wall_ms : 0.0},
         {"candidate_worker_phases_ms", w.latency ? w.latency->phases_ms : nlohmann::ordered_json{}},
         {"reference_latency_source", w.reference_latency ? w.reference_latency->source : ""},
         {"reference_time_requests_ms", w.reference_latency && w.reference_latency->source == "measured"
                                            ? w.reference_latency->request_wall_ms
                                            : 0.0},
         {"reference_worker_phases_ms",
          w.reference_latency ? w.reference_latency->phases_ms : nlohmann::ordered_json{}},
         {"orchestrator_ms", w.orchestrator_ms},
         {"requests", w.requests}});
    if (w.status != EvalStatus::passed)
      throw Error("workload " + w.workload.uuid + " did not pass: " + w.log);
  }
  auto& r = session.report();
  r["definition"] = definition;
  r["protocol"] = {{"correctness_trials", o.correctness_trials},
                   {"warmup", o.protocol.warmup},
                   {"iterations", o.protocol.iterations},
                   {"timing_trials", o.protocol.trials}};
  r["first_run_with_builds_ms"] = warm_ms;
  r["setup_ms"] = setup_ms;
  r["setup_cache_hits"] = {setup.reference_build.cache_hit, setup.candidate_build.cache_hit};
  r["total_ms"] = total_ms;
  r["workloads"] = rows;
  r["median_overhead_ms"] = median(overheads);
  r["mean_overhead_ms"] =
      std::accumulate(overheads.begin(), overheads.end(), 0.0) / static_cast<double>(overheads.size());
  session.add_target("median_overhead_ms_per_workload", median(overheads), kTargetMs, "ms");
  return session.finish();
}

}  // namespace
}  // namespace kh::bench

int main(int argc, char** argv) {
  kh::bench::BenchSession session("harness_overhead", argc, argv);
  return kh::bench::run_guarded("harness_overhead", [&] { return kh::bench::run(session); });
}
