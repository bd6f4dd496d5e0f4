// What this machine lets a jail do, found once per process by building a real jail
// around a child that exits where it would exec (every step a worker's jail takes:
// namespaces, id maps, the private root, /proc, Landlock, seccomp).
#pragma once

#include <string>
#include <vector>

#include "base/jail/isolation.h"
#include "base/jail/jail_plan.h"
#include "base/jail/sandbox_mode.h"

namespace kh {

struct MachineSupport {
  bool namespaces = false;         // user, mount, PID, IPC, UTS and network namespaces work
  bool unprivileged_user = false;  // root's children can run as kJailUid
  std::vector<std::string> notes;  // what was refused, and why
};

// Probed on first use (a few milliseconds), then cached.
[[nodiscard]] const MachineSupport& machine_support();

// The jails to try at `mode`, strongest first, with notes on what the machine refused.
// Throws kh::Error when `mode` is strict and the machine cannot give the full jail.
struct JailLadder {
  std::vector<JailChoice> choices;
  std::vector<std::string> notes;
};
[[nodiscard]] JailLadder jail_ladder(SandboxMode mode);

// The isolation a jailed child started now, at `mode`, would get (for the line `eval`
// and `optimize` print first). Throws kh::Error as jail_ladder() does.
[[nodiscard]] Isolation expected_isolation(SandboxMode mode);

}  // namespace kh
