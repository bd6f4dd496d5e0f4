#include "base/jail/isolation.h"

#include <fmt/format.h>

namespace kh {

std::string_view isolation_level_name(IsolationLevel level) noexcept {
  switch (level) {
    case IsolationLevel::none:
      return "none";
    case IsolationLevel::restricted:
      return "restricted";
    case IsolationLevel::namespaces:
      return "namespaces";
  }
  return "none";
}

nlohmann::ordered_json Isolation::to_json() const {
  nlohmann::ordered_json j{{"level", std::string(isolation_level_name(level))},
                           {"mode", mode},
                           {"namespaces", namespaces},
                           {"private_root", private_root},
                           {"seccomp", seccomp},
                           {"landlock_abi", landlock_abi},
                           {"environment_allow_list", environment_allow_list},
                           {"user", user}};
  if (!notes.empty()) j["notes"] = notes;
  return j;
}

std::string Isolation::summary() const {
  if (level == IsolationLevel::none) return "none: children run with kharness's own rights";
  std::string s(isolation_level_name(level));
  if (!namespaces.empty()) s += fmt::format(" ({})", fmt::join(namespaces, " "));
  if (private_root) s += ", private read-only root";
  s += seccomp ? ", seccomp" : ", no seccomp";
  s += landlock_abi > 0 ? fmt::format(", landlock v{}", landlock_abi) : ", no landlock";
  if (environment_allow_list) s += ", allow-listed environment";
  if (!user.empty()) s += ", user " + user;
  return s;
}

}  // namespace kh
