// The window rule of the CUPTI span timer, kept free of CUPTI so it is unit-tested
// on machines without a GPU.
//
// Each timed iteration is a window [begin, end] of CUPTI timestamps: begin is taken
// right before the candidate's call, end right after the whole device was
// synchronised. Every device activity (kernel, memcpy, memset, on any stream) is
// assigned to the window in which the host launched it: the CUDA API call whose
// correlation id it carries started inside the window. Both are host-clock times, so
// the rule does not depend on how CUPTI maps the GPU's clock onto the host's: on the
// H200 that mapping put an honest 3 us kernel's start before its own launch, out of
// its window, in up to 20 of 50 iterations. An activity without a launch record (a
// launch CUPTI did not trace) falls back to its own start time, with slack at the
// edges. A window's span is the latest end minus the earliest start of its
// activities, both GPU times. A window without activities is invalid, never 0 us,
// because a call that launched nothing (or hid its work from CUPTI) must not look
// infinitely fast.
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
  std::uint32_t stream_id = 0;       // CUPTI stream id, unique within a context
  std::uint32_t correlation_id = 0;  // the launching API call's; 0: none known
};

// A CUDA runtime or driver API call as CUPTI traced it: when the host entered it.
struct LaunchRecord {
  std::uint32_t correlation_id = 0;
  std::uint64_t host_ns = 0;
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
// them). Activities launched (or, without a launch record, started) before the first
// window (warm-up, correctness calls) are neither assigned nor strays.
[[nodiscard]] WindowAssignment assign_to_windows(const std::vector<ActivityRecord>& records,
                                                 const std::vector<LaunchRecord>& launches,
                                                 const std::vector<TimingWindow>& windows,
                                                 const WindowRule& rule);

}  // namespace kh
