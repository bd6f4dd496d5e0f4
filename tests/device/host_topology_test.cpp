#include "device/host_topology.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace kh {
namespace {

TEST(HostTopology, ParsesSysfsCacheSizes) {
  EXPECT_EQ(parse_cache_size("32768K"), 32u << 20);
  EXPECT_EQ(parse_cache_size("48K\n"), 48u << 10);
  EXPECT_EQ(parse_cache_size("2M"), 2u << 20);
  EXPECT_EQ(parse_cache_size("512"), 512u);
  EXPECT_FALSE(parse_cache_size("").has_value());
  EXPECT_FALSE(parse_cache_size("K").has_value());
  EXPECT_FALSE(parse_cache_size("12Q").has_value());
}

class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / ("kh_topology_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(HostTopology, LastLevelCacheIsTheLargestIndex) {
  TempDir dir;
  write_file(dir.path() / "index0" / "size", "48K\n");
  write_file(dir.path() / "index2" / "size", "2048K\n");
  write_file(dir.path() / "index3" / "size", "36M\n");
  write_file(dir.path() / "uevent", "junk\n");
  EXPECT_EQ(last_level_cache_bytes(dir.path()), 36u << 20);
}

TEST(HostTopology, MissingSysfsFallsBackToTheDefault) {
  EXPECT_EQ(last_level_cache_bytes("/nonexistent/kharness/cache"), kDefaultLastLevelCacheBytes);
}

TEST(HostTopology, ReadsTheCpuModelName) {
  TempDir dir;
  write_file(dir.path() / "cpuinfo", "processor\t: 0\nmodel name\t: Test CPU @ 3.0GHz\nflags\t: x\n");
  EXPECT_EQ(cpu_model_name(dir.path() / "cpuinfo"), "Test CPU @ 3.0GHz");
  EXPECT_EQ(cpu_model_name("/nonexistent/cpuinfo"), "unknown CPU");
}

}  // namespace
}  // namespace kh
