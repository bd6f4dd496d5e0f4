#include "timing/stop_criterion.h"

#include <fmt/format.h>

#include <cmath>

#include "error/error.h"

namespace kh {

namespace {

// Welford's running mean and variance: O(1) per sample, numerically stable, so the
// rule can be asked after every sample of a long run.
class StdRelCriterion final : public StopCriterion {
 public:
  explicit StdRelCriterion(const StopParameters& p) : p_(p) {}
  std::string_view name() const override { return "stdrel"; }

  void add(double sample_ms) override {
    ++n_;
    total_ms_ += sample_ms;
    double delta = sample_ms - mean_;
    mean_ += delta / static_cast<double>(n_);
    m2_ += delta * (sample_ms - mean_);
  }

  bool is_finished() const override {
    if (n_ >= p_.max_samples) return true;
    if (n_ < p_.min_samples || total_ms_ < p_.min_time_s * 1e3) return false;
    return noise() < p_.max_noise;
  }

  std::string reason() const override {
    if (n_ >= p_.max_samples) return fmt::format("reached {} samples", n_);
    return fmt::format("noise {:.2f}% (target {:.2f}%) after {} samples, {:.3f} s measured", noise() * 100,
                       p_.max_noise * 100, n_, total_ms_ / 1e3);
  }

 private:
  double noise() const {
    if (n_ < 2 || mean_ <= 0) return INFINITY;
    return std::sqrt(m2_ / static_cast<double>(n_ - 1)) / mean_;
  }

  StopParameters p_;
  std::size_t n_ = 0;
  double mean_ = 0, m2_ = 0, total_ms_ = 0;
};

class SampleCountCriterion final : public StopCriterion {
 public:
  explicit SampleCountCriterion(const StopParameters& p) : target_(p.min_samples) {}
  std::string_view name() const override { return "sample_count"; }
  void add(double) override { ++n_; }
  bool is_finished() const override { return n_ >= target_; }
  std::string reason() const override { return fmt::format("{} of {} samples", n_, target_); }

 private:
  std::size_t target_;
  std::size_t n_ = 0;
};

}  // namespace

std::unique_ptr<StopCriterion> make_stop_criterion(std::string_view name, const StopParameters& p) {
  if (name == "stdrel") return std::make_unique<StdRelCriterion>(p);
  if (name == "sample_count") return std::make_unique<SampleCountCriterion>(p);
  throw Error(Location{"", 0, "stop_criterion"},
              fmt::format("unknown stopping criterion '{}'; expected stdrel or sample_count", name));
}

}  // namespace kh
