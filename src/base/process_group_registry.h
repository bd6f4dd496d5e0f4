// The process groups of the children kharness has started and not yet reaped, so that
// a kharness stopped by a signal (Ctrl-C, `timeout`, a batch scheduler's SIGTERM) takes
// them with it. Each child (a compiler, ncu, a worker, an agent's command) leads its own
// group, to be killed whole on its limit; a signal sent to kharness's group therefore
// never reaches it, and an ncu session would go on profiling on the GPU, under the next
// measurement, for minutes. ChildProcess tracks every child it starts.
#pragma once

#include <sys/types.h>

namespace kh {

// Slots for this many live children at once; beyond them a child is not tracked (it is
// still killed on its limit, just not on a signal).
inline constexpr int kTrackedGroups = 256;

void track_child_group(pid_t group) noexcept;
void untrack_child_group(pid_t group) noexcept;

// SIGKILL to every tracked group and its leader (a jail's init leads its group only
// once it has started). Async-signal-safe.
void kill_tracked_child_groups() noexcept;

// On SIGINT, SIGTERM and SIGHUP (where not ignored): kill the tracked groups, then die
// of the signal as before. For a program's main, before it starts children.
void kill_child_groups_on_termination();

}  // namespace kh
