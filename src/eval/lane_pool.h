// LanePool: one thread per device lane, alive as long as the pool. A worker process gets
// SIGKILL when the thread that spawned it exits (PR_SET_PDEATHSIG), so a lane's workers
// are started, used and restarted on that lane's own thread, which outlives them.
//
// Work is dealt dynamically: a lane takes the next item as soon as it finishes its last,
// so one slow workload holds up one lane, not a round-robin share of the others. Which
// lane ran an item never changes what the item computes (seeds are per workload), only
// when it ran.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kh {

class LanePool {
 public:
  // With one lane (or none) there is no thread: work runs on the caller's.
  explicit LanePool(std::size_t lanes);
  LanePool(const LanePool&) = delete;  // owns threads
  LanePool& operator=(const LanePool&) = delete;
  ~LanePool();

  // Calls work(lane) on every lane's thread and waits for all. The first exception
  // thrown is rethrown here, after every lane has returned.
  void each(const std::function<void(std::size_t lane)>& work);
  // Calls work(lane, item) for every item in [0, items), lanes in parallel. Once a call
  // throws, no new item is handed out; the first exception is rethrown as above.
  void deal(std::size_t items, const std::function<void(std::size_t lane, std::size_t item)>& work);

 private:
  void serve(std::size_t lane);

  std::size_t lanes_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  std::function<void(std::size_t)> work_;
  std::size_t generation_ = 0;
  std::size_t running_ = 0;
  bool stopping_ = false;
  std::exception_ptr failure_;
  std::vector<std::jthread> threads_;  // last: started after the state they read, joined first
};

// Deals items over `lanes` short-lived lane threads (a LanePool for this call).
void deal_over_lanes(std::size_t lanes, std::size_t items,
                     const std::function<void(std::size_t lane, std::size_t item)>& work);

}  // namespace kh
