#include "device/host_topology.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <system_error>

namespace kh {

std::optional<std::size_t> parse_cache_size(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::size_t value = 0;
  const auto [rest, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || rest == text.data()) return std::nullopt;
  const std::string_view suffix(rest, static_cast<std::size_t>(text.data() + text.size() - rest));
  if (suffix.empty()) return value;
  if (suffix == "K") return value << 10;
  if (suffix == "M") return value << 20;
  if (suffix == "G") return value << 30;
  return std::nullopt;
}

std::size_t last_level_cache_bytes(const std::filesystem::path& cache_dir) {
  std::size_t largest = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cache_dir, ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    std::ifstream in(entry.path() / "size");
    std::string text;
    if (!(in >> text)) continue;
    if (const auto bytes = parse_cache_size(text)) largest = std::max(largest, *bytes);
  }
  return largest > 0 ? largest : kDefaultLastLevelCacheBytes;
}

std::string cpu_model_name(const std::filesystem::path& cpuinfo) {
  std::ifstream in(cpuinfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto first = line.find_first_not_of(" \t", colon + 1);
    return first == std::string::npos ? std::string("unknown CPU") : line.substr(first);
  }
  return "unknown CPU";
}

}  // namespace kh
