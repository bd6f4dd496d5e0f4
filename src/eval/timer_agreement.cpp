#include "eval/timer_agreement.h"

namespace kh {

bool events_exceed_cupti(const TimedSample& s, bool interpreted) {
  if (s.event_ms < 0 || s.event_ms <= kEventExcessRatio * s.ms + kEventExcessFloorMs) return false;
  if (!interpreted || s.call_ms < 0) return true;
  return s.event_ms - s.ms > s.call_ms + kEventExcessFloorMs;
}

bool blind_iterations_hide_work(std::size_t blind, std::size_t samples) {
  return blind * 10 > samples && (blind >= 2 || samples < 3);
}

}  // namespace kh
