// Timestamps in the archive: UTC, ISO-8601, milliseconds ("2026-05-01T12:34:56.789Z"),
// which sort as text in time order.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kh::archive {

[[nodiscard]] std::string utc_now();
// Seconds from `from` to `to` (negative when `to` is earlier); nullopt when either is not a
// timestamp of this form.
[[nodiscard]] std::optional<double> seconds_between(std::string_view from, std::string_view to);

}  // namespace kh::archive
