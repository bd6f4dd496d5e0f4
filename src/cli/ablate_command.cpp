#include "cli/ablate_command.h"

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/agent_choice.h"
#include "cli/guarded_run.h"
#include "cli/loop_options.h"
#include "cli/loop_summary_text.h"
#include "error/error.h"

namespace kh::cli {
namespace {

struct AblateArgs {
  LoopOptions loop;
  std::vector<std::string> arms;
  std::string ablation_id;
  int final_passes = 2;
  bool json = false;
};

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (std::size_t at = text.find(sep); at != std::string::npos; at = text.find(sep, from)) {
    out.push_back(text.substr(from, at - from));
    from = at + 1;
  }
  out.push_back(text.substr(from));
  return out;
}

bool on_off(const std::string& arm, const std::string& key, const std::string& value) {
  if (value == "on" || value == "true" || value == "yes") return true;
  if (value == "off" || value == "false" || value == "no") return false;
  throw Error(Location{"", 0, "--arm"}, fmt::format("arm '{}': {}={} (use on or off)", arm, key, value));
}

std::string arm_lines(const control::AblationSummary& s) {
  std::string out;
  for (std::size_t i = 0; i < s.loops.size(); ++i) {
    const control::LoopSummary& l = s.loops[i];
    out += fmt::format("  {:<16} {} round(s), {} candidate(s), {:.0f} s, {} token(s); stopped by {}\n",
                       s.arms[i], l.rounds, l.candidates, l.seconds, l.tokens, l.stopped_by);
    out += fmt::format("  {:<16} best {} ({}); speedup over start: {}\n", "", l.best.solution.name,
                       l.best.content_id.substr(0, 12),
                       l.speedup && l.speedup_round ? speedup_sentence(*l.speedup, *l.speedup_round)
                                                    : std::string("none (nothing promoted)"));
  }
  return out;
}

std::string head_to_head_lines(const report::HeadToHead& h) {
  if (!h.note.empty()) return "head to head: " + h.note + "\n";
  std::string out = fmt::format("head to head ({} protocol, {} pass(es)):\n", h.protocol, h.passes);
  for (const report::ArmPair& p : h.pairs) {
    out += fmt::format("  {} against {}: {} ({}; noise {:.1f}%, drift between passes {:.1f}%)\n", p.a, p.b,
                       p.ratio ? report::format_speedup(*p.ratio) : std::string("-"), p.verdict,
                       100 * p.noise, 100 * p.drift);
  }
  return out;
}

int run_ablate_command(const AblateArgs& a) {
  archive::Archive store = archive::Archive::open_or_create(a.loop.archive);
  control::AblationConfig c;
  c.id = a.ablation_id;
  c.base = loop_config(a.loop, store);
  c.final_passes = a.final_passes;
  for (const std::string& text : a.arms) {
    ArmSpec spec = parse_arm(text);
    AgentChoice choice{spec.arm.agents, a.loop.replay, a.loop.agent_configs, std::nullopt};
    if (!spec.config.empty()) choice.configs = {spec.config};
    if (!spec.arm.model.empty()) choice.model = spec.arm.model;
    spec.arm.made = make_agents(choice, store);
    if (spec.arm.agents.empty()) spec.arm.agents = {spec.arm.made.front()->name()};
    c.arms.push_back(std::move(spec.arm));
  }
  const control::AblationSummary s = control::run_ablation(store, c);
  if (a.json) {
    fmt::print("{}\n", s.json().dump(2));
    return 0;
  }
  fmt::print("ablation {}: {} arms, seed {}\n{}", s.id, s.arms.size(), s.seed, arm_lines(s));
  if (s.head_to_head) fmt::print("{}", head_to_head_lines(*s.head_to_head));
  fmt::print("report: kharness report --archive {} --ablation {}\n", a.loop.archive, s.id);
  return 0;
}

}  // namespace

ArmSpec parse_arm(const std::string& text) {
  ArmSpec spec;
  const auto colon = text.find(':');
  spec.arm.name = text.substr(0, colon);
  if (colon == std::string::npos) return spec;
  for (const std::string& item : split(text.substr(colon + 1), ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) {
      throw Error(
          Location{"", 0, "--arm"},
          fmt::format("arm '{}': '{}' is not key=value (keys: agent, model, config, skills, evidence)",
                      spec.arm.name, item));
    }
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "agent") {
      spec.arm.agents = split(value, '+');
    } else if (key == "model") {
      spec.arm.model = value;
    } else if (key == "config") {
      spec.config = value;
    } else if (key == "skills") {
      spec.arm.skills = on_off(spec.arm.name, key, value);
    } else if (key == "evidence") {
      spec.arm.evidence = on_off(spec.arm.name, key, value);
    } else {
      throw Error(Location{"", 0, "--arm"},
                  fmt::format("arm '{}': unknown key '{}' (keys: agent, model, config, skills, evidence)",
                              spec.arm.name, key));
    }
  }
  return spec;
}

void register_ablate(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<AblateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "ablate",
      "Run two or more arms of the optimisation loop on one definition at equal budgets, interleaved by "
      "round, resumable; then measure their bests head to head (docs/ablation.md)");
  add_loop_options(cmd, a->loop);
  cmd->add_option("--arm", a->arms,
                  "An arm: NAME or NAME:key=value,... with agent=tuner|replay|cli|openai|anthropic (join "
                  "several with +), model=M, config=FILE, skills=on|off, evidence=on|off (repeatable, 2+)")
      ->required();
  cmd->add_option("--ablation", a->ablation_id,
                  "Ablation id (default: <definition>-ablation-<hash of the start and the arms>)");
  cmd->add_option("--final-passes", a->final_passes,
                  "Head-to-head passes of the start and the arms' bests at the end (2; 0: none)")
      ->check(CLI::Range(0, 10));
  cmd->add_flag("--json", a->json, "Print the summary as JSON");
  cmd->callback([a, &exit_code] { guarded_run(exit_code, [&] { return run_ablate_command(*a); }); });
}

}  // namespace kh::cli
