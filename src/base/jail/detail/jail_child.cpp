// The jail's child side. Only system calls here: see base/detail/child_exec.h.
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "base/detail/child_exec.h"
#include "base/jail/detail/jail_plan.h"
#include "base/jail/detail/landlock_abi.h"

namespace kh::detail {
namespace {

constexpr long kMountSetattrSyscall = 442;  // the same number on every architecture
constexpr unsigned kAtRecursive = 0x8000;
constexpr std::uint64_t kMountAttrReadOnly = 0x1;

// fork() without libc's atfork handlers, which would take locks another thread of the
// parent may have held at the moment of the clone.
pid_t raw_fork() noexcept { return static_cast<pid_t>(::syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0)); }

bool make_dir(const char* path) noexcept { return ::mkdir(path, 0755) == 0 || errno == EEXIST; }

bool make_file(const char* path) noexcept {
  // Read-only: the file may exist already, on a read-only mount.
  const int fd = ::open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return errno == EEXIST;
  ::close(fd);
  return true;
}

// The flags a bind mount inherits from its source and may not drop in a user namespace.
unsigned long locked_flags(const char* path) noexcept {
  struct statfs info {};
  if (::statfs(path, &info) != 0) return 0;
  unsigned long flags = 0;
  if (info.f_flags & ST_NOSUID) flags |= MS_NOSUID;
  if (info.f_flags & ST_NODEV) flags |= MS_NODEV;
  if (info.f_flags & ST_NOEXEC) flags |= MS_NOEXEC;
  return flags;
}

// mount_setattr(2) (Linux 5.12): read-only for a mount and everything beneath it.
bool make_read_only_recursively(const char* target) noexcept {
  struct {
    std::uint64_t attr_set, attr_clr, propagation, userns_fd;
  } attr{kMountAttrReadOnly, 0, 0, 0};
  return ::syscall(kMountSetattrSyscall, AT_FDCWD, target, kAtRecursive, &attr, sizeof attr) == 0;
}

bool remount_read_only(const char* target) noexcept {
  return ::mount(nullptr, target, nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | locked_flags(target),
                 nullptr) == 0;
}

// `recursive_read_only` says whether the last read-only folder bind was made read-only
// with everything beneath it, so that its remount_submount steps have nothing to do.
bool run_mount_step(const MountStep& m, bool& recursive_read_only) noexcept {
  const char* target = m.target.c_str();
  switch (m.kind) {
    case MountStep::Kind::dir:
      return make_dir(target);
    case MountStep::Kind::file:
      return make_file(target);
    case MountStep::Kind::symlink:
      return ::symlink(m.source.c_str(), target) == 0 || errno == EEXIST;
    case MountStep::Kind::bind:
      if (::mount(m.source.c_str(), target, nullptr, MS_BIND | MS_REC, nullptr) != 0) return false;
      if (!m.read_only) return true;
      recursive_read_only = make_read_only_recursively(target);
      return recursive_read_only || remount_read_only(target);
    case MountStep::Kind::tmpfs:
      return ::mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, m.source.c_str()) == 0;
    case MountStep::Kind::proc:
      return ::mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0;
    case MountStep::Kind::remount_read_only:
      return remount_read_only(target);
    case MountStep::Kind::remount_submount:
      return recursive_read_only || remount_read_only(target);
  }
  return false;
}

void build_root(const JailPlan& plan, int error_fd) noexcept {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    report_and_exit(error_fd, ChildStep::make_mounts_private);
  // A tmpfs to stand on, the host's root moved aside to /oldroot beneath it, so that
  // every host path stays reachable (as /oldroot/...) while the new root is built.
  if (::mount("tmpfs", plan.base.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
    report_and_exit(error_fd, ChildStep::mount_base);
  if (::chdir(plan.base.c_str()) != 0 || !make_dir("newroot") || !make_dir("oldroot") ||
      ::syscall(SYS_pivot_root, ".", "oldroot") != 0 || ::chdir("/") != 0)
    report_and_exit(error_fd, ChildStep::pivot_root);
  if (::mount("tmpfs", "/newroot", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
    report_and_exit(error_fd, ChildStep::mount_base);
  bool recursive_read_only = false;
  for (std::size_t i = 0; i < plan.mounts.size(); ++i)
    if (!run_mount_step(plan.mounts[i], recursive_read_only))
      report_and_exit(error_fd, ChildStep::mount_step, static_cast<int>(i));
  // Into the new root; the old one (and the host's root beneath it) is detached.
  if (::chdir("/newroot") != 0 || ::syscall(SYS_pivot_root, ".", ".") != 0 ||
      ::umount2(".", MNT_DETACH) != 0 || ::chdir("/") != 0)
    report_and_exit(error_fd, ChildStep::switch_root);
  if (::mount(nullptr, "/", nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0)
    report_and_exit(error_fd, ChildStep::remount_root);
}

// PID 1 of the jail: reaps everything re-parented to it until its worker ends, reports
// the worker's wait status and exits, which kills what is left in the namespace.
[[noreturn]] void serve_as_init(pid_t worker, int status_fd) noexcept {
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid == worker) {
      ssize_t ignored = ::write(status_fd, &status, sizeof status);
      (void)ignored;
      ::_exit(0);
    }
    if (pid < 0 && errno != EINTR) ::_exit(0);
  }
}

// No capability survives exec, whatever the uid: the bounding, inheritable and ambient
// sets are emptied (what an exec'd program's capabilities are drawn from, even for uid
// 0), and where the kernel has securebits, uid 0 gains none at exec and none of this can
// be undone. Best effort step by step: without CAP_SETPCAP there is nothing to drop.
void drop_capabilities() noexcept {
  constexpr unsigned long kNoRoot = 1ul << 0, kNoRootLocked = 1ul << 1, kNoAmbientRaise = 1ul << 6,
                          kNoAmbientRaiseLocked = 1ul << 7;
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capget, &header, data) == 0) {
    data[0].inheritable = 0;
    data[1].inheritable = 0;
    ::syscall(SYS_capset, &header, data);
  }
  for (int cap = 0; cap <= 63; ++cap) {
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;  // past the last capability
  }
  ::prctl(PR_SET_SECUREBITS, kNoRoot | kNoRootLocked | kNoAmbientRaise | kNoAmbientRaiseLocked, 0, 0, 0);
}

void apply_landlock(const JailPlan& plan, int error_fd) noexcept {
  using namespace landlock;
  if (plan.landlock_abi <= 0) return;
  const RulesetAttr attr{plan.landlock_handled_fs, plan.landlock_handled_net, plan.landlock_scoped};
  const long ruleset = ::syscall(kCreateRulesetSyscall, &attr, ruleset_attr_size(plan.landlock_abi), 0);
  if (ruleset < 0) report_and_exit(error_fd, ChildStep::landlock);
  for (const LandlockRule& rule : plan.landlock_rules) {
    const int fd = ::open(rule.path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) continue;  // gone since the plan was made: nothing to allow
    const PathBeneathAttr beneath{rule.access, fd};
    const long rc = ::syscall(kAddRuleSyscall, ruleset, kRulePathBeneath, &beneath, 0);
    ::close(fd);
    if (rc != 0) report_and_exit(error_fd, ChildStep::landlock);
  }
  if (::syscall(kRestrictSelfSyscall, ruleset, 0) != 0) report_and_exit(error_fd, ChildStep::landlock);
  ::close(static_cast<int>(ruleset));
}

void apply_seccomp(const JailPlan& plan, int error_fd) noexcept {
  if (plan.seccomp.empty()) return;
  sock_fprog program{static_cast<unsigned short>(plan.seccomp.size()),
                     const_cast<sock_filter*>(plan.seccomp.data())};
  // SPEC_ALLOW: a filter otherwise turns on the speculative-store-bypass mitigation on
  // some kernels, which slows the candidate's host code and so its timings.
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW, &program) == 0) return;
  if (errno == EINVAL && ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) == 0) return;
  report_and_exit(error_fd, ChildStep::seccomp);
}

}  // namespace

void change_ids(const JailPlan& plan, int error_fd) noexcept {
  if (!plan.change_ids) return;
  // The raw calls: libc's would signal every thread it believes the process has, and
  // after a bare clone() it still believes in the parent's.
  if (plan.drop_groups && ::syscall(SYS_setgroups, 0, nullptr) != 0)
    report_and_exit(error_fd, ChildStep::set_ids);
  if (::syscall(SYS_setresgid, plan.gid, plan.gid, plan.gid) != 0 ||
      ::syscall(SYS_setresuid, plan.uid, plan.uid, plan.uid) != 0)
    report_and_exit(error_fd, ChildStep::set_ids);
}

void enter_jail(const JailPlan& plan, int error_fd) noexcept {
  // The parent may die before it lets us go: then the read sees the end of the pipe.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) report_and_exit(error_fd, ChildStep::set_pdeathsig);
  char go = 0;
  ssize_t n = 0;
  do {
    n = ::read(plan.sync_fd, &go, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) ::_exit(127);
  ::close(plan.sync_fd);
  if (::setsid() < 0) report_and_exit(error_fd, ChildStep::setsid);
  build_root(plan, error_fd);
  if (::sethostname(plan.hostname.data(), plan.hostname.size()) != 0)
    report_and_exit(error_fd, ChildStep::set_hostname);
  const pid_t worker = raw_fork();
  if (worker < 0) report_and_exit(error_fd, ChildStep::fork_worker);
  if (worker == 0) {
    ::close(plan.status_fd);
    drop_capabilities();
    change_ids(plan, error_fd);
    return;
  }
  // The init keeps only its report: the worker's descriptors (its channel among them)
  // must close when the worker dies, not when the init does.
  if (plan.status_fd > 0) ::close_range(0, static_cast<unsigned>(plan.status_fd - 1), 0);
  ::close_range(static_cast<unsigned>(plan.status_fd + 1), ~0u, 0);
  serve_as_init(worker, plan.status_fd);
}

void restrict_self(const JailPlan& plan, int error_fd) noexcept {
  if (!plan.keep_capabilities) drop_capabilities();
  apply_landlock(plan, error_fd);
  apply_seccomp(plan, error_fd);
}

}  // namespace kh::detail
