#include "control/process_identity.h"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace kh::control {
namespace {

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

// Field 22 of /proc/<pid>/stat; 0 when the process does not exist or is a zombie (dead,
// not yet reaped). The command name (field 2) may hold spaces and parentheses, so fields
// are counted after its last ')'.
std::uint64_t start_ticks(std::int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return 0;
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 3 && (field == "Z" || field == "X")) return 0;
    std::uint64_t ticks = 0;
    if (i == 22 && std::from_chars(field.data(), field.data() + field.size(), ticks).ec == std::errc{})
      return ticks;
  }
  return 0;
}

}  // namespace

nlohmann::ordered_json ProcessIdentity::json() const {
  return {{"pid", pid}, {"start_ticks", start_ticks}, {"boot_id", boot_id}};
}

ProcessIdentity ProcessIdentity::from_json(const nlohmann::ordered_json& j) {
  ProcessIdentity p;
  if (!j.is_object()) return p;
  if (j.contains("pid") && j["pid"].is_number_integer()) p.pid = j["pid"].get<std::int64_t>();
  if (j.contains("start_ticks") && j["start_ticks"].is_number_unsigned())
    p.start_ticks = j["start_ticks"].get<std::uint64_t>();
  if (j.contains("boot_id") && j["boot_id"].is_string()) p.boot_id = j["boot_id"].get<std::string>();
  return p;
}

ProcessIdentity this_process() {
  ProcessIdentity p;
  p.pid = ::getpid();
  p.start_ticks = start_ticks(p.pid);
  p.boot_id = boot_id();
  return p;
}

bool is_running(const ProcessIdentity& p) {
  if (p.pid <= 0 || p.boot_id != boot_id()) return false;
  const std::uint64_t ticks = start_ticks(p.pid);
  return ticks != 0 && ticks == p.start_ticks;
}

}  // namespace kh::control
