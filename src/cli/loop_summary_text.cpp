#include "cli/loop_summary_text.h"

#include <fmt/format.h>

#include <vector>

namespace kh::cli {

std::string speedup_sentence(const report::PromotedSpeedup& s, std::int64_t round) {
  std::vector<std::string> gates;
  for (const auto& g : s.gate_repeats) gates.push_back(g ? report::format_speedup(*g) : "-");
  std::string out = fmt::format("{} ({} protocol, fresh workers, round {}, {} workload(s), noise {:.1f}%",
                                report::format_speedup(s.over_baseline), s.protocol, round,
                                s.workloads.size(), 100 * s.noise);
  if (!gates.empty()) {
    out += fmt::format("; evidence: the official paired repeats against the best it replaced, {}",
                       fmt::join(gates, ", "));
  }
  return out + ")";
}

std::string loop_summary_text(const control::LoopSummary& s) {
  std::string out = fmt::format("loop {}: {} round(s) ({} this run), {} candidate(s); stopped by {}\n",
                                s.loop_id, s.rounds, s.rounds_this_run, s.candidates, s.stopped_by);
  for (const archive::Decision& d : s.decisions) {
    out += fmt::format("  round {:>3}  {:<14} {}\n", d.round, archive::decision_kind_name(d.kind),
                       d.evidence.value("reason", ""));
  }
  out += fmt::format("start {} ({})\nbest  {} ({})\n", s.start.solution.name,
                     s.start.content_id.substr(0, 12), s.best.solution.name, s.best.content_id.substr(0, 12));
  if (s.speedup && s.speedup_round) {
    out += "speedup over start: " + speedup_sentence(*s.speedup, *s.speedup_round) + "\n";
  } else if (s.best.content_id == s.start.content_id) {
    out += "speedup over start: none (nothing was promoted; the best is the start)\n";
  } else {
    out += "speedup over start: not recorded (the promotion was decided before kharness kept its figure)\n";
  }
  if (s.tokens > 0) out += fmt::format("tokens: {} (input + output, as the agents reported)\n", s.tokens);
  out += fmt::format("evaluations: {} measured, {} reused from the archive\n", s.measured, s.reused);
  return out;
}

}  // namespace kh::cli
