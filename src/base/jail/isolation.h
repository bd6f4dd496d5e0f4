// Isolation: what a jail actually achieved on this machine, recorded in every trace's
// environment block and printed at the start of `eval` and `optimize`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kh {

enum class IsolationLevel {
  none,        // no jail: --sandbox off, or a child that runs no candidate code
  restricted,  // no namespaces: seccomp, Landlock, rlimits, allow-listed environment
  namespaces,  // the full jail: namespaces, private read-only root, and all of the above
};

[[nodiscard]] std::string_view isolation_level_name(IsolationLevel level) noexcept;

struct Isolation {
  IsolationLevel level = IsolationLevel::none;
  std::string mode;                     // the --sandbox mode it was asked under
  std::vector<std::string> namespaces;  // "user", "mount", "pid", "ipc", "uts", "net"
  bool private_root = false;            // read-only root, one writable scratch folder
  bool seccomp = false;
  int landlock_abi = 0;  // 0: none
  bool environment_allow_list = false;
  std::string user;                // "65534 (kharness runs as root)", "same as kharness"
  std::vector<std::string> notes;  // what is missing and why

  [[nodiscard]] nlohmann::ordered_json to_json() const;
  // One line: "namespaces (user mount pid ipc uts net), private root, seccomp, landlock v7".
  [[nodiscard]] std::string summary() const;
};

}  // namespace kh
