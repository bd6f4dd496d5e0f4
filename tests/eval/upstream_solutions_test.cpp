// The PyTorch solutions of examples/solutions/upstream/ (the contest operators, written
// in FlashInfer-Trace's solution format) pass on the CPU backend with real torch, on
// kharness's small workloads, against the definitions' PyTorch references and against
// kharness's C++ references. The Triton ones need a GPU: bench/upstream_sweep.sh runs
// them all there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "eval/evaluator.h"
#include "eval/operator_library.h"
#include "eval/python/python_solution.h"
#include "torch_required.h"
#include "trace/json_io.h"

namespace kh {
namespace {

Solution upstream_solution(const std::string& definition) {
  const auto path =
      std::filesystem::path(KHARNESS_SOURCE_DIR) / "examples/solutions/upstream" / (definition + ".json");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return parse_solution(text.str(), Location{path.string(), 0, ""});
}

class UpstreamSolutions : public ::testing::TestWithParam<const char*> {};

// MoE's solution dequantizes one expert at a time but its reference all 32 at once
// (about 11 GB): more than a CPU worker may map, so MoE is left to the GPU.
INSTANTIATE_TEST_SUITE_P(Contest, UpstreamSolutions,
                         ::testing::Values("gdn_decode_qk4_v8_d128_k_last", "gdn_prefill_qk4_v8_d128_k_last",
                                           "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64",
                                           "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"));

TEST_P(UpstreamSolutions, PassOnTheCpuAgainstBothReferences) {
  KH_REQUIRE_TORCH();
  const OperatorLibrary ops = OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  const OperatorEntry* op = ops.find(GetParam());
  ASSERT_NE(op, nullptr);
  const Solution candidate = upstream_solution(GetParam());
  EXPECT_EQ(candidate.spec.language, "python");
  EXPECT_FALSE(candidate.spec.uses_destination_passing()) << "value-returning, as upstream writes them";
  const auto scratch = std::filesystem::temp_directory_path() /
                       ("kharness-upstream-" + std::string(GetParam()) + "-" + std::to_string(::getpid()));
  for (const Solution& reference : {definition_reference(op->definition), ops.reference(GetParam(), "cpu")}) {
    SCOPED_TRACE(reference.name);
    EvalOptions o;
    o.backend = "cpu";
    o.correctness_trials = 2;
    o.time_candidate = false;
    o.speed_of_light = false;
    o.timeout = std::chrono::seconds(120);
    o.worker_executable = KHARNESS_EXECUTABLE;
    o.work_dir = scratch / "work";
    o.cache_dir = scratch / "cache";
    const EvaluationTarget t{
        op->definition, ops.workloads(GetParam(), true),     op->dir,     candidate, reference,
        op->checker,    op->tolerance.value_or(Tolerance{}), std::nullopt};
    const SolutionEvaluation e = evaluate_solution(t, o);
    ASSERT_FALSE(e.workloads.empty());
    for (const WorkloadResult& w : e.workloads)
      EXPECT_EQ(status_name(w.status), status_name(EvalStatus::passed)) << w.workload.uuid << ": " << w.log;
  }
  std::filesystem::remove_all(scratch);
}

}  // namespace
}  // namespace kh
