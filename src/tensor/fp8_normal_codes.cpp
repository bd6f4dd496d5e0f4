#include "tensor/fp8_normal_codes.h"

#include <cmath>
#include <vector>

#include "tensor/float_formats.h"

namespace kh {

namespace {

// The finite e4m3 codes in increasing order of value, negative zero left out.
std::vector<std::uint8_t> codes_by_value() {
  std::vector<std::uint8_t> codes;
  for (int c = 0x7E; c >= 0x01; --c) codes.push_back(static_cast<std::uint8_t>(0x80 | c));
  for (int c = 0x00; c <= 0x7E; ++c) codes.push_back(static_cast<std::uint8_t>(c));
  return codes;
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace

Fp8NormalCodes::Fp8NormalCodes(double std) {
  const std::vector<std::uint8_t> codes = codes_by_value();
  // Entry j takes the code whose rounding interval holds the quantile (j + 0.5) / 2^16;
  // the outermost codes take the tails, which is the saturating cast.
  std::size_t code = 0;
  for (std::size_t j = 0; j < table_.size(); ++j) {
    const double u = (static_cast<double>(j) + 0.5) / static_cast<double>(table_.size());
    while (code + 1 < codes.size()) {
      const double upper = 0.5 * (static_cast<double>(e4m3fn_to_float(codes[code])) +
                                  static_cast<double>(e4m3fn_to_float(codes[code + 1])));
      if (u < normal_cdf(upper / std)) break;
      ++code;
    }
    table_[j] = codes[code];
  }
}

}  // namespace kh
