// Runs the built kharness binary on temp files and checks exit codes and output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "kharness_command.h"

namespace {

namespace fs = std::filesystem;
using kh::cli_test::CommandResult;
using kh::cli_test::run;

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("kh_cli_" + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string write(const std::string& rel, const std::string& text) const {
    const fs::path p = path_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return "'" + p.string() + "'";
  }
  std::string path() const { return "'" + path_.string() + "'"; }

 private:
  fs::path path_;
};

const char* kDef = R"({"name":"tiny","op_type":"x","axes":{"M":{"type":"var"}},
  "inputs":{"A":{"shape":["M"],"dtype":"float32"}},"outputs":{"B":{"shape":["M"],"dtype":"float32"}},"reference":"def run(A): pass"})";
const char* kWl =
    R"({"definition":"tiny","solution":null,"workload":{"uuid":"u","axes":{"M":2},"inputs":{"A":{"type":"safetensors","path":"./blob/a.safetensors","tensor_key":"A"}}},"evaluation":null})";

bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

TEST(CliValidate, ValidFilesExitZero) {
  TempDir dir;
  const std::string d = dir.write("d.json", kDef);
  const std::string w = dir.write("w.jsonl", kWl);
  const CommandResult r = run("validate " + d + " " + w);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "loaded 1 definitions, 0 solutions, 1 workloads, 0 traces")) << r.out;
  EXPECT_TRUE(contains(r.out, "0 errors, 1 warning")) << r.out;  // the blob is missing
}

TEST(CliValidate, StrictMakesMissingBlobAnError) {
  TempDir dir;
  const std::string d = dir.write("d.json", kDef);
  const std::string w = dir.write("w.jsonl", kWl);
  const CommandResult r = run("validate --strict " + d + " " + w);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "error: ")) << r.out;
  EXPECT_TRUE(
      contains(r.out, "w.jsonl:1: workload.inputs.A.path: safetensors blob './blob/a.safetensors' not found"))
      << r.out;
}

TEST(CliValidate, UnknownDefinitionExitsOne) {
  TempDir dir;
  const CommandResult r = run("validate " + dir.write("w.jsonl", kWl));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "w.jsonl:1: definition: unknown definition 'tiny'")) << r.out;
  EXPECT_TRUE(contains(r.out, "1 error, ")) << r.out;
}

TEST(CliValidate, TruncatedJsonExitsOneWithLocation) {
  TempDir dir;
  const CommandResult r = run("validate " + dir.write("definitions/d.json", std::string(kDef).substr(0, 60)));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "d.json:2: invalid JSON at line 2")) << r.out;
}

TEST(CliValidate, JsonOutputParsesWithCounts) {
  TempDir dir;
  dir.write("set/definitions/d.json", kDef);
  dir.write("set/workloads/w.jsonl", std::string(kWl) + "\n" + kWl + "\n");
  dir.write("set/blob/a.safetensors", "x");
  const CommandResult r = run("validate --json " + dir.path() + "/set");
  EXPECT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["counts"]["definitions"], 1);
  EXPECT_EQ(j["counts"]["workloads"], 2);
  EXPECT_EQ(j["counts"]["traces"], 0);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_TRUE(j["errors"].empty());
  ASSERT_EQ(j["warnings"].size(), 1u);  // the duplicate uuid
  EXPECT_EQ(j["warnings"][0]["line"], 2);
  EXPECT_EQ(j["warnings"][0]["field"], "workload.uuid");
}

TEST(CliValidate, UsageErrorsExitTwo) {
  EXPECT_EQ(run("validate /definitely/not/here.json").status, 2);
  EXPECT_EQ(run("validate").status, 2);
  EXPECT_EQ(run("validate --bogus x").status, 2);
  EXPECT_EQ(run("").status, 2);
  const CommandResult help = run("validate --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_TRUE(contains(help.out, "--strict")) << help.out;
}

TEST(CliValidate, SharedSampleHasNoErrors) {
  const fs::path root = fs::path(KHARNESS_SHARED_DIR) / "flashinfer-trace";
  if (!fs::is_directory(root)) GTEST_SKIP() << "../shared absent";
  const CommandResult r = run("validate --json '" + root.string() + "'");
  EXPECT_EQ(r.status, 0) << r.out.substr(0, 2000);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["errors"].empty());
  EXPECT_GE(j["counts"]["definitions"].get<int>(), 28);
}

}  // namespace
