// The scripted servers' answers meet the real harness (CPU backend, the small workloads
// of rmsnorm_h128): what an agent proposes is built, checked and timed, and only the
// correct improvement passes, faster than the shipped baseline it started from. The
// end-to-end `kharness optimize` tests drive the loop with the same answers.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <numeric>

#include "agents/agent_factory.h"
#include "answer_fixture.h"
#include "eval/evaluator.h"
#include "eval/operator_library.h"
#include "scripted_chat_server.h"
#include "support/temp_dir.h"

namespace kh::agents {
namespace {

EvalOptions light_options(const std::filesystem::path& scratch) {
  EvalOptions o;
  o.backend = "cpu";
  o.correctness_trials = 2;
  o.protocol.warmup = 5;
  o.protocol.iterations = 40;
  o.protocol.trials = 2;
  o.timeout = std::chrono::seconds(30);
  o.time_reference = false;
  o.worker_executable = KHARNESS_EXECUTABLE;
  o.work_dir = scratch / "work";
  o.cache_dir = scratch / "cache";
  return o;
}

double total_latency_ms(const SolutionEvaluation& e) {
  double sum = 0;
  for (const WorkloadResult& w : e.workloads) sum += w.latency ? w.latency->latency_ms : 0;
  return sum;
}

TEST(ScriptedAnswers, OnlyTheCorrectImprovementPassesAndItIsFaster) {
  kh::test::TempDir dir;
  const std::string text = test::rmsnorm_answer("a_fast", "faster.cpp", "rmsnorm_fast", "memory_access") +
                           test::rmsnorm_answer("b_wrong", "wrong.cpp", "rmsnorm_unweighted", "algorithmic") +
                           test::rmsnorm_answer("c_cheat", "cheating.cpp", "rmsnorm_scratch", "data_reuse");
  test::ScriptedChatServer server({test::ScriptedReply(200, test::openai_body(text, 900, 2100))});
  ProposalContext ctx = test::rmsnorm_request(dir / "ws", 3);
  const auto agent = make_agent({"openai", {{"base_url", server.base_url()}, {"model", "scripted"}}});
  const Proposal p = agent->propose(ctx);
  ASSERT_EQ(p.candidates.size(), 3u) << (p.rejected.empty() ? "" : p.rejected[0].reason);

  const OperatorLibrary ops = OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  const OperatorEntry* op = ops.find("rmsnorm_h128");
  const EvalOptions o = light_options(dir.path());
  auto evaluate = [&](const Solution& s) {
    return evaluate_solution(
        EvaluationTarget{op->definition, ops.workloads("rmsnorm_h128", true), op->dir, s,
                         ops.reference("rmsnorm_h128", "cpu"), "default", *op->tolerance, op->speed_of_light},
        o);
  };
  const SolutionEvaluation baseline = evaluate(ctx.parent);
  const SolutionEvaluation fast = evaluate(p.candidates[0].solution);
  const SolutionEvaluation wrong = evaluate(p.candidates[1].solution);
  const SolutionEvaluation cheat = evaluate(p.candidates[2].solution);
  for (const WorkloadResult& w : fast.workloads) EXPECT_EQ(w.status, EvalStatus::passed) << w.log;
  for (const WorkloadResult& w : wrong.workloads)
    EXPECT_EQ(w.status, EvalStatus::incorrect_numerical) << w.log;
  for (const WorkloadResult& w : cheat.workloads) EXPECT_EQ(w.status, EvalStatus::reward_hack) << w.log;
  EXPECT_LT(total_latency_ms(fast), 0.9 * total_latency_ms(baseline))
      << "the scripted improvement must be genuinely faster than the baseline on the CPU";
}

}  // namespace
}  // namespace kh::agents
