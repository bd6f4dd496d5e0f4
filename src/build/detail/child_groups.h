// The process groups of the children run_process has started and not yet reaped, so
// that a kharness stopped by a signal (Ctrl-C, `timeout`, a batch scheduler's SIGTERM)
// takes them with it. Each child leads its own group, to be killed whole on its limit;
// a signal sent to kharness's group therefore never reaches it, and an ncu session
// would go on profiling on the GPU, under the next measurement, for minutes.
#pragma once

#include <sys/types.h>

namespace kh::detail {

// Slots for this many live children at once; beyond them a child is not tracked (it is
// still killed on its limit, just not on a signal).
inline constexpr int kTrackedGroups = 256;

void track_child_group(pid_t group) noexcept;
void untrack_child_group(pid_t group) noexcept;

// SIGKILL to every tracked group. Async-signal-safe.
void kill_tracked_child_groups() noexcept;

// On SIGINT, SIGTERM and SIGHUP (where not ignored): kill the tracked groups, then die
// of the signal as before. For a program's main, before it starts children.
void kill_child_groups_on_termination();

}  // namespace kh::detail
