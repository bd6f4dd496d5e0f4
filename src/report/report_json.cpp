#include <fmt/format.h>

#include "report/report_formats.h"

namespace kh::report {
namespace {

using nlohmann::ordered_json;

ordered_json optional_number(const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(); }

ordered_json workloads_json(const DefinitionReport& r, const CandidateRow& c) {
  ordered_json out = ordered_json::array();
  for (std::size_t w = 0; w < r.workloads.size(); ++w) {
    const WorkloadOutcome& o = c.outcomes[w];
    out.push_back({{"workload", r.workloads[w].uuid},
                   {"status", o.status},
                   {"latency_ms", optional_number(o.latency_ms)},
                   {"baseline_ms", optional_number(o.baseline_ms)},
                   {"speedup", optional_number(o.speedup())},
                   {"sol_fraction", optional_number(o.sol_fraction)},
                   {"trace_id", c.trace_ids[w] ? ordered_json(*c.trace_ids[w]) : ordered_json()}});
  }
  return out;
}

ordered_json candidate_json(const DefinitionReport& r, const CandidateRow& c, std::size_t rank) {
  ordered_json fast = ordered_json::object();
  for (std::size_t i = 0; i < r.sweep.size(); ++i) fast[fmt::format("{:g}", r.sweep[i])] = c.score.fast_p[i];
  return {{"rank", rank},
          {"solution", c.name},
          {"solution_id", c.solution_id ? ordered_json(*c.solution_id) : ordered_json()},
          {"is_baseline", c.is_baseline},
          {"score", c.score.contest},
          {"mean_speedup", c.score.mean_speedup},
          {"win_rate", c.score.win_rate},
          {"passed", c.score.passed},
          {"total", c.score.total},
          {"sol_geomean", optional_number(c.score.sol_geomean)},
          {"fast_p", fast},
          {"workloads", workloads_json(r, c)}};
}

}  // namespace

ordered_json to_json(const DefinitionReport& r) {
  ordered_json workloads = ordered_json::array();
  for (const WorkloadColumn& w : r.workloads) {
    workloads.push_back({{"uuid", w.uuid},
                         {"axes", ordered_json::parse(w.axes_json, nullptr, false)},
                         {"baseline_ms", optional_number(w.baseline_ms)}});
  }
  ordered_json board = ordered_json::array();
  for (std::size_t i = 0; i < r.candidates.size(); ++i)
    board.push_back(candidate_json(r, r.candidates[i], i + 1));
  if (!r.tampered.empty()) {
    return {{"definition", r.definition},
            {"ranked", false},
            {"tampered", r.tampered},
            {"leaderboard", ordered_json::array()}};
  }
  ordered_json promotions = ordered_json::array();
  for (const PromotionRow& p : r.promotions) {
    promotions.push_back(
        {{"loop_id", p.loop_id},
         {"round", p.round},
         {"solution", p.solution},
         {"solution_id", p.solution_id ? ordered_json(*p.solution_id) : ordered_json()},
         {"speedup_over_baseline", p.speedup ? ordered_json(p.speedup->over_baseline) : ordered_json()},
         {"speedup", p.speedup ? p.speedup->json() : ordered_json()}});
  }
  ordered_json rounds = ordered_json::array();
  for (const RoundRow& x : r.rounds) {
    rounds.push_back({{"loop_id", x.loop_id},
                      {"round", x.round},
                      {"decision", x.decision},
                      {"candidate", x.candidate},
                      {"family", x.family},
                      {"speedup", x.speedup ? ordered_json(*x.speedup) : ordered_json()},
                      {"objective", x.objective},
                      {"candidates", candidate_statuses_json(x.candidates)},
                      {"reason", x.reason},
                      {"seconds", x.seconds}});
  }
  return {{"definition", r.definition},
          {"ranked", true},
          {"baseline", r.baseline.empty() ? ordered_json() : ordered_json(r.baseline)},
          {"baseline_source",
           r.baseline.empty() ? "reference latency" : "baseline solution, else reference latency"},
          {"sweep", r.sweep},
          {"workloads", workloads},
          {"leaderboard", board},
          {"promotions", std::move(promotions)},
          {"rounds", std::move(rounds)}};
}

}  // namespace kh::report
