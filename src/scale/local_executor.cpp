#include "scale/local_executor.h"

#include <algorithm>
#include <optional>

#include "eval/lane_pool.h"

namespace kh::scale {

std::vector<std::vector<std::size_t>> lane_groups(std::size_t lanes, std::size_t jobs) {
  const std::size_t groups = std::max<std::size_t>(1, std::min(lanes, jobs));
  std::vector<std::vector<std::size_t>> out(groups);
  for (std::size_t l = 0; l < lanes; ++l) out[l % groups].push_back(l);
  return out;
}

std::vector<SolutionEvaluation> LocalExecutor::run(std::vector<EvaluationJob> jobs) {
  const std::vector<std::vector<std::size_t>> groups = lane_groups(lanes_.size(), jobs.size());
  std::vector<std::optional<SolutionEvaluation>> results(jobs.size());
  deal_over_lanes(groups.size(), jobs.size(), [&](std::size_t group, std::size_t j) {
    EvaluationJob& job = jobs[j];
    if (job.options.lanes.empty()) {
      for (const std::size_t l : groups[group]) job.options.lanes.push_back(lanes_[l]);
    }
    results[j] = evaluate_solution(job.target, job.options);
  });
  std::vector<SolutionEvaluation> out;
  out.reserve(results.size());
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

}  // namespace kh::scale
