#include "cli/optimize_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "agents/agent_factory.h"
#include "agents/replay_agent.h"
#include "agents/tuner_agent.h"
#include "archive/set_files.h"
#include "cli/backend_choice.h"
#include "cli/executor_options.h"
#include "cli/invocation.h"
#include "cli/workload_source.h"
#include "control/loop_state.h"
#include "control/optimize_loop.h"
#include "error/error.h"
#include "eval/operator_library.h"
#include "trace/json_io.h"

namespace kh::cli {
namespace {

struct OptimizeArgs {
  std::string definition, trace_set, from, archive, operators, loop_id;
  std::vector<std::string> agents, replay, agent_configs;
  std::int64_t agent_timeout_s = 600;
  std::string backend = "auto";
  std::int64_t rounds = 3;
  std::int64_t max_candidates = 40;
  std::optional<double> time_s;
  std::optional<std::uint64_t> seed;
  std::optional<int> warmup, iterations, timing_trials, trials;
  int repeats = 2;
  double min_noise = 0.02;
  bool small = false, ask = false, json = false, no_reference_timing = false;
  ExecutorArgs scale_args;  // --gpus, --executor and the Slurm options
};

// The timing of every sweep. --small: light settings for CI and a first look.
control::LoopTarget loop_target(const OptimizeArgs& a, const OperatorLibrary& ops, const LoadedInputs& in,
                                const std::string& backend) {
  control::LoopTarget t;
  t.base = ops.target(in.definition, in.workloads, in.root, Solution{}, backend);
  const OperatorEntry* op = ops.find(a.definition);
  EvalOptions& o = t.official;
  o.backend = backend;
  o.correctness_trials = a.trials.value_or(a.small ? 2 : 3);
  o.warmup = a.warmup.value_or(a.small ? 2 : (op && op->warmup ? *op->warmup : o.warmup));
  o.iterations =
      a.iterations.value_or(a.small ? 20 : (op && op->iterations ? *op->iterations : o.iterations));
  o.timing_trials = a.timing_trials.value_or(3);
  o.time_reference = !a.no_reference_timing;
  if (a.small) {
    o.robust.max_noise = 0.02;
    o.robust.min_time_s = 0.05;
    o.robust.timeout_s = 2;
  }
  t.robust = o;
  t.robust.protocol = TimingProtocol::robust;
  return t;
}

std::string read_text(const std::string& path) { return archive::read_file_text(path); }

// A file, or a unique prefix of an archived solution's content id.
std::pair<Solution, std::string> solution_from(archive::Archive& store, const std::string& spec,
                                               const std::string& field) {
  std::string text;
  std::string where = spec;
  if (std::filesystem::is_regular_file(spec)) {
    text = read_text(spec);
  } else {
    const std::string id = control::resolve_content_id(store, spec, field);
    text = control::archived_solution_text(store, id);
    where = "archive:" + id;
  }
  return {parse_solution(text, Location{where, 0, ""}), text};
}

// --agent-config NAME=CONFIG names its agent; a plain CONFIG serves every agent that has
// no NAME= entry. CONFIG is a JSON file or inline JSON (docs/agents.md).
std::string agent_config_for(const std::vector<std::string>& configs, const std::string& agent) {
  std::string plain;
  for (const std::string& c : configs) {
    const auto eq = c.find('=');
    const bool named = eq != std::string::npos && c.find_first_of("{/.") > eq;
    if (named && c.substr(0, eq) == agent) return c.substr(eq + 1);
    if (!named) plain = c;
  }
  return plain;
}

std::vector<std::shared_ptr<agents::Agent>> make_agents(const OptimizeArgs& a, archive::Archive& store) {
  std::vector<std::string> names = a.agents;
  if (names.empty()) names.emplace_back(a.replay.empty() ? "tuner" : "replay");
  std::vector<std::shared_ptr<agents::Agent>> out;
  for (const std::string& n : names) {
    if (n == "tuner") {
      out.push_back(std::make_shared<agents::TunerAgent>());
    } else if (n == "replay") {
      if (a.replay.empty())
        throw Error(Location{"", 0, "--replay"}, "the replay agent needs --replay FILE|ID...");
      std::vector<agents::ReplayItem> items;
      for (const std::string& spec : a.replay) {
        auto [s, text] = solution_from(store, spec, "--replay");
        items.push_back(agents::ReplayItem{std::move(s), "replay", spec});
      }
      out.push_back(std::make_shared<agents::ReplayAgent>(std::move(items)));
    } else {
      out.push_back(agents::make_agent(agents::agent_spec(n, agent_config_for(a.agent_configs, n))));
    }
  }
  return out;
}

std::string ask_on_stdin(const std::string& question) {
  fmt::print(stderr, "{}\n> ", question);
  std::fflush(stderr);
  std::string answer;
  std::getline(std::cin, answer);
  return answer;
}

void print_summary(const control::LoopSummary& s) {
  fmt::print("loop {}: {} round(s) ({} this run), {} candidate(s); stopped by {}\n", s.loop_id, s.rounds,
             s.rounds_this_run, s.candidates, s.stopped_by);
  for (const archive::Decision& d : s.decisions) {
    fmt::print("  round {:>3}  {:<14} {}\n", d.round, archive::decision_kind_name(d.kind),
               d.evidence.value("reason", ""));
  }
  fmt::print("start {} ({})\nbest  {} ({})\n", s.start.solution.name, s.start.content_id.substr(0, 12),
             s.best.solution.name, s.best.content_id.substr(0, 12));
  if (s.speedup)
    fmt::print("speedup over start: {:.3f}x (product of the promotions' paired speedups)\n", *s.speedup);
  fmt::print("evaluations: {} measured, {} reused from the archive\n", s.measured, s.reused);
}

int run_optimize_command(const OptimizeArgs& a) {
  const OperatorLibrary ops = operator_library(a.operators);
  const std::string backend = pick_backend(a.backend);
  const LoadedInputs in = load_definition_workloads(a.trace_set, a.definition, ops, a.small);
  archive::Archive store = archive::Archive::open_or_create(a.archive);
  control::LoopConfig c;
  c.loop_id = a.loop_id;
  if (a.from.empty()) {
    c.start = ops.baseline(a.definition, backend);
    c.start_text = write_solution(c.start);
    c.start_role = "baseline";
  } else {
    std::tie(c.start, c.start_text) = solution_from(store, a.from, "--from");
  }
  c.agents = make_agents(a, store);
  c.workspace_root = std::filesystem::path(a.archive) / "workspaces";
  c.agent_timeout = std::chrono::seconds(a.agent_timeout_s);
  c.target = loop_target(a, ops, in, backend);
  c.budget = control::LoopBudget{a.rounds, a.max_candidates, a.time_s};
  c.promotion = control::PromotionRule{a.repeats, a.min_noise};
  c.seed = a.seed;
  c.ask = a.ask;
  if (a.ask) c.ask_person = ask_on_stdin;
  c.command_line = invocation();
  c.executor = scale::make_executor(executor_settings(a.scale_args, backend));
  c.progress = [](const std::string& line) {
    fmt::print(stderr, "{}\n", line);
    std::fflush(stderr);
  };
  const control::LoopSummary s = control::run_optimize(store, c);
  if (a.json) {
    fmt::print("{}\n", s.json().dump(2));
  } else {
    print_summary(s);
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
  cmd->add_option("--definition", a->definition, "Definition name")->required();
  cmd->add_option("--trace-set", a->trace_set,
                  "FlashInfer-Trace folder with the definition and its workloads")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--from", a->from,
                  "Starting solution: a JSON file or a unique prefix of an archived content id (default: the "
                  "operator's baseline for the backend)");
  cmd->add_option(
         "--agent", a->agents,
         "tuner (default), replay, cli, openai or anthropic; repeatable or a comma list: one per round "
         "(docs/agents.md)")
      ->delimiter(',');
  cmd->add_option("--agent-config", a->agent_configs,
                  "An agent's JSON config, a file or inline: CONFIG for every configurable agent, or "
                  "NAME=CONFIG (repeatable); keys in docs/agents.md");
  cmd->add_option("--agent-timeout", a->agent_timeout_s, "Seconds one proposal of an agent may take (600)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--replay", a->replay,
                  "Solutions the replay agent re-proposes: files or content id prefixes");
  cmd->add_option("--rounds", a->rounds, "Rounds in all, counting those of earlier runs of this loop")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-candidates", a->max_candidates, "Candidates evaluated in all")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--time", a->time_s, "Wall seconds in all (finished rounds of earlier runs count)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--archive", a->archive, "Archive folder: the loop's state, evaluations and decisions")
      ->required();
  cmd->add_option("--backend", a->backend, "cuda, cpu, or auto (cuda where a GPU is present)")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  cmd->add_option("--seed", a->seed, "Seed of the loop (agents and input sets); default: drawn once, kept");
  cmd->add_option("--loop", a->loop_id, "Loop id (default: <definition>-<start's content id>)");
  cmd->add_option("--operators", a->operators, "Folder of kharness operators (references, baselines)");
  cmd->add_option("--repeats", a->repeats, "Paired repeats a promotion must win (at least 2)")
      ->check(CLI::Range(2, 10));
  cmd->add_option("--min-noise", a->min_noise, "Noise floor: smaller gains are never trusted (0.02)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--trials", a->trials, "Correctness trials per sweep")->check(CLI::PositiveNumber);
  cmd->add_option("--warmup", a->warmup, "Warm-up calls (official protocol)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--iterations", a->iterations, "Timed iterations per trial (official protocol)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--timing-trials", a->timing_trials, "Timing trials (official protocol)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--no-reference-timing", a->no_reference_timing,
                "Do not time the reference (no speedup in traces)");
  cmd->add_flag("--small", a->small, "The operator's small CI workloads and light timing");
  cmd->add_flag("--ask", a->ask, "On a stall or plateau, ask on stdin for a directive");
  cmd->add_flag("--json", a->json, "Print the summary as JSON");
  add_executor_options(cmd, a->scale_args);
  cmd->callback([a, &exit_code] {
    try {
      exit_code = run_optimize_command(*a);
    } catch (const Error& e) {
      fmt::print(stderr, "error: {}\n", e.what());
      exit_code = 2;
    }
  });
}

}  // namespace kh::cli
