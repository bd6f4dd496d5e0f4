// ProcessSpec: everything that decides how a child process starts.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/jail/jail_spec.h"
#include "base/resource_limits.h"

namespace kh {

struct ProcessSpec {
  // argv[0] is the executable's path (no PATH search). A relative path is taken
  // relative to the parent's working directory, not `cwd`.
  std::vector<std::string> argv;
  std::filesystem::path cwd;  // the child's working directory; empty: the parent's
  // Names the child in errors: "cannot start worker './w': No such file or directory".
  std::string role = "process";

  // The environment: the parent's (when inherit_env; a jail starts from its allow-list
  // instead), then `env` added or overriding.
  bool inherit_env = true;
  std::vector<std::pair<std::string, std::string>> env;

  // The child's standard descriptors, from these descriptors of the parent (not owned,
  // not closed); -1 is /dev/null.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  // Further descriptors the child gets: (number in the child, descriptor of the parent).
  // Numbers 3..9. Every other descriptor is closed before exec.
  std::vector<std::pair<int, int>> extra_fds;

  Limits limits;
  // SIGKILL when the thread that spawned it exits (PR_SET_PDEATHSIG), so spawn from a
  // thread that outlives the child.
  bool die_with_parent = true;
  // PR_SET_NO_NEW_PRIVS: nothing it execs gains privileges (setuid, file caps).
  bool no_new_privs = false;

  // Run it in the sandbox (docs/worker.md); nullopt: with the caller's rights.
  std::optional<JailSpec> jail;
};

}  // namespace kh
