// `kharness peaks`: peaks are cached per device, and an entry measured before the launch
// latency was part of every floor is measured again rather than read as a latency of 0.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "kharness_command.h"

namespace {

namespace fs = std::filesystem;
using kh::cli_test::CommandResult;
using kh::cli_test::run;
using json = nlohmann::ordered_json;

class PeaksCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kharness-peaks-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    setenv("KHARNESS_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // The one cached entry.
  fs::path entry() const {
    for (const auto& e : fs::directory_iterator(dir_ / "peaks")) return e.path();
    return {};
  }
  fs::path dir_;
};

TEST_F(PeaksCommand, AnEntryWithoutTheLaunchLatencyIsMeasuredAgain) {
  const CommandResult first = run("peaks --backend cpu");
  ASSERT_EQ(first.status, 0) << first.out;
  EXPECT_NE(first.out.find("measuring the peaks"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("launch"), std::string::npos) << first.out;
  const fs::path path = entry();
  ASSERT_FALSE(path.empty());
  json cached = json::parse(std::ifstream(path));
  ASSERT_TRUE(cached["peaks"].contains("launch_latency_s")) << cached.dump();

  const CommandResult again = run("peaks --backend cpu");
  EXPECT_EQ(again.out.find("measuring"), std::string::npos) << "a complete entry is read: " << again.out;

  // As written before the launch latency existed, with a bandwidth no measurement gives.
  cached["peaks"].erase("launch_latency_s");
  cached["peaks"]["bandwidth_bytes_per_s"] = 1.0;
  std::ofstream(path) << cached.dump(2);
  const CommandResult stale = run("peaks --backend cpu");
  ASSERT_EQ(stale.status, 0) << stale.out;
  EXPECT_NE(stale.out.find("predates the launch latency"), std::string::npos) << stale.out;
  const json rewritten = json::parse(std::ifstream(path));
  EXPECT_TRUE(rewritten["peaks"].contains("launch_latency_s")) << rewritten.dump();
  EXPECT_NE(rewritten["peaks"]["bandwidth_bytes_per_s"].get<double>(), 1.0) << "measured again, not read";
}

}  // namespace
