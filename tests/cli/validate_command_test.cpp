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

// An operator folder (operators/<definition>/): its operator.json is kharness's manifest, checked
// as the operator library reads it; the folder's definition and workloads are trace files.
struct OperatorFolder {
  TempDir dir;
  std::string path;  // quoted for the shell
  explicit OperatorFolder(const std::string& manifest) {
    dir.write("tiny/definition.json", kDef);
    dir.write("tiny/workloads.jsonl", kWl);
    dir.write("tiny/reference.cpp", "int run();\n");
    path = dir.write("tiny/operator.json", manifest);
    path = path.substr(0, path.size() - std::string("/operator.json'").size()) + "'";
  }
};

TEST(CliValidate, OperatorFolderChecksItsManifest) {
  const OperatorFolder op(R"({"definition":"tiny","references":{"cpp":"reference.cpp::run"}})");
  const CommandResult r = run("validate " + op.path);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(
      contains(r.out, "loaded 1 definitions, 0 solutions, 1 workloads, 0 traces; checked 1 operator folder"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "cannot tell what this file is")) << r.out;
  const CommandResult j = run("validate --json " + op.path);
  EXPECT_EQ(nlohmann::json::parse(j.out)["counts"]["operators"], 1) << j.out;
}

TEST(CliValidate, OperatorManifestErrorsNameFileAndField) {
  const struct {
    const char* manifest;
    const char* message;
  } cases[] = {
      {R"({"definition":"tiny","references":{"cuda":"reference.cu::run"}})",
       "operator.json: references.cuda: file 'reference.cu' is not in the operator's folder"},
      {R"({"definition":"other","references":{"cpp":"reference.cpp::run"}})",
       "operator.json: definition: names \"other\" but definition.json is 'tiny'"},
      {R"({"definition":"tiny","timing":{"warmup":"ten"}})", "operator.json: invalid manifest: "},
      {R"({"definition":"tiny","baselines":{"cpp":"reference.cpp"}})",
       "operator.json: baselines.cpp: must be a string \"file::function\""},
      {"[1, 2]", "operator.json: must be a JSON object"},
  };
  for (const auto& c : cases) {
    const OperatorFolder op(c.manifest);
    const CommandResult r = run("validate " + op.path);
    EXPECT_EQ(r.status, 1) << c.manifest << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, c.message)) << c.manifest << "\n" << r.out;
    // operator.json named by itself is checked the same way
    const std::string file = op.path.substr(0, op.path.size() - 1) + "/operator.json'";
    EXPECT_TRUE(contains(run("validate " + file).out, c.message)) << c.manifest;
  }
}

TEST(CliValidate, ShippedOperatorFoldersAreValid) {
  const fs::path operators = fs::path(KHARNESS_SOURCE_DIR) / "operators";
  std::string folders;
  for (const fs::directory_entry& e : fs::directory_iterator(operators))
    if (fs::is_regular_file(e.path() / "operator.json")) folders += " '" + e.path().string() + "'";
  ASSERT_FALSE(folders.empty());
  const CommandResult r = run("validate --json" + folders);
  EXPECT_EQ(r.status, 0) << r.out.substr(0, 2000);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["errors"].empty()) << r.out.substr(0, 2000);
  EXPECT_GE(j["counts"]["operators"].get<int>(), 9);
  EXPECT_EQ(j["counts"]["definitions"], j["counts"]["operators"]);
}

// A lone solution of a definition kharness ships validates against the shipped definition, and
// says where that came from; an operator library without it leaves the definition unknown.
TEST(CliValidate, ALoneSolutionOfAShippedOperatorUsesItsDefinition) {
  const fs::path solution = fs::path(KHARNESS_SOURCE_DIR) / "examples/solutions/rmsnorm_h128_cpu.json";
  CommandResult r = run("validate '" + solution.string() + "'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "definition from kharness's operators: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "operators/rmsnorm_h128/definition.json")) << r.out;
  r = run("validate --json '" + solution.string() + "'");
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["shipped_definitions"].size(), 1u);
  EXPECT_EQ(j["counts"]["definitions"], 1);
  TempDir empty;
  r = run("validate --operators " + empty.path() + " '" + solution.string() + "'");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "unknown definition 'rmsnorm_h128'")) << r.out;
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
