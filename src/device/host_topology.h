// What the CPU backend reports about its host: the CPU model and the size of the
// last-level cache, read from /proc and sysfs. The paths are parameters so tests
// can feed fixture files.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kh {

// Used where sysfs says nothing (containers, non-Linux): larger than most LLCs, so
// a flush sized from it still evicts.
inline constexpr std::size_t kDefaultLastLevelCacheBytes = 32u << 20;

// "32768K", "1M", "512" (bytes) as sysfs writes cache sizes; nullopt when malformed.
[[nodiscard]] std::optional<std::size_t> parse_cache_size(std::string_view text);

// The largest index*/size under cache_dir (the highest level is the largest), or
// kDefaultLastLevelCacheBytes when none can be read.
[[nodiscard]] std::size_t last_level_cache_bytes(
    const std::filesystem::path& cache_dir = "/sys/devices/system/cpu/cpu0/cache");

// The first "model name" of a cpuinfo file, or "unknown CPU".
[[nodiscard]] std::string cpu_model_name(const std::filesystem::path& cpuinfo = "/proc/cpuinfo");

}  // namespace kh
