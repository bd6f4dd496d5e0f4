// Standard normal variates from a counter-based stream, by the ziggurat method.
//
// Why ziggurat: about 99% of draws need one random word, a table lookup and a multiply,
// which is what lets float32 generation exceed 200M elements/s on one core. Box-Muller
// would need log, sqrt and sincos per pair, several times slower.
#pragma once

#include <cstdint>

namespace kh {

// The normal variate for element `index` of the stream keyed by `key`. Rejected draws
// (about 1.2%) continue on a second stream keyed by `retry_key`, at counters reserved
// for this index, so the result still depends only on (key, retry_key, index).
[[nodiscard]] double standard_normal(std::uint64_t key, std::uint64_t retry_key, std::uint64_t index) noexcept;

}  // namespace kh
