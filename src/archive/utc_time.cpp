#include "archive/utc_time.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

namespace kh::archive {
namespace {

// Seconds since the epoch of "YYYY-MM-DDTHH:MM:SS.mmmZ" (the milliseconds optional).
std::optional<double> epoch_seconds(std::string_view text) {
  const std::string s(text);
  std::tm tm{};
  int ms = 0;
  int used = 0;
  const int fields = std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                                 &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &used);
  if (fields != 6) return std::nullopt;
  std::string_view rest = text.substr(static_cast<std::size_t>(used));
  if (rest.size() == 5 && rest[0] == '.') {
    if (std::sscanf(std::string(rest.substr(1, 3)).c_str(), "%3d", &ms) != 1) return std::nullopt;
    rest.remove_prefix(4);
  }
  if (rest != "Z") return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t t = timegm(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(t) + ms / 1000.0;
}

}  // namespace

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

std::optional<double> seconds_between(std::string_view from, std::string_view to) {
  const std::optional<double> a = epoch_seconds(from);
  const std::optional<double> b = epoch_seconds(to);
  if (!a || !b) return std::nullopt;
  return *b - *a;
}

}  // namespace kh::archive
