#include "cli/optimize_command.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/agent_choice.h"
#include "cli/guarded_run.h"
#include "cli/loop_options.h"
#include "cli/loop_summary_text.h"
#include "control/optimize_loop.h"
#include "error/error.h"

namespace kh::cli {
namespace {

struct OptimizeArgs {
  LoopOptions loop;
  std::string loop_id;
  std::vector<std::string> agents;
  bool ask = false, json = false;
};

std::string ask_on_stdin(const std::string& question) {
  fmt::print(stderr, "{}\n> ", question);
  std::fflush(stderr);
  std::string answer;
  std::getline(std::cin, answer);
  return answer;
}

int run_optimize_command(const OptimizeArgs& a) {
  archive::Archive store = archive::Archive::open_or_create(a.loop.archive);
  control::LoopConfig c = loop_config(a.loop, store);
  c.loop_id = a.loop_id;
  c.agents = make_agents(AgentChoice{a.agents, a.loop.replay, a.loop.agent_configs, std::nullopt}, store);
  c.ask = a.ask;
  if (a.ask) c.ask_person = ask_on_stdin;
  const control::LoopSummary s = control::run_optimize(store, c);
  if (a.json) {
    fmt::print("{}\n", s.json().dump(2));
  } else {
    fmt::print("{}", loop_summary_text(s));
  }
  return 0;
}

}  // namespace

void register_optimize(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<OptimizeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "optimize",
      "Optimise a definition in rounds (baseline, profile, diagnose, generate, evaluate, archive), "
      "resumable from the archive");
  add_loop_options(cmd, a->loop);
  cmd->add_option(
         "--agent", a->agents,
         "tuner (default), replay, cli, openai or anthropic; repeatable or a comma list: one per round "
         "(docs/agents.md)")
      ->delimiter(',');
  cmd->add_option("--loop", a->loop_id, "Loop id (default: <definition>-<start's content id>)");
  cmd->add_flag("--ask", a->ask, "On a stall or plateau, ask on stdin for a directive");
  cmd->add_flag("--json", a->json, "Print the summary as JSON");
  cmd->callback([a, &exit_code] { guarded_run(exit_code, [&] { return run_optimize_command(*a); }); });
}

}  // namespace kh::cli
