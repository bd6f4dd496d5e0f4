// Timestamps in the archive: UTC, ISO-8601, milliseconds ("2026-05-01T12:34:56.789Z"),
// which sort as text in time order.
#pragma once

#include <string>

namespace kh::archive {

[[nodiscard]] std::string utc_now();

}  // namespace kh::archive
