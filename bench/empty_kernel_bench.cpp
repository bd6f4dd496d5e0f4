// empty_kernel: the smallest latency kharness reports. copy_f32 with n = 1 under the
// official protocol; the solution is one one-thread kernel that copies one float, so
// what is reported is the timer's floor (launch-to-end of a trivial kernel as CUPTI
// sees it), not work. Target: <= 3 us on an H200.
#include "bench_session.h"
#include "error/error.h"
#include "trace/json_io.h"

namespace kh::bench {
namespace {

constexpr double kTargetUs = 3.0;

int run(BenchSession& session) {
  EvaluationTarget t = session.target("copy_f32", session.bench_solution("copy_f32", "copy"));
  t.workloads.resize(1);  // the n = 1 workload comes first
  const SolutionEvaluation e = evaluate_solution(t, session.official_options("empty_kernel"));
  session.set_device(e.device);
  const WorkloadResult& w = e.workloads.front();
  auto& r = session.report();
  r["workload"] = to_json(w.workload);
  r["status"] = status_name(w.status);
  r["log"] = w.log;
  if (!w.latency) throw Error("the solution did not pass, so nothing was timed: " + w.log);
  r["timer"] = w.latency->timer;
  r["timer_note"] = w.latency->timer_note;
  r["latency_us"] = w.latency->latency_ms * 1e3;
  std::vector<double> medians_us;
  for (double m : w.latency->trial_medians_ms) medians_us.push_back(m * 1e3);
  r["trial_medians_us"] = medians_us;
  r["samples"] = {{"count", w.latency->stats.count},
                  {"min_us", w.latency->stats.min * 1e3},
                  {"median_us", w.latency->stats.median * 1e3},
                  {"max_us", w.latency->stats.max * 1e3}};
  if (w.reference_latency) r["reference_latency_us"] = w.reference_latency->latency_ms * 1e3;
  session.add_target("latency_us", w.latency->latency_ms * 1e3, kTargetUs, "us");
  return session.finish();
}

}  // namespace
}  // namespace kh::bench

int main(int argc, char** argv) {
  kh::bench::BenchSession session("empty_kernel", argc, argv);
  return kh::bench::run_guarded("empty_kernel", [&] { return kh::bench::run(session); });
}
