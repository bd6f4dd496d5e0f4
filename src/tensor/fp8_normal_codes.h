// fp8 e4m3 codes distributed as a normal variate rounded to e4m3, drawn by table
// lookup: 16 random bits index an inverse-CDF table, so one 64-bit random word gives
// four codes. That is what makes filling a key cache or expert weights of hundreds of
// megabytes cheap (a ziggurat draw and a rounding per byte would cost ten times as much).
//
// The table quantises N(0, std^2) to e4m3, saturating at +-448; it never yields the
// NaN codes 0x7F and 0xFF, nor negative zero. It is built on the host; generators on the
// device look codes up in a copy of it (detail::four_codes, the same lookup).
#pragma once

#include <array>
#include <cstdint>

#include "tensor/portable/portable.h"

namespace kh {

namespace detail {
// Four codes from one random word (its four 16-bit quarters), little-endian in the result.
KH_PORTABLE std::uint32_t four_codes(const std::uint8_t* table, std::uint64_t word) {
  return static_cast<std::uint32_t>(table[word & 0xFFFFu]) |
         static_cast<std::uint32_t>(table[(word >> 16) & 0xFFFFu]) << 8 |
         static_cast<std::uint32_t>(table[(word >> 32) & 0xFFFFu]) << 16 |
         static_cast<std::uint32_t>(table[(word >> 48) & 0xFFFFu]) << 24;
}
}  // namespace detail

class Fp8NormalCodes {
 public:
  static constexpr std::size_t kEntries = std::size_t{1} << 16;

  explicit Fp8NormalCodes(double std);

  [[nodiscard]] std::uint32_t four(std::uint64_t word) const noexcept {
    return detail::four_codes(table_.data(), word);
  }
  [[nodiscard]] const std::uint8_t* data() const noexcept { return table_.data(); }

 private:
  std::array<std::uint8_t, kEntries> table_{};
};

}  // namespace kh
