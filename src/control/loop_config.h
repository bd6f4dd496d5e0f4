// Everything `kharness optimize` decides before its first round: what to optimise, from
// where, with which agents, within which budgets, and how to measure.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "control/promotion.h"
#include "control/step_runner.h"
#include "trace/solution.h"

namespace kh::control {

struct LoopBudget {
  std::int64_t rounds = 3;                 // rounds, counting those of earlier runs of this loop
  std::int64_t max_candidates = 40;        // candidates evaluated in all, over every round
  std::optional<double> time_s;            // wall seconds of this run and the loop's finished rounds
  std::optional<std::int64_t> max_tokens;  // input + output tokens the agents report, over every round
};

struct LoopConfig {
  std::string loop_id;                   // empty: <definition>-<first 12 of the start's content id>
  Solution start;                        // the first retained best
  std::string start_text;                // its JSON exactly (its canonical hash names it)
  std::string start_role = "candidate";  // "baseline" when it is the operator's baseline
  std::vector<std::shared_ptr<agents::Agent>> agents;  // the controller picks one per stage
  // Agents' workspaces (docs/agents.md): <root>/<loop>/r<round>-<stage>; empty: none
  // (the tuner and replay need none; cli, openai and anthropic do).
  std::filesystem::path workspace_root;
  std::chrono::seconds agent_timeout{600};  // one proposal, wall clock
  LoopTarget target;
  LoopBudget budget;
  PromotionRule promotion;
  std::optional<std::uint64_t> seed;  // unset: drawn once and kept in the loop's manifest
  bool ask = false;                   // on a plateau or stall, ask a person (stdin) for a directive
  // What reaches the agents; an ablation arm may switch either off (docs/ablation.md).
  bool skills = true;    // the composed skills, in the workspace and the prompt
  bool evidence = true;  // the round's diagnosis: for hypothesis choice and in the workspace
  // An ablation arm: memory and steering of this loop alone (no definition-wide memory or
  // directives), so that arms run side by side never learn from each other.
  bool isolated = false;
  // Names the steps' input seeds instead of the loop id (empty: the loop id), so that arms
  // of one ablation draw the same inputs for the same step.
  std::string seed_scope;
  std::vector<std::string> command_line;
  // Where the loop's evaluations run: this host's lanes, or a Slurm cluster (a round's
  // candidates side by side either way); null: here, on the default device.
  std::shared_ptr<scale::Executor> executor;
  std::function<void(const std::string&)> progress;           // a line for stderr
  std::function<std::string(const std::string&)> ask_person;  // question -> answer ("" when none)
};

}  // namespace kh::control
