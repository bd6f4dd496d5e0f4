// Standard normal variates from a counter-based stream, by the ziggurat method.
//
// Why ziggurat: about 99% of draws need one random word, a table lookup and a multiply,
// which is what lets float32 generation exceed 200M elements/s on one core. Box-Muller
// would need log, sqrt and sincos per pair, several times slower.
//
// The steps live in detail/normal_steps.h, which the CUDA input generators compile too:
// the device draws the same variates from a copy of the same tables.
#pragma once

#include <cstdint>

#include "tensor/portable/normal_steps.h"

namespace kh {

namespace detail {
// Built once, on the host, with the portable exp and log (so any host builds the same).
[[nodiscard]] const ZigguratTables& ziggurat_tables() noexcept;
}  // namespace detail

// A generator bound to one seed's streams; the fast path is inline so a fill loop keeps
// independent elements in flight instead of paying a call per element.
class NormalStream {
 public:
  NormalStream(std::uint64_t key, std::uint64_t retry_key) noexcept
      : tables_(&detail::ziggurat_tables()), key_(key), retry_key_(retry_key) {}

  [[nodiscard]] double operator()(std::uint64_t index) const noexcept {
    return detail::normal_at(*tables_, key_, retry_key_, index);
  }

 private:
  const detail::ZigguratTables* tables_;
  std::uint64_t key_;
  std::uint64_t retry_key_;
};

// The normal variate for element `index` of the stream keyed by `key`. Rejected draws
// (about 1.2%) continue on a second stream keyed by `retry_key`, at counters reserved
// for this index, so the result still depends only on (key, retry_key, index).
[[nodiscard]] double standard_normal(std::uint64_t key, std::uint64_t retry_key,
                                     std::uint64_t index) noexcept;

}  // namespace kh
