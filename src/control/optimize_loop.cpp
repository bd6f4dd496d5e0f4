#include "control/optimize_loop.h"

#include <fmt/format.h>

#include <chrono>

#include "archive/utc_time.h"
#include "control/round_diagnosis.h"
#include "control/round_runner.h"
#include "control/step_runner.h"
#include "error/error.h"

namespace kh::control {

namespace {

std::optional<double> chained_speedup(const std::vector<archive::Decision>& decisions) {
  double product = 1;
  for (const archive::Decision& d : decisions) {
    if (d.kind != archive::DecisionKind::promote) continue;
    const auto& repeats = d.evidence.at("promotion").at("repeats");
    if (repeats.empty() || !repeats[0].at("speedup").is_number()) return std::nullopt;
    product *= repeats[0].at("speedup").get<double>();
  }
  return product;
}

// Which budget stops the loop before round `next`, or "" when none does.
std::string spent_budget(const LoopConfig& config, const LoopState& st, double run_seconds) {
  if (st.rounds_done >= config.budget.rounds) return fmt::format("rounds ({})", config.budget.rounds);
  if (static_cast<std::int64_t>(st.evaluated.size() + st.rejected_answers) >= config.budget.max_candidates) {
    return fmt::format("candidates ({})", config.budget.max_candidates);
  }
  if (config.budget.time_s && st.elapsed_s + run_seconds >= *config.budget.time_s) {
    return fmt::format("time ({} s)", *config.budget.time_s);
  }
  return "";
}

void publish_progress(archive::Archive& archive, const LoopState& st, std::size_t measured) {
  put_manifest(archive, st.loop_id, "progress",
               {{"rounds_done", st.rounds_done},
                {"best", st.best.content_id},
                {"candidates", st.evaluated.size()},
                {"measured_by_last_run", measured},
                {"updated_at", archive::utc_now()}});
}

}  // namespace

LoopSummary run_optimize(archive::Archive& archive, const LoopConfig& config) {
  if (config.agents.empty()) throw Error(Location{"", 0, "--agent"}, "the loop needs at least one agent");
  const auto t0 = std::chrono::steady_clock::now();
  const auto run_seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  LoopState st = open_loop(archive, config);
  LoopSummary sum;
  sum.loop_id = st.loop_id;
  sum.resumed = st.resumed;
  sum.start = st.start;
  const RegimePlan plan = kh::plan_regimes(config.target.base);
  LoopTarget target = config.target;
  target.gate_workloads = gate_workloads(plan);
  StepRunner steps(archive, st.loop_id, target, st.seed, config.command_line, config.progress);
  if (config.executor) steps.use_executor(config.executor);
  if (config.progress) {
    config.progress(fmt::format("kharness optimize: loop {} ({}), {} round(s) done, best {}", st.loop_id,
                                st.resumed ? "resumed" : "new", st.rounds_done, st.best.solution.name));
  }
  for (std::string spent; (spent = spent_budget(config, st, run_seconds())).empty();) {
    const std::int64_t round = st.rounds_done + 1;
    // Evaluated candidates and refused answers both spend it (spent_budget keeps it positive).
    const auto budget =
        static_cast<std::size_t>(config.budget.max_candidates) - st.evaluated.size() - st.rejected_answers;
    RoundOutcome o = run_round(archive, config, st, steps, plan, round, budget);
    st.rounds_done = round;
    st.elapsed_s += o.seconds;
    st.evaluated.insert(st.evaluated.end(), o.candidate_ids.begin(), o.candidate_ids.end());
    st.rejected_answers += o.rejected_answers;
    st.history.insert(st.history.end(), o.candidates.begin(), o.candidates.end());
    if (o.decision.kind == archive::DecisionKind::promote) {
      st.best = open_loop(archive, config).best;  // read back as archived
    }
    st.decisions.push_back(std::move(o.decision));
    ++sum.rounds_this_run;
    publish_progress(archive, st, steps.measured());
  }
  sum.stopped_by = spent_budget(config, st, run_seconds());
  sum.best = st.best;
  sum.rounds = st.rounds_done;
  sum.candidates = st.evaluated.size();
  sum.measured = steps.measured();
  sum.reused = steps.reused();
  sum.decisions = st.decisions;
  sum.speedup = chained_speedup(st.decisions);
  return sum;
}

nlohmann::ordered_json LoopSummary::json() const {
  nlohmann::ordered_json ds = nlohmann::ordered_json::array();
  for (const archive::Decision& d : decisions) {
    ds.push_back(
        {{"round", d.round},
         {"kind", std::string(archive::decision_kind_name(d.kind))},
         {"solution", d.solution ? nlohmann::ordered_json(*d.solution) : nlohmann::ordered_json(nullptr)},
         {"baseline", d.baseline ? nlohmann::ordered_json(*d.baseline) : nlohmann::ordered_json(nullptr)},
         {"reason", d.evidence.value("reason", "")}});
  }
  return {
      {"loop_id", loop_id},
      {"resumed", resumed},
      {"start", {{"content_id", start.content_id}, {"name", start.solution.name}}},
      {"best", {{"content_id", best.content_id}, {"name", best.solution.name}}},
      {"speedup_over_start", speedup ? nlohmann::ordered_json(*speedup) : nlohmann::ordered_json(nullptr)},
      {"rounds", rounds},
      {"rounds_this_run", rounds_this_run},
      {"candidates", candidates},
      {"evaluations_measured", measured},
      {"evaluations_reused", reused},
      {"stopped_by", stopped_by},
      {"decisions", std::move(ds)}};
}

}  // namespace kh::control
