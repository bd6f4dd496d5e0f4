// Limits: the resource limits a child process starts with.
#pragma once

#include <cstdint>
#include <optional>

namespace kh {

// Applied with setrlimit() in the child before exec; soft = hard, so the child cannot
// raise them again. Unset means inherited unchanged.
struct Limits {
  // RLIMIT_AS. Leave unset for CUDA workers: the driver reserves far more virtual
  // address space than it uses, and any useful cap breaks cuInit.
  std::optional<std::uint64_t> address_space_bytes;
  // RLIMIT_FSIZE, which also caps the files its stdout and stderr go to. Past it the
  // child gets SIGXFSZ and dies (in a jail, where it is a PID namespace's second
  // process, the write fails with EFBIG instead).
  std::optional<std::uint64_t> file_size_bytes;
  std::optional<std::uint64_t> open_files;  // RLIMIT_NOFILE
  // RLIMIT_NPROC. Counts processes and threads of the user (of the user namespace, in a
  // jail), and the kernel ignores it for the real root user: a jail therefore runs
  // root's children as an unprivileged user (docs/worker.md).
  std::optional<std::uint64_t> processes;
  // RLIMIT_CPU: CPU time, not wall time; SIGKILL once it is used up.
  std::optional<std::uint64_t> cpu_seconds;
  bool core_dumps = false;  // false: RLIMIT_CORE = 0
};

}  // namespace kh
