// JailPlan: everything a jailed child does before exec, prepared by the parent so that
// the child only walks through it (see base/detail/child_exec.h for why).
#pragma once

#include <linux/filter.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/jail/isolation.h"

namespace kh::detail {

// One step of building the jail's root, in order. Paths are absolute: a source under
// "/oldroot" (the host's root, moved aside), a target under "/newroot".
struct MountStep {
  // bind: a folder is bound with everything mounted beneath it (a user namespace may
  // not uncover what a mount beneath hides), and when read-only, made so recursively
  // (mount_setattr); where the kernel lacks that, each remount_submount step makes one
  // mount beneath read-only instead.
  enum class Kind : std::uint8_t {
    dir,
    file,
    symlink,
    bind,
    tmpfs,
    proc,
    remount_read_only,
    remount_submount
  };
  Kind kind = Kind::dir;
  std::string source;  // bind: the host path; symlink: the link's text; tmpfs: mount options
  std::string target;
  bool read_only = false;
  std::string what;  // for errors: "bind /usr read-only"
};

struct LandlockRule {
  std::string path;  // as the child sees it
  std::uint64_t access = 0;
  bool directory = true;  // a file takes only the rights that apply to files
};

struct JailPlan {
  Isolation isolation;  // what this plan achieves when every step succeeds

  // With namespaces: the flags of clone(), the root built by `mounts`, the ids mapped.
  bool namespaces = false;
  unsigned long clone_flags = 0;
  std::string base;  // an existing folder the jail's first tmpfs is mounted on ("/tmp")
  std::vector<MountStep> mounts;
  std::string hostname = "kharness-jail";
  std::string uid_map;  // written by the parent into /proc/<child>/uid_map
  std::string gid_map;
  bool deny_setgroups = true;  // write "deny" to /proc/<child>/setgroups first

  // The ids the child switches to (with namespaces, inside them). Without namespaces
  // only when change_ids: root dropping to an unprivileged user.
  bool change_ids = false;
  bool drop_groups = false;  // setgroups(0): the supplementary groups go too
  uid_t uid = 0;
  gid_t gid = 0;

  int sync_fd = -1;    // parked read end: one byte from the parent once the maps are written
  int status_fd = -1;  // parked write end: the init writes its worker's wait status here

  int landlock_abi = 0;  // 0: no Landlock
  std::uint64_t landlock_handled_fs = 0;
  std::uint64_t landlock_handled_net = 0;
  std::uint64_t landlock_scoped = 0;
  std::vector<LandlockRule> landlock_rules;

  std::vector<sock_filter> seccomp;  // empty: no filter

  // Profiled: the GPU's performance counters need the user's own rights (root), so no
  // capability is dropped.
  bool keep_capabilities = false;

  bool probe = false;  // the isolation probe: _exit(0) where the child would exec
};

// Child side, async-signal-safe. Makes the calling process (fresh from clone() with
// plan.clone_flags) the jail's init: waits for the parent, takes its ids, builds and
// enters the private root, then forks the process that goes on to exec and returns in
// it. The init itself never returns: it reaps until that process ends, writes its wait
// status to status_fd and exits, which ends every process left in the PID namespace.
void enter_jail(const JailPlan& plan, int error_fd) noexcept;

// Child side, without namespaces: switches to the plan's ids when it says so.
void change_ids(const JailPlan& plan, int error_fd) noexcept;

// Child side, the last step before exec (after PR_SET_NO_NEW_PRIVS): Landlock, then seccomp.
void restrict_self(const JailPlan& plan, int error_fd) noexcept;

}  // namespace kh::detail
