// The ziggurat of tensor/standard_normal.h as portable steps: the host (NormalStream)
// and the CUDA input generators draw normal variates with this one code, from tables
// built once on the host (and copied to the device), so both give the same bits.
#pragma once

#include <cstdint>

#include "tensor/counter_rng.h"
#include "tensor/portable/portable.h"
#include "tensor/portable/portable_math.h"

namespace kh::detail {

inline constexpr int kZigguratLayers = 256;
inline constexpr double kZigguratR = 3.6541528853610088;  // start of the tail (Marsaglia & Tsang, 256 layers)
inline constexpr double kZigguratArea = 4.92867323399e-3;  // area of each layer
inline constexpr unsigned kRetriesPerIndex = 64;           // counters reserved per index on the retry stream

// x[i] is the right edge of layer i; layer 0 is the base strip, whose "virtual" width
// area/f(r) makes it hold the same area as the others once the tail is included.
// Plain arrays: the struct is copied byte for byte to the device.
struct ZigguratTables {
  double x[kZigguratLayers + 1];
  double f[kZigguratLayers + 1];        // density at x[i]
  double inner_ratio[kZigguratLayers];  // x[i+1]/x[i]: below it a point is surely inside
};

KH_PORTABLE double normal_density(double x) { return portable_exp(-0.5 * x * x); }

// The draws after a rejection: a second stream, at counters reserved for this index.
class RetryStream {
 public:
  KH_PORTABLE RetryStream(std::uint64_t key, std::uint64_t index)
      : key_(key), base_(index * kRetriesPerIndex) {}
  [[nodiscard]] KH_PORTABLE bool exhausted() const { return used_ >= kRetriesPerIndex; }
  KH_PORTABLE std::uint64_t next() { return random_word(key_, base_ + used_++); }
  KH_PORTABLE double open_unit() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }  // (0, 1]

 private:
  std::uint64_t key_;
  std::uint64_t base_;
  std::uint64_t used_ = 0;
};

// One ziggurat attempt from a word: true with z set when accepted.
KH_PORTABLE bool ziggurat_attempt(const ZigguratTables& t, std::uint64_t w, RetryStream& retry, double& z) {
  const auto layer = static_cast<int>(w & (kZigguratLayers - 1));
  const double sign = (w & 0x100u) != 0 ? -1.0 : 1.0;
  const double u = unit_double(w);
  if (u < t.inner_ratio[layer]) {
    z = sign * (u * t.x[layer]);
    return true;
  }
  if (layer == 0) {
    // Tail beyond r, by Marsaglia's exponential rejection.
    while (!retry.exhausted()) {
      const double a = -portable_log(retry.open_unit()) / kZigguratR;
      const double b = -portable_log(retry.open_unit());
      if (b + b > a * a) {
        z = sign * (kZigguratR + a);
        return true;
      }
    }
    return false;
  }
  const double x = u * t.x[layer];
  if (retry.exhausted()) return false;
  const double y = t.f[layer] + unit_double(retry.next()) * (t.f[layer + 1] - t.f[layer]);
  if (y < normal_density(x)) {
    z = sign * x;
    return true;
  }
  return false;
}

// Everything past the fast path: the wedges, the tail and the retries.
KH_PORTABLE double normal_slow(const ZigguratTables& t, std::uint64_t w, std::uint64_t retry_key,
                               std::uint64_t index) {
  RetryStream retry(retry_key, index);
  double z = 0.0;
  if (ziggurat_attempt(t, w, retry, z)) return z;
  while (!retry.exhausted()) {
    if (ziggurat_attempt(t, retry.next(), retry, z)) return z;
  }
  return 0.0;  // 64 consecutive rejections: probability far below 1e-100; keep it deterministic
}

// The normal variate for element `index` of the stream keyed by `key`; rejected draws
// (about 1.2%) continue on the stream keyed by `retry_key`.
KH_PORTABLE double normal_at(const ZigguratTables& t, std::uint64_t key, std::uint64_t retry_key,
                             std::uint64_t index) {
  const std::uint64_t w = random_word(key, index);
  const auto layer = static_cast<int>(w & (kZigguratLayers - 1));
  const double u = unit_double(w);
  if (u < t.inner_ratio[layer]) {
    // Sign applied by flipping the sign bit: a branch on a random bit mispredicts half the time.
    const std::uint64_t sign = (w & 0x100u) << 55;
    return double_of(bits_of(u * t.x[layer]) ^ sign);
  }
  return normal_slow(t, w, retry_key, index);
}

}  // namespace kh::detail
