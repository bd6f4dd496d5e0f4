// SpawnOptions and Limits: everything that decides how a worker process starts.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kh {

// Resource limits applied with setrlimit() in the child before exec; soft = hard,
// so the worker cannot raise them again. Unset means inherited unchanged.
struct Limits {
  // RLIMIT_AS. Leave unset for CUDA workers: the driver reserves far more virtual
  // address space than it uses, and any useful cap breaks cuInit.
  std::optional<std::uint64_t> address_space_bytes;
  // RLIMIT_FSIZE, which also caps stdout.log and stderr.log. Past it the worker
  // gets SIGXFSZ and dies.
  std::optional<std::uint64_t> file_size_bytes;
  std::optional<std::uint64_t> open_files;  // RLIMIT_NOFILE
  // RLIMIT_NPROC. Counts every process of the user, and the kernel ignores it for
  // root (CAP_SYS_RESOURCE / CAP_SYS_ADMIN).
  std::optional<std::uint64_t> processes;
  // RLIMIT_CPU: CPU time, not wall time; SIGKILL once it is used up.
  std::optional<std::uint64_t> cpu_seconds;
  bool core_dumps = false;  // false: RLIMIT_CORE = 0
};

struct SpawnOptions {
  // argv[0] is the executable's path (no PATH search). A relative path is taken
  // relative to the orchestrator's working directory, not work_dir.
  std::vector<std::string> argv;
  // The worker's working directory; created if missing. Holds stdout.log and stderr.log.
  std::filesystem::path work_dir;
  Limits limits;
  // Added to (or overriding) the environment. KHARNESS_CHANNEL_FD is always set.
  std::vector<std::pair<std::string, std::string>> env_add;
  bool inherit_env = true;
};

}  // namespace kh
