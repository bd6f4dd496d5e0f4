#include "eval/eval_invocation.h"

namespace kh {

std::vector<std::string> EvalInvocation::arguments() const {
  std::vector<std::string> a{eval_flag::kCommand,
                             eval_flag::kDefinition,
                             definition,
                             eval_flag::kSolution,
                             solution.string(),
                             eval_flag::kBackend,
                             backend,
                             eval_flag::kTrials,
                             std::to_string(correctness_trials)};
  if (!timing) a.emplace_back(eval_flag::kNoTiming);
  if (!sandbox.empty()) a.insert(a.end(), {eval_flag::kSandbox, sandbox});
  for (const std::string& uuid : workloads) a.insert(a.end(), {eval_flag::kWorkload, uuid});
  if (!trace_set.empty()) a.insert(a.end(), {eval_flag::kTraceSet, trace_set.string()});
  if (!gpus.empty()) a.insert(a.end(), {eval_flag::kGpus, gpus});
  return a;
}

}  // namespace kh
