// The processes below one process, as /proc/<pid>/task/<tid>/children lists them.
//
// Both of the harness's checks for work handed to another process walk this tree: the
// worker's lingering-work probe (CPU time of its descendants after a call) and the
// orchestrator's check for a descendant holding its own CUDA context.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <vector>

namespace kh {

// A spawned program as its parent sees it: the process started (`root`: in a jail with its
// own PID namespace, the init) and the one running the program (`program`: `root` itself
// outside such a jail).
struct SpawnedProcess {
  pid_t root = -1;
  pid_t program = -1;
};

// Every live process descended from `root`, not `root` itself, breadth first; at most
// `limit` of them, so that a fork bomb cannot make one walk read thousands of files.
// Kernels without CONFIG_PROC_CHILDREN have no children files: the walk then finds none.
[[nodiscard]] std::vector<pid_t> descendant_processes(pid_t root, std::size_t limit = 256);
// The children of `parent` alone (of all its threads).
[[nodiscard]] std::vector<pid_t> child_processes(pid_t parent);

}  // namespace kh
