// LocalExecutor: evaluations in this process's workers. One job gets every lane (its
// workloads dealt over them); several jobs split the lanes between them and run side by
// side, each on lanes of its own, so a round's candidates are measured at once on a
// many-GPU host and still never share a GPU.
#pragma once

#include <algorithm>
#include <vector>

#include "scale/executor.h"

namespace kh::scale {

class LocalExecutor final : public Executor {
 public:
  explicit LocalExecutor(std::vector<DeviceLane> lanes) : lanes_(std::move(lanes)) {}

  [[nodiscard]] std::string_view name() const override { return "local"; }
  // One job per lane; one at a time on the default device.
  [[nodiscard]] std::size_t side_by_side() const override { return std::max<std::size_t>(1, lanes_.size()); }
  [[nodiscard]] std::vector<SolutionEvaluation> run(std::vector<EvaluationJob> jobs) override;

 private:
  std::vector<DeviceLane> lanes_;
};

// How `lanes` lanes are shared by `jobs` jobs run side by side: min(jobs, lanes) groups,
// lane l in group l % groups. Each group evaluates one job at a time.
[[nodiscard]] std::vector<std::vector<std::size_t>> lane_groups(std::size_t lanes, std::size_t jobs);

}  // namespace kh::scale
