// The seccomp filter of a jailed child: the system calls no kernel candidate needs and
// a hostile one would use to reach beyond its jail.
#pragma once

#include <linux/filter.h>

#include <string>
#include <vector>

namespace kh {

struct SeccompPolicy {
  // Under a profiler (ncu): perf_event_open, io_uring, userfaultfd and network sockets
  // stay allowed; only the calls that reach other processes or the kernel's
  // configuration are refused.
  bool profiled = false;
};

// Whether this kharness was built with libseccomp (and the kernel has seccomp filters).
[[nodiscard]] bool seccomp_available();

// The BPF program, built once per policy with libseccomp; the child loads it with
// seccomp(2) right before exec. Refused calls fail with EPERM (clone3 with ENOSYS, so
// that libc falls back to clone, whose namespace flags the filter can see). Calls from
// another architecture's ABI (i386, x32) kill the process. Empty when unavailable.
[[nodiscard]] const std::vector<sock_filter>& seccomp_program(const SeccompPolicy& policy);

// The names of the refused calls, for docs/worker.md and the tests.
[[nodiscard]] std::vector<std::string> seccomp_refused_calls(const SeccompPolicy& policy);

}  // namespace kh
