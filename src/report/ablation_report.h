// The comparison report of an ablation (`kharness report --ablation ID`, the dashboard's
// /ablation/<id> page; docs/ablation.md), read from the archive alone: the manifest
// (arms, budget, seed, the final head-to-head) and each arm's loop decisions.
//
// Per arm: the budget it spent (rounds, candidates, wall seconds, tokens) and the best
// speedup over the baseline after each round, its candidates by status, its promotions
// with their reported speedups (report/promoted_speedup.h), and fast_p of its best over
// the workloads of that speedup. Between arms: the head-to-head (report/head_to_head.h).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/archive_reader.h"
#include "report/decision_budget.h"
#include "report/head_to_head.h"
#include "report/plots.h"
#include "report/promoted_speedup.h"

namespace kh::report {

// After one round of an arm: what it had spent, and its best speedup so far.
struct BudgetPoint {
  std::int64_t round = 0;
  std::int64_t candidates = 0;
  double seconds = 0;
  std::int64_t tokens = 0;
  double best_speedup = 1;  // the last promotion's reported speedup over the baseline; 1: none yet
};

struct ArmPromotion {
  std::int64_t round = 0;
  std::optional<RowId> solution_id;
  std::string solution;  // its name
  std::optional<PromotedSpeedup> speedup;
};

struct ArmReport {
  std::string name;
  std::string loop_id;
  nlohmann::ordered_json spec;  // agents, model, skills, evidence, as the manifest keeps them
  std::vector<BudgetPoint> curve;
  BudgetPoint spent;  // after its last round
  std::string stopped_by;
  CandidateStatuses statuses;
  std::vector<ArmPromotion> promotions;
  double best_speedup = 1;
  std::vector<double> fast_p;  // one per report sweep p, over the best's workloads
};

struct AblationReport {
  std::string id;
  std::string definition;
  std::string start;  // content id
  std::uint64_t seed = 0;
  nlohmann::ordered_json budget;  // rounds, max_candidates, time_s, max_tokens
  nlohmann::ordered_json promotion;
  std::vector<double> sweep;  // the p values of fast_p
  std::vector<ArmReport> arms;
  std::optional<HeadToHead> head_to_head;
};

// Throws kh::Error naming the archive when it holds no ablation `id` (listing those it has).
[[nodiscard]] AblationReport load_ablation_report(const ArchiveReader& reader, std::string_view id);

[[nodiscard]] std::string ablation_markdown(const AblationReport& report, bool plots);
[[nodiscard]] nlohmann::ordered_json ablation_json(const AblationReport& report);
// budget.svg (best speedup against candidates spent), fast_p.svg, statuses.svg.
[[nodiscard]] std::vector<NamedPlot> ablation_plots(const AblationReport& report);

}  // namespace kh::report
