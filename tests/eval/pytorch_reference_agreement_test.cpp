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

#include "eval/evaluator.h"
#include "eval/operator_library.h"
#include "eval/python/python_solution.h"
#include "torch_required.h"

namespace kh {
namespace {

// The MoE reference dequantizes every local expert's weights to float32 tensors at
// once (about 11 GB with its intermediates): more than a CPU worker may map.
bool too_big_for_cpu_torch(const OperatorEntry& op) { return op.definition.name.rfind("moe_", 0) == 0; }

TEST(PyTorchReferenceAgreement, CppReferencesMatchThePyTorchReferences) {
  KH_REQUIRE_TORCH();
  const OperatorLibrary ops = OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  const auto scratch =
      std::filesystem::temp_directory_path() / ("kharness-pytorch-refs-" + std::to_string(::getpid()));
  int compared = 0;
  for (const OperatorEntry& op : ops.entries()) {
    SCOPED_TRACE(op.definition.name);
    if (too_big_for_cpu_torch(op)) {
      std::cout << op.definition.name << ": not compared on the CPU (see the gpu test)\n";
      continue;
    }
    ASSERT_FALSE(op.definition.reference.empty()) << "every shipped definition carries its PyTorch reference";
    EvalOptions o;
    o.backend = "cpu";
    o.correctness_trials = 2;
    o.time_candidate = false;
    o.time_reference = false;
    o.speed_of_light = false;
    o.timeout = std::chrono::seconds(120);
    o.worker_executable = KHARNESS_EXECUTABLE;
    o.work_dir = scratch / op.definition.name;
    o.cache_dir = scratch / "cache";
    const EvaluationTarget t{op.definition,
                             ops.workloads(op.definition.name, true),
                             op.dir,
                             ops.reference(op.definition.name, "cpu"),
                             definition_reference(op.definition),
                             op.checker,
                             op.tolerance.value_or(Tolerance{}),
                             std::nullopt};
    const SolutionEvaluation e = evaluate_solution(t, o);
    ASSERT_FALSE(e.workloads.empty());
    for (const WorkloadResult& w : e.workloads) {
      EXPECT_EQ(status_name(w.status), status_name(EvalStatus::passed)) << w.workload.uuid << ": " << w.log;
      if (w.correctness) {
        std::cout << op.definition.name << " " << w.workload.uuid.substr(0, 8) << ": max abs error "
                  << w.correctness->max_absolute_error << "\n";
      }
    }
    ++compared;
  }
  EXPECT_GE(compared, 8) << "rmsnorm x2, gemm, softmax, gdn x2 and dsa x2 run on the CPU";
  std::filesystem::remove_all(scratch);
}

}  // namespace
}  // namespace kh
