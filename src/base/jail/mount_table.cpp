#include "base/jail/mount_table.h"

#include <fstream>
#include <sstream>
#include <string>

namespace kh {

namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(const std::string& field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      const std::string octal = field.substr(i + 1, 3);
      if (octal.find_first_not_of("01234567") == std::string::npos) {
        out += static_cast<char>(std::stoi(octal, nullptr, 8));
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

}  // namespace

std::vector<std::filesystem::path> mount_points() {
  std::vector<std::filesystem::path> out;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, root, mount_point;
    if (fields >> id >> parent >> device >> root >> mount_point) out.emplace_back(unescape(mount_point));
  }
  return out;
}

std::vector<std::filesystem::path> mount_points_beneath(const std::vector<std::filesystem::path>& all,
                                                        const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  const std::string prefix = dir == "/" ? "/" : dir.string() + "/";
  for (const auto& m : all)
    if (m.string().size() > prefix.size() && m.string().compare(0, prefix.size(), prefix) == 0)
      out.push_back(m);
  return out;
}

}  // namespace kh
