// Names a process so that "is it still running?" can be answered later, by another
// process, after a reboot or once its pid was reused: the pid, its start time in clock
// ticks since boot (/proc/<pid>/stat field 22) and the boot's id.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace kh::control {

struct ProcessIdentity {
  std::int64_t pid = 0;
  std::uint64_t start_ticks = 0;
  std::string boot_id;

  [[nodiscard]] nlohmann::ordered_json json() const;
  [[nodiscard]] static ProcessIdentity from_json(const nlohmann::ordered_json& j);
};

[[nodiscard]] ProcessIdentity this_process();

// True when the process it names runs now (same boot, same pid, same start time).
[[nodiscard]] bool is_running(const ProcessIdentity& p);

}  // namespace kh::control
