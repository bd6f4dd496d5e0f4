// Do a timed iteration's CUDA events and CUPTI span agree? The events bracket the call
// on the harness's stream; CUPTI sees every activity on every stream. Events measuring
// much more than CUPTI saw means CUPTI was blind to work the candidate ran (records
// disabled or dropped) — unless, for an interpreted call, the excess is device idle time
// the call's own host dispatch explains.
#pragma once

#include <cstddef>
#include <vector>

#include "eval/wire/timed_result.h"

namespace kh {

inline constexpr double kEventExcessRatio = 1.5;
inline constexpr double kEventExcessFloorMs = 0.05;

// True when `s`'s events exceed its CUPTI span by more than kEventExcessRatio and
// kEventExcessFloorMs, and (interpreted calls only) the excess is more than the call's
// host time plus the floor. The device idles between the start event and the first
// launch while Python or Triton dispatches (tens of microseconds; seen above 150 us on
// the H200), and that idle time is at most the call's host time; the whole event span
// is not, since a kernel longer than the call's return path runs on after it.
[[nodiscard]] bool events_exceed_cupti(const TimedSample& s, bool interpreted);

// The iterations of a timed run whose events exceeded their CUPTI span (events_exceed_cupti),
// and the figures of the one with the largest excess (0 when there is none).
struct BlindIterations {
  std::size_t count = 0;
  double event_ms = 0;
  double cupti_ms = 0;
};
[[nodiscard]] BlindIterations count_blind(const std::vector<TimedSample>& samples, bool interpreted);

// Whether `blind` of `samples` timed iterations of a trial whose events exceeded their CUPTI
// span mean work hidden from CUPTI: at least half of them. Fewer are left out of the latency
// (workload_evaluation.cpp), so hiding work in them gains nothing, and an honest call has them:
// a host delay before the first launch looks the same (on the H100 of 2026-12-05 an honest
// one-kernel call, gdn_prefill's lane8 on 23 tokens, had 13 of 50 iterations so, events up to
// 0.215 ms against CUPTI's 0.008 ms; on the H200 another had 1 of 5). A tamperer must hide work
// in most iterations to move a median, and then stays caught (cupti_blind.cu).
[[nodiscard]] bool blind_iterations_hide_work(std::size_t blind, std::size_t samples);

}  // namespace kh
