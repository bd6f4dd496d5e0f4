// The reported speedup of a promotion (report/promoted_speedup.h), built from the round's
// confirmation sweeps of the loop's baseline and of the promoted candidate: the figure the
// loop's summary, `kharness report` and the dashboard all print.
#pragma once

#include <optional>
#include <string>

#include "control/promotion.h"
#include "control/sweep.h"
#include "report/promoted_speedup.h"

namespace kh::control {

// nullopt when the two sweeps share no timed workload. `baseline_id` is the content id of
// the loop's baseline; `verdict` gives the evidence kept beside the figure; `rule` gives the
// noise floor and weighs the workloads as the promotion did.
[[nodiscard]] std::optional<report::PromotedSpeedup> reported_speedup(const Sweep& baseline,
                                                                      const Sweep& candidate,
                                                                      const std::string& baseline_id,
                                                                      const PromotionVerdict& verdict,
                                                                      const PromotionRule& rule);

}  // namespace kh::control
