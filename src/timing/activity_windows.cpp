#include "timing/activity_windows.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

namespace kh {

namespace {

struct WindowExtent {
  std::uint64_t first_start = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t last_end = 0;
  int activities = 0;
};

// Index of the window whose [begin - slack, end + slack] holds t, if any.
std::optional<std::size_t> window_of(std::uint64_t t, const std::vector<TimingWindow>& windows,
                                     std::uint64_t slack) {
  // The first window that begins after t + slack; the candidate is the one before it.
  const auto after = std::upper_bound(
      windows.begin(), windows.end(), t,
      [slack](std::uint64_t time, const TimingWindow& w) { return time + slack < w.begin_ns; });
  if (after == windows.begin()) return std::nullopt;
  const auto index = static_cast<std::size_t>(std::distance(windows.begin(), after) - 1);
  if (t > windows[index].end_ns + slack) return std::nullopt;
  return index;
}

IterationSample to_sample(const WindowExtent& extent, const TimingWindow& window) {
  IterationSample sample;
  sample.host_ms = window.host_ms;
  sample.activities = extent.activities;
  sample.valid = extent.activities > 0 && extent.last_end >= extent.first_start;
  sample.span_ms = sample.valid ? static_cast<double>(extent.last_end - extent.first_start) * 1e-6 : 0.0;
  return sample;
}

// The host time at which each correlation id's API call began (the earliest, where a
// runtime call and the driver call inside it share one id).
std::unordered_map<std::uint32_t, std::uint64_t> launch_times(const std::vector<LaunchRecord>& launches) {
  std::unordered_map<std::uint32_t, std::uint64_t> out;
  out.reserve(launches.size());
  for (const LaunchRecord& l : launches) {
    if (l.correlation_id == 0) continue;
    const auto [it, inserted] = out.emplace(l.correlation_id, l.host_ns);
    if (!inserted) it->second = std::min(it->second, l.host_ns);
  }
  return out;
}

}  // namespace

WindowAssignment assign_to_windows(const std::vector<ActivityRecord>& records,
                                   const std::vector<LaunchRecord>& launches,
                                   const std::vector<TimingWindow>& windows, const WindowRule& rule) {
  WindowAssignment result;
  std::vector<WindowExtent> extents(windows.size());
  const auto launched_at = launch_times(launches);
  for (const ActivityRecord& record : records) {
    const bool housekeeping = rule.housekeeping_streams.contains(record.stream_id);
    const auto launch =
        record.correlation_id == 0 ? launched_at.end() : launched_at.find(record.correlation_id);
    const bool by_launch = launch != launched_at.end();
    // A launch time and the windows share the host clock: no slack. A GPU start time
    // was mapped onto it by CUPTI: slack at both edges.
    const std::uint64_t t = by_launch ? launch->second : record.start_ns;
    const std::uint64_t slack = by_launch ? 0 : rule.slack_ns;
    if (const auto index = window_of(t, windows, slack)) {
      // The harness's own work that starts after a window closed (the hashing that follows
      // the last call) is not the call's. Inside a window it counts like any other stream's.
      if (housekeeping && t > windows[*index].end_ns) continue;
      WindowExtent& extent = extents[*index];
      extent.first_start = std::min(extent.first_start, record.start_ns);
      extent.last_end = std::max(extent.last_end, record.end_ns);
      ++extent.activities;
      continue;
    }
    const bool before_timing = windows.empty() || t + slack < windows.front().begin_ns;
    if (!before_timing && !housekeeping) ++result.strays;
  }
  result.samples.reserve(windows.size());
  for (std::size_t i = 0; i < windows.size(); ++i)
    result.samples.push_back(to_sample(extents[i], windows[i]));
  return result;
}

}  // namespace kh
