#include "base/jail/seccomp_filter.h"

#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>

#include "base/os_error.h"
#include "base/unique_fd.h"
#include "error/error.h"

#ifdef KHARNESS_WITH_SECCOMP
#include <seccomp.h>
#endif

namespace kh {

namespace {

// Other processes' memory and the kernel's own state: never a kernel candidate's business.
constexpr std::array kAlwaysRefused = {"ptrace",
                                       "process_vm_readv",
                                       "process_vm_writev",
                                       "process_madvise",
                                       "pidfd_getfd",
                                       "kcmp",
                                       "mount",
                                       "umount2",
                                       "pivot_root",
                                       "chroot",
                                       "move_mount",
                                       "open_tree",
                                       "fsopen",
                                       "fsconfig",
                                       "fsmount",
                                       "fspick",
                                       "mount_setattr",
                                       "unshare",
                                       "setns",
                                       "kexec_load",
                                       "kexec_file_load",
                                       "bpf",
                                       "keyctl",
                                       "add_key",
                                       "request_key",
                                       "init_module",
                                       "finit_module",
                                       "delete_module",
                                       "reboot",
                                       "swapon",
                                       "swapoff",
                                       "acct",
                                       "open_by_handle_at",
                                       "name_to_handle_at",
                                       "lookup_dcookie",
                                       "quotactl",
                                       "syslog",
                                       "settimeofday",
                                       "clock_settime",
                                       "clock_adjtime",
                                       "adjtimex",
                                       "sethostname",
                                       "setdomainname",
                                       "iopl",
                                       "ioperm",
                                       "vhangup",
                                       "uselib"};
// Attack surface a kernel candidate does not need; a profiler might.
constexpr std::array kRefusedUnlessProfiled = {"perf_event_open", "io_uring_setup", "io_uring_enter",
                                               "io_uring_register", "userfaultfd"};

constexpr unsigned long kNamespaceFlags[] = {CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID,   CLONE_NEWNET,
                                             CLONE_NEWIPC,  CLONE_NEWUTS, CLONE_NEWCGROUP};

#ifdef KHARNESS_WITH_SECCOMP

// Owns a libseccomp context.
class FilterContext {
 public:
  FilterContext() : ctx_(seccomp_init(SCMP_ACT_ALLOW)) {
    if (ctx_ == nullptr) throw Error("seccomp_init failed");
  }
  FilterContext(const FilterContext&) = delete;  // one owner releases it
  FilterContext& operator=(const FilterContext&) = delete;
  ~FilterContext() { seccomp_release(ctx_); }
  [[nodiscard]] scmp_filter_ctx get() const noexcept { return ctx_; }

 private:
  scmp_filter_ctx ctx_;
};

void refuse(const FilterContext& f, const char* name, int error) {
  const int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return;  // unknown to this libseccomp or architecture: nothing to refuse
  const int rc = seccomp_rule_add(f.get(), SCMP_ACT_ERRNO(static_cast<std::uint32_t>(error)), nr, 0);
  if (rc != 0) throw Error(std::string("seccomp_rule_add(") + name + "): " + std::strerror(-rc));
}

std::vector<sock_filter> exported(const FilterContext& f) {
  const int fd = static_cast<int>(::memfd_create("kharness-seccomp", MFD_CLOEXEC));
  if (fd < 0) throw os_error("memfd_create");
  UniqueFd file(fd);
  if (const int rc = seccomp_export_bpf(f.get(), file.get()); rc != 0)
    throw Error(std::string("seccomp_export_bpf: ") + std::strerror(-rc));
  const off_t size = ::lseek(file.get(), 0, SEEK_END);
  if (size <= 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0)
    throw Error("seccomp: empty BPF program");
  std::vector<sock_filter> program(static_cast<std::size_t>(size) / sizeof(sock_filter));
  if (::pread(file.get(), program.data(), static_cast<std::size_t>(size), 0) != size)
    throw os_error("pread(BPF)");
  return program;
}

std::vector<sock_filter> build(const SeccompPolicy& policy) {
  FilterContext f;
  for (const char* name : kAlwaysRefused) refuse(f, name, EPERM);
  if (!policy.profiled)
    for (const char* name : kRefusedUnlessProfiled) refuse(f, name, EPERM);
  // clone3's flags sit in memory the filter cannot read: make libc fall back to clone.
  if (const int nr = seccomp_syscall_resolve_name("clone3"); nr != __NR_SCMP_ERROR)
    seccomp_rule_add(f.get(), SCMP_ACT_ERRNO(ENOSYS), nr, 0);
  if (!policy.profiled) {
    // No network: where there is no network namespace this is the only barrier (a
    // profiler talks to its target over TCP). AF_UNIX stays: the worker's channel is one.
    for (const int family : {AF_INET, AF_INET6, AF_PACKET}) {
      const int rc = seccomp_rule_add(f.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
                                      SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(family)));
      if (rc != 0) throw Error(std::string("seccomp_rule_add(socket): ") + std::strerror(-rc));
    }
  }
  for (const unsigned long flag : kNamespaceFlags) {
    const int rc = seccomp_rule_add(f.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                    SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
    if (rc != 0) throw Error(std::string("seccomp_rule_add(clone): ") + std::strerror(-rc));
  }
  return exported(f);
}

#endif

}  // namespace

bool seccomp_available() {
#ifdef KHARNESS_WITH_SECCOMP
  static const bool available = ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
  return available;
#else
  return false;
#endif
}

const std::vector<sock_filter>& seccomp_program(const SeccompPolicy& policy) {
  static std::mutex mutex;
  static std::array<std::optional<std::vector<sock_filter>>, 2> programs;
  std::lock_guard lock(mutex);
  auto& slot = programs[policy.profiled ? 1 : 0];
  if (!slot) {
#ifdef KHARNESS_WITH_SECCOMP
    slot = seccomp_available() ? build(policy) : std::vector<sock_filter>{};
#else
    slot = std::vector<sock_filter>{};
#endif
  }
  return *slot;
}

std::vector<std::string> seccomp_refused_calls(const SeccompPolicy& policy) {
  std::vector<std::string> out(kAlwaysRefused.begin(), kAlwaysRefused.end());
  if (!policy.profiled) out.insert(out.end(), kRefusedUnlessProfiled.begin(), kRefusedUnlessProfiled.end());
  if (!policy.profiled) out.emplace_back("socket(AF_INET, AF_INET6, AF_PACKET)");
  out.emplace_back("clone with a namespace flag");
  out.emplace_back("clone3 (ENOSYS)");
  return out;
}

}  // namespace kh
