// SpawnOptions: everything that decides how a worker process starts.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/jail/jail_spec.h"
#include "base/resource_limits.h"

namespace kh {

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
  // The jail, for a worker that runs candidate code (docs/worker.md). Its scratch
  // defaults to work_dir; the logs stay on the host, written through descriptors.
  std::optional<JailSpec> jail;
  // Above zero: a shared reply region of this many bytes (worker/shared_region.h), on
  // descriptor 4, named by KHARNESS_REPLY_REGION_FD. Address space only until written.
  std::size_t reply_region_bytes = 0;
};

}  // namespace kh
