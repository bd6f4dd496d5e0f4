#include "trace/validate.h"

#include <gtest/gtest.h>

#include "trace/json_io.h"
#include "trace/validate_set.h"

namespace kh {
namespace {

const char* kDef = R"({"name":"tiny","op_type":"gemm",
  "axes":{"M":{"type":"var"},"N":{"type":"const","value":4}},
  "inputs":{"A":{"shape":["M","N"],"dtype":"float16"},"alpha":{"shape":null,"dtype":"float32"}},
  "outputs":{"C":{"shape":["M","N"],"dtype":"float16"}},
  "constraints":["M >= 1"],
  "reference":"def run(A, alpha):\n    return A"})";

const char* kSolution =
    R"({"name":"s","definition":"tiny","author":"me","spec":{"language":"cuda","target_hardware":["B200"],
  "entry_point":"kernel.cu::run","dependencies":[]},"sources":[{"path":"kernel.cu","content":"..."},{"path":"sub/k.h","content":""}]})";

const char* kWorkload = R"({"definition":"tiny","solution":null,"workload":{"uuid":"u1","axes":{"M":3},
  "inputs":{"A":{"type":"random"},"alpha":{"type":"scalar","value":1.5}}},"evaluation":null})";

Location file(const char* name, std::size_t line = 0) { return Location{name, line, ""}; }

// The one diagnostic whose field is `field`; fails the test when there is not exactly one.
Diagnostic only(const std::vector<Diagnostic>& ds, const std::string& field, Severity s = Severity::error) {
  std::vector<Diagnostic> hits;
  for (const auto& d : ds)
    if (d.where.field == field && d.severity == s) hits.push_back(d);
  std::string all;
  for (const auto& d : ds) all += format_diagnostic(d) + "\n";
  EXPECT_EQ(hits.size(), 1u) << "field " << field << " in:\n" << all;
  return hits.empty() ? Diagnostic{} : hits.front();
}

bool has(const Diagnostic& d, const std::string& text) { return d.message.find(text) != std::string::npos; }

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(Validate, GoodFilesHaveNoErrors) {
  EXPECT_EQ(count_errors(validate_definition(parse_definition(kDef))), 0u);
  EXPECT_EQ(count_errors(validate_solution(parse_solution(kSolution))), 0u);
  const Definition d = parse_definition(kDef);
  EXPECT_TRUE(validate_trace(parse_trace_line(kWorkload), &d).empty());
}

TEST(Validate, UndeclaredAxis) {
  const auto ds = validate_definition(parse_definition(with(kDef, R"(["M","N"],"dtype":"float16"},"alpha")",
                                                            R"(["M","K"],"dtype":"float16"},"alpha")")),
                                      file("d.json"));
  const Diagnostic d = only(ds, "inputs.A.shape[1]");
  EXPECT_EQ(d.where.file, "d.json");
  EXPECT_TRUE(has(d, "axis 'K' is not declared in axes")) << d.message;
}

TEST(Validate, ConstAxisMustNotBeNegative) {
  const auto ds = validate_definition(parse_definition(with(kDef, R"("value":4)", R"("value":-1)")));
  EXPECT_TRUE(has(only(ds, "axes.N.value"), "integer >= 0, got -1"));
  // flashinfer-bench allows 0 (NonNegativeInt), and so does kharness.
  EXPECT_TRUE(validate_definition(parse_definition(with(kDef, R"("value":4)", R"("value":0)"))).empty());
}

TEST(Validate, OverlappingNames) {
  const auto ds = validate_definition(parse_definition(with(kDef, R"("outputs":{"C")", R"("outputs":{"A")")));
  EXPECT_TRUE(has(only(ds, "outputs.A"), "'A' is both an input and an output"));
}

TEST(Validate, ConstraintParseError) {
  const auto ds = validate_definition(parse_definition(with(kDef, R"("M >= 1")", R"("M >= (1 +")")));
  const Diagnostic d = only(ds, "constraints[0]");
  EXPECT_TRUE(has(d, "constraint 'M >= (1 +' does not parse")) << d.message;
  EXPECT_TRUE(has(d, "position 9")) << d.message;
}

TEST(Validate, ConstraintNamingNothing) {
  const auto ds = validate_definition(parse_definition(with(kDef, R"("M >= 1")", R"("M >= Q")")));
  EXPECT_TRUE(has(only(ds, "constraints[0]"), "names 'Q'"));
}

TEST(Validate, ConstraintFalseOnConsts) {
  const auto ds = validate_definition(parse_definition(with(kDef, R"("M >= 1")", R"("N % 3 == 0")")));
  EXPECT_TRUE(has(only(ds, "constraints[0]"), "constraint 'N % 3 == 0' failed: N=4"));
}

TEST(Validate, MissingReference) {
  const auto ds = validate_definition(parse_definition(
      with(kDef, R"("reference":"def run(A, alpha):\n    return A")", R"("reference":null)")));
  EXPECT_TRUE(has(only(ds, "reference"), "reference is missing"));
}

TEST(Validate, BadEntryPoint) {
  auto ds =
      validate_solution(parse_solution(with(kSolution, "kernel.cu::run", "kernel.cu:run")), file("s.json"));
  EXPECT_TRUE(has(only(ds, "spec.entry_point"), "must have the form 'file::function'"));
  ds = validate_solution(parse_solution(with(kSolution, "kernel.cu::run", "other.cu::run")));
  EXPECT_TRUE(has(only(ds, "spec.entry_point"),
                  "entry_point file 'other.cu' is not one of the sources (kernel.cu, sub/k.h)"));
  ds = validate_solution(parse_solution(with(kSolution, "kernel.cu::run", "kernel.cu::9run")));
  EXPECT_TRUE(has(only(ds, "spec.entry_point"), "'9run' is not a C identifier"));
}

TEST(Validate, SourcePaths) {
  auto ds = validate_solution(parse_solution(with(kSolution, "sub/k.h", "../k.h")));
  EXPECT_TRUE(has(only(ds, "sources[1].path"), "source path '../k.h' contains a '..' component"));
  ds = validate_solution(parse_solution(with(kSolution, "sub/k.h", "a/../../k.h")));
  EXPECT_TRUE(has(only(ds, "sources[1].path"), "contains a '..' component"));
  ds = validate_solution(parse_solution(with(kSolution, "sub/k.h", "/etc/k.h")));
  EXPECT_TRUE(has(only(ds, "sources[1].path"), "source path '/etc/k.h' is absolute"));
  ds = validate_solution(parse_solution(with(kSolution, "sub/k.h", "kernel.cu")));
  EXPECT_TRUE(has(only(ds, "sources[1].path"), "appears more than once"));
}

TEST(Validate, LanguageAndBinding) {
  auto ds =
      validate_solution(parse_solution(with(kSolution, R"("language":"cuda")", R"("language":"fortran")")));
  EXPECT_TRUE(has(only(ds, "spec.language"), "unknown language 'fortran'"));
  ds = validate_solution(
      parse_solution(with(kSolution, R"("language":"cuda")", R"("language":"cuda","binding":"ctypes")")));
  EXPECT_TRUE(has(only(ds, "spec.binding"), "unknown binding 'ctypes'"));
}

TEST(Validate, WorkloadAgainstDefinition) {
  const Definition def = parse_definition(kDef);
  auto ds = validate_trace(parse_trace_line(with(kWorkload, R"("axes":{"M":3})", R"("axes":{"M":-2,"Z":2})")),
                           &def, file("w.jsonl", 4));
  EXPECT_TRUE(has(only(ds, "workload.axes.M"), ">= 0, got -2"));
  const Diagnostic z = only(ds, "workload.axes.Z");
  EXPECT_TRUE(has(z, "axis 'Z' is not declared by definition 'tiny'"));
  EXPECT_EQ(z.where.line, 4u);
  ds = validate_trace(parse_trace_line(with(kWorkload, R"("axes":{"M":3})", R"("axes":{})")), &def);
  EXPECT_TRUE(has(only(ds, "workload.axes"), "var axis 'M' of definition 'tiny' has no value"));
  ds = validate_trace(parse_trace_line(with(kWorkload, R"("A":{"type":"random"})",
                                            R"("A":{"type":"scalar","value":1},"B":{"type":"random"})")),
                      &def);
  EXPECT_TRUE(has(only(ds, "workload.inputs.A"), "a scalar value is given for 'A'"));
  EXPECT_TRUE(has(only(ds, "workload.inputs.B"), "'B' is not an input"));
  ds = validate_trace(
      parse_trace_line(with(kWorkload, R"("alpha":{"type":"scalar","value":1.5})",
                            R"("alpha":{"type":"safetensors","path":"../x.safetensors","tensor_key":"a"})")),
      &def);
  EXPECT_TRUE(has(only(ds, "workload.inputs.alpha.path"), "contains a '..' component"));
  ds = validate_trace(parse_trace_line(with(kWorkload, R"(,"alpha":{"type":"scalar","value":1.5})", "")),
                      &def);
  EXPECT_TRUE(has(only(ds, "workload.inputs"), "input 'alpha' has no descriptor"));
}

TEST(Validate, WorkloadConstraintFails) {
  const Definition def = parse_definition(with(kDef, R"("M >= 1")", R"("M <= N")"));
  const auto ds = validate_trace(parse_trace_line(with(kWorkload, R"("M":3)", R"("M":5)")), &def);
  EXPECT_TRUE(has(only(ds, "workload.axes"), "constraint 'M <= N' failed: M=5, N=4"));
}

std::string traced(const std::string& evaluation) {
  return with(with(kWorkload, R"("evaluation":null)", R"("evaluation":)" + evaluation), R"("solution":null)",
              R"("solution":"s")");
}

TEST(Validate, StatusAndBlocksAgree) {
  const std::string corr = R"("correctness":{"max_relative_error":0.1,"max_absolute_error":0.2})";
  const std::string perf = R"("performance":{"latency_ms":1,"reference_latency_ms":2,"speedup_factor":2})";
  EXPECT_TRUE(
      validate_trace(parse_trace_line(traced(R"({"status":"PASSED",)" + corr + "," + perf + "}")), nullptr)
          .empty());
  auto ds = validate_trace(parse_trace_line(traced(R"({"status":"PASSED",)" + corr + "}")), nullptr);
  EXPECT_TRUE(has(only(ds, "evaluation.performance"), "status PASSED needs a performance block"));
  ds = validate_trace(
      parse_trace_line(traced(R"({"status":"INCORRECT_NUMERICAL",)" + corr + "," + perf + "}")), nullptr);
  EXPECT_TRUE(
      has(only(ds, "evaluation.performance"), "INCORRECT_NUMERICAL must not have a performance block"));
  ds = validate_trace(parse_trace_line(traced(R"({"status":"RUNTIME_ERROR",)" + corr + "}")), nullptr);
  EXPECT_TRUE(has(only(ds, "evaluation.correctness"),
                  "status RUNTIME_ERROR must have neither correctness nor performance"));
  EXPECT_TRUE(validate_trace(parse_trace_line(traced(R"({"status":"REWARD_HACK","log":"caught"})")), nullptr)
                  .empty());
}

TEST(Validate, SetReportsUnknownDefinition) {
  TraceSet set;
  set.add_definition({parse_definition(kDef), file("d.json"), {}});
  set.add_workload({parse_trace_line(with(kWorkload, R"("definition":"tiny")", R"("definition":"nope")")),
                    file("w.jsonl", 2),
                    {}});
  set.add_solution({parse_solution(with(kSolution, R"("definition":"tiny")", R"("definition":"nope")")),
                    file("s.json"),
                    {}});
  const auto ds = validate_set(set, ValidateOptions{false, false});
  ASSERT_EQ(count_errors(ds), 2u);
  for (const auto& d : ds) {
    EXPECT_EQ(d.where.field, "definition");
    EXPECT_TRUE(has(d, "unknown definition 'nope'")) << d.message;
  }
}

}  // namespace
}  // namespace kh
