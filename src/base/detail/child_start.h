// Starting one child: descriptors, fork (or clone into namespaces), the user namespace's
// id maps, and the report of a child that failed before exec.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "base/process_spec.h"
#include "base/unique_fd.h"

namespace kh::detail {

struct JailPlan;

struct StartedChild {
  pid_t pid = -1;
  pid_t program = -1;  // the process running the program: pid, or in a jail the init's child
  UniqueFd status;     // a jail's init writes its worker's wait status here
};

struct StartAttempt {
  std::optional<StartedChild> child;
  // Set when the jail could not be built ("bind /usr read-only: Permission denied");
  // the child is gone then, and the caller may try a weaker jail.
  std::string jail_failure;
};

// The child is tracked in the process-group registry from its first instant. Throws
// kh::Error for what is not the jail's doing: "cannot start worker './w': No such file
// or directory".
[[nodiscard]] StartAttempt start_child(const ProcessSpec& spec, const JailPlan* jail);

}  // namespace kh::detail
