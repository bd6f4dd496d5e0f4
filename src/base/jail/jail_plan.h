// Turning a JailSpec into the steps a child takes (detail/jail_plan.h), for one level
// of isolation.
#pragma once

#include <sys/types.h>

#include "base/jail/detail/jail_plan.h"
#include "base/jail/jail_spec.h"

namespace kh {

// The unprivileged user a jail runs root's children as: root's processes are exempt
// from RLIMIT_NPROC and may read every root-owned file and signal every root process.
inline constexpr uid_t kJailUid = 65534;  // nobody
inline constexpr gid_t kJailGid = 65534;  // nogroup

struct JailChoice {
  IsolationLevel level = IsolationLevel::namespaces;  // namespaces or restricted
  SandboxMode mode = SandboxMode::best;
  // Root only, with namespaces: run the child as kJailUid, mapped into its user
  // namespace. Otherwise it keeps kharness's user (without its capabilities).
  bool unprivileged_user = false;
};

// The plan for `spec` at `choice`; the descriptors (sync_fd, status_fd) are filled in
// by the caller. `cwd` is the child's working directory (bound too, when outside scratch).
[[nodiscard]] detail::JailPlan make_jail_plan(const JailSpec& spec, const JailChoice& choice);

}  // namespace kh
