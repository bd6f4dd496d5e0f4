#include "eval/timer_agreement.h"

namespace kh {

bool events_exceed_cupti(const TimedSample& s, bool interpreted) {
  if (s.event_ms < 0 || s.event_ms <= kEventExcessRatio * s.ms + kEventExcessFloorMs) return false;
  if (!interpreted || s.call_ms < 0) return true;
  return s.event_ms - s.ms > s.call_ms + kEventExcessFloorMs;
}

BlindIterations count_blind(const std::vector<TimedSample>& samples, bool interpreted) {
  BlindIterations b;
  for (const TimedSample& s : samples) {
    if (!events_exceed_cupti(s, interpreted)) continue;
    ++b.count;
    if (b.count == 1 || s.event_ms - s.ms > b.event_ms - b.cupti_ms) {
      b.event_ms = s.event_ms;
      b.cupti_ms = s.ms;
    }
  }
  return b;
}

bool blind_iterations_hide_work(std::size_t blind, std::size_t samples) {
  return blind > 0 && 2 * blind >= samples;
}

}  // namespace kh
