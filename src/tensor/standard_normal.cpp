#include "tensor/standard_normal.h"

#include <cmath>

#include "tensor/portable/portable_math.h"

namespace kh {

namespace {

using detail::kZigguratArea;
using detail::kZigguratLayers;
using detail::kZigguratR;
using detail::normal_density;

detail::ZigguratTables build_tables() {
  detail::ZigguratTables t{};
  t.x[0] = kZigguratArea / normal_density(kZigguratR);
  t.x[1] = kZigguratR;
  for (int i = 1; i < kZigguratLayers - 1; ++i)
    t.x[i + 1] = std::sqrt(-2.0 * detail::portable_log(kZigguratArea / t.x[i] + normal_density(t.x[i])));
  t.x[kZigguratLayers] = 0.0;
  for (int i = 0; i <= kZigguratLayers; ++i) t.f[i] = normal_density(t.x[i]);
  t.f[0] = normal_density(kZigguratR);  // only used for layer 0's upper bound, which the tail path replaces
  for (int i = 0; i < kZigguratLayers; ++i) t.inner_ratio[i] = t.x[i + 1] / t.x[i];
  return t;
}

}  // namespace

namespace detail {

const ZigguratTables& ziggurat_tables() noexcept {
  static const ZigguratTables t = build_tables();
  return t;
}

}  // namespace detail

double standard_normal(std::uint64_t key, std::uint64_t retry_key, std::uint64_t index) noexcept {
  return NormalStream(key, retry_key)(index);
}

}  // namespace kh
