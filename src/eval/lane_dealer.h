// Work dealt over device lanes, one thread a lane. The dealing is dynamic: a lane takes
// the next item as soon as it finishes its last, so one slow workload holds up one lane,
// not a round-robin share of the others. Which lane ran an item never changes what the
// item computes (seeds are per workload), only when.
#pragma once

#include <cstddef>
#include <functional>

namespace kh {

// Calls work(lane, item) for every item in [0, items), lanes in parallel. Once a call
// throws, no new item is handed out; the first exception is rethrown after every lane
// has stopped. With one lane, everything runs on the calling thread.
void deal_over_lanes(std::size_t lanes, std::size_t items,
                     const std::function<void(std::size_t lane, std::size_t item)>& work);

// Calls work(lane) once for each lane, in parallel; exceptions as above.
void for_each_lane(std::size_t lanes, const std::function<void(std::size_t lane)>& work);

}  // namespace kh
