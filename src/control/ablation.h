// `kharness ablate` (docs/ablation.md): two or more arms of the optimisation loop on one
// definition, from one start, with one budget, one seed, one set of workloads and one
// timing protocol each, differing only in what each arm names: its agents (or model),
// and whether skills and the profile evidence reach them.
//
//   - Each arm is a loop of its own in the archive (`<ablation>/<arm>`), isolated: its
//     memory and steering are its own, so arms never learn from each other; its steps'
//     input seeds are named by the ablation, so arms draw the same inputs.
//   - Arms interleave one round at a time (round-robin by round, the order rotating each
//     round), so that drift of the device falls on all alike.
//   - Each arm stops at its own budget (rounds, candidates, wall time of its own rounds,
//     tokens its agents report); LoopRunner enforces it, so budgets are equal by
//     construction.
//   - At the end the start and each arm's best are measured head to head (robust
//     protocol, `final_passes` passes in alternating order): the paired difference.
//   - The manifest (pseudo-loop `ablation:<id>`) keeps the arms, budget and seed; a
//     second run with other arms or budget is refused, the same command resumes: every
//     recorded evaluation is reused, nothing is lost.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agents/agent.h"
#include "archive/archive.h"
#include "control/loop_config.h"
#include "control/optimize_loop.h"
#include "report/head_to_head.h"

namespace kh::control {

struct AblationArm {
  std::string name;                 // letters, digits, '.', '_', '-'
  std::vector<std::string> agents;  // as named (tuner, replay, cli, openai, anthropic)
  std::string model;                // the chat agents' model, when the arm names one
  bool skills = true;
  bool evidence = true;
  std::vector<std::shared_ptr<agents::Agent>> made;  // the agents themselves

  // What the manifest keeps of the arm (no agent objects, no keys).
  [[nodiscard]] nlohmann::ordered_json json() const;
};

struct AblationConfig {
  std::string id;                 // empty: <definition>-ablation-<12 hex of the start and the arms>
  LoopConfig base;                // start, target, budget, promotion, seed, workspaces, progress; no agents
  std::vector<AblationArm> arms;  // two or more, names unique
  int final_passes = 2;           // head-to-head passes at the end (0: none)
};

struct AblationSummary {
  std::string id;
  bool resumed = false;
  std::uint64_t seed = 0;
  std::vector<std::string> arms;
  std::vector<LoopSummary> loops;  // one per arm, in arm order
  std::optional<report::HeadToHead> head_to_head;

  [[nodiscard]] nlohmann::ordered_json json() const;
};

// The manifest scope of an ablation, and the loop id of one of its arms.
[[nodiscard]] std::string ablation_scope(std::string_view id);
[[nodiscard]] std::string arm_loop_id(std::string_view id, std::string_view arm);
[[nodiscard]] std::string ablation_id_of(const AblationConfig& config);

// Throws kh::Error for a bad config (fewer than two arms, a repeated or malformed name),
// for an ablation recorded with other arms, budget or start, and for what run_optimize
// throws; what was recorded stays, and the same command resumes.
[[nodiscard]] AblationSummary run_ablation(archive::Archive& archive, const AblationConfig& config);

}  // namespace kh::control
