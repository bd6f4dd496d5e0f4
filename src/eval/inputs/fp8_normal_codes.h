// fp8 e4m3 codes distributed as a normal variate rounded to e4m3, drawn by table
// lookup: 16 random bits index an inverse-CDF table, so one 64-bit random word gives
// four codes. That is what makes filling a key cache of hundreds of megabytes cheap
// (a ziggurat draw and a rounding per byte would cost ten times as much).
//
// The table quantises N(0, std^2) to e4m3, saturating at +-448; it never yields the
// NaN codes 0x7F and 0xFF, nor negative zero.
#pragma once

#include <array>
#include <cstdint>

namespace kh {

class Fp8NormalCodes {
 public:
  explicit Fp8NormalCodes(double std);

  // Four codes from one random word (its four 16-bit quarters).
  [[nodiscard]] std::uint32_t four(std::uint64_t word) const noexcept {
    return static_cast<std::uint32_t>(table_[word & 0xFFFFu]) |
           static_cast<std::uint32_t>(table_[(word >> 16) & 0xFFFFu]) << 8 |
           static_cast<std::uint32_t>(table_[(word >> 32) & 0xFFFFu]) << 16 |
           static_cast<std::uint32_t>(table_[(word >> 48) & 0xFFFFu]) << 24;
  }

 private:
  std::array<std::uint8_t, 1u << 16> table_{};
};

}  // namespace kh
