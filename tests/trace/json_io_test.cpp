#include "trace/json_io.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "trace/json_text.h"
#include "trace/trace_set.h"

namespace kh {
namespace {

namespace fs = std::filesystem;

const char* kDefinition = R"({
  "name": "tiny",
  "op_type": "gemm",
  "x_extra": {"keep": [1, 2.5, "me"]},
  "axes": {"M": {"type": "var", "parent": "batch"}, "N": {"type": "const", "value": 4}},
  "inputs": {"A": {"shape": ["M", "N"], "dtype": "float16"}, "s": {"shape": null, "dtype": "float32"}},
  "outputs": {"C": {"shape": ["M", "N"], "dtype": "bfloat16", "optional": false}},
  "constraints": ["M >= 1"],
  "reference": "def run(A, s):\n    return A"
})";

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

TEST(JsonIo, TruncatedJsonNamesFileLineAndOffset) {
  const std::string text = std::string(kDefinition).substr(0, 120);
  try {
    (void)parse_definition(text, Location{"defs/tiny.json", 0, ""});
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.where().file, "defs/tiny.json");
    EXPECT_GT(e.where().line, 1u);
    EXPECT_TRUE(contains(msg, "invalid JSON at line")) << msg;
    EXPECT_TRUE(contains(msg, "byte 1")) << msg;
  }
}

TEST(JsonIo, TruncatedJsonlLineKeepsLineNumber) {
  try {
    (void)parse_trace_line(R"({"definition": "x", "workload": {"uuid": )", Location{"w.jsonl", 7, ""});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where().line, 7u);
    EXPECT_TRUE(contains(e.what(), "w.jsonl:7")) << e.what();
    EXPECT_TRUE(contains(e.what(), "column")) << e.what();
  }
}

TEST(JsonIo, DeepNestingIsRefusedCleanly) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_THROW((void)parse_json_text(deep, Location{"deep.json", 0, ""}), Error);
}

TEST(JsonIo, UnknownDtypeNamesFieldAndChoices) {
  std::string text = kDefinition;
  text.replace(text.find("\"float16\""), 9, "\"float9\"");
  try {
    (void)parse_definition(text, Location{"tiny.json", 0, ""});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field, "inputs.A.dtype");
    EXPECT_TRUE(contains(e.reason(), "unknown dtype 'float9'; expected one of float32, ")) << e.reason();
    EXPECT_TRUE(contains(e.what(), "tiny.json: inputs.A.dtype")) << e.what();
  }
}

TEST(JsonIo, WrongTypesNameTheField) {
  EXPECT_THROW((void)parse_trace_line(R"({"definition": 3, "workload": {"axes": {}, "inputs": {}}})"), Error);
  try {
    (void)parse_trace_line(
        R"({"definition": "d", "workload": {"uuid": "u", "axes": {"M": 1.5}, "inputs": {}}})");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field, "workload.axes.M");
    EXPECT_TRUE(contains(e.reason(), "expected an integer")) << e.reason();
  }
  try {
    (void)parse_trace_line(R"({"definition": "d", "workload": {"uuid": "u", "axes": {}, "inputs": {}},
                              "evaluation": {"status": "GREAT"}})");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field, "evaluation.status");
    EXPECT_TRUE(contains(e.reason(), "unknown status 'GREAT'")) << e.reason();
  }
}

TEST(JsonIo, DefinitionRoundTripKeepsUnknownFieldsAndOrder) {
  const Definition d = parse_definition(kDefinition);
  EXPECT_EQ(d.axes.size(), 2u);
  EXPECT_TRUE(d.inputs.find("s")->is_scalar());
  const std::string once = write_definition(d);
  const std::string twice = write_definition(parse_definition(once));
  EXPECT_EQ(once, twice);
  EXPECT_TRUE(contains(once, "\"x_extra\"")) << once;
  EXPECT_TRUE(contains(once, "\"parent\": \"batch\"")) << once;
  EXPECT_LT(once.find("\"x_extra\""), once.find("\"axes\""));
}

TEST(JsonIo, OldStyleTypeFieldSurvives) {
  std::string text = kDefinition;
  text.replace(text.find("\"op_type\""), 9, "\"type\"");
  const Definition d = parse_definition(text);
  EXPECT_EQ(d.op_type, "gemm");
  const std::string once = write_definition(d);
  EXPECT_FALSE(contains(once, "op_type")) << once;
  EXPECT_EQ(once, write_definition(parse_definition(once)));
}

TEST(JsonIo, TraceRoundTripKeepsEvaluationExtras) {
  const std::string line =
      R"({"definition":"d","workload":{"uuid":"u","axes":{"M":2},"inputs":{"A":{"type":"random"},"x":{"type":"scalar","value":2.5}}},)"
      R"("solution":"s","evaluation":{"status":"PASSED","environment":{"hardware":"B200","libs":{"torch":"2.8"}},)"
      R"("timestamp":"t","log":"","correctness":{"max_relative_error":1e-3,"max_absolute_error":0,"extra":{"k":1}},)"
      R"("performance":{"latency_ms":1,"reference_latency_ms":2.0,"speedup_factor":2},"our_field":[1]}})";
  Trace t = parse_trace_line(line);
  ASSERT_TRUE(t.evaluation);
  EXPECT_EQ(t.evaluation->status, EvalStatus::passed);
  EXPECT_DOUBLE_EQ(t.evaluation->performance->speedup_factor, 2.0);
  const std::string once = write_trace_line(t);
  EXPECT_EQ(once, write_trace_line(parse_trace_line(once)));
  EXPECT_TRUE(contains(once, "\"our_field\":[1]")) << once;
  EXPECT_TRUE(contains(once, "\"latency_ms\":1,")) << once;  // unchanged numbers keep their spelling
  t.evaluation->performance->latency_ms = 0.5;
  EXPECT_TRUE(contains(write_trace_line(t), "\"latency_ms\":0.5")) << write_trace_line(t);
}

TEST(JsonIo, SolutionDefaults) {
  const Solution s =
      parse_solution(R"({"name":"s","definition":"d","spec":{"language":"cuda","target_hardware":["B200"],
    "entry_point":"k.cu::run","dependencies":[]},"sources":[{"path":"k.cu","content":"x"}]})");
  EXPECT_EQ(s.spec.entry_file(), "k.cu");
  EXPECT_EQ(s.spec.entry_function(), "run");
  EXPECT_TRUE(s.spec.uses_destination_passing());
  EXPECT_EQ(s.spec.effective_binding(), "tvm-ffi");
  const std::string once = write_solution(s);
  EXPECT_FALSE(contains(once, "binding")) << once;  // a default is not written out
  EXPECT_EQ(once, write_solution(parse_solution(once)));
}

// Every file of the shared sample: write(read(x)) is a fixed point.
TEST(JsonIo, SharedFilesRoundTripByteStable) {
  const fs::path root = fs::path(KHARNESS_SHARED_DIR) / "flashinfer-trace";
  if (!fs::is_directory(root)) GTEST_SKIP() << "../shared absent";
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const fs::path p = entry.path();
    const FileKind kind = detect_kind(p);
    SCOPED_TRACE(p.string());
    if (kind == FileKind::definition) {
      const std::string once = write_definition(load_definition_file(p));
      EXPECT_EQ(once, write_definition(parse_definition(once)));
      EXPECT_EQ(parse_json_text(once, {}), parse_json_text(read_file(p), {}));  // nothing lost
    } else if (kind == FileKind::solution) {
      const std::string once = write_solution(load_solution_file(p));
      EXPECT_EQ(once, write_solution(parse_solution(once)));
      EXPECT_EQ(parse_json_text(once, {}), parse_json_text(read_file(p), {}));
    } else if (kind == FileKind::workloads || kind == FileKind::traces) {
      for (const Trace& t : load_trace_file(p)) {
        const std::string once = write_trace_line(t);
        EXPECT_EQ(once, write_trace_line(parse_trace_line(once)));
        EXPECT_EQ(parse_json_text(once, {}), t.raw);
      }
    } else {
      continue;
    }
    ++files;
  }
  EXPECT_GT(files, 40u);
}

}  // namespace
}  // namespace kh

namespace kh {
namespace {

// Found by fuzz/json_fuzz: nlohmann throws out_of_range (not parse_error) for this.
TEST(JsonIo, HugeNumberIsAnErrorNotACrash) {
  try {
    (void)parse_trace_line("{\"definition\": -9999999999999999e9999999999999999}",
                           Location{"t.jsonl", 3, ""});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where().line, 3u);
    EXPECT_NE(std::string(e.what()).find("number overflow"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kh
