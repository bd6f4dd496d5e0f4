// Shape discovery: a definition's workloads grouped into a few regimes by size, so a
// quick gate runs a few representative shapes and full validation runs them all.
//
// Each workload gets a cost estimate (its speed-of-light floor plus a launch, or the
// product of its var axes when the operator has no model). Costs are clustered on a
// log scale by exact 1-D optimal partitioning (the "natural breaks" dynamic
// programme), which is deterministic and explainable: a boundary sits where sizes jump.
// A single workload carrying at least a third of the total cost is first set apart as
// a regime of its own, since a kernel tuned for the rest may be wrong for it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "trace/definition.h"
#include "trace/workload.h"

namespace kh::profile {

struct RegimeOptions {
  std::size_t min_regimes = 3;
  std::size_t max_regimes = 4;
  double outlier_share = 1.0 / 3.0;  // a workload with this share of the cost stands alone
  // Beyond min_regimes, one more only when it removes at least this share of the
  // workloads' whole spread (of log cost): a real jump in size, not a nuance.
  double split_gain = 0.05;
};

struct Regime {
  std::string name;                          // "small", "medium", "large", "outlier 1", ...
  std::string axes_range;                    // "seq_len 1..16"
  std::vector<std::size_t> members;          // indices into the workloads, by cost
  std::vector<std::size_t> representatives;  // 1 or 2 members for the quick gate
  double cost_share = 0;                     // of the total estimated cost
  std::string reason;                        // why this regime exists, in a sentence
};

struct RegimePlan {
  std::string cost_basis;  // what the costs are
  std::vector<Regime> regimes;
  // Lines a person reads: the basis, then one per regime with its reason.
  [[nodiscard]] std::vector<std::string> explain() const;
};

// `costs[i]` is workload i's estimated cost (> 0), described by `cost_basis`.
// Throws kh::Error when the sizes differ or a cost is not positive.
[[nodiscard]] RegimePlan discover_regimes(const Definition& definition,
                                          const std::vector<Workload>& workloads,
                                          const std::vector<double>& costs, const std::string& cost_basis,
                                          const RegimeOptions& options = {});

// The fallback cost: the product of a workload's var axes (each at least 1).
[[nodiscard]] std::vector<double> var_axes_product(const Definition& definition,
                                                   const std::vector<Workload>& workloads);

}  // namespace kh::profile
