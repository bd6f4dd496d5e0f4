// The window rule of the CUPTI span timer, kept free of CUPTI so it is unit-tested
// on machines without a GPU.
//
// Each timed iteration is a window [begin, end] of CUPTI timestamps: begin is taken
// right before the candidate's call, end right after the whole device was
// synchronised. Every device activity (kernel, memcpy, memset, on any stream) is
// assigned to the window that contains its start; a window's span is the latest end
// minus the earliest start of its activities. A window without activities is invalid,
// never 0 us, because a call that launched nothing (or hid its work from CUPTI) must
// not look infinitely fast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "timing/iteration_timer.h"

namespace kh {

struct ActivityRecord {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint32_t stream_id = 0;  // CUPTI stream id, unique within a context
};

struct TimingWindow {
  std::uint64_t begin_ns = 0;
  std::uint64_t end_ns = 0;
  double host_ms = 0;  // host wall time of the same window, copied into the sample
};

struct WindowAssignment {
  std::vector<IterationSample> samples;  // one per window, in window order
  std::size_t strays = 0;                // activities after the first window began, in none
};

struct WindowRule {
  // Streams the harness itself uses between windows (uploads, downloads, the L2
  // flush). Their activities outside windows are expected, so they are not strays.
  std::unordered_set<std::uint32_t> housekeeping_streams;
  // Tolerance at both window edges for the normalisation of GPU timestamps onto
  // CUPTI's host clock. Much smaller than the flush that separates two windows, so
  // it cannot pull the flush into a window.
  std::uint64_t slack_ns = 2000;
};

// windows must be in increasing, non-overlapping order (as start()/stop() produce
// them). Activities that start before the first window (warm-up, correctness calls)
// are neither assigned nor strays.
[[nodiscard]] WindowAssignment assign_to_windows(const std::vector<ActivityRecord>& records,
                                                 const std::vector<TimingWindow>& windows,
                                                 const WindowRule& rule);

}  // namespace kh
