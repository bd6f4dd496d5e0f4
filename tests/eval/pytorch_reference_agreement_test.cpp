// kharness's native references agree with the definitions' own PyTorch references: the
// C++ reference of each shipped operator is evaluated as a candidate against the PyTorch
// one (run by the worker's embedded Python with real torch), on the operator's small
// workloads, with the operator's checker and tolerance. Where kharness has no native
// reference the PyTorch one is the reference, so this is what lets the two stand in
// for each other. The CUDA references are compared on the GPU
// (reference_agreement_test.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <iterator>
#include <set>
#include <string>

#include "eval/evaluator.h"
#include "eval/operator_library.h"
#include "eval/python/python_solution.h"
#include "torch_required.h"

namespace kh {
namespace {

// Every shipped operator but MoE, one test each (they run side by side). The MoE
// reference dequantizes every local expert's weights to float32 at once (about 11 GB with
// its intermediates): more than a CPU worker may map; the gpu test compares it.
constexpr const char* kOperators[] = {"dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64",
                                      "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64",
                                      "gdn_decode_qk4_v8_d128_k_last",
                                      "gdn_prefill_qk4_v8_d128_k_last",
                                      "gemm_n4096_k4096",
                                      "rmsnorm_h128",
                                      "rmsnorm_h4096",
                                      "softmax_h4096"};

OperatorLibrary shipped_operators() {
  return OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
}

TEST(PyTorchReferenceCoverage, EveryOperatorButMoeIsCompared) {
  const std::set<std::string> listed(std::begin(kOperators), std::end(kOperators));
  const OperatorLibrary ops = shipped_operators();
  for (const OperatorEntry& op : ops.entries()) {
    if (op.definition.name.rfind("moe_", 0) == 0) continue;
    EXPECT_TRUE(listed.contains(op.definition.name)) << op.definition.name << " is not compared";
  }
}

class PyTorchReferenceAgreement : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(Operators, PyTorchReferenceAgreement, ::testing::ValuesIn(kOperators));

TEST_P(PyTorchReferenceAgreement, CppReferenceMatchesThePyTorchReference) {
  KH_REQUIRE_TORCH();
  const OperatorLibrary ops = shipped_operators();
  const OperatorEntry* op = ops.find(GetParam());
  ASSERT_NE(op, nullptr);
  ASSERT_FALSE(op->definition.reference.empty()) << "every shipped definition carries its PyTorch reference";
  const auto scratch =
      std::filesystem::temp_directory_path() /
      ("kharness-pytorch-refs-" + std::string(GetParam()) + "-" + std::to_string(::getpid()));
  EvalOptions o;
  o.backend = "cpu";
  o.correctness_trials = 2;
  o.time_candidate = false;
  o.time_reference = false;
  o.speed_of_light = false;
  o.timeout = std::chrono::seconds(120);
  o.worker_executable = KHARNESS_EXECUTABLE;
  o.work_dir = scratch / "work";
  o.cache_dir = scratch / "cache";
  const EvaluationTarget t{op->definition,
                           ops.workloads(GetParam(), true),
                           op->dir,
                           ops.reference(GetParam(), "cpu"),
                           definition_reference(op->definition),
                           op->checker,
                           op->tolerance.value_or(Tolerance{}),
                           std::nullopt};
  const SolutionEvaluation e = evaluate_solution(t, o);
  ASSERT_FALSE(e.workloads.empty());
  for (const WorkloadResult& w : e.workloads) {
    EXPECT_EQ(status_name(w.status), status_name(EvalStatus::passed)) << w.workload.uuid << ": " << w.log;
    if (w.correctness) {
      std::cout << GetParam() << " " << w.workload.uuid.substr(0, 8) << ": max abs error "
                << w.correctness->max_absolute_error << "\n";
    }
  }
  std::filesystem::remove_all(scratch);
}

}  // namespace
}  // namespace kh
