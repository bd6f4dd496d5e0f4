#include "tensor/standard_normal.h"

#include <array>
#include <cmath>

#include "tensor/counter_rng.h"

namespace kh {

namespace {

constexpr int kLayers = detail::kZigguratLayers;
using Tables = detail::ZigguratTables;
constexpr double kR = 3.6541528853610088;   // start of the tail (Marsaglia & Tsang, 256 layers)
constexpr double kArea = 4.92867323399e-3;  // area of each layer
constexpr unsigned kRetriesPerIndex = 64;   // counters reserved per index on the retry stream

double density(double x) { return std::exp(-0.5 * x * x); }

Tables build_tables() {
  Tables t;
  t.x[0] = kArea / density(kR);
  t.x[1] = kR;
  for (int i = 1; i < kLayers - 1; ++i)
    t.x[i + 1] = std::sqrt(-2.0 * std::log(kArea / t.x[i] + density(t.x[i])));
  t.x[kLayers] = 0.0;
  for (int i = 0; i <= kLayers; ++i) t.f[i] = density(t.x[i]);
  t.f[0] = density(kR);  // only used for layer 0's upper bound, which the tail path replaces
  for (int i = 0; i < kLayers; ++i) t.inner_ratio[i] = t.x[i + 1] / t.x[i];
  return t;
}

class RetryStream {
 public:
  RetryStream(std::uint64_t key, std::uint64_t index) : key_(key), base_(index * kRetriesPerIndex) {}
  bool exhausted() const { return used_ >= kRetriesPerIndex; }
  std::uint64_t next() { return random_word(key_, base_ + used_++); }
  double open_unit() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }  // (0, 1]

 private:
  std::uint64_t key_;
  std::uint64_t base_;
  std::uint64_t used_ = 0;
};

// One ziggurat attempt from a word: returns true with z set when accepted.
bool attempt(const Tables& t, std::uint64_t w, RetryStream& retry, double& z) {
  const auto layer = static_cast<int>(w & (kLayers - 1));
  const double sign = (w & 0x100u) != 0 ? -1.0 : 1.0;
  const double u = unit_double(w);
  if (u < t.inner_ratio[layer]) {
    z = sign * u * t.x[layer];
    return true;
  }
  if (layer == 0) {
    // Tail beyond r, by Marsaglia's exponential rejection.
    while (!retry.exhausted()) {
      const double a = -std::log(retry.open_unit()) / kR;
      const double b = -std::log(retry.open_unit());
      if (b + b > a * a) {
        z = sign * (kR + a);
        return true;
      }
    }
    return false;
  }
  const double x = u * t.x[layer];
  if (retry.exhausted()) return false;
  const double y = t.f[layer] + unit_double(retry.next()) * (t.f[layer + 1] - t.f[layer]);
  if (y < density(x)) {
    z = sign * x;
    return true;
  }
  return false;
}

}  // namespace

namespace detail {

const ZigguratTables& ziggurat_tables() noexcept {
  static const ZigguratTables t = build_tables();
  return t;
}

double standard_normal_slow(std::uint64_t w, std::uint64_t retry_key, std::uint64_t index) noexcept {
  const Tables& t = ziggurat_tables();
  RetryStream retry(retry_key, index);
  double z = 0.0;
  if (attempt(t, w, retry, z)) return z;
  while (!retry.exhausted()) {
    if (attempt(t, retry.next(), retry, z)) return z;
  }
  return 0.0;  // 64 consecutive rejections: probability far below 1e-100; keep it deterministic
}

}  // namespace detail

double standard_normal(std::uint64_t key, std::uint64_t retry_key, std::uint64_t index) noexcept {
  return NormalStream(key, retry_key)(index);
}

}  // namespace kh
