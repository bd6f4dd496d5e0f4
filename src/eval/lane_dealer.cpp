#include "eval/lane_dealer.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace kh {

namespace {

// The first exception any lane threw; later ones are consequences (a cancelled lane).
class FirstFailure {
 public:
  void keep(std::exception_ptr e) {
    const std::lock_guard lock(mutex_);
    if (!first_) first_ = std::move(e);
    failed_ = true;
  }
  [[nodiscard]] bool failed() const noexcept { return failed_.load(); }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr first_;
  std::atomic<bool> failed_{false};
};

void run_lanes(std::size_t lanes, const std::function<void(std::size_t)>& lane_body, FirstFailure& failure) {
  std::vector<std::jthread> threads;
  threads.reserve(lanes);
  for (std::size_t lane = 0; lane < lanes; ++lane) {
    threads.emplace_back([&, lane] {
      try {
        lane_body(lane);
      } catch (...) {
        failure.keep(std::current_exception());  // rethrown by the caller, after the join
      }
    });
  }
  threads.clear();  // joins
  failure.rethrow();
}

}  // namespace

void deal_over_lanes(std::size_t lanes, std::size_t items,
                     const std::function<void(std::size_t lane, std::size_t item)>& work) {
  if (lanes <= 1) {
    for (std::size_t i = 0; i < items; ++i) work(0, i);
    return;
  }
  std::atomic<std::size_t> next{0};
  FirstFailure failure;
  run_lanes(
      lanes,
      [&](std::size_t lane) {
        for (std::size_t i = next++; i < items && !failure.failed(); i = next++) work(lane, i);
      },
      failure);
}

void for_each_lane(std::size_t lanes, const std::function<void(std::size_t lane)>& work) {
  if (lanes <= 1) {
    if (lanes == 1) work(0);
    return;
  }
  FirstFailure failure;
  run_lanes(lanes, work, failure);
}

}  // namespace kh
