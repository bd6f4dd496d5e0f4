// Stopping rules for the robust protocol: when have we sampled enough?
//
// A rule sees every accepted sample and answers is_finished(). Rules are chosen by
// name (make_stop_criterion), so adding one is one new file and one registry line.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kh {

struct StopParameters {
  double max_noise = 0.005;  // relative stdev to reach (0.5%)
  std::size_t min_samples = 10;
  double min_time_s = 0.5;  // accumulated measured time, seconds
  // Wall-clock limit, checked by the caller. Tiny kernels rarely reach 0.5 s of measured
  // time (each cold sample costs a flush), so this is what ends most of their runs.
  double timeout_s = 5.0;
  std::size_t max_samples = 100000;
};

class StopCriterion {
 public:
  virtual ~StopCriterion() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  virtual void add(double sample_ms) = 0;
  [[nodiscard]] virtual bool is_finished() const = 0;
  // Why it stopped or would stop, e.g. "noise 0.31% < 0.50% after 120 samples".
  [[nodiscard]] virtual std::string reason() const = 0;
};

// "stdrel": relative standard deviation below max_noise, with minimum count and time.
// "sample_count": exactly min_samples samples.
[[nodiscard]] std::unique_ptr<StopCriterion> make_stop_criterion(std::string_view name,
                                                                 const StopParameters& p);

}  // namespace kh
