// Every operator kharness ships, end to end on the CPU backend: its definition agrees
// with the contest's (when ../shared is present), its workloads and speed-of-light
// formulas evaluate, and its C++ baseline passes against its C++ reference on the
// small CI workloads, through the real harness (workers, checker, timing).
//
// The suite is parameterised by the folders under operators/, so a new operator is
// tested the moment it lands.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/operator_library.h"
#include "eval/workload_shapes.h"
#include "trace/trace_set.h"

namespace kh {
namespace {

const std::filesystem::path kOperators = std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators";

const OperatorLibrary& library() {
  static const OperatorLibrary ops = OperatorLibrary::load(kOperators);
  return ops;
}

std::vector<std::string> operator_names() {
  std::vector<std::string> names;
  for (const OperatorEntry& e : library().entries()) names.push_back(e.definition.name);
  return names;
}

class OperatorSuite : public ::testing::TestWithParam<std::string> {
 protected:
  const OperatorEntry& op() const { return *library().find(GetParam()); }
};

TEST_P(OperatorSuite, HasEveryPart) {
  const OperatorEntry& e = op();
  for (const char* file : {"definition.json", "workloads.jsonl", "ci-workloads.jsonl", "skill.md"}) {
    EXPECT_TRUE(std::filesystem::exists(e.dir / file)) << e.dir / file;
  }
  EXPECT_NO_THROW((void)library().reference(GetParam(), "cpu"));
  EXPECT_NO_THROW((void)library().reference(GetParam(), "cuda"));
  EXPECT_NO_THROW((void)library().baseline(GetParam(), "cpu"));
  EXPECT_NO_THROW((void)library().baseline(GetParam(), "cuda"));
  EXPECT_TRUE(e.speed_of_light.has_value()) << "operator.json has no speed_of_light model";
}

TEST_P(OperatorSuite, WorkloadsBindAndHaveWork) {
  const OperatorEntry& e = op();
  for (bool small : {false, true}) {
    const std::vector<Workload> workloads = library().workloads(GetParam(), small);
    EXPECT_FALSE(workloads.empty()) << (small ? "ci-workloads.jsonl" : "workloads.jsonl") << " is empty";
    for (const Workload& w : workloads) {
      const AxisValues axes = resolve_axes(e.definition, w);
      ASSERT_TRUE(e.speed_of_light.has_value());
      const WorkloadWork work = evaluate_work(*e.speed_of_light, axes);
      EXPECT_GT(work.bytes, 0) << w.uuid;
      EXPECT_GE(work.flops, 0) << w.uuid;
    }
  }
}

// Name, axes, dtypes and input and output order as the contest definition, so that our
// traces interoperate with theirs.
TEST_P(OperatorSuite, MatchesTheContestDefinition) {
  const std::filesystem::path shared = std::filesystem::path(KHARNESS_SHARED_DIR) / "flashinfer-trace";
  if (!std::filesystem::exists(shared)) GTEST_SKIP() << "../shared/flashinfer-trace is absent";
  const TraceSet set = load_trace_set(shared);
  const Definition* contest = set.find_definition(GetParam());
  if (contest == nullptr) GTEST_SKIP() << GetParam() << " is not a shared definition";
  const Definition& ours = op().definition;
  EXPECT_EQ(ours.op_type, contest->op_type);
  ASSERT_EQ(ours.axes.size(), contest->axes.size());
  for (std::size_t i = 0; i < ours.axes.size(); ++i) {
    EXPECT_EQ(ours.axes.items[i].first, contest->axes.items[i].first);
    EXPECT_EQ(ours.axes.items[i].second.is_const(), contest->axes.items[i].second.is_const())
        << ours.axes.items[i].first;
    if (ours.axes.items[i].second.is_const() && contest->axes.items[i].second.is_const()) {
      EXPECT_EQ(ours.axes.items[i].second.const_value(), contest->axes.items[i].second.const_value())
          << ours.axes.items[i].first;
    }
  }
  auto same_tensors = [](const NamedList<TensorSpec>& a, const NamedList<TensorSpec>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a.items[i].first, b.items[i].first);
      EXPECT_EQ(a.items[i].second.dtype, b.items[i].second.dtype) << a.items[i].first;
      EXPECT_EQ(a.items[i].second.shape, b.items[i].second.shape) << a.items[i].first;
    }
  };
  same_tensors(ours.inputs, contest->inputs);
  same_tensors(ours.outputs, contest->outputs);
}

TEST_P(OperatorSuite, CpuBaselinePassesOnSmallWorkloads) {
  const OperatorEntry& e = op();
  EvalOptions o;
  o.backend = "cpu";
  o.correctness_trials = 2;
  o.protocol.trials = 1;
  o.protocol.warmup = 1;
  o.protocol.iterations = 2;
  o.recheck = 1;
  o.seed = 0x0fe2a70e;
  o.worker_executable = KHARNESS_EXECUTABLE;
  o.work_dir = std::filesystem::temp_directory_path() /
               ("kharness-ops-" + GetParam() + "-" + std::to_string(::getpid()));
  const EvaluationTarget t = library().target(e.definition, library().workloads(GetParam(), true), e.dir,
                                              library().baseline(GetParam(), "cpu"), "cpu");
  const SolutionEvaluation r = evaluate_solution(t, o);
  std::filesystem::remove_all(o.work_dir);
  ASSERT_EQ(r.candidate_build.status, BuildResult::Status::ok) << r.candidate_build.log;
  ASSERT_FALSE(r.workloads.empty());
  for (const WorkloadResult& w : r.workloads) {
    EXPECT_EQ(status_name(w.status), status_name(EvalStatus::passed)) << w.workload.uuid << ": " << w.log;
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, OperatorSuite, ::testing::ValuesIn(operator_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace kh
