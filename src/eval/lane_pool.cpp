#include "eval/lane_pool.h"

#include <atomic>

namespace kh {

LanePool::LanePool(std::size_t lanes) : lanes_(lanes == 0 ? 1 : lanes) {
  if (lanes_ == 1) return;
  threads_.reserve(lanes_);
  for (std::size_t lane = 0; lane < lanes_; ++lane) threads_.emplace_back([this, lane] { serve(lane); });
}

LanePool::~LanePool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  threads_.clear();  // joins
}

void LanePool::serve(std::size_t lane) {
  std::size_t seen = 0;
  while (true) {
    std::function<void(std::size_t)> work;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      work = work_;
    }
    std::exception_ptr thrown;
    try {
      work(lane);
    } catch (...) {
      thrown = std::current_exception();  // handed to each(), which rethrows it
    }
    const std::lock_guard lock(mutex_);
    if (thrown && !failure_) failure_ = thrown;
    if (--running_ == 0) finished_.notify_all();
  }
}

void LanePool::each(const std::function<void(std::size_t lane)>& work) {
  if (threads_.empty()) {
    work(0);
    return;
  }
  std::unique_lock lock(mutex_);
  work_ = work;
  failure_ = nullptr;
  running_ = lanes_;
  ++generation_;
  wake_.notify_all();
  finished_.wait(lock, [&] { return running_ == 0; });
  if (failure_) std::rethrow_exception(failure_);
}

void LanePool::deal(std::size_t items, const std::function<void(std::size_t lane, std::size_t item)>& work) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  each([&](std::size_t lane) {
    for (std::size_t i = next++; i < items && !failed.load(); i = next++) {
      try {
        work(lane, i);
      } catch (...) {
        failed = true;  // no new item for any lane; each() rethrows the first failure
        throw;
      }
    }
  });
}

void deal_over_lanes(std::size_t lanes, std::size_t items,
                     const std::function<void(std::size_t lane, std::size_t item)>& work) {
  LanePool pool(lanes);
  pool.deal(items, work);
}

}  // namespace kh
