// The CUDA reference of each kharness operator agrees with its C++ reference: both are
// built like candidates, run in their own workers (one per backend) on inputs from the
// same seeds, and compared with the operator's checker and tolerance. The CPU
// reference is the readable one, so this is what makes the CUDA one trustworthy. The
// second test holds the CUDA references against the definitions' PyTorch references.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "compile/build_cache.h"
#include "compile/build_request.h"
#include "error/error.h"
#include "eval/check/output_checker.h"
#include "eval/evaluator.h"
#include "eval/input_generator.h"
#include "eval/measurement_client.h"
#include "eval/operator_library.h"
#include "eval/python/python_solution.h"
#include "eval/solution_build.h"
#include "eval/speed_of_light.h"
#include "eval/workload_shapes.h"
#include "timing/gpu_required.h"
#include "torch_required.h"

namespace kh {
namespace {

struct ReferenceWorker {
  std::unique_ptr<MeasurementClient> client;
  BuildResult build;
};

// Builds the operator's reference for `backend` and loads it into a fresh worker.
ReferenceWorker start_reference(const OperatorLibrary& ops, const OperatorEntry& op,
                                const std::string& backend, const std::filesystem::path& scratch) {
  ReferenceWorker w;
  WorkerConfig config;
  config.executable = KHARNESS_EXECUTABLE;
  config.backend = backend;
  config.work_dir = scratch / backend;
  config.timeout = std::chrono::seconds(120);
  w.client = std::make_unique<MeasurementClient>(config);
  BuildSettings settings;
  settings.backend = backend;
  settings.arch = arch_for_compute_capability(w.client->device().value("compute_capability", 0));
  settings.include_dir = std::filesystem::path(KHARNESS_EXECUTABLE).parent_path() / "include";
  const Solution reference = ops.reference(op.definition.name, backend);
  const BuildCache cache(scratch / "cache");
  w.build = build_solutions(cache, {reference}, op.definition, settings, 1).front();
  if (w.build.status == BuildResult::Status::ok) {
    w.client->load(w.build.library.string(),
                   signature_text(kernel_signature(op.definition, reference.spec.entry_function())));
  }
  return w;
}

// The C++ references are single-threaded plain loops (about 1.5 GFLOP/s): past 1e11
// useful FLOPs they would outlast the worker's 120 s timeout. The MoE layer gets there
// from ~900 tokens (2.4 TFLOP at 14k); its smaller workloads still compare both.
bool too_heavy_for_the_cpu_reference(const OperatorEntry& op, const Workload& w) {
  constexpr double kCpuReferenceFlops = 1e11;
  return op.speed_of_light &&
         evaluate_work(*op.speed_of_light, resolve_axes(op.definition, w)).flops > kCpuReferenceFlops;
}

TEST(ReferenceAgreement, CudaReferenceMatchesCppReference) {
  KH_REQUIRE_GPU();
  const OperatorLibrary ops = OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  const auto scratch =
      std::filesystem::temp_directory_path() / ("kharness-refs-" + std::to_string(::getpid()));
  for (const OperatorEntry& op : ops.entries()) {
    SCOPED_TRACE(op.definition.name);
    ReferenceWorker cpu = start_reference(ops, op, "cpu", scratch);
    ReferenceWorker cuda = start_reference(ops, op, "cuda", scratch);
    ASSERT_EQ(cpu.build.status, BuildResult::Status::ok) << cpu.build.log;
    ASSERT_EQ(cuda.build.status, BuildResult::Status::ok) << cuda.build.log;
    const std::unique_ptr<OutputChecker> checker = make_output_checker(op.checker);
    std::uint64_t seed = 0x5eed;
    // The small shapes: the CPU reference must finish in seconds.
    std::vector<Workload> workloads = ops.workloads(op.definition.name, true);
    if (workloads.empty()) workloads = ops.workloads(op.definition.name, false);
    for (const Workload& w : workloads) {
      if (too_heavy_for_the_cpu_reference(op, w)) {
        std::cout << op.definition.name << " " << w.uuid
                  << ": skipped, too many FLOPs for the CPU reference\n";
        continue;
      }
      for (int trial = 0; trial < 2; ++trial, ++seed) {
        Outcome<CheckResult> a = cpu.client->check(op.definition, w, op.dir, seed, 0xFF);
        Outcome<CheckResult> b = cuda.client->check(op.definition, w, op.dir, seed, 0xFF);
        ASSERT_TRUE(a.value) << a.failure->message;
        ASSERT_TRUE(b.value) << b.failure->message;
        EXPECT_EQ(a.value->input_hashes_before, b.value->input_hashes_before) << "both saw the same inputs";
        // Checkers that recompute (top-k indexer) read the inputs both saw, regenerated here.
        std::optional<std::vector<HostTensor>> inputs;
        CheckContext c{op.definition, a.value->outputs, b.value->outputs, op.tolerance.value_or(Tolerance{}),
                       [&]() -> const std::vector<HostTensor>& {
                         if (!inputs) inputs = make_inputs(op.definition, w, seed, op.dir);
                         return *inputs;
                       }};
        const CheckVerdict v = checker->check(c);
        EXPECT_TRUE(v.passed) << w.uuid << " seed " << seed << ": " << v.reason;
        std::cout << op.definition.name << " " << w.uuid << " seed " << seed << ": max abs error "
                  << v.max_absolute_error << ", max rel error " << v.max_relative_error << "\n";
      }
    }
  }
  std::filesystem::remove_all(scratch);
}

// Every kharness operator's CUDA reference agrees, on the GPU, with the definition's own
// PyTorch reference (run by the worker's embedded Python): the CUDA reference is evaluated
// as a candidate against the PyTorch one on the small workloads and on a spread of about
// 8 contest workloads (every n-th and the last), with the operator's checker and tolerance.
TEST(ReferenceAgreement, CudaReferenceMatchesPyTorchReference) {
  KH_REQUIRE_GPU();
  KH_REQUIRE_TORCH();
  const OperatorLibrary ops = OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  const auto scratch =
      std::filesystem::temp_directory_path() / ("kharness-pytorch-refs-" + std::to_string(::getpid()));
  for (const OperatorEntry& op : ops.entries()) {
    SCOPED_TRACE(op.definition.name);
    std::vector<Workload> workloads = ops.workloads(op.definition.name, true);
    std::vector<Workload> full = ops.workloads(op.definition.name, false);
    const std::size_t stride = std::max<std::size_t>(1, full.size() / 7);
    for (std::size_t i = 0; i < full.size(); i += stride) workloads.push_back(full[i]);
    if (!full.empty() && full.size() % stride != 1) workloads.push_back(full.back());
    EvalOptions o;
    o.backend = "cuda";
    o.correctness_trials = 2;
    o.time_candidate = false;
    o.time_reference = false;
    o.speed_of_light = false;
    o.timeout = std::chrono::seconds(300);
    o.worker_executable = KHARNESS_EXECUTABLE;
    o.work_dir = scratch / op.definition.name;
    o.cache_dir = scratch / "cache";
    const EvaluationTarget t{op.definition,
                             workloads,
                             op.dir,
                             ops.reference(op.definition.name, "cuda"),
                             definition_reference(op.definition),
                             op.checker,
                             op.tolerance.value_or(Tolerance{}),
                             std::nullopt};
    const SolutionEvaluation e = evaluate_solution(t, o);
    ASSERT_EQ(e.workloads.size(), workloads.size());
    for (const WorkloadResult& w : e.workloads) {
      EXPECT_EQ(status_name(w.status), status_name(EvalStatus::passed)) << w.workload.uuid << ": " << w.log;
      if (w.correctness) {
        std::cout << op.definition.name << " " << w.workload.uuid.substr(0, 8) << ": max abs error "
                  << w.correctness->max_absolute_error << "\n";
      }
    }
  }
  std::filesystem::remove_all(scratch);
}

}  // namespace
}  // namespace kh
