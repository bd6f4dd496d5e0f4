#include <fmt/format.h>

#include "report/ablation_report.h"
#include "report/json_fields.h"

namespace kh::report {
namespace {

using nlohmann::ordered_json;

std::string md(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c == '\n' ? ' ' : c);
  return out;
}

std::string or_dash(const ordered_json& v) {
  if (v.is_null()) return "–";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string on_off(const ordered_json& spec, const char* key) {
  const auto it = spec.find(key);
  return it != spec.end() && it->is_boolean() && !it->get<bool>() ? "off" : "on";
}

std::string agents_of(const ordered_json& spec) {
  std::vector<std::string> names;
  for (const ordered_json& a : array_at(spec, "agents")) {
    if (a.is_string()) names.push_back(a.get<std::string>());
  }
  return fmt::format("{}", fmt::join(names, "+"));
}

void arms_table(std::string& out, const AblationReport& r) {
  out +=
      "| arm | agents | model | skills | evidence | best speedup over the baseline | promotions | rounds | "
      "candidates | seconds | tokens | stopped by |\n";
  out += "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const ArmReport& a : r.arms) {
    const std::string model = text_at(a.spec, "model");
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1f} | {} | {} |\n", md(a.name),
                       md(agents_of(a.spec)), model.empty() ? "–" : md(model), on_off(a.spec, "skills"),
                       on_off(a.spec, "evidence"), format_speedup(a.best_speedup), a.promotions.size(),
                       a.spent.round, a.spent.candidates, a.spent.seconds, a.spent.tokens,
                       a.stopped_by.empty() ? "–" : md(a.stopped_by));
  }
}

std::string passes_text(const std::vector<std::optional<double>>& passes) {
  std::vector<std::string> parts;
  parts.reserve(passes.size());
  for (const auto& p : passes) parts.push_back(p ? format_speedup(*p) : "–");
  return fmt::format("{}", fmt::join(parts, ", "));
}

void head_to_head(std::string& out, const AblationReport& r) {
  out += "\n### Head to head: the paired difference\n\n";
  if (!r.head_to_head) {
    out += "Not measured (the ablation has not finished, or ran with `--final-passes 0`).\n";
    return;
  }
  const HeadToHead& h = *r.head_to_head;
  if (!h.note.empty()) {
    out += h.note + ".\n";
    return;
  }
  out += fmt::format(
      "The start and every arm's best measured side by side, {} protocol, {} pass(es) in alternating order. "
      "Ratio: how much faster the first arm's best is than the second's (geometric mean over workloads, "
      "then over passes); the verdict needs every pass beyond the noise.\n\n",
      h.protocol, h.passes);
  out += "| arm | against | ratio | per pass | noise | drift | verdict |\n|---|---|---:|---|---:|---:|---|\n";
  for (const ArmPair& p : h.pairs) {
    out += fmt::format("| {} | {} | {} | {} | {:.1f}% | {:.1f}% | {} |\n", md(p.a), md(p.b),
                       p.ratio ? format_speedup(*p.ratio) : "–", passes_text(p.passes), 100 * p.noise,
                       100 * p.drift, p.verdict);
  }
  out += "\n| arm | its best over the start, head to head | per pass |\n|---|---:|---|\n";
  for (const ArmHeadToHead& a : h.arms) {
    out += fmt::format("| {} | {} | {} |\n", md(a.arm), a.over_start ? format_speedup(*a.over_start) : "–",
                       passes_text(a.passes));
  }
}

void statuses(std::string& out, const AblationReport& r) {
  out += "\n### Candidates by status\n\n";
  out +=
      "| arm | passed | incorrect | reward hack | compile error | crashed or timed out | refused answer | "
      "total |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const ArmReport& a : r.arms) {
    const CandidateStatuses& s = a.statuses;
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", md(a.name), s.passed, s.incorrect,
                       s.reward_hack, s.compile_error, s.crashed, s.refused, s.total());
  }
}

void curves(std::string& out, const AblationReport& r) {
  out += "\n### Best speedup against budget spent\n\n";
  out += "| arm | round | candidates | seconds | tokens | best speedup over the baseline |\n";
  out += "|---|---:|---:|---:|---:|---:|\n";
  for (const ArmReport& a : r.arms) {
    for (const BudgetPoint& p : a.curve) {
      out += fmt::format("| {} | {} | {} | {:.1f} | {} | {} |\n", md(a.name), p.round, p.candidates,
                         p.seconds, p.tokens, format_speedup(p.best_speedup));
    }
  }
  out += "\n#### fast_p of each arm's best\n\n| arm |";
  for (double p : r.sweep) out += fmt::format(" p={:g} |", p);
  out += "\n|---|";
  for (std::size_t i = 0; i < r.sweep.size(); ++i) out += "---:|";
  out += '\n';
  for (const ArmReport& a : r.arms) {
    out += "| " + md(a.name) + " |";
    for (double f : a.fast_p) out += fmt::format(" {:.0f}% |", 100 * f);
    out += '\n';
  }
}

void promotions(std::string& out, const AblationReport& r) {
  out += "\n### Promotions\n\n";
  out +=
      "| arm | round | solution | speedup over the baseline | protocol | noise | gate repeats (evidence) |\n";
  out += "|---|---:|---|---:|---|---:|---|\n";
  std::size_t n = 0;
  for (const ArmReport& a : r.arms) {
    for (const ArmPromotion& p : a.promotions) {
      ++n;
      if (!p.speedup) {
        out += fmt::format("| {} | {} | {} | – | – | – | recorded before kharness kept the speedup |\n",
                           md(a.name), p.round, md(p.solution));
        continue;
      }
      out += fmt::format("| {} | {} | {} | {} | {} | {:.1f}% | {} |\n", md(a.name), p.round, md(p.solution),
                         format_speedup(p.speedup->over_baseline), p.speedup->protocol,
                         100 * p.speedup->noise, passes_text(p.speedup->gate_repeats));
    }
  }
  if (n == 0) out += "| – | | no arm promoted a candidate | | | | |\n";
}

}  // namespace

std::string ablation_markdown(const AblationReport& r, bool plots) {
  std::string out = fmt::format("## Ablation `{}`: {}\n\n", md(r.id), md(r.definition));
  out += fmt::format(
      "Start `{}`, seed {}. Budget of every arm: {} rounds, {} candidates, {} s, {} tokens. Arms run one "
      "round "
      "at a time in turn, each a loop of its own (`{}/<arm>`), from the same start, seed, workloads and "
      "protocol.\n\n",
      r.start.substr(0, 12), r.seed, or_dash(r.budget.value("rounds", ordered_json())),
      or_dash(r.budget.value("max_candidates", ordered_json())),
      or_dash(r.budget.value("time_s", ordered_json())),
      or_dash(r.budget.value("max_tokens", ordered_json())), md(r.id));
  out +=
      "Best speedup: the reported speedup of the arm's last promotion (its robust confirmation over the "
      "loop's baseline, the figure `optimize` and `report` print); 1.000x when nothing was promoted.\n\n";
  arms_table(out, r);
  head_to_head(out, r);
  statuses(out, r);
  curves(out, r);
  promotions(out, r);
  if (plots) {
    out += "\n#### Plots\n\n";
    for (const char* p : {"budget", "fast_p", "statuses"}) out += fmt::format("![{0}]({0}.svg)\n", p);
  }
  return out;
}

}  // namespace kh::report
