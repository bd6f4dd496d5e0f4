#include "control/optimize_loop.h"

#include <fmt/format.h>

#include <chrono>

#include "archive/utc_time.h"
#include "control/round_diagnosis.h"
#include "control/round_runner.h"
#include "error/error.h"

namespace kh::control {

namespace {

void publish_progress(archive::Archive& archive, const LoopState& st, std::size_t measured) {
  put_manifest(archive, st.loop_id, "progress",
               {{"rounds_done", st.rounds_done},
                {"best", st.best.content_id},
                {"candidates", st.evaluated.size()},
                {"tokens", st.tokens},
                {"measured_by_last_run", measured},
                {"updated_at", archive::utc_now()}});
}

LoopConfig with_agents(LoopConfig config) {
  if (config.agents.empty()) throw Error(Location{"", 0, "--agent"}, "the loop needs at least one agent");
  return config;
}

LoopTarget gated(LoopTarget target, const profile::RegimePlan& plan) {
  target.gate_workloads = gate_workloads(plan);
  return target;
}

}  // namespace

LoopRunner::LoopRunner(archive::Archive& archive, LoopConfig config)
    : archive_(archive),
      config_(with_agents(std::move(config))),
      state_(open_loop(archive_, config_)),
      earlier_runs_s_(state_.elapsed_s),
      plan_(kh::profile::plan_regimes(config_.target.base)),
      steps_(archive_, state_.loop_id, gated(config_.target, plan_), state_.seed, config_.command_line,
             config_.progress) {
  if (!config_.seed_scope.empty()) steps_.set_seed_scope(config_.seed_scope);
  if (config_.executor) steps_.use_executor(config_.executor);
}

std::string LoopRunner::spent(double run_seconds) const {
  const LoopBudget& b = config_.budget;
  if (state_.rounds_done >= b.rounds) return fmt::format("rounds ({})", b.rounds);
  if (static_cast<std::int64_t>(state_.evaluated.size() + state_.rejected_answers) >= b.max_candidates) {
    return fmt::format("candidates ({})", b.max_candidates);
  }
  if (b.time_s && std::max(state_.elapsed_s, earlier_runs_s_ + run_seconds) >= *b.time_s) {
    return fmt::format("time ({} s)", *b.time_s);
  }
  if (b.max_tokens && state_.tokens >= *b.max_tokens) return fmt::format("tokens ({})", *b.max_tokens);
  return "";
}

void LoopRunner::run_next_round() {
  const std::int64_t round = state_.rounds_done + 1;
  // Evaluated candidates and refused answers both spend it (spent() keeps it positive).
  const auto budget = static_cast<std::size_t>(config_.budget.max_candidates) - state_.evaluated.size() -
                      state_.rejected_answers;
  RoundOutcome o = run_round(archive_, config_, state_, steps_, plan_, round, budget);
  state_.rounds_done = round;
  state_.elapsed_s += o.seconds;
  state_.tokens += o.tokens;
  state_.evaluated.insert(state_.evaluated.end(), o.candidate_ids.begin(), o.candidate_ids.end());
  state_.rejected_answers += o.rejected_answers;
  state_.history.insert(state_.history.end(), o.candidates.begin(), o.candidates.end());
  // Read back as archived, after a promotion or a ban (step_marks.h) alike.
  const LoopState now = open_loop(archive_, config_);
  state_.best = now.best;
  state_.banned = now.banned;
  state_.decisions.push_back(std::move(o.decision));
  ++rounds_this_run_;
  publish_progress(archive_, state_, steps_.measured());
}

LoopSummary LoopRunner::summary(std::string stopped_by) const {
  LoopSummary sum;
  sum.loop_id = state_.loop_id;
  sum.resumed = state_.resumed;
  sum.start = state_.start;
  sum.best = state_.best;
  sum.rounds = state_.rounds_done;
  sum.rounds_this_run = rounds_this_run_;
  sum.candidates = state_.evaluated.size();
  sum.measured = steps_.measured();
  sum.reused = steps_.reused();
  sum.tokens = state_.tokens;
  sum.seconds = state_.elapsed_s;
  sum.decisions = state_.decisions;
  sum.stopped_by = std::move(stopped_by);
  sum.banned = state_.banned;
  // The best is the last promoted candidate not banned since: its promotion's record is
  // the loop's figure.
  for (const archive::Decision& d : state_.decisions) {
    if (d.kind != archive::DecisionKind::promote || (d.solution && state_.banned.contains(*d.solution)))
      continue;
    sum.speedup = report::PromotedSpeedup::from_evidence(d.evidence);
    sum.speedup_round = d.round;
  }
  return sum;
}

LoopSummary run_optimize(archive::Archive& archive, const LoopConfig& config) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto run_seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  LoopRunner loop(archive, config);
  if (config.progress) {
    const LoopState& st = loop.state();
    config.progress(fmt::format("kharness optimize: loop {} ({}), {} round(s) done, best {}", st.loop_id,
                                st.resumed ? "resumed" : "new", st.rounds_done, st.best.solution.name));
  }
  while (loop.spent(run_seconds()).empty()) loop.run_next_round();
  return loop.summary(loop.spent(run_seconds()));
}

nlohmann::ordered_json LoopSummary::json() const {
  nlohmann::ordered_json ds = nlohmann::ordered_json::array();
  for (const archive::Decision& d : decisions) {
    const auto s = report::PromotedSpeedup::from_evidence(d.evidence);
    ds.push_back(
        {{"round", d.round},
         {"kind", std::string(archive::decision_kind_name(d.kind))},
         {"solution", d.solution ? nlohmann::ordered_json(*d.solution) : nlohmann::ordered_json(nullptr)},
         {"baseline", d.baseline ? nlohmann::ordered_json(*d.baseline) : nlohmann::ordered_json(nullptr)},
         {"speedup_over_baseline", s ? nlohmann::ordered_json(s->over_baseline) : nlohmann::ordered_json()},
         {"reason", d.evidence.value("reason", "")}});
  }
  return {{"loop_id", loop_id},
          {"resumed", resumed},
          {"start", {{"content_id", start.content_id}, {"name", start.solution.name}}},
          {"best", {{"content_id", best.content_id}, {"name", best.solution.name}}},
          {"speedup_over_start",
           speedup ? nlohmann::ordered_json(speedup->over_baseline) : nlohmann::ordered_json(nullptr)},
          {"speedup", speedup ? speedup->json() : nlohmann::ordered_json(nullptr)},
          {"rounds", rounds},
          {"rounds_this_run", rounds_this_run},
          {"candidates", candidates},
          {"tokens", tokens},
          {"seconds", seconds},
          {"evaluations_measured", measured},
          {"evaluations_reused", reused},
          {"stopped_by", stopped_by},
          {"banned", banned},
          {"decisions", std::move(ds)}};
}

}  // namespace kh::control
