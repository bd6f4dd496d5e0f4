// The rules that call a workload a reward hack from the evidence of its runs, beside the
// correctness trials' own: a timed run's windows without device activity, activity outside
// every window, work after the call returned, CUDA events beyond CUPTI's span, device time
// beyond the wall clock and touched inputs (the timed outputs' re-check it starts is
// timed_output_recheck.cpp); and, on CUDA, a process the worker started that holds a CUDA
// context of its own. Kept apart from the evaluation's
// steps (workload_evaluation.cpp) so that what is judged, and how, reads in one place.
#include <fmt/format.h>

#include <algorithm>

#include "eval/gpu_handoff_check.h"
#include "eval/timer_agreement.h"
#include "eval/workload_evaluation.h"

namespace kh {

bool WorkloadEvaluation::check_no_gpu_handoff(const char* when) {
  if (ctx_.options.backend != "cuda") return true;
  GpuHandOff h = find_gpu_handoff(candidate_.worker_processes());
  if (h.not_checked) result_.log += fmt::format("GPU hand-off not checked {}: {}\n", when, *h.not_checked);
  // Whatever the trials found before (a wrong answer from a helper not yet done), the
  // hand-off is the verdict: it is why the numbers cannot be trusted. The earlier log stays
  // below the finding: what the trials saw while the helper ran.
  if (h.finding) fail(EvalStatus::reward_hack, fmt::format("{}: {}\n{}", when, *h.finding, result_.log));
  return !h.finding;
}

bool WorkloadEvaluation::verify_timed_run(const TimeResult& r, const TrialPlan& trial,
                                          PendingRechecks& rechecks) {
  const std::size_t invalid =
      std::count_if(r.samples.begin(), r.samples.end(), [](const TimedSample& s) { return !s.valid; });
  if (invalid > 0) {
    fail(EvalStatus::reward_hack,
         fmt::format("{} of {} timed iterations showed no device activity in their window "
                     "(work hidden from the timer, or done on the host)",
                     invalid, r.samples.size()));
    return false;
  }
  if (r.stray > 0) {
    fail(EvalStatus::reward_hack,
         fmt::format("{} device activities ran outside every timed window (work launched "
                     "after the call returned, out of the timer's sight)",
                     r.stray));
    return false;
  }
  if (r.lingering.repeated()) {
    fail(EvalStatus::reward_hack,
         "timed iterations: work continued after the call returned: " + r.lingering.describe());
    return false;
  }
  const BlindIterations blind = count_blind(r.samples, ctx_.interpreted);
  if (blind_iterations_hide_work(blind.count, r.samples.size())) {
    fail(EvalStatus::reward_hack,
         fmt::format("CUDA events measured more than CUPTI saw in {} of {} iterations (up to {:.3f} ms "
                     "against {:.3f} ms): CUPTI records are missing (timer tampering?)",
                     blind.count, r.samples.size(), blind.event_ms, blind.cupti_ms));
    return false;
  }
  if (blind.count > 0)
    result_.log += fmt::format(
        "timed: CUDA events measured {:.3f} ms where CUPTI saw {:.3f} ms in {} of {} iterations (a host "
        "delay before the first launch looks so); those iterations are left out of the latency\n",
        blind.event_ms, blind.cupti_ms, blind.count, r.samples.size());
  double total_ms = 0;
  for (const TimedSample& s : r.samples) total_ms += s.ms;
  if (total_ms > r.wall_ms * 1.05 + 1.0) {
    fail(EvalStatus::reward_hack,
         fmt::format("reported device time {:.3f} ms exceeds the {:.3f} ms the request "
                     "took on the wall clock (forged samples)",
                     total_ms, r.wall_ms));
    return false;
  }
  for (std::size_t s = 0; s < r.input_hashes_after.size(); ++s) {
    const auto& before =
        s < r.input_hashes_before.size() ? r.input_hashes_before[s] : std::vector<std::string>{};
    if (!verify_inputs_untouched(before, r.input_hashes_after[s], fmt::format("timed input set {}", s)))
      return false;
  }
  std::optional<std::vector<SlotRecheck>> slots = fetch_rechecks(r, trial);
  if (!slots) return false;
  start_rechecks(std::move(*slots), rechecks);
  return checks_beside_the_loop() || settle(rechecks);
}

}  // namespace kh
