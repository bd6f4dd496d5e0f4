// Landlock (Linux 5.13+): the file system, TCP and signal limits an unprivileged
// process can put on itself. In a jail with namespaces it is a second wall; without
// namespaces it is the file-system jail.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "base/jail/detail/jail_plan.h"

namespace kh {

// The kernel's Landlock ABI version, 0 when it has none (or it is disabled).
[[nodiscard]] int landlock_abi();

struct LandlockPaths {
  std::vector<std::filesystem::path> read_only;  // read and execute
  std::vector<std::filesystem::path> writable;   // everything
  std::vector<std::filesystem::path> devices;    // open, read, write, ioctl (device nodes)
  std::vector<std::filesystem::path> proc;       // read, and write to files (/proc/self/task/*/comm)
};

// Fills the plan's Landlock fields for `abi` (0: leaves them empty): every right the
// ABI knows is handled, so what the paths do not grant is refused; TCP bind and connect
// are refused (ABI 4+); signals and abstract UNIX sockets cannot reach outside the
// child's own domain (ABI 6+). Paths that do not exist are left out.
void plan_landlock(detail::JailPlan& plan, const LandlockPaths& paths, int abi);

}  // namespace kh
