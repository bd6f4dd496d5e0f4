// The orchestrator's side of Python solutions: checking the entry point, staging the
// sources as a content-addressed package, the definition's PyTorch reference as a
// solution, and the load request the worker gets. No Python is run here.
#include "eval/python/python_solution.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "error/error.h"
#include "eval/python/python_load.h"
#include "eval/solution_build.h"
#include "trace/json_io.h"

namespace kh {
namespace {

Definition rmsnorm_definition() {
  return parse_definition(R"({"name": "rmsnorm_h128", "op_type": "rmsnorm",
    "axes": {"batch_size": {"type": "var"}, "hidden_size": {"type": "const", "value": 128}},
    "inputs": {"hidden_states": {"shape": ["batch_size", "hidden_size"], "dtype": "bfloat16"},
               "weight": {"shape": ["hidden_size"], "dtype": "bfloat16"},
               "eps": {"shape": null, "dtype": "float32"}},
    "outputs": {"output": {"shape": ["batch_size", "hidden_size"], "dtype": "bfloat16"}},
    "reference": "import torch\ndef run(hidden_states, weight, eps):\n    return hidden_states\n"})",
                          Location{"test", 0, ""});
}

Solution python_solution(const std::string& entry_point) {
  Solution s;
  s.name = "s";
  s.definition = "rmsnorm_h128";
  s.spec.language = "python";
  s.spec.entry_point = entry_point;
  s.sources = {{"impl/main.py", "from .helpers import f\ndef run(x, w, eps, out):\n    pass\n", {}},
               {"impl/helpers.py", "def f():\n    pass\n", {}}};
  return s;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class PythonStaging : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = std::filesystem::temp_directory_path() / ("kharness-py-staging-" + std::to_string(::getpid()));
  }
  void TearDown() override { std::filesystem::remove_all(cache_); }
  std::filesystem::path cache_;
};

TEST_F(PythonStaging, StagesTheSourcesAsAPackageOnceByContent) {
  const Definition d = rmsnorm_definition();
  const BuildResult first = stage_python_solution(python_solution("impl/main.py::run"), d, cache_);
  ASSERT_EQ(first.status, BuildResult::Status::ok);
  EXPECT_FALSE(first.cache_hit);
  const PythonLoad load = python_load(python_solution("impl/main.py::run"), d, first);
  EXPECT_EQ(load.module, "impl.main");
  EXPECT_EQ(load.function, "run");
  EXPECT_EQ(read(load.root / load.package / "impl" / "helpers.py"), "def f():\n    pass\n");
  const BuildResult again = stage_python_solution(python_solution("impl/main.py::run"), d, cache_);
  EXPECT_TRUE(again.cache_hit);
  EXPECT_EQ(again.library, first.library);
  Solution changed = python_solution("impl/main.py::run");
  changed.sources[1].content += "# edited\n";
  EXPECT_NE(stage_python_solution(changed, d, cache_).library, first.library)
      << "a new content, a new package";
}

TEST_F(PythonStaging, RejectsEntryPointsPythonCannotImportOrCall) {
  const Definition d = rmsnorm_definition();
  EXPECT_THROW((void)stage_python_solution(python_solution("impl/main.cu::run"), d, cache_), Error);
  EXPECT_THROW((void)stage_python_solution(python_solution("impl/main.py::2run"), d, cache_), Error);
  EXPECT_THROW((void)stage_python_solution(python_solution("impl/other.py::run"), d, cache_), Error);
  Solution escape = python_solution("impl/main.py::run");
  escape.sources.push_back({"../evil.py", "", {}});
  EXPECT_THROW((void)stage_python_solution(escape, d, cache_), Error);
  try {
    (void)stage_python_solution(python_solution("impl/main.cu::run"), d, cache_);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("must be a .py file"), std::string::npos) << e.what();
  }
}

TEST_F(PythonStaging, TheDefinitionsReferenceIsAValueReturningPythonSolution) {
  const Solution r = definition_reference(rmsnorm_definition());
  EXPECT_EQ(r.spec.language, "python");
  EXPECT_EQ(r.spec.entry_point, "main.py::run");
  EXPECT_FALSE(r.spec.uses_destination_passing());
  ASSERT_EQ(r.sources.size(), 1u);
  EXPECT_NE(r.sources[0].content.find("def run("), std::string::npos);
  Definition empty = rmsnorm_definition();
  empty.reference.clear();
  EXPECT_THROW((void)definition_reference(empty), Error);
}

TEST_F(PythonStaging, LoadRequestNamesThePythonRuntimeAndTheParameters) {
  const Definition d = rmsnorm_definition();
  const Solution s = python_solution("impl/main.py::run");
  const BuildResult staged = stage_python_solution(s, d, cache_);
  const nlohmann::ordered_json request = load_request(s, d, staged);
  EXPECT_EQ(request.at("runtime"), "python");
  const PythonLoad back = python_load_from_json(request);
  EXPECT_TRUE(back.destination_passing);
  ASSERT_EQ(back.signature.params.size(), 4u);
  EXPECT_EQ(back.signature.params[2].name, "eps");
  EXPECT_EQ(back.signature.params[2].role, KernelParam::Role::scalar);
  EXPECT_EQ(back.signature.params[3].role, KernelParam::Role::output);
  EXPECT_EQ(back.signature.params[3].dtype, DType::bfloat16);
  nlohmann::ordered_json broken = request;
  broken.erase("params");
  EXPECT_THROW((void)python_load_from_json(broken), Error);
}

// A Triton solution needs a GPU: on the CPU backend it is refused before anything runs.
TEST_F(PythonStaging, TritonOnTheCpuBackendIsACompileErrorSayingWhy) {
  Solution s = python_solution("impl/main.py::run");
  s.spec.language = "triton";
  BuildSettings settings;
  settings.backend = "cpu";
  const std::vector<BuildResult> r =
      build_solutions(BuildCache(cache_), {s}, rmsnorm_definition(), settings, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, BuildResult::Status::compile_error);
  EXPECT_NE(r[0].message.find("cuda backend"), std::string::npos) << r[0].message;
}

}  // namespace
}  // namespace kh
