// Standard normal variates from a counter-based stream, by the ziggurat method.
//
// Why ziggurat: about 99% of draws need one random word, a table lookup and a multiply,
// which is what lets float32 generation exceed 200M elements/s on one core. Box-Muller
// would need log, sqrt and sincos per pair, several times slower.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "tensor/counter_rng.h"

namespace kh {

namespace detail {
inline constexpr int kZigguratLayers = 256;

// x[i] is the right edge of layer i; layer 0 is the base strip, whose "virtual" width
// area/f(r) makes it hold the same area as the others once the tail is included.
struct ZigguratTables {
  std::array<double, kZigguratLayers + 1> x{};
  std::array<double, kZigguratLayers + 1> f{};        // density at x[i]
  std::array<double, kZigguratLayers> inner_ratio{};  // x[i+1]/x[i]: below it a point is surely inside
};

[[nodiscard]] const ZigguratTables& ziggurat_tables() noexcept;

// Everything past the fast path: the wedges, the tail and the retries.
[[nodiscard]] double standard_normal_slow(std::uint64_t first_word, std::uint64_t retry_key,
                                          std::uint64_t index) noexcept;
}  // namespace detail

// A generator bound to one seed's streams; the fast path is inline so a fill loop keeps
// independent elements in flight instead of paying a call per element.
class NormalStream {
 public:
  NormalStream(std::uint64_t key, std::uint64_t retry_key) noexcept
      : tables_(detail::ziggurat_tables()), key_(key), retry_key_(retry_key) {}

  [[nodiscard]] double operator()(std::uint64_t index) const noexcept {
    const std::uint64_t w = random_word(key_, index);
    const auto layer = static_cast<std::size_t>(w & (detail::kZigguratLayers - 1));
    const double u = unit_double(w);
    if (u < tables_.inner_ratio[layer]) [[likely]] {
      // Sign applied by flipping the sign bit: a branch on a random bit mispredicts half the time.
      const std::uint64_t sign = (w & 0x100u) << 55;
      return std::bit_cast<double>(std::bit_cast<std::uint64_t>(u * tables_.x[layer]) ^ sign);
    }
    return detail::standard_normal_slow(w, retry_key_, index);
  }

 private:
  const detail::ZigguratTables& tables_;
  std::uint64_t key_;
  std::uint64_t retry_key_;
};

// The normal variate for element `index` of the stream keyed by `key`. Rejected draws
// (about 1.2%) continue on a second stream keyed by `retry_key`, at counters reserved
// for this index, so the result still depends only on (key, retry_key, index).
[[nodiscard]] double standard_normal(std::uint64_t key, std::uint64_t retry_key,
                                     std::uint64_t index) noexcept;

}  // namespace kh
