#include <fmt/format.h>

#include "report/ablation_report.h"

namespace kh::report {
namespace {

using nlohmann::ordered_json;

ordered_json point_json(const BudgetPoint& p) {
  return {{"round", p.round},
          {"candidates", p.candidates},
          {"seconds", p.seconds},
          {"tokens", p.tokens},
          {"best_speedup", p.best_speedup}};
}

ordered_json arm_json(const AblationReport& r, const ArmReport& a) {
  ordered_json curve = ordered_json::array();
  for (const BudgetPoint& p : a.curve) curve.push_back(point_json(p));
  ordered_json promotions = ordered_json::array();
  for (const ArmPromotion& p : a.promotions) {
    promotions.push_back({{"round", p.round},
                          {"solution", p.solution},
                          {"solution_id", p.solution_id ? ordered_json(*p.solution_id) : ordered_json()},
                          {"speedup", p.speedup ? p.speedup->json() : ordered_json()}});
  }
  ordered_json fast = ordered_json::object();
  for (std::size_t i = 0; i < r.sweep.size() && i < a.fast_p.size(); ++i) {
    fast[fmt::format("{:g}", r.sweep[i])] = a.fast_p[i];
  }
  return {{"arm", a.name},
          {"loop_id", a.loop_id},
          {"spec", a.spec},
          {"best_speedup", a.best_speedup},
          {"spent", point_json(a.spent)},
          {"stopped_by", a.stopped_by},
          {"statuses", candidate_statuses_json(a.statuses)},
          {"promotions", std::move(promotions)},
          {"fast_p", std::move(fast)},
          {"curve", std::move(curve)}};
}

}  // namespace

ordered_json ablation_json(const AblationReport& r) {
  ordered_json arms = ordered_json::array();
  for (const ArmReport& a : r.arms) arms.push_back(arm_json(r, a));
  return {
      {"ablation", r.id},        {"definition", r.definition},
      {"start", r.start},        {"seed", r.seed},
      {"budget", r.budget},      {"promotion_rule", r.promotion},
      {"arms", std::move(arms)}, {"head_to_head", r.head_to_head ? r.head_to_head->json() : ordered_json()}};
}

}  // namespace kh::report
