#include "cli/loop_options.h"

#include <fmt/format.h>

#include <filesystem>

#include "cli/agent_choice.h"
#include "cli/backend_choice.h"
#include "cli/invocation.h"
#include "cli/sandbox_option.h"
#include "cli/workload_source.h"
#include "eval/operator_library.h"
#include "trace/json_io.h"

namespace kh::cli {
namespace {

// The timing of every sweep. --small: light settings for CI and a first look.
control::LoopTarget loop_target(const LoopOptions& a, const OperatorLibrary& ops, const LoadedInputs& in,
                                const std::string& backend) {
  control::LoopTarget t;
  t.base = ops.target(in.definition, in.workloads, in.root, Solution{}, backend);
  const OperatorEntry* op = ops.find(a.definition);
  EvalOptions& o = t.options;
  o.backend = backend;
  o.correctness_trials = a.trials.value_or(a.small ? 2 : 3);
  o.protocol = loop_protocol_from(a.protocol, op, a.small);
  o.time_reference = !a.no_reference_timing;
  return t;
}

}  // namespace

void add_loop_options(CLI::App* cmd, LoopOptions& o) {
  cmd->add_option("--definition", o.definition, "Definition name")->required();
  cmd->add_option("--trace-set", o.trace_set, "FlashInfer-Trace folder with the definition and its workloads")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--from", o.from,
                  "Starting solution: a JSON file or a unique prefix of an archived content id (default: the "
                  "operator's baseline for the backend)");
  cmd->add_option("--agent-config", o.agent_configs,
                  "An agent's JSON config, a file or inline: CONFIG for every configurable agent, or "
                  "NAME=CONFIG (repeatable); keys in docs/agents.md");
  cmd->add_option("--agent-timeout", o.agent_timeout_s, "Seconds one proposal of an agent may take (600)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--replay", o.replay,
                  "Solutions the replay agent re-proposes: files or content id prefixes");
  cmd->add_option("--rounds", o.rounds, "Rounds in all, counting those of earlier runs of this loop")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-candidates", o.max_candidates, "Candidates evaluated in all")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--time", o.time_s, "Wall seconds in all (finished rounds of earlier runs count)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-tokens", o.max_tokens,
                  "Input + output tokens the agents report, in all (checked before each proposal)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--archive", o.archive, "Archive folder: the loop's state, evaluations and decisions")
      ->required();
  cmd->add_option("--backend", o.backend, "cuda, cpu, or auto (cuda where a GPU is present)")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  cmd->add_option("--seed", o.seed, "Seed of the loop (agents and input sets); default: drawn once, kept");
  cmd->add_option("--operators", o.operators, "Folder of kharness operators (references, baselines)");
  cmd->add_option("--repeats", o.repeats, "Paired repeats a promotion must win (at least 2)")
      ->check(CLI::Range(2, 10));
  cmd->add_option("--min-noise", o.min_noise, "Noise floor: smaller gains are never trusted (0.02)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--objective", o.objective,
                  "How the workloads weigh when two solutions are compared (gates, promotion, the "
                  "reported speedup): geomean (each workload once) or mean (each by its latency, as a "
                  "contest's mean latency)")
      ->check(CLI::IsMember({"geomean", "mean"}));
  cmd->add_option("--rebaseline-after", o.rebaseline_after_s,
                  "Seconds: candidate sweeps later than this after the retained best's sweep they are "
                  "compared with are compared with the best measured again right after them (60; 0: always)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--trials", o.trials, "Correctness trials per sweep")->check(CLI::PositiveNumber);
  add_protocol_options(cmd, o.protocol, false);
  cmd->add_flag("--no-reference-timing", o.no_reference_timing,
                "Do not time the reference (no speedup in traces)");
  cmd->add_flag("--small", o.small, "The operator's small CI workloads and light timing");
  add_sandbox_option(cmd, o.sandbox);
  add_executor_options(cmd, o.scale);
}

control::LoopConfig loop_config(const LoopOptions& o, archive::Archive& store) {
  apply_sandbox_option(o.sandbox, "optimize");
  const OperatorLibrary ops = operator_library(o.operators);
  const std::string backend = pick_backend(o.backend);
  const LoadedInputs in = load_definition_workloads(o.trace_set, o.definition, ops, o.small);
  control::LoopConfig c;
  if (o.from.empty()) {
    c.start = ops.baseline(o.definition, backend);
    c.start_text = write_solution(c.start);
    c.start_role = "baseline";
  } else {
    std::tie(c.start, c.start_text) = solution_from(store, o.from, "--from");
  }
  c.workspace_root = std::filesystem::path(o.archive) / "workspaces";
  c.agent_timeout = std::chrono::seconds(o.agent_timeout_s);
  c.target = loop_target(o, ops, in, backend);
  c.budget = control::LoopBudget{o.rounds, o.max_candidates, o.time_s, o.max_tokens};
  c.promotion = control::PromotionRule{
      o.repeats, o.min_noise, control::parse_objective(o.objective).value_or(control::Objective::geomean),
      o.rebaseline_after_s};
  c.seed = o.seed;
  c.command_line = invocation();
  c.executor = scale::make_executor(executor_settings(o.scale, backend));
  c.progress = [](const std::string& line) {
    fmt::print(stderr, "{}\n", line);
    std::fflush(stderr);
  };
  return c;
}

}  // namespace kh::cli
