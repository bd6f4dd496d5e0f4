// A loop's summary as people read it (`kharness optimize` without --json): the rounds and
// their decisions, start and best, and the best's reported speedup over the start
// (report/promoted_speedup.h) with the gate figures named as evidence beside it.
#pragma once

#include <string>

#include "control/optimize_loop.h"

namespace kh::cli {

[[nodiscard]] std::string loop_summary_text(const control::LoopSummary& s);
// "1.081x (robust protocol, fresh workers, round 1, 3 workloads; evidence: ...)".
[[nodiscard]] std::string speedup_sentence(const report::PromotedSpeedup& s, std::int64_t round);

}  // namespace kh::cli
