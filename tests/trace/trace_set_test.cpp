#include "trace/trace_set.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "trace/validate_set.h"

namespace kh {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("kh_trace_set_" + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path write(const std::string& rel, const std::string& text) const {
    const fs::path p = path_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  fs::path path_;
};

const char* kDef = R"({"name":"tiny","op_type":"x","axes":{"M":{"type":"var"}},
  "inputs":{"A":{"shape":["M"],"dtype":"float32"}},"outputs":{"B":{"shape":["M"],"dtype":"float32"}},"reference":"def run(A): pass"})";
const char* kWl =
    R"({"definition":"tiny","solution":null,"workload":{"uuid":"u","axes":{"M":2},"inputs":{"A":{"type":"safetensors","path":"./blob/a.safetensors","tensor_key":"A"}}},"evaluation":null})";

TEST(TraceSet, SharedSampleValidatesWithoutErrors) {
  const fs::path root = fs::path(KHARNESS_SHARED_DIR) / "flashinfer-trace";
  if (!fs::is_directory(root)) GTEST_SKIP() << "../shared absent";
  const TraceSet set = load_trace_set(root);
  EXPECT_GE(set.definitions().size(), 28u);
  EXPECT_GE(set.solutions().size(), 1u);
  EXPECT_GT(set.workloads().size(), 100u);
  const auto ds = validate_set(set);
  std::string errors;
  for (const auto& d : ds)
    if (d.severity == Severity::error) errors += format_diagnostic(d) + "\n";
  EXPECT_EQ(count_errors(ds), 0u) << errors;
  EXPECT_NE(set.find_definition("gemm_n4096_k4096"), nullptr);
  EXPECT_EQ(set.solutions_for("gemm_n4096_k4096").size(), 1u);
  EXPECT_FALSE(set.workloads_for("gemm_n4096_k4096").empty());
}

TEST(TraceSet, CollectsProblemsPerLineAndCopesWithJunk) {
  TempDir dir;
  dir.write("definitions/a/tiny.json", kDef);
  dir.write("definitions/b/broken.json", "{\"name\": \"x\", \"axes\": {");
  dir.write("definitions/c/junk.json", std::string("\xff\xfe\x00\x01garbage", 12));
  dir.write("workloads/tiny.jsonl",
            std::string(kWl) + "\n\n{\"definition\": \"tiny\"\n\"\xc3\x28\"\n" + kWl + "\n");
  const TraceSet set = load_trace_set(dir.path());
  EXPECT_EQ(set.definitions().size(), 1u);
  EXPECT_EQ(set.workloads().size(), 2u);
  ASSERT_EQ(set.diagnostics().size(), 4u);
  EXPECT_NE(set.diagnostics()[0].where.file.find("broken.json"), std::string::npos);
  EXPECT_EQ(set.diagnostics()[2].where.line, 3u);
  EXPECT_EQ(set.diagnostics()[3].where.line, 4u);
}

TEST(TraceSet, EmptyAndMissingFolders) {
  TempDir dir;
  fs::create_directories(dir.path() / "definitions");
  const TraceSet set = load_trace_set(dir.path());
  EXPECT_TRUE(set.definitions().empty());
  EXPECT_TRUE(validate_set(set).empty());
  EXPECT_TRUE(load_trace_set(dir.path() / "nope").definitions().empty());
}

TEST(TraceSet, MissingBlobIsWarningOrStrictError) {
  TempDir dir;
  dir.write("definitions/tiny.json", kDef);
  dir.write("workloads/tiny.jsonl", kWl);
  const TraceSet set = load_trace_set(dir.path());
  auto ds = validate_set(set);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].severity, Severity::warning);
  EXPECT_EQ(ds[0].where.field, "workload.inputs.A.path");
  EXPECT_NE(ds[0].message.find("safetensors blob './blob/a.safetensors' not found"), std::string::npos);
  ds = validate_set(set, ValidateOptions{true, true});
  ASSERT_EQ(count_errors(ds), 1u);
  dir.write("blob/a.safetensors", "x");
  EXPECT_TRUE(validate_set(set).empty());
}

TEST(TraceSet, DetectKind) {
  TempDir dir;
  EXPECT_EQ(detect_kind(dir.write("x/d.json", kDef)), FileKind::definition);
  EXPECT_EQ(detect_kind(dir.write("x/s.json", R"({"name":"s","spec":{},"sources":[]})")), FileKind::solution);
  EXPECT_EQ(detect_kind(dir.write("x/w.jsonl", kWl)), FileKind::workloads);
  EXPECT_EQ(detect_kind(dir.write("x/t.jsonl",
                                  R"({"definition":"tiny","workload":{},"evaluation":{"status":"PASSED"}})")),
            FileKind::traces);
  EXPECT_EQ(detect_kind(dir.write("solutions/anything.json", "{}")), FileKind::solution);
  EXPECT_EQ(detect_kind(dir.write("x/other.json", "[1]")), FileKind::unknown);
}

TEST(TraceSet, LoadPathsResolvesDefinitionsAcrossFiles) {
  TempDir dir;
  const fs::path d = dir.write("x/d.json", kDef);
  const fs::path w = dir.write("x/w.jsonl", kWl);
  dir.write("x/blob/a.safetensors", "x");
  EXPECT_EQ(count_errors(validate_set(load_paths({d, w}))), 0u);
  const auto alone = validate_set(load_paths({w}));
  ASSERT_EQ(count_errors(alone), 1u);
  EXPECT_NE(alone[0].message.find("unknown definition 'tiny'"), std::string::npos);
  EXPECT_THROW((void)load_paths({dir.path() / "missing.json"}), Error);
}

}  // namespace
}  // namespace kh
